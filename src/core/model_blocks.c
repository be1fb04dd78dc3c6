#include "src/core/model_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"
#include "src/core/binning.h"
#include "src/core/names.h"
#include "src/core/pool.h"

/* ---- blocks waiting for their kernel ------------------------------------------
 * Kernel records come up to a flush period after their blocks (and a running
 * kernel's blocks before its record at all): at 20 M blocks/s that is up to a
 * million blocks.  They wait grouped by grid, so that a flush looks each grid
 * up once instead of every block again. */

/* The hash of the waiting grids anew, after some left. */
static int phash_rebuild(struct model *m)
{
	u64map_free(&m->phash);
	if (u64map_reserve(&m->phash, m->n_pending_grids))
		return -1;
	for (size_t i = 0; i < m->n_pending_grids; i++) {
		const struct model_pending *g = &m->pending[i];
		u64map_add(&m->phash, records_kernel_key(g->pid, g->device_id, g->grid_id), i);
	}
	return 0;
}

static struct model_pending *pending_grid(struct model *m, uint32_t pid, uint32_t ctx,
					  uint32_t dev, uint64_t grid)
{
	uint64_t key = records_kernel_key(pid, dev, grid);
	size_t pos = 0;
	for (const uint64_t *v; (v = u64map_next(&m->phash, key, &pos));) {
		struct model_pending *g = &m->pending[*v];
		if (g->grid_id == grid && g->pid == pid && g->device_id == dev)
			return g;
	}
	if (array_grow((void **)&m->pending, &m->cap_pending, m->n_pending_grids + 1,
		       sizeof *m->pending) ||
	    u64map_add(&m->phash, key, m->n_pending_grids))
		return NULL;
	struct model_pending *g = &m->pending[m->n_pending_grids++];
	*g = (struct model_pending){ pid, ctx, dev, grid, NULL, 0, 0 };
	return g;
}

/* Parks b[0..n), blocks of one grid; past MODEL_PENDING_MAX they are lost
 * to the view (counted in blocks_orphan). */
static int pending_push(struct model *m, const struct smtop_block *b, size_t n, uint32_t pid,
			uint32_t ctx)
{
	size_t room = MODEL_PENDING_MAX - m->n_pending, take = n < room ? n : room;
	m->blocks_orphan += n - take;
	if (!take)
		return 0;
	struct model_pending *g = pending_grid(m, pid, ctx, b->device_id, b->grid_id);
	if (!g || array_grow((void **)&g->blocks, &g->cap, g->n + take, sizeof *g->blocks))
		return -1;
	memcpy(&g->blocks[g->n], b, take * sizeof *b);
	g->n += take;
	m->n_pending += take;
	return 0;
}

static int model_add_blocks_to(struct model *m, const struct smtop_block *b, size_t n,
			       uint32_t pid, uint32_t ctx);

/* Places the waiting grids whose kernel (and the device) is now known. */
int model_blocks_retry(struct model *m)
{
	size_t keep = 0;
	int rc = 0;
	for (size_t i = 0; i < m->n_pending_grids; i++) {
		struct model_pending g = m->pending[i];
		if (!rc && m->has_device && model_find_kernel(m, g.pid, g.device_id, g.grid_id) >= 0) {
			m->n_pending -= g.n;
			rc = model_add_blocks_to(m, g.blocks, g.n, g.pid, g.context_id);
			free(g.blocks);
			continue;
		}
		m->pending[keep++] = g;
	}
	if (keep == m->n_pending_grids)
		return rc;
	m->n_pending_grids = keep;
	return phash_rebuild(m) ? -1 : rc;
}

static int block_place(struct model *m, const struct smtop_block *b, uint32_t pid, uint32_t ctx,
		       int may_pend)
{
	if (!m->has_device)
		return may_pend ? pending_push(m, b, 1, pid, ctx) : 1;
	if (b->sm >= m->n_sm) {
		m->blocks_bad_sm++;
		return 0;
	}
	if (b->end <= b->start)
		return 0;
	/* a chunk holds runs of one grid's blocks: look it up once per run */
	long ki = m->last_kernel;
	if (ki < 0 || b->grid_id != m->last_grid || pid != m->last_pid ||
	    b->device_id != m->last_dev) {
		ki = model_find_kernel_seen(m, pid, b->device_id, b->grid_id);
		if (ki < 0)
			return may_pend ? pending_push(m, b, 1, pid, ctx) : 1;
		m->last_kernel = ki;
		m->last_grid = b->grid_id;
		m->last_pid = pid;
		m->last_dev = b->device_id;
	}
	struct model_kernel *k = &m->kernels[ki];
	if (model_kernel_note_blocks(m, k, b->start, b->end, 1))
		return -1;
	m->streams[k->stream].blocks++;
	m->blocks++;
	model_note_time(m, b->start, b->end);
	return model_stage_block(m, k, b);
}

int model_add_block(struct model *m, const struct smtop_block *b, uint32_t pid,
		    uint32_t context_id)
{
	int r = block_place(m, b, pid, context_id, 1);
	m->generation++;
	return r < 0 ? -1 : 0;
}

/* A chunk is runs of one kernel's blocks on one SM: the kernel is looked up,
 * its counters change and the stage grows, once per run (b[0] is valid). */
static size_t place_run(struct model *m, const struct smtop_block *b, size_t n, long ki,
			int *rc)
{
	struct model_kernel *k = &m->kernels[ki];
	uint64_t first = UINT64_MAX, last = 0;
	size_t j = 0;
	for (; j < n; j++) {
		const struct smtop_block *y = &b[j];
		if (y->grid_id != b->grid_id || y->sm != b->sm || y->end <= y->start)
			break;
		first = y->start < first ? y->start : first;
		last = y->end > last ? y->end : last;
	}
	uint32_t threads = model_kernel_threads(m, k);
	int r = model_draws(m, model_kstream(m, k)->device_id)
		? binning_push_blocks(m->binning, b->sm, b, j, m->origin, threads ? threads : 1,
				      k->stream)
		: 0;
	if (r && (r < 0 || model_blocks_bin_staged(m)))
		*rc = -1;
	if (j && model_kernel_note_blocks(m, k, first, last, j))
		*rc = -1;
	m->streams[k->stream].blocks += j;
	m->blocks += j;
	model_note_time(m, first, last);
	return j;
}

/* Blocks of one grid from b[0] on (the run a chunk holds). */
static size_t grid_run(const struct smtop_block *b, size_t n)
{
	size_t j = 1;
	while (j < n && b[j].grid_id == b[0].grid_id)
		j++;
	return j;
}

static int model_add_blocks_to(struct model *m, const struct smtop_block *b, size_t n,
			       uint32_t pid, uint32_t context_id)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (b[i].start > m->t_block_last)
			m->t_block_last = b[i].start;
	for (size_t i = 0; i < n && !rc;) {
		const struct smtop_block *x = &b[i];
		long ki = -1;
		if (m->has_device && m->has_origin && x->sm < m->n_sm && x->end > x->start) {
			ki = m->last_kernel;
			if (ki < 0 || x->grid_id != m->last_grid || pid != m->last_pid ||
			    x->device_id != m->last_dev)
				ki = model_find_kernel_seen(m, pid, x->device_id, x->grid_id);
			if (ki < 0) {
				/* the grid's record has not come: its run waits */
				size_t r = grid_run(x, n - i);
				rc = pending_push(m, x, r, pid, context_id);
				i += r;
				continue;
			}
		}
		if (ki < 0) {
			/* the one-block way: bad SMs, empty blocks, the first block */
			rc = block_place(m, x, pid, context_id, 1) < 0 ? -1 : 0;
			i++;
			continue;
		}
		m->last_kernel = ki;
		m->last_grid = x->grid_id;
		m->last_pid = pid;
		m->last_dev = x->device_id;
		i += place_run(m, x, n - i, ki, &rc);
	}
	return rc;
}

int model_add_blocks(struct model *m, const struct smtop_block *b, size_t n, uint32_t pid,
		     uint32_t context_id)
{
	int rc = model_add_blocks_to(m, b, n, pid, context_id);
	m->generation++;
	return rc;
}

void model_set_pool(struct model *m, struct pool *p)
{
	m->pool = p;
}

/* Fullness without a known limit is relative to the busiest finest bin. */
int model_blocks_bin_staged(struct model *m)
{
	if (!m->has_device || !binning_staged(m->binning))
		return 0;
	int64_t smin, emax;
	binning_extent(m->binning, &smin, &emax);
	if (model_rings_fit(m, smin, emax))
		return -1;
	double *peak = m->dev.max_threads_per_sm ? NULL : &m->peak_threads;
	if (binning_apply(m->binning, m->levels, m->n_sm, (uint32_t)m->n_streams, m->pool, peak))
		return -1;
	m->generation++;
	return 0;
}
