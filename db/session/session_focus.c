#include "db/session/session_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/blockcodec.h"
#include "db/events.h"
#include "src/core/analysis.h"
#include "src/core/array.h"
#include "src/core/model.h"
#include "src/core/pool.h"
#include "src/core/residency.h"

/* The kernel record of a model kernel, for its correlation id. */
struct focus_record {
	uint32_t pid, device_id;
	uint64_t grid_id, start;
	uint32_t correlation_id;
};

static int focus_kernel_record(void *ud, const struct smtop_kernel *k)
{
	struct focus_record *f = ud;
	if (k->grid_id == f->grid_id && k->pid == f->pid && k->device_id == f->device_id &&
	    k->start == f->start)
		f->correlation_id = k->correlation_id;
	return 0;
}

/* The blocks of one grid that the model has: the SMs they ran on, and the
 * most of them on one SM at once (counted as the analysis counts it). */
struct focus_grid {
	uint32_t pid, device_id;
	uint64_t grid_id, last;
	uint64_t mask[MODEL_MAX_SMS / 64];
	struct residency res;
	int most;                       /* -1: out of memory */
};

static int focus_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct focus_grid *g = ud;
	(void)ctx;
	if (b->grid_id != g->grid_id || pid != g->pid || b->device_id != g->device_id ||
	    b->start > g->last || b->sm >= MODEL_MAX_SMS)
		return 0;
	g->mask[b->sm / 64] |= 1ULL << (b->sm % 64);
	if (g->most >= 0)
		g->most = residency_add(&g->res, b->sm, pid, 0, b->start, b->end, g->most);
	return 0;
}

/* Where session_focus_more is: the kernel, what its blocks gave so far, and
 * the walk through each file's chunks over its window. */
struct session_focus {
	struct model *m;
	long k;
	uint64_t first;
	struct focus_grid g;
	size_t src;
	struct db_block_walk w;
};

void session_focus_end(struct session *s)
{
	if (!s->focus)
		return;
	residency_free(&s->focus->g.res);
	free(s->focus);
	s->focus = NULL;
}

int session_focus_start(struct session *s, struct model *m, long k)
{
	session_focus_end(s);
	model_focus_kernel(m, -1, 0, 0, 0, 0);
	if (k < 0 || (size_t)k >= m->n_kernels)
		return 0;
	struct session_focus *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	const struct model_kernel *mk = &m->kernels[k];
	const struct model_stream *st = &m->streams[mk->stream];
	f->m = m;
	f->k = k;
	f->first = model_kernel_first_block(m, mk);
	f->g.pid = st->pid;
	f->g.device_id = st->device_id;
	f->g.grid_id = model_kernel_grid(m, mk);
	f->g.last = model_kernel_last_block(m, mk);
	residency_init(&f->g.res);
	if (f->first && f->g.last >= f->first)
		db_reader_walk_begin(&f->w, f->first, f->g.last + 1);
	else
		f->src = s->n_src; /* no blocks: nothing to walk */
	s->focus = f;
	return 0;
}

/* The walk is through: the kernel's correlation id, and the focus set. */
static int focus_finish(struct session *s)
{
	struct session_focus *f = s->focus;
	struct model *m = f->m;
	if ((size_t)f->k >= m->n_kernels) {
		session_focus_end(s); /* the model was built again meanwhile (a replay's step back) */
		return 0;
	}
	const struct model_kernel *mk = &m->kernels[f->k];
	uint32_t n = 0;
	for (size_t i = 0; i < MODEL_MAX_SMS / 64; i++)
		n += (uint32_t)__builtin_popcountll(f->g.mask[i]);
	struct focus_record rec = { f->g.pid, f->g.device_id, f->g.grid_id, mk->start, 0 };
	int rc = session_kernels(s, mk->start, mk->start + 1, focus_kernel_record, &rec);
	if (rc == 0) {
		model_focus_kernel(m, f->k, model_kernel_blocks_seen(m, mk), 1, n, rec.correlation_id);
		m->focus.most_per_sm = f->g.most > 0 ? (uint32_t)f->g.most : 0;
	}
	session_focus_end(s);
	return rc;
}

int session_focus_more(struct session *s, size_t max_chunks)
{
	struct session_focus *f = s->focus;
	if (!f)
		return 0;
	while (f->src < s->n_src) {
		int r = db_reader_walk_blocks(s->src[f->src].reader, &f->w, max_chunks, focus_block,
					      &f->g);
		if (r < 0) {
			session_focus_end(s);
			return -1;
		}
		if (r > 0)
			return 1;
		/* this file is through: the same window in the next */
		f->src++;
		db_reader_walk_begin(&f->w, f->w.t0, f->w.t1);
	}
	return focus_finish(s) == 0 ? 0 : -1;
}

int session_focus_kernel(struct session *s, struct model *m, long k)
{
	if (session_focus_start(s, m, k) != 0)
		return -1;
	int r;
	while ((r = session_focus_more(s, SESSION_DETAIL_CHUNKS)) > 0)
		;
	return r;
}

int session_focus_event(struct session *s, struct model *m, long e)
{
	struct smtop_culprit *c;
	size_t n;
	char err[512];
	if (e < 0 || (size_t)e >= m->n_events)
		return 0;
	if (db_events_culprits(session_results_path(s), &m->events[e].ev, &c, &n, err,
			       sizeof err) != 0)
		return -1;
	model_focus_culprits(m, e, c, n);
	return 0;
}

static int detail_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	(void)ctx;
	return model_detail_add_block(ud, b, pid) == 0 ? 0 : 1;
}

int session_fill_detail(struct session *s, uint64_t t0, uint64_t t1)
{
	model_detail_begin(s->model, t0, t1);
	int rc = session_blocks(s, t0, t1, detail_block, s->model);
	model_detail_end(s->model);
	return rc;
}

void session_detail_start(struct session *s, uint64_t t0, uint64_t t1)
{
	s->detail.src = 0;
	db_reader_walk_begin(&s->detail.w, t0, t1);
}

int session_detail_more(struct session *s, size_t max_chunks)
{
	while (s->detail.src < s->n_src) {
		int r = db_reader_walk_blocks(s->src[s->detail.src].reader, &s->detail.w, max_chunks,
					      detail_block, s->model);
		if (r != 0)
			return r;
		/* this file is through: the same window in the next */
		s->detail.src++;
		db_reader_walk_begin(&s->detail.w, s->detail.w.t0, s->detail.w.t1);
	}
	return 0;
}
