/* Scheduling analysis; the definitions live in docs/analysis.md.
 *
 * Blocks are never stored one by one beyond ANALYSIS_EXACT_BLOCKS per grid:
 * each grid keeps its first/last block start, last end, total block time and
 * either its few blocks or a fixed-size time profile, so a session of 1e8
 * blocks costs memory per grid, not per block.  A profile whose blocks have
 * stopped coming is packed (varints, about a third of its size) and read
 * back when a verdict asks; a kernel keeps only what verdicts and summaries
 * read (about 370 bytes a kernel in all).  Kernel verdicts are made at
 * analysis_update once everything they depend on is complete, so the answer
 * does not depend on how the input was cut into pieces.
 *
 * This file takes the input, keeps the indexes and answers the queries; the
 * grids (analysis_grids.c), the verdicts (analysis_verdicts.c) and the
 * time-slicing test (analysis_timeslice.c) have files of their own, over the
 * state of analysis_state.h. */
#include "src/core/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis_grids.h"
#include "src/core/analysis_partition.h"
#include "src/core/analysis_state.h"
#include "src/core/analysis_verdicts.h"
#include "src/core/array.h"
#include "src/core/order.h"
#include "src/core/profile.h"

/* ---- public: construction ---- */

void analysis_params_default(struct analysis_params *p)
{
	p->blocking_threshold_ns = ANALYSIS_DEFAULT_THRESHOLD_NS;
}

struct analysis *analysis_new(const struct analysis_params *p)
{
	struct analysis *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	if (p)
		a->p = *p;
	else
		analysis_params_default(&a->p);
	analysis_grids_init(&a->gt, a->p.blocking_threshold_ns);
	return a;
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->gt.n_grids; i++)
		if (a->gt.grids[i].form == GRID_PROFILE)
			profile_free(a->gt.grids[i].data);
		else if (a->gt.grids[i].form == GRID_EXACT)
			free(a->gt.grids[i].data);
	free(a->gt.packs);
	for (size_t i = 0; i < a->kt.n_streams; i++) {
		free(a->kt.streams[i].kernels);
		free(a->kt.streams[i].waits);
	}
	for (size_t i = 0; i < a->dt.n_devs; i++) {
		free(a->dt.devs[i].order);
		free(a->dt.devs[i].running);
		for (size_t j = 0; j < a->dt.devs[i].n_acts; j++)
			free(a->dt.devs[i].acts[j].ev.v);
		free(a->dt.devs[i].acts);
		residency_free(&a->dt.devs[i].res);
	}
	analysis_state_events_clear(&a->vs.events);
	analysis_state_events_clear(&a->vs.prov);
	free(a->vs.events.v);
	free(a->vs.prov.v);
	free(a->gt.grids);
	free(a->kt.kerns);
	free(a->kt.streams);
	free(a->kt.stream_order);
	free(a->dt.devs);
	free(a->reqs);
	u64map_free(&a->gt.grid_map.idx);
	u64map_free(&a->kt.kern_map.idx);
	analysis_state_map_free(&a->kt.stream_map);
	free(a->vs.undecided);
	free(a->ct.ctxs);
	analysis_state_map_free(&a->ct.ctx_map);
	free(a->ct.unfolded);
	free(a->gt.hot);
	free(a->ri.memops);
	free(a->ri.swaits);
	free(a->ri.cevents);
	free(a->ri.gdeps);
	free(a->ri.gmemops);
	u64map_free(&a->kt.gnode_map.idx);
	free(a->ri.untimed);
	free(a->ri.launches);
	u64map_free(&a->ri.launch_idx);
	free(a->gt.most_changed);
	free(a);
}

const struct analysis_params *analysis_get_params(const struct analysis *a)
{
	return &a->p;
}

/* ---- public: input ---- */

static int32_t stream_find_or_add(struct analysis *a, uint32_t pid, uint32_t dev,
				  uint32_t ctx, uint32_t sid)
{
	uint64_t k2 = (uint64_t)dev << 32 | sid;
	int32_t si = analysis_state_map_get(&a->kt.stream_map, analysis_grids_key1(pid, ctx), k2);
	if (si >= 0)
		return si;
	if (array_grow((void **)&a->kt.streams, &a->kt.cap_streams, a->kt.n_streams + 1, sizeof *a->kt.streams))
		return -1;
	size_t cap = a->kt.n_streams;
	size_t *order = realloc(a->kt.stream_order, (cap + 1) * sizeof *order);
	if (!order)
		return -1;
	a->kt.stream_order = order;
	si = (int32_t)a->kt.n_streams;
	if (analysis_state_map_put(&a->kt.stream_map, analysis_grids_key1(pid, ctx), k2, si))
		return -1;
	struct stream *s = &a->kt.streams[a->kt.n_streams++];
	memset(s, 0, sizeof *s);
	s->s.pid = pid;
	s->s.device_id = dev;
	s->s.context_id = ctx;
	s->s.stream_id = sid;
	s->s.priority = SMTOP_PRIORITY_UNKNOWN;
	s->dev = -1;
	s->sorted = 1;
	return si;
}

int analysis_add_stream(struct analysis *a, const struct smtop_stream *s)
{
	int32_t si = stream_find_or_add(a, s->pid, s->device_id, s->context_id, s->stream_id);
	if (si < 0)
		return -1;
	a->kt.streams[si].s = *s;
	return 0;
}

int analysis_add_context(struct analysis *a, const struct smtop_context *c)
{
	int32_t ci = analysis_partition_context(&a->ct, c->pid, c->device_id, c->context_id, 1);
	if (ci < 0)
		return -1;
	a->ct.ctxs[ci].green = c->is_green != 0;
	return 0;
}

int analysis_add_device(struct analysis *a, const struct smtop_device *d)
{
	int32_t di = analysis_grids_device_index(&a->dt, d->device_id);
	if (di < 0)
		return -1;
	if (d->sm_count)
		a->dt.devs[di].sm_count = d->sm_count;
	/* the limits only: the record's strings are not the analysis' to keep */
	a->dt.devs[di].rec = *d;
	a->dt.devs[di].rec.name = a->dt.devs[di].rec.uuid = NULL;
	a->dt.devs[di].has_rec = 1;
	return 0;
}

/* The record's fields a verdict reads (pid and context are the stream's). */
static void kern_set(struct kern *kn, const struct smtop_kernel *k)
{
	kn->start = k->start;
	kn->end = k->end;
	kn->sub = k->submitted ? k->submitted : k->queued;
	kn->sub_queued = !k->submitted && k->queued;
	kn->grid_id = k->grid_id;
	kn->name = k->name;
	kn->correlation_id = k->correlation_id;
	kn->stream_id = k->stream_id;
	kn->device_id = k->device_id;
	kn->is_graph = k->is_graph != 0;
	kn->graph_node = k->graph_node_id;
	uint64_t threads = (uint64_t)(k->block[0] > 0 ? k->block[0] : 0) *
			   (uint64_t)(k->block[1] > 0 ? k->block[1] : 0) *
			   (uint64_t)(k->block[2] > 0 ? k->block[2] : 0);
	kn->threads = threads > UINT16_MAX ? UINT16_MAX : (uint16_t)threads;
	kn->registers = k->registers > UINT16_MAX ? UINT16_MAX : (uint16_t)k->registers;
	uint64_t smem = (uint64_t)k->static_smem + k->dynamic_smem;
	kn->smem = smem > UINT32_MAX ? UINT32_MAX : (uint32_t)smem;
}

/* The kernel record k comes again (it was seen running), or -1: of its
 * grid id's kernels, the one of k's launch. */
static int32_t kern_find(const struct analysis *a, const struct smtop_kernel *k, int32_t *head)
{
	*head = analysis_state_imap_get(&a->kt, &a->kt.kern_map, analysis_grids_kern_key,
					analysis_grids_key1(k->pid, k->device_id),
					analysis_grids_key2_of(k->grid_id, k->correlation_id));
	for (int32_t ki = *head; ki >= 0; ki = a->kt.kerns[ki].same_grid)
		if (a->kt.kerns[ki].correlation_id == k->correlation_id)
			return ki;
	return -1;
}

/* head: the first kernel of k's grid id, -1 if k is the first. */
static int kern_create(struct analysis *a, const struct smtop_kernel *k, int32_t head)
{
	int32_t si = stream_find_or_add(a, k->pid, k->device_id, k->context_id, k->stream_id);
	int32_t dev = analysis_grids_device_index(&a->dt, k->device_id);
	if (si < 0 || dev < 0)
		return -1;
	struct stream *s = &a->kt.streams[si];
	if (array_grow((void **)&a->kt.kerns, &a->kt.cap_kerns, a->kt.n_kerns + 1, sizeof *a->kt.kerns) ||
	    array_grow((void **)&s->kernels, &s->cap_kernels, s->n_kernels + 1, sizeof *s->kernels) ||
	    array_grow((void **)&a->vs.undecided, &a->vs.cap_undecided, a->vs.n_undecided + 1,
		 sizeof *a->vs.undecided))
		return -1;
	int32_t ki = (int32_t)a->kt.n_kerns;
	struct kern *kn = &a->kt.kerns[ki];
	memset(kn, 0, sizeof *kn);
	kern_set(kn, k);
	kn->stream = si;
	kn->same_grid = -1;
	if ((head < 0 && analysis_state_imap_put(&a->kt, &a->kt.kern_map, analysis_grids_kern_key, ki)) ||
	    (kn->graph_node && analysis_state_imap_put(&a->kt, &a->kt.gnode_map, analysis_grids_gnode_key, ki)))
		return -1;
	if (head >= 0) {
		/* another launch with the grid id: second in the chain, where
		 * its record's second coming finds it first */
		kn->same_grid = a->kt.kerns[head].same_grid;
		a->kt.kerns[head].same_grid = ki;
	}
	a->kt.n_kerns++;
	if (s->dev < 0)
		s->dev = dev;
	kn->grid = k->grid_id ? analysis_state_imap_get(&a->gt, &a->gt.grid_map, analysis_grids_key, analysis_grids_key1(k->pid, k->device_id),
					 k->grid_id) : -1;
	if (kn->grid >= 0) {
		struct grid *g = &a->gt.grids[kn->grid];
		g->shared |= g->kernel >= 0 && g->kernel != ki;
		if (g->kernel < 0)
			g->kernel = ki;
		a->kt.kernels_with_blocks_cache++;
		/* its blocks came first: the viewer hears of their most now */
		if (a->gt.grids[kn->grid].most_per_sm && analysis_grids_most_note(&a->gt, kn->grid))
			return -1;
	}
	s->kernels[s->n_kernels++] = ki;
	s->sorted = 0;
	a->vs.undecided[a->vs.n_undecided++] = ki;
	if (analysis_partition_track(&a->ct, ki))
		return -1;
	analysis_grids_device_extend(&a->dt.devs[dev], k->start, k->end);
	return 0;
}

int analysis_add_kernel(struct analysis *a, const struct smtop_kernel *k)
{
	int32_t head;
	int32_t ki = kern_find(a, k, &head);
	if (ki < 0)
		return kern_create(a, k, head);
	/* A kernel seen running comes again once it ended. */
	struct kern *kn = &a->kt.kerns[ki];
	if (kn->decided)
		return 0;
	if (kn->start != k->start)
		a->kt.streams[kn->stream].sorted = 0;
	kern_set(kn, k);
	analysis_grids_device_extend(&a->dt.devs[analysis_grids_kern_dev(&a->kt, kn)], k->start, k->end);
	return 0;
}

/* A new grid for block b, joined to the kernels of its grid id that came
 * first (kern_create joins those that come later). */
static int32_t grid_create(struct analysis *a, uint32_t pid, const struct smtop_block *b)
{
	int32_t gi = analysis_grids_create(&a->gt, &a->dt, pid, b);
	if (gi < 0)
		return -1;
	struct grid *g = &a->gt.grids[gi];
	g->kernel = analysis_state_imap_get(&a->kt, &a->kt.kern_map, analysis_grids_kern_key,
					    analysis_grids_key1(pid, b->device_id), b->grid_id);
	for (int32_t ki = g->kernel; ki >= 0; ki = a->kt.kerns[ki].same_grid) {
		a->kt.kerns[ki].grid = gi;
		a->kt.kernels_with_blocks_cache++;
		g->shared |= a->kt.kerns[ki].same_grid >= 0;
	}
	return gi;
}

int analysis_add_blocks(struct analysis *a, uint32_t pid, uint32_t context_id,
			const struct smtop_block *b, size_t n)
{
	(void)context_id; /* the join does not use it: see kern_key */
	for (size_t i = 0, j; i < n; i = j) {
		int32_t gi = a->gt.last_grid;
		if (gi < 0 || a->gt.grids[gi].grid_id != b[i].grid_id || a->gt.grids[gi].pid != pid ||
		    a->gt.grids[gi].device_id != b[i].device_id) {
			gi = analysis_state_imap_get(&a->gt, &a->gt.grid_map, analysis_grids_key, analysis_grids_key1(pid, b[i].device_id), b[i].grid_id);
			if (gi < 0 && (gi = grid_create(a, pid, &b[i])) < 0)
				return -1;
			a->gt.last_grid = gi;
		}
		for (j = i + 1; j < n && b[j].grid_id == b[i].grid_id && b[j].device_id == b[i].device_id; j++)
			;
		struct device *d = &a->dt.devs[a->gt.grids[gi].dev];
		if (analysis_grids_add_run(&a->gt, d, gi, b + i, j - i))
			return -1;
		a->gt.blocks += j - i;
	}
	if (a->gt.blocks - a->gt.blocks_at_sweep >= SWEEP_BLOCKS)
		analysis_grids_hot_sweep(&a->gt);
	return 0;
}

int analysis_add_block(struct analysis *a, uint32_t pid, uint32_t context_id,
		       const struct smtop_block *b)
{
	return analysis_add_blocks(a, pid, context_id, b, 1);
}

int analysis_add_request(struct analysis *a, const struct smtop_request *r)
{
	if (!r->end || r->end < r->start)
		return 0; /* still pending: add it again once answered */
	if (array_grow((void **)&a->reqs, &a->cap_reqs, a->n_reqs + 1, sizeof *a->reqs))
		return -1;
	a->reqs[a->n_reqs++] = (struct request){ r->pid, r->stream_id, r->end - r->start };
	return 0;
}

static int memop_add(struct ready_inputs *ri, const struct memop *m)
{
	if (m->graph_node && m->start && m->end >= m->start) {
		/* what a later node of the same graph launch may depend on */
		if (array_grow((void **)&ri->gmemops, &ri->cap_gmemops, ri->n_gmemops + 1, sizeof *ri->gmemops))
			return -1;
		ri->gmemops[ri->n_gmemops++] = *m;
		ri->gmemops_sorted = 0;
	}
	if (!m->start && !m->end && m->corr) {
		/* times unknown: the next kernel on its stream waited for it
		 * for a time nobody knows */
		if (array_grow((void **)&ri->untimed, &ri->cap_untimed, ri->n_untimed + 1, sizeof *ri->untimed))
			return -1;
		ri->untimed[ri->n_untimed++] = *m;
		ri->untimed_sorted = 0;
		return 0;
	}
	if (!m->start || m->end < m->start)
		return 0; /* times unknown: bounds nothing */
	if (array_grow((void **)&ri->memops, &ri->cap_memops, ri->n_memops + 1, sizeof *ri->memops))
		return -1;
	ri->memops[ri->n_memops++] = *m;
	ri->memops_sorted = 0;
	return 0;
}

int analysis_add_memcpy(struct analysis *a, const struct smtop_memcpy *m)
{
	return memop_add(&a->ri, &(struct memop){ m->start, m->end, m->pid, m->context_id, m->device_id,
					     m->stream_id, m->correlation_id,
					     SMTOP_READY_AFTER_MEMCPY, m->graph_node_id });
}

int analysis_add_memset(struct analysis *a, const struct smtop_memset *m)
{
	return memop_add(&a->ri, &(struct memop){ m->start, m->end, m->pid, m->context_id, m->device_id,
					     m->stream_id, m->correlation_id,
					     SMTOP_READY_AFTER_MEMSET, m->graph_node_id });
}

int analysis_add_sync(struct analysis *a, const struct smtop_sync *y)
{
	/* other types are the host waiting for the GPU: the host's next
	 * launch call already bounds what it submits afterwards */
	if (y->type != ANALYSIS_SYNC_STREAM_WAIT_EVENT || !y->end || !y->correlation_id)
		return 0;
	if (array_grow((void **)&a->ri.swaits, &a->ri.cap_swaits, a->ri.n_swaits + 1, sizeof *a->ri.swaits))
		return -1;
	a->ri.swaits[a->ri.n_swaits++] = (struct swait){ y->end, y->pid, y->context_id, y->stream_id,
						   y->correlation_id, y->event_id };
	a->ri.swaits_sorted = 0;
	return 0;
}

int analysis_add_cuda_event(struct analysis *a, const struct smtop_cuda_event *e)
{
	if (!e->correlation_id || e->event_id == SMTOP_SYNC_NONE)
		return 0; /* no wait can find it */
	if (array_grow((void **)&a->ri.cevents, &a->ri.cap_cevents, a->ri.n_cevents + 1, sizeof *a->ri.cevents))
		return -1;
	a->ri.cevents[a->ri.n_cevents++] = (struct cevent){ e->device_ts, e->pid, e->context_id, e->device_id,
						      e->stream_id, e->correlation_id, e->event_id };
	a->ri.cevents_sorted = 0;
	return 0;
}

int analysis_add_graph_dep(struct analysis *a, const struct smtop_graph_dep *d)
{
	if (!d->node_id)
		return 0;
	if (array_grow((void **)&a->ri.gdeps, &a->ri.cap_gdeps, a->ri.n_gdeps + 1, sizeof *a->ri.gdeps))
		return -1;
	a->ri.gdeps[a->ri.n_gdeps++] = (struct gdep){ d->node_id, d->depends_on, d->pid,
						d->depends_on ? d->dep_type : -1 };
	a->ri.gdeps_sorted = 0;
	return 0;
}

int analysis_add_api(struct analysis *a, const struct smtop_api *c)
{
	/* Only a kernel's launch call bounds it; the rest would cost memory
	 * for every cudaGetDevice of a framework. */
	if (!c->end || !c->correlation_id || (c->name && !strstr(c->name, "Launch")))
		return 0;
	return analysis_state_launch_put(&a->ri, &(struct launch){ c->end, c->pid, c->correlation_id,
							      c->stream_id, c->has_stream != 0 });
}

/* ---- update: indexes ---- */

static uint64_t start_key(const struct kernel_table *kt, int32_t ki)
{
	uint64_t s = kt->kerns[ki].start;
	return s ? s : UINT64_MAX;
}

static int cmp_stream_kernel(const void *x, const void *y, void *ctx)
{
	const struct kernel_table *kt = ctx;
	int32_t i = *(const int32_t *)x, j = *(const int32_t *)y;
	uint64_t si = start_key(kt, i), sj = start_key(kt, j);
	if (si != sj)
		return si < sj ? -1 : 1;
	uint32_t ci = kt->kerns[i].correlation_id, cj = kt->kerns[j].correlation_id;
	if (ci != cj)
		return ci < cj ? -1 : 1;
	return (kt->kerns[i].grid_id > kt->kerns[j].grid_id) -
	       (kt->kerns[i].grid_id < kt->kerns[j].grid_id);
}

static void sort_streams(struct kernel_table *kt)
{
	for (size_t i = 0; i < kt->n_streams; i++) {
		struct stream *s = &kt->streams[i];
		if (s->sorted)
			continue;
		qsort_r(s->kernels, s->n_kernels, sizeof *s->kernels, cmp_stream_kernel, kt);
		for (size_t j = 0; j < s->n_kernels; j++)
			kt->kerns[s->kernels[j]].pos = (uint32_t)j;
		s->sorted = 1;
	}
}

static int cmp_ext(const void *x, const void *y)
{
	const struct ext *p = x, *q = y;
	if (p->s != q->s)
		return p->s < q->s ? -1 : 1;
	return (p->k > q->k) - (p->k < q->k);
}

static int build_device_index(struct analysis *a)
{
	for (size_t i = 0; i < a->dt.n_devs; i++) {
		a->dt.devs[i].n_order = a->dt.devs[i].n_running = 0;
		a->dt.devs[i].maxlen = 0;
	}
	for (size_t i = 0; i < a->kt.n_kerns; i++) {
		const struct kern *k = &a->kt.kerns[i];
		struct device *d = &a->dt.devs[analysis_grids_kern_dev(&a->kt, k)];
		if (!k->start && !analysis_grids_kern_grid(&a->gt, k))
			continue; /* never started: cannot hold SMs */
		struct ext x = analysis_grids_kern_ext(&a->kt, &a->gt, (int32_t)i, a->watermark);
		if (analysis_grids_kern_running(k, a->watermark)) {
			if (array_grow((void **)&d->running, &d->cap_running, d->n_running + 1, sizeof x))
				return -1;
			d->running[d->n_running++] = x;
			continue;
		}
		if (array_grow((void **)&d->order, &d->cap_order, d->n_order + 1, sizeof x))
			return -1;
		d->order[d->n_order++] = x;
		if (x.e - x.s > d->maxlen)
			d->maxlen = x.e - x.s;
	}
	for (size_t i = 0; i < a->dt.n_devs; i++)
		if (a->dt.devs[i].n_order)
			qsort(a->dt.devs[i].order, a->dt.devs[i].n_order, sizeof(struct ext), cmp_ext);
	return 0;
}

int analysis_update(struct analysis *a, uint64_t watermark)
{
	a->watermark = watermark;
	/* every block is in: no profile grows any more */
	if (watermark == ANALYSIS_WATERMARK_ALL)
		analysis_compact(a);
	sort_streams(&a->kt);
	analysis_verdicts_prepare(a);
	/* a victim's SMs are its context's, folded before anything is judged */
	int rc = build_device_index(a) || analysis_partition_fold(&a->ct, &a->kt, &a->gt, watermark) ? -1 : 0;
	return analysis_verdicts_decide(a, rc);
}

/* ---- public: results ---- */

size_t analysis_event_count(const struct analysis *a)
{
	return a->vs.events.n;
}

const struct smtop_event *analysis_event(const struct analysis *a, size_t i)
{
	return i < a->vs.events.n ? &a->vs.events.v[i] : NULL;
}

size_t analysis_provisional_count(const struct analysis *a)
{
	return a->vs.prov.n;
}

const struct smtop_event *analysis_provisional(const struct analysis *a, size_t i)
{
	return i < a->vs.prov.n ? &a->vs.prov.v[i] : NULL;
}

size_t analysis_stream_count(const struct analysis *a)
{
	return a->kt.n_streams;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
	return (p > q) - (p < q);
}

/* Nearest-rank percentiles of sorted values. */
static struct analysis_percentiles percentiles(const uint64_t *v, size_t n)
{
	struct analysis_percentiles p = { n, 0, 0, 0, 0 };
	if (!n)
		return p;
	const unsigned pct[3] = { 50, 90, 99 };
	uint64_t *out[3] = { &p.p50, &p.p90, &p.p99 };
	for (int i = 0; i < 3; i++) {
		size_t rank = (pct[i] * n + 99) / 100;
		*out[i] = v[rank ? rank - 1 : 0];
	}
	p.max = v[n - 1];
	return p;
}

static struct analysis_percentiles turnaround(const struct analysis *a, const struct smtop_stream *s)
{
	struct analysis_percentiles none = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < a->n_reqs; i++)
		n += a->reqs[i].pid == s->pid && a->reqs[i].stream_id == s->stream_id;
	if (!n)
		return none;
	uint64_t *v = malloc(n * sizeof *v);
	if (!v)
		return none;
	n = 0;
	for (size_t i = 0; i < a->n_reqs; i++)
		if (a->reqs[i].pid == s->pid && a->reqs[i].stream_id == s->stream_id)
			v[n++] = a->reqs[i].turnaround;
	qsort(v, n, sizeof *v, cmp_u64);
	struct analysis_percentiles p = percentiles(v, n);
	free(v);
	return p;
}

static void stream_usage(const struct analysis *a, const struct stream *s,
			 struct analysis_stream_summary *out)
{
	for (size_t j = 0; j < s->n_kernels; j++) {
		const struct kern *k = &a->kt.kerns[s->kernels[j]];
		const struct grid *g = analysis_grids_kern_grid(&a->gt, k);
		if (k->end > k->start && k->start)
			out->busy_ns += k->end - k->start;
		if (g) {
			out->kernels_with_blocks++;
			out->block_time_ns += g->block_time;
		}
	}
}

int analysis_stream_summary(struct analysis *a, size_t i, struct analysis_stream_summary *out)
{
	if (i >= a->kt.n_streams)
		return -1;
	struct stream *s = &a->kt.streams[a->kt.stream_order ? a->kt.stream_order[i] : i];
	memset(out, 0, sizeof *out);
	out->pid = s->s.pid;
	out->device_id = s->s.device_id;
	out->context_id = s->s.context_id;
	out->stream_id = s->s.stream_id;
	out->priority = s->s.priority;
	out->kernels = s->n_kernels;
	out->waits_unknown = s->waits_unknown;
	stream_usage(a, s, out);
	int32_t di = -1;
	for (size_t d = 0; d < a->dt.n_devs; d++)
		if (a->dt.devs[d].id == s->s.device_id)
			di = (int32_t)d;
	if (di >= 0 && a->dt.devs[di].t_max > a->dt.devs[di].t_min) {
		const struct device *d = &a->dt.devs[di];
		double span = (double)(d->t_max - d->t_min);
		uint32_t sms = d->sm_count ? d->sm_count : d->sm_seen;
		out->sm_share_from_blocks = out->kernels_with_blocks == out->kernels &&
					    out->kernels && sms;
		if (out->sm_share_from_blocks)
			out->sm_share = (double)out->block_time_ns / ((double)sms * span);
		else
			out->sm_share = (double)out->busy_ns / span;
	}
	order_sort(s->waits, s->n_waits, sizeof *s->waits, &s->waits_sorted, cmp_u64);
	out->wait = percentiles(s->waits, s->n_waits);
	out->turnaround = turnaround(a, &s->s);
	memcpy(out->events, s->events, sizeof out->events);
	memcpy(out->delay_ns, s->delay, sizeof out->delay_ns);
	return 0;
}

void analysis_compact(struct analysis *a)
{
	analysis_grids_hot_sweep_before(&a->gt, UINT64_MAX);
	/* read to its end: no grid takes blocks any more */
	for (size_t i = 0; i < a->dt.n_devs; i++)
		residency_clear(&a->dt.devs[i].res);
}

void analysis_memory(const struct analysis *a, struct analysis_memory *out)
{
	memset(out, 0, sizeof *out);
	out->kernels = a->kt.n_kerns * sizeof *a->kt.kerns + a->vs.cap_undecided * sizeof *a->vs.undecided;
	for (size_t i = 0; i < a->kt.n_streams; i++)
		out->kernels += a->kt.streams[i].n_kernels * sizeof(int32_t) +
				a->kt.streams[i].n_waits * sizeof(uint64_t);
	out->kernels += a->ri.cap_memops * sizeof *a->ri.memops + a->ri.cap_swaits * sizeof *a->ri.swaits +
			a->ri.cap_cevents * sizeof *a->ri.cevents + a->ri.cap_untimed * sizeof *a->ri.untimed +
			a->ri.cap_gdeps * sizeof *a->ri.gdeps + a->ri.cap_gmemops * sizeof *a->ri.gmemops +
			a->kt.gnode_map.idx.cap * sizeof *a->kt.gnode_map.idx.e +
			a->ri.cap_launches * sizeof *a->ri.launches +
			a->ri.launch_idx.cap * sizeof *a->ri.launch_idx.e;
	out->grids = a->gt.n_grids * sizeof *a->gt.grids;
	for (size_t i = 0; i < a->gt.n_grids; i++)
		if (a->gt.grids[i].form == GRID_EXACT)
			out->grids += a->gt.grids[i].exact_cap * sizeof(struct span);
		else if (a->gt.grids[i].form == GRID_PROFILE)
			out->profiles += sizeof(struct profile) +
					 ((struct profile *)a->gt.grids[i].data)->start_runs.cap *
						 sizeof(struct span);
	out->packed = a->gt.packs_len;
	out->index = (a->kt.kern_map.idx.cap + a->gt.grid_map.idx.cap + a->kt.stream_map.idx.cap +
		      a->ct.ctx_map.idx.cap) * sizeof(struct u64map_entry) +
		     (a->kt.stream_map.cap + a->ct.ctx_map.cap) * sizeof(struct slot) +
		     a->gt.cap_hot * sizeof *a->gt.hot + a->ct.cap_ctxs * sizeof *a->ct.ctxs +
		     a->ct.cap_unfolded * sizeof *a->ct.unfolded;
	for (size_t i = 0; i < a->dt.n_devs; i++) {
		const struct device *d = &a->dt.devs[i];
		out->index += (d->cap_order + d->cap_running) * sizeof(struct ext) +
			      d->cap_acts * sizeof *d->acts;
		for (size_t j = 0; j < d->n_acts; j++)
			out->index += d->acts[j].ev.cap * sizeof(struct span);
		out->index += residency_memory(&d->res);
	}
	const struct vec_event *ev[2] = { &a->vs.events, &a->vs.prov };
	for (int k = 0; k < 2; k++) {
		out->events += ev[k]->n * sizeof *ev[k]->v;
		for (size_t i = 0; i < ev[k]->n; i++)
			out->events += ev[k]->v[i].n_culprits * sizeof(struct smtop_culprit);
	}
	out->total = out->kernels + out->grids + out->profiles + out->packed + out->index +
		     out->events + a->kt.n_streams * sizeof *a->kt.streams + a->cap_reqs * sizeof *a->reqs;
}

void analysis_totals(const struct analysis *a, struct analysis_totals *out)
{
	memset(out, 0, sizeof *out);
	out->kernels = a->kt.n_kerns;
	out->kernels_with_blocks = a->kt.kernels_with_blocks_cache;
	out->kernels_pending = a->vs.n_undecided;
	out->blocks = a->gt.blocks;
	for (size_t i = 0; i < a->vs.events.n; i++) {
		out->events[a->vs.events.v[i].kind]++;
		out->delay_ns[a->vs.events.v[i].kind] += a->vs.events.v[i].wait_ns;
	}
}

int analysis_has_blocks(const struct analysis *a)
{
	return a->gt.blocks > 0;
}

unsigned analysis_limits(const struct analysis *a)
{
	unsigned l = 0;
	if (a->kt.kernels_with_blocks_cache < a->kt.n_kerns)
		l |= ANALYSIS_LIMIT_WAIT_FROM_KERNELS | ANALYSIS_LIMIT_DISPATCH_UNTOLD |
		     ANALYSIS_LIMIT_SM_SHARE_ESTIMATE | ANALYSIS_LIMIT_CULPRIT_WEIGHT_KERNEL;
	for (size_t i = 0; i < a->dt.n_devs; i++)
		if (a->dt.devs[i].sm_seen && !a->dt.devs[i].sm_count)
			l |= ANALYSIS_LIMIT_SM_COUNT_GUESSED;
	return l;
}

const char *analysis_limit_text(enum analysis_limit l)
{
	switch (l) {
	case ANALYSIS_LIMIT_WAIT_FROM_KERNELS:
		return "waits of kernels without block records end at the kernel's CUPTI start, "
		       "not its first block";
	case ANALYSIS_LIMIT_DISPATCH_UNTOLD:
		return "without block records a low-priority kernel that was already running "
		       "cannot be seen dispatching new blocks: dispatch inversions may be "
		       "reported as resident";
	case ANALYSIS_LIMIT_SM_SHARE_ESTIMATE:
		return "SM share of streams without block records is kernel busy time over the "
		       "span, not SM-time";
	case ANALYSIS_LIMIT_CULPRIT_WEIGHT_KERNEL:
		return "culprits without block records are weighted by kernel-interval overlap, "
		       "not block-time";
	case ANALYSIS_LIMIT_SM_COUNT_GUESSED:
		return "SM count of a device is the highest SM index seen plus one (no device "
		       "record)";
	}
	return "unknown limit";
}

const char *analysis_kind_name(enum smtop_event_kind k)
{
	switch (k) {
	case SMTOP_EV_BLOCKING:
		return "blocking";
	case SMTOP_EV_INVERSION_RESIDENT:
		return "inversion_resident";
	case SMTOP_EV_INVERSION_DISPATCH:
		return "inversion_dispatch";
	case SMTOP_EV_TIMESLICE:
		return "timeslice";
	}
	return "unknown";
}

const char *analysis_bound_name(enum smtop_ready_bound b)
{
	switch (b) {
	case SMTOP_READY_AFTER_KERNEL:
	case SMTOP_READY_AFTER_MEMCPY:
	case SMTOP_READY_AFTER_MEMSET:
		return "stream_order";
	case SMTOP_READY_EVENT_WAIT:
	case SMTOP_READY_EVENT_KERNEL:
	case SMTOP_READY_EVENT_MEMCPY:
	case SMTOP_READY_EVENT_MEMSET:
	case SMTOP_READY_EVENT_DEVICE:
		return "event_wait";
	case SMTOP_READY_LEGACY_KERNEL:
	case SMTOP_READY_LEGACY_MEMCPY:
	case SMTOP_READY_LEGACY_MEMSET:
		return "legacy_stream";
	case SMTOP_READY_GRAPH_KERNEL:
		return "graph_order";
	case SMTOP_READY_GRAPH_EDGE_KERNEL:
	case SMTOP_READY_GRAPH_EDGE_MEMCPY:
	case SMTOP_READY_GRAPH_EDGE_MEMSET:
		return "graph_edge";
	case SMTOP_READY_HOST_SUBMIT:
		return "host_submit";
	case SMTOP_READY_LAUNCH_CALL:
		return "launch_call";
	case SMTOP_READY_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *analysis_bound_op(enum smtop_ready_bound b)
{
	switch (b) {
	case SMTOP_READY_AFTER_KERNEL:
	case SMTOP_READY_EVENT_KERNEL:
	case SMTOP_READY_LEGACY_KERNEL:
	case SMTOP_READY_GRAPH_KERNEL:
	case SMTOP_READY_GRAPH_EDGE_KERNEL:
		return "kernel";
	case SMTOP_READY_AFTER_MEMCPY:
	case SMTOP_READY_EVENT_MEMCPY:
	case SMTOP_READY_LEGACY_MEMCPY:
	case SMTOP_READY_GRAPH_EDGE_MEMCPY:
		return "memcpy";
	case SMTOP_READY_AFTER_MEMSET:
	case SMTOP_READY_EVENT_MEMSET:
	case SMTOP_READY_LEGACY_MEMSET:
	case SMTOP_READY_GRAPH_EDGE_MEMSET:
		return "memset";
	case SMTOP_READY_EVENT_DEVICE:
		return "event";
	default:
		return NULL;
	}
}

void analysis_bound_brief(const struct smtop_event *e, char *buf, size_t len)
{
	const char *op = analysis_bound_op(e->ready_bound);
	uint32_t c = e->ready_correlation_id;
	switch (e->ready_bound) {
	case SMTOP_READY_AFTER_KERNEL:
	case SMTOP_READY_AFTER_MEMCPY:
	case SMTOP_READY_AFTER_MEMSET:
		snprintf(buf, len, "the %s before it ended (#%u)", op, c);
		break;
	case SMTOP_READY_EVENT_WAIT:
		snprintf(buf, len, "its stream wait call (#%u)", c);
		break;
	case SMTOP_READY_EVENT_KERNEL:
	case SMTOP_READY_EVENT_MEMCPY:
	case SMTOP_READY_EVENT_MEMSET:
		snprintf(buf, len, "its event's %s ended (#%u)", op, c);
		break;
	case SMTOP_READY_EVENT_DEVICE:
		snprintf(buf, len, "the GPU reached its event (#%u)", c);
		break;
	case SMTOP_READY_LEGACY_KERNEL:
	case SMTOP_READY_LEGACY_MEMCPY:
	case SMTOP_READY_LEGACY_MEMSET:
		snprintf(buf, len, "legacy sync: a %s ended (#%u)", op, c);
		break;
	case SMTOP_READY_GRAPH_KERNEL:
		snprintf(buf, len, "its graph's kernel ended (#%u)", c);
		break;
	case SMTOP_READY_GRAPH_EDGE_KERNEL:
	case SMTOP_READY_GRAPH_EDGE_MEMCPY:
	case SMTOP_READY_GRAPH_EDGE_MEMSET:
		snprintf(buf, len, "the graph %s it depends on ended (#%u)", op, c);
		break;
	case SMTOP_READY_HOST_SUBMIT:
		snprintf(buf, len, "the host submitted it");
		break;
	case SMTOP_READY_LAUNCH_CALL:
		snprintf(buf, len, "its launch call returned (#%u)", c);
		break;
	default:
		snprintf(buf, len, "N/A");
		break;
	}
}
