#include "src/core/analysis_grids.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/analysis_state.h"
#include "src/core/array.h"
#include "src/core/clusters.h"
#include "src/core/profile.h"

#define START_LINK_MIN_NS 1024

static const uint8_t *grid_packed(const struct grid_table *gt, const struct grid *g)
{
	return gt->packs + (uintptr_t)g->data;
}

/* The grid's profile, unpacked into tmp when packed; NULL for exact grids. */
static const struct profile *grid_profile(const struct grid_table *gt, const struct grid *g,
					  struct profile *tmp)
{
	if (g->form == GRID_PROFILE)
		return g->data;
	if (g->form != GRID_PACKED)
		return NULL;
	profile_unpack(grid_packed(gt, g), tmp);
	return tmp;
}

/* ---- grids ---- */

static const struct span *grid_exact(const struct grid *g)
{
	return g->data;
}

uint64_t analysis_grids_overlap(const struct grid_table *gt, const struct grid *g, uint64_t a,
				uint64_t b, uint32_t *blocks)
{
	struct profile tmp;
	const struct profile *p = grid_profile(gt, g, &tmp);
	if (p)
		return profile_overlap(p, a, b, blocks);
	const struct span *exact = grid_exact(g);
	uint64_t sum = 0;
	*blocks = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t o = overlap(exact[i].s, exact[i].e, a, b);
		int resident = exact[i].s < b && exact[i].e > a;
		sum += o;
		*blocks += resident;
	}
	return sum;
}

/* Block starts of a profiled grid are clustered this close: a question
 * about an interval longer than the link is answered exactly (see
 * analysis_grids_started_between).  The floor bounds the clusters of a grid when the
 * threshold is tiny. */
void analysis_grids_init(struct grid_table *gt, uint64_t blocking_threshold_ns)
{
	gt->start_link = umax(blocking_threshold_ns, START_LINK_MIN_NS);
	gt->last_grid = -1;
}

/* Did the grid start a block after r and before l (both exclusive)?  First
 * and last starts answer most cases, the clusters of starts the rest; only
 * an interval not longer than the link inside one cluster falls back on the
 * profile's estimate. */
int analysis_grids_started_between(const struct grid_table *gt, const struct grid *g, uint64_t r,
				   uint64_t l)
{
	if (g->last_start <= r || g->first_start >= l)
		return 0;
	if (g->first_start > r || g->last_start < l)
		return 1;
	struct profile tmp;
	const struct profile *p = NULL;
	int known = -1;
	if (g->form == GRID_PROFILE) {
		p = g->data;
		known = clusters_any_between(&p->start_runs, r, l, gt->start_link);
	} else if (g->form == GRID_PACKED) {
		const uint8_t *runs = profile_unpack_bins(grid_packed(gt, g), &tmp);
		p = &tmp;
		known = profile_runs_any_between(runs, tmp.lo, r, l, gt->start_link);
	}
	if (p)
		return known >= 0 ? known : profile_starts_between(p, r, l) >= 0.5;
	const struct span *exact = grid_exact(g);
	for (uint32_t i = 0; i < g->n; i++)
		if (exact[i].s > r && exact[i].s < l)
			return 1;
	return 0;
}


/* An unpacked profile is hot: it is packed once its blocks have stopped
 * coming (analysis_grids_hot_sweep). */
static int hot_push(struct grid_table *gt, int32_t gi)
{
	if (array_grow((void **)&gt->hot, &gt->cap_hot, gt->n_hot + 1, sizeof *gt->hot))
		return -1;
	gt->hot[gt->n_hot++] = gi;
	return 0;
}

static int grid_to_profile(struct grid_table *gt, int32_t gi)
{
	struct grid *g = &gt->grids[gi];
	const struct span *exact = grid_exact(g);
	if (hot_push(gt, gi))
		return -1;
	struct profile *p = profile_new(exact[0].s, exact[0].e);
	if (!p) {
		gt->n_hot--;
		return -1;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		profile_add(p, exact[i].s, exact[i].e);
		if (clusters_add(&p->start_runs, exact[i].s, gt->start_link)) {
			profile_free(p);
			gt->n_hot--;
			return -1;
		}
	}
	free(g->data);
	g->data = p;
	g->form = GRID_PROFILE;
	g->exact_cap = 0;
	return 0;
}

/* A packed grid whose blocks came again (late or out of order). */
static int grid_unpack(struct grid_table *gt, int32_t gi)
{
	struct grid *g = &gt->grids[gi];
	if (hot_push(gt, gi))
		return -1;
	struct profile *p = malloc(sizeof *p);
	if (!p) {
		gt->n_hot--;
		return -1;
	}
	const uint8_t *from = grid_packed(gt, g);
	const uint8_t *runs = profile_unpack_bins(from, p);
	const uint8_t *end = profile_runs_unpack(runs, p->lo, &p->start_runs);
	if (!end) {
		free(p);
		gt->n_hot--;
		return -1;
	}
	gt->packs_dead += (size_t)(end - from);
	g->data = p;
	g->form = GRID_PROFILE;
	return 0;
}

/* Blocks of a kernel come within a flush period or two of its end (the
 * collector's writer commits every 50 ms); a profile that has not grown
 * this long behind the latest block is packed. */
#define PACK_AFTER_NS 100000000ull

static int cmp_packed_at(const void *x, const void *y, void *ctx)
{
	const struct grid_table *gt = ctx;
	uintptr_t p = (uintptr_t)gt->grids[*(const int32_t *)x].data;
	uintptr_t q = (uintptr_t)gt->grids[*(const int32_t *)y].data;
	return (p > q) - (p < q);
}

/* Drops the dead bytes of profiles unpacked again: the live ones move down
 * in the order they lie.  Only when out of memory does it leave them. */
static void packs_squeeze(struct grid_table *gt)
{
	size_t n = 0;
	for (size_t i = 0; i < gt->n_grids; i++)
		n += gt->grids[i].form == GRID_PACKED;
	int32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return;
	n = 0;
	for (size_t i = 0; i < gt->n_grids; i++)
		if (gt->grids[i].form == GRID_PACKED)
			order[n++] = (int32_t)i;
	qsort_r(order, n, sizeof *order, cmp_packed_at, gt);
	size_t to = 0;
	for (size_t i = 0; i < n; i++) {
		struct grid *g = &gt->grids[order[i]];
		struct profile tmp;
		size_t from = (uintptr_t)g->data, len = profile_unpack(gt->packs + from, &tmp);
		memmove(gt->packs + to, gt->packs + from, len);
		g->data = (void *)(uintptr_t)to;
		to += len;
	}
	free(order);
	gt->packs_len = to;
	gt->packs_dead = 0;
}

static int grid_pack(struct grid_table *gt, struct grid *g)
{
	struct profile *p = g->data;
	if (gt->packs_dead > gt->packs_len / 2 && gt->packs_dead > (1u << 16))
		packs_squeeze(gt);
	if (array_grow((void **)&gt->packs, &gt->packs_cap, gt->packs_len + profile_packed_max(p), 1))
		return -1;
	size_t len = profile_pack(p, gt->packs + gt->packs_len);
	profile_free(p);
	g->data = (void *)(uintptr_t)gt->packs_len;
	g->form = GRID_PACKED;
	gt->packs_len += len;
	return 0;
}

/* Packs the hot profiles that ended before `before` (all with UINT64_MAX). */
void analysis_grids_hot_sweep_before(struct grid_table *gt, uint64_t before)
{
	size_t keep = 0;
	gt->blocks_at_sweep = gt->blocks;
	for (size_t i = 0; i < gt->n_hot; i++) {
		struct grid *g = &gt->grids[gt->hot[i]];
		if (g->form != GRID_PROFILE)
			continue;
		if ((g->last_end < before || before == UINT64_MAX) && grid_pack(gt, g) == 0)
			continue;
		gt->hot[keep++] = gt->hot[i];
	}
	gt->n_hot = keep;
	array_shrink((void **)&gt->hot, &gt->cap_hot, gt->n_hot, sizeof *gt->hot);
}

void analysis_grids_hot_sweep(struct grid_table *gt)
{
	if (gt->block_end_max > PACK_AFTER_NS)
		analysis_grids_hot_sweep_before(gt, gt->block_end_max - PACK_AFTER_NS);
	else
		gt->blocks_at_sweep = gt->blocks;
}

int32_t analysis_grids_device_index(struct device_table *dt, uint32_t id)
{
	for (size_t i = 0; i < dt->n_devs; i++)
		if (dt->devs[i].id == id)
			return (int32_t)i;
	if (array_grow((void **)&dt->devs, &dt->cap_devs, dt->n_devs + 1, sizeof *dt->devs))
		return -1;
	struct device *d = &dt->devs[dt->n_devs];
	memset(d, 0, sizeof *d);
	d->id = id;
	d->t_min = UINT64_MAX;
	return (int32_t)dt->n_devs++;
}

void analysis_grids_device_extend(struct device *d, uint64_t s, uint64_t e)
{
	if (s && s < d->t_min)
		d->t_min = s;
	if (e > d->t_max)
		d->t_max = e;
}

static int32_t activity_index(struct device *d, uint32_t pid)
{
	for (size_t i = 0; i < d->n_acts; i++)
		if (d->acts[i].pid == pid)
			return (int32_t)i;
	if (array_grow((void **)&d->acts, &d->cap_acts, d->n_acts + 1, sizeof *d->acts))
		return -1;
	d->acts[d->n_acts] = (struct activity){ .pid = pid };
	return (int32_t)d->n_acts++;
}

const struct activity *analysis_grids_activity_find(const struct device *d, uint32_t pid)
{
	for (size_t i = 0; i < d->n_acts; i++)
		if (d->acts[i].pid == pid)
			return &d->acts[i];
	return NULL;
}

uint64_t analysis_grids_key2_of(uint64_t grid_id, uint32_t correlation_id)
{
	return grid_id ? grid_id : (correlation_id | (1ull << 63));
}

uint64_t analysis_grids_key1(uint32_t pid, uint32_t ctx_or_device)
{
	return (uint64_t)pid << 32 | ctx_or_device;
}

/* Kernels and grids meet on (process, device, grid id), not on the context:
 * grid ids are unique per device, and the blocks of a green context's
 * kernels come through the primary context, which owns the module. */
void analysis_grids_kern_key(const void *table, int32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct kernel_table *kt = table;
	const struct kern *k = &kt->kerns[i];
	const struct smtop_stream *s = &kt->streams[k->stream].s;
	*k1 = analysis_grids_key1(s->pid, k->device_id);
	*k2 = analysis_grids_key2_of(k->grid_id, k->correlation_id);
}

void analysis_grids_gnode_key(const void *table, int32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct kernel_table *kt = table;
	const struct kern *k = &kt->kerns[i];
	*k1 = analysis_grids_gnode_key1(kt->streams[k->stream].s.pid, k->correlation_id);
	*k2 = k->graph_node;
}

void analysis_grids_key(const void *table, int32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct grid_table *gt = table;
	const struct grid *g = &gt->grids[i];
	*k1 = analysis_grids_key1(g->pid, g->device_id);
	*k2 = g->grid_id;
}

uint32_t analysis_grids_kern_pid(const struct kernel_table *kt, const struct kern *k)
{
	return kt->streams[k->stream].s.pid;
}

uint32_t analysis_grids_kern_ctx(const struct kernel_table *kt, const struct kern *k)
{
	return kt->streams[k->stream].s.context_id;
}

int32_t analysis_grids_kern_dev(const struct kernel_table *kt, const struct kern *k)
{
	return kt->streams[k->stream].dev;
}

int32_t analysis_grids_create(struct grid_table *gt, struct device_table *dt, uint32_t pid,
			      const struct smtop_block *b)
{
	int32_t dev = analysis_grids_device_index(dt, b->device_id);
	int32_t act = dev < 0 ? -1 : activity_index(&dt->devs[dev], pid);
	if (act < 0 || act > UINT16_MAX ||
	    array_grow((void **)&gt->grids, &gt->cap_grids, gt->n_grids + 1, sizeof *gt->grids))
		return -1;
	int32_t gi = (int32_t)gt->n_grids;
	struct grid *g = &gt->grids[gi];
	memset(g, 0, sizeof *g);
	g->pid = pid;
	g->device_id = b->device_id;
	g->grid_id = b->grid_id;
	g->dev = dev;
	g->form = GRID_EXACT;
	g->act = (uint16_t)act;
	g->first_start = UINT64_MAX;
	g->first_end = UINT64_MAX;
	g->kernel = -1;
	if (analysis_state_imap_put(gt, &gt->grid_map, analysis_grids_key, gi))
		return -1;
	gt->n_grids++;
	return gi;
}

/* One block of a grid with an unpacked profile (GRID_PROFILE). */
static int grid_add_profiled(struct grid_table *gt, struct grid *g, uint64_t s, uint64_t e)
{
	struct profile *p = g->data;
	if (clusters_add(&p->start_runs, s, gt->start_link))
		return -1;
	g->n++;
	profile_add(p, s, e);
	return 0;
}

/* One block of a grid still keeping its blocks (GRID_EXACT); the block
 * past ANALYSIS_EXACT_BLOCKS turns it into a profile. */
static int grid_add_exact(struct grid_table *gt, int32_t gi, uint64_t s, uint64_t e)
{
	struct grid *g = &gt->grids[gi];
	g->n++;
	if (g->n > ANALYSIS_EXACT_BLOCKS) {
		g->n--;
		if (grid_to_profile(gt, gi)) {
			g->n++;
			return -1;
		}
		return grid_add_profiled(gt, g, s, e);
	}
	size_t cap = g->exact_cap;
	if (array_grow(&g->data, &cap, g->n, sizeof(struct span))) {
		g->n--;
		return -1;
	}
	g->exact_cap = (uint8_t)cap;
	((struct span *)g->data)[g->n - 1] = (struct span){ s, e };
	return 0;
}

/* A block of grid g ran on SM sm: the SMs a green context's kernels use
 * (src/core/analysis_partition.c) are read from these. */
static void grid_note_sm(struct grid *g, uint32_t sm)
{
	if (sm < SM_MASK_BITS)
		g->sms.w[sm / 64] |= 1ull << (sm % 64);
	else
		g->sms_far = 1;
}

/* The most of the grid's blocks resident on one SM at once, as the SM's
 * sweep (src/core/residency.h) counts them.  Returns 0 or -1. */
static int grid_note_resident(struct grid_table *gt, struct device *d, struct grid *g, int32_t gi,
			      uint16_t sm, uint64_t s, uint64_t e)
{
	int c = residency_add(&d->res, sm, g->pid, gi, s, e, g->most_per_sm);
	if (c < 0)
		return -1;
	if (c == g->most_per_sm)
		return 0;
	g->most_per_sm = c > UINT16_MAX ? UINT16_MAX : (uint16_t)c;
	return analysis_grids_most_note(gt, gi);
}

/* Grid gi's most_per_sm rose: a viewer hears of it (analysis_most_changed). */
int analysis_grids_most_note(struct grid_table *gt, int32_t gi)
{
	struct grid *g = &gt->grids[gi];
	if (g->most_queued)
		return 0;
	if (array_grow((void **)&gt->most_changed, &gt->cap_most_changed, gt->n_most_changed + 1,
		       sizeof *gt->most_changed))
		return -1;
	gt->most_changed[gt->n_most_changed++] = gi;
	g->most_queued = 1;
	return 0;
}

/* Blocks b[0..n) of grid gi (a chunk's run of one grid): the device's and
 * the grid's extents and the grid's blocks or profile. */
int analysis_grids_add_run(struct grid_table *gt, struct device *d, int32_t gi,
			   const struct smtop_block *b, size_t n)
{
	struct grid *g = &gt->grids[gi];
	if (g->form == GRID_PACKED && grid_unpack(gt, gi))
		return -1;
	uint64_t smin = UINT64_MAX, emax = 0;
	uint32_t sm_top = d->sm_seen;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = b[i].start, e = b[i].end < s ? s : b[i].end;
		if ((uint32_t)b[i].sm + 1 > sm_top)
			sm_top = (uint32_t)b[i].sm + 1;
		if (s && s < smin)
			smin = s;
		if (e > emax)
			emax = e;
		if (s < g->first_start)
			g->first_start = s;
		if (s > g->last_start)
			g->last_start = s;
		if (e > g->last_end)
			g->last_end = e;
		if (e < g->first_end)
			g->first_end = e;
		g->block_time += e - s;
		g->end_bound |= (b[i].flags & SMTOP_BLOCK_END_BOUND) != 0;
		grid_note_sm(g, b[i].sm);
		struct clusters *ev = &d->acts[g->act].ev;
		int err = clusters_add(ev, s, ANALYSIS_SLICE_GAP_NS) ||
			  clusters_add(ev, e, ANALYSIS_SLICE_GAP_NS) ||
			  grid_note_resident(gt, d, g, gi, b[i].sm, s, e);
		if (!err)
			err = g->form == GRID_PROFILE ? grid_add_profiled(gt, g, s, e)
						      : grid_add_exact(gt, gi, s, e);
		if (err) {
			d->sm_seen = sm_top;
			analysis_grids_device_extend(d, smin, emax);
			return -1;
		}
	}
	d->sm_seen = sm_top;
	analysis_grids_device_extend(d, smin == UINT64_MAX ? 0 : smin, emax);
	if (emax > gt->block_end_max)
		gt->block_end_max = emax;
	return 0;
}

const struct grid *analysis_grids_kern_grid(const struct grid_table *gt, const struct kern *k)
{
	/* a shared grid's blocks are of several launches: their kernels are
	 * judged by their own intervals */
	const struct grid *g = k->grid >= 0 ? &gt->grids[k->grid] : NULL;
	return g && g->n && !g->shared ? g : NULL;
}

int analysis_grids_kern_running(const struct kern *k, uint64_t w)
{
	if (!k->end)
		return k->start || w != ANALYSIS_WATERMARK_ALL;
	return k->end > w;
}

/* Resident extent: blocks when known, else the kernel's own interval. */
struct ext analysis_grids_kern_ext(const struct kernel_table *kt, const struct grid_table *gt,
				  int32_t ki, uint64_t w)
{
	const struct kern *k = &kt->kerns[ki];
	const struct grid *g = analysis_grids_kern_grid(gt, k);
	struct ext x = { k->start, k->end ? k->end : w, ki };
	if (g) {
		x.s = g->first_start;
		x.e = analysis_grids_kern_running(k, w) ? umax(g->last_end, w) : g->last_end;
	} else if (analysis_grids_kern_running(k, w)) {
		x.e = umax(x.e, w);
	}
	if (x.e < x.s)
		x.e = x.s;
	return x;
}
