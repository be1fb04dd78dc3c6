#include "src/core/analysis_verdicts.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis_grids.h"
#include "src/core/analysis_partition.h"
#include "src/core/analysis_state.h"
#include "src/core/analysis_timeslice.h"
#include "src/core/array.h"
#include "src/core/order.h"

static int cmp_memop(const void *x, const void *y)
{
	const struct memop *p = x, *q = y;
	return order_keys((const uint64_t[]){ p->pid, p->ctx, p->dev, p->sid, p->start, p->corr },
			  (const uint64_t[]){ q->pid, q->ctx, q->dev, q->sid, q->start, q->corr }, 6);
}

static int cmp_swait(const void *x, const void *y)
{
	const struct swait *p = x, *q = y;
	return order_keys((const uint64_t[]){ p->pid, p->ctx, p->sid, p->corr },
			  (const uint64_t[]){ q->pid, q->ctx, q->sid, q->corr }, 4);
}

static int cmp_cevent(const void *x, const void *y)
{
	const struct cevent *p = x, *q = y;
	return order_keys((const uint64_t[]){ p->pid, p->ctx, p->event_id, p->corr },
			  (const uint64_t[]){ q->pid, q->ctx, q->event_id, q->corr }, 4);
}

static int cmp_gdep(const void *x, const void *y)
{
	const struct gdep *p = x, *q = y;
	return order_keys((const uint64_t[]){ p->pid, p->node, p->dep },
			  (const uint64_t[]){ q->pid, q->node, q->dep }, 3);
}

/* Graph copies and memsets by process, graph launch and node. */
static int cmp_gmemop(const void *x, const void *y)
{
	const struct memop *p = x, *q = y;
	return order_keys((const uint64_t[]){ p->pid, p->corr, p->graph_node },
			  (const uint64_t[]){ q->pid, q->corr, q->graph_node }, 3);
}

/* The index of the first of v's n sorted elements that cmp does not put
 * before key (past: nor level with it). */
static size_t search_sorted(const void *v, size_t n, size_t size, const void *key,
			    int (*cmp)(const void *, const void *), int past)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		int c = cmp((const char *)v + m * size, key);
		if (c < 0 || (past && c == 0))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* m is on key's stream (pid, context, device, stream id). */
static int memop_on(const struct memop *m, const struct memop *key)
{
	return m->pid == key->pid && m->ctx == key->ctx && m->dev == key->dev && m->sid == key->sid;
}

static void sort_ready_inputs(struct ready_inputs *ri)
{
	order_sort(ri->memops, ri->n_memops, sizeof *ri->memops, &ri->memops_sorted, cmp_memop);
	order_sort(ri->swaits, ri->n_swaits, sizeof *ri->swaits, &ri->swaits_sorted, cmp_swait);
	order_sort(ri->cevents, ri->n_cevents, sizeof *ri->cevents, &ri->cevents_sorted, cmp_cevent);
	order_sort(ri->untimed, ri->n_untimed, sizeof *ri->untimed, &ri->untimed_sorted, cmp_memop);
	order_sort(ri->gdeps, ri->n_gdeps, sizeof *ri->gdeps, &ri->gdeps_sorted, cmp_gdep);
	order_sort(ri->gmemops, ri->n_gmemops, sizeof *ri->gmemops, &ri->gmemops_sorted, cmp_gmemop);
}

/* ---- update: verdicts ---- */

static int32_t stream_index(const struct kernel_table *kt, uint32_t pid, uint32_t ctx, uint32_t dev,
			    uint32_t sid);

/* A graph's kernels run at the priority of the stream it was launched
 * into, not of the graph's own streams they run on. */
static int32_t stream_prio(const struct analysis *a, int32_t ki)
{
	const struct kern *k = &a->kt.kerns[ki];
	if (k->is_graph) {
		uint32_t pid = analysis_grids_kern_pid(&a->kt, k);
		const struct launch *l = analysis_state_launch_find(&a->ri, pid, k->correlation_id);
		int32_t si = l && l->has_stream ? stream_index(&a->kt, pid, analysis_grids_kern_ctx(&a->kt, k), k->device_id,
							       l->stream_id) : -1;
		if (si >= 0)
			return a->kt.streams[si].s.priority;
	}
	return a->kt.streams[k->stream].s.priority;
}

/* A ready time and the bound that set it.  hi is the ready time that
 * bounded ends taken at their word would give: t reads a kernel whose
 * blocks' ends are upper bounds (--sm entry) as ended at its last block's
 * start, the least its end can be, so the real ready time lies in [t, hi]. */
struct ready {
	uint64_t t;
	enum smtop_ready_bound bound;
	uint32_t corr;
	uint64_t hi;
};

/* Ties keep the bound found first, in the order of docs/analysis.md. */
static void ready_raise(struct ready *r, uint64_t t, enum smtop_ready_bound b, uint32_t corr)
{
	if (t > r->t) {
		r->t = t;
		r->bound = b;
		r->corr = corr;
	}
	if (t > r->hi)
		r->hi = t;
}

/* A bound known only to lie in [lo, hi]. */
static void ready_raise_range(struct ready *r, uint64_t lo, uint64_t hi, enum smtop_ready_bound b,
			      uint32_t corr)
{
	ready_raise(r, lo, b, corr);
	if (hi > r->hi)
		r->hi = hi;
}

/* 1 when kernel k's end is an upper bound: some block of its grid has
 * SMTOP_BLOCK_END_BOUND (its kernel record's end is its blocks' latest). */
static int kern_end_bounded(const struct grid_table *gt, const struct kern *k)
{
	return k->grid >= 0 && gt->grids[k->grid].end_bound;
}

/* What ready times read of kernel p's end: [lo, hi] = [end, end] when
 * exact; with a bounded end, from its last block's start (it cannot have
 * ended before its last block started; a grid several launches share
 * gives only the kernel's start) to the bound. */
static void kern_end_range(const struct grid_table *gt, const struct kern *p, uint64_t *lo,
			   uint64_t *hi)
{
	*lo = *hi = p->end;
	if (!kern_end_bounded(gt, p))
		return;
	const struct grid *g = analysis_grids_kern_grid(gt, p);
	uint64_t least = g ? umax(g->last_start, p->start) : p->start;
	if (least < *lo)
		*lo = least;
}

/* Kernel p's end raises r (bound b). */
static void raise_kernel_end(const struct analysis *a, const struct kern *p, enum smtop_ready_bound b,
			     uint32_t corr, struct ready *r)
{
	uint64_t lo, hi;
	kern_end_range(&a->gt, p, &lo, &hi);
	ready_raise_range(r, lo, hi, b, corr);
}

/* The copy or memset just before k on its stream in (start, correlation id)
 * order, or NULL. */
static const struct memop *memop_before(const struct analysis *a, const struct kern *k)
{
	/* a kernel not started yet (live) comes after everything on its stream */
	struct memop key = { k->start ? k->start : UINT64_MAX, 0, analysis_grids_kern_pid(&a->kt, k), analysis_grids_kern_ctx(&a->kt, k),
			     k->device_id, k->stream_id, k->correlation_id, 0, 0 };
	size_t lo = search_sorted(a->ri.memops, a->ri.n_memops, sizeof *a->ri.memops, &key, cmp_memop, 0);
	return lo && memop_on(&a->ri.memops[lo - 1], &key) ? &a->ri.memops[lo - 1] : NULL;
}

static int32_t stream_index(const struct kernel_table *kt, uint32_t pid, uint32_t ctx, uint32_t dev,
			    uint32_t sid)
{
	return analysis_state_map_get(&kt->stream_map, analysis_grids_key1(pid, ctx),
				      (uint64_t)dev << 32 | sid);
}

/* Kernels that never started sort last on their stream, in call order
 * (cmp_stream_kernel): where they begin in s's kernels. */
static size_t first_unstarted(const struct analysis *a, const struct stream *s)
{
	size_t lo = 0, hi = s->n_kernels;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (a->kt.kerns[s->kernels[m]].start)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The first of s's kernels [lo, hi), in call order, not called before `corr`. */
static size_t first_called_from(const struct analysis *a, const struct stream *s, size_t lo, size_t hi,
				uint32_t corr)
{
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (a->kt.kerns[s->kernels[m]].correlation_id < corr)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Whether the kernels k waits for that never started never will (--sm
 * entry drops whole launches when its buffers are full): k started, so
 * what it waited for started before it and, by the watermark's promise,
 * came with its start; or the session is whole.  Else they may yet. */
static int unstarted_final(const struct analysis *a, const struct kern *k)
{
	return (k->start && k->start <= a->watermark) || a->watermark == ANALYSIS_WATERMARK_ALL;
}

/* 1 when a kernel that never started was called on k's stream after
 * correlation id `after` and before k: stream order waits for it. */
static int unstarted_before(const struct analysis *a, const struct kern *k, uint32_t after)
{
	const struct stream *s = &a->kt.streams[k->stream];
	size_t i = first_called_from(a, s, first_unstarted(a, s), s->n_kernels, after + 1);
	return i < s->n_kernels && a->kt.kerns[s->kernels[i]].correlation_id < k->correlation_id;
}

/* The last kernel of stream si (-1: none) called before `before`.  Returns
 * -1 when it is still running, 1 when it never started (its end is not
 * known), else 0. */
static int raise_last_kernel(const struct analysis *a, int32_t si, uint32_t before,
			     enum smtop_ready_bound kb, struct ready *r)
{
	if (si < 0)
		return 0;
	const struct stream *s = &a->kt.streams[si];
	size_t u = first_unstarted(a, s);
	size_t lo = first_called_from(a, s, 0, u, before);
	size_t hi = first_called_from(a, s, u, s->n_kernels, before);
	const struct kern *p = lo ? &a->kt.kerns[s->kernels[lo - 1]] : NULL;
	const struct kern *q = hi > u ? &a->kt.kerns[s->kernels[hi - 1]] : NULL;
	if (q && (!p || q->correlation_id > p->correlation_id))
		return 1;
	if (!p)
		return 0;
	if (analysis_grids_kern_running(p, a->watermark))
		return -1;
	raise_kernel_end(a, p, kb, p->correlation_id, r);
	return 0;
}

/* The last operation on stream (pid, ctx, dev, sid) called before
 * correlation id `before` raises r (the kernel, copy or memset variant of
 * bound `kb`).  On a stream operations run in the order they were called,
 * so (start, correlation id) order is call order.  Returns -1 when that
 * operation is a kernel still running, 1 when it is one that never
 * started, else 0. */
static int raise_last_op(const struct analysis *a, uint32_t pid, uint32_t ctx, uint32_t dev,
			 uint32_t sid, uint32_t before, enum smtop_ready_bound kb, struct ready *r)
{
	int got = raise_last_kernel(a, stream_index(&a->kt, pid, ctx, dev, sid), before, kb, r);
	if (got)
		return got;
	struct memop key = { 0, 0, pid, ctx, dev, sid, 0, 0, 0 };
	const struct memop *last = NULL;
	/* from the stream's first copy or memset */
	for (size_t i = search_sorted(a->ri.memops, a->ri.n_memops, sizeof *a->ri.memops, &key, cmp_memop, 0);
	     i < a->ri.n_memops && memop_on(&a->ri.memops[i], &key) && a->ri.memops[i].corr < before; i++)
		last = &a->ri.memops[i];
	if (last)
		ready_raise(r, last->end, kb + (last->kind - SMTOP_READY_AFTER_KERNEL), last->corr);
	return 0;
}

/* The last record of event w waits on, called before the wait, or NULL. */
static const struct cevent *event_recorded(const struct ready_inputs *ri, const struct swait *w)
{
	if (w->event_id == SMTOP_SYNC_NONE)
		return NULL;
	struct cevent key = { 0, w->pid, w->ctx, 0, 0, w->corr, w->event_id };
	size_t lo = search_sorted(ri->cevents, ri->n_cevents, sizeof *ri->cevents, &key, cmp_cevent, 0);
	const struct cevent *e = lo ? &ri->cevents[lo - 1] : NULL;
	return e && e->pid == w->pid && e->ctx == w->ctx && e->event_id == w->event_id ? e : NULL;
}

/* A wait holds its stream back until its call returned and until the work
 * before the event's record ended (or the GPU reached the record).  As
 * raise_last_op returns. */
static int raise_event_wait(const struct analysis *a, const struct swait *w, struct ready *r)
{
	ready_raise(r, w->end, SMTOP_READY_EVENT_WAIT, w->corr);
	const struct cevent *e = event_recorded(&a->ri, w);
	if (!e)
		return 0;
	int got = raise_last_op(a, e->pid, e->ctx, e->dev, e->sid, e->corr, SMTOP_READY_EVENT_KERNEL, r);
	if (got)
		return got;
	ready_raise(r, e->device_ts, SMTOP_READY_EVENT_DEVICE, e->corr);
	return 0;
}

/* Waits of k's stream called after its previous operation's call (after
 * correlation id `after`) and before k's own.  As raise_last_op returns. */
static int ready_waits(const struct analysis *a, const struct kern *k, uint32_t after,
		       struct ready *r)
{
	struct swait key = { 0, analysis_grids_kern_pid(&a->kt, k), analysis_grids_kern_ctx(&a->kt, k), k->stream_id, after, 0 };
	for (size_t lo = search_sorted(a->ri.swaits, a->ri.n_swaits, sizeof *a->ri.swaits, &key, cmp_swait, 1);
	     lo < a->ri.n_swaits; lo++) {
		const struct swait *w = &a->ri.swaits[lo];
		if (w->pid != key.pid || w->ctx != key.ctx || w->sid != key.sid ||
		    w->corr >= k->correlation_id)
			break;
		int got = raise_event_wait(a, w, r);
		if (got)
			return got;
	}
	return 0;
}

/* The legacy default stream waits for the work called before on every
 * blocking stream of its context, and they wait for its work (stream flags
 * as CUPTI gives them; streams of unknown kind take no part).  As
 * raise_last_op returns. */
static int ready_legacy(const struct analysis *a, const struct kern *k, struct ready *r)
{
	const struct smtop_stream *mine = &a->kt.streams[k->stream].s;
	uint32_t wants;
	if (mine->flags == ANALYSIS_STREAM_LEGACY)
		wants = ANALYSIS_STREAM_BLOCKING;
	else if (mine->flags == ANALYSIS_STREAM_BLOCKING)
		wants = ANALYSIS_STREAM_LEGACY;
	else
		return 0;
	for (size_t i = 0; i < a->kt.n_streams; i++) {
		const struct smtop_stream *t = &a->kt.streams[i].s;
		if (t->flags != wants || t->pid != mine->pid || t->context_id != mine->context_id ||
		    t->device_id != mine->device_id)
			continue;
		int got = raise_last_op(a, t->pid, t->context_id, t->device_id, t->stream_id,
					k->correlation_id, SMTOP_READY_LEGACY_KERNEL, r);
		if (got)
			return got;
	}
	return 0;
}

/* A graph's kernels share their stream but run as the graph's edges say,
 * which no record holds: a kernel of the stream that ended before k's first
 * block stands for the dependency k waited for. */
static void ready_graph(const struct analysis *a, const struct kern *k, struct ready *r)
{
	const struct stream *s = &a->kt.streams[k->stream];
	const struct grid *g = analysis_grids_kern_grid(&a->gt, k);
	uint64_t first = g ? g->first_start : k->start;
	if (!k->is_graph || !first)
		return;
	for (size_t n = 0, i = k->pos; i > 0 && n < ANALYSIS_GRAPH_LOOKBACK; i--, n++) {
		const struct kern *p = &a->kt.kerns[s->kernels[i - 1]];
		uint64_t lo, hi;
		kern_end_range(&a->gt, p, &lo, &hi);
		/* a bounded end may have come before first: so did lo */
		if (p->end && lo <= first && !analysis_grids_kern_running(p, a->watermark))
			ready_raise_range(r, lo, umin(hi, first), SMTOP_READY_GRAPH_KERNEL,
					  p->correlation_id);
	}
}

/* What the graph's edges tell of a graph kernel's ready time. */
enum edges {
	EDGES_UNKNOWN,          /* no edge of its node recorded, or one leads nowhere known */
	EDGES_ROOT,             /* its node depends on nothing in the graph */
	EDGES_USED,             /* the nodes it depends on raised the ready time */
	EDGES_RUNNING,          /* one of them is a kernel still running */
};

/* CUgraphNodeType (cuda.h): the nodes whose records bound a dependant, and
 * those that pass their own dependencies on at once. */
#define GRAPH_NODE_KERNEL 0
#define GRAPH_NODE_MEMCPY 1
#define GRAPH_NODE_MEMSET 2
#define GRAPH_NODE_EMPTY 5
#define GRAPH_NODE_EVENT_RECORD 7
/* How many nodes without records (empty, event record) a search walks
 * through before it gives the edges up as unknown. */
#define GRAPH_PASS_MAX 64

/* The first edge of (pid, node), or n_gdeps when it has none. */
static size_t gdeps_of(const struct ready_inputs *ri, uint32_t pid, uint64_t node)
{
	struct gdep key = { node, 0, pid, 0 };
	size_t lo = search_sorted(ri->gdeps, ri->n_gdeps, sizeof *ri->gdeps, &key, cmp_gdep, 0);
	return lo < ri->n_gdeps && ri->gdeps[lo].pid == pid && ri->gdeps[lo].node == node ? lo : ri->n_gdeps;
}

/* The end of dependency node `dep` (a kernel, copy or memset) in graph
 * launch corr raises r; EDGES_UNKNOWN when it has no record, or is a
 * kernel that never started and never will (`final`, unstarted_final). */
static enum edges raise_graph_node(const struct analysis *a, uint32_t pid, uint32_t corr,
				   const struct gdep *d, int final, struct ready *r)
{
	if (d->dep_type == GRAPH_NODE_KERNEL) {
		int32_t ki = analysis_state_imap_get(&a->kt, &a->kt.gnode_map, analysis_grids_gnode_key,
						     analysis_grids_gnode_key1(pid, corr), d->dep);
		if (ki < 0)
			return EDGES_UNKNOWN;
		const struct kern *p = &a->kt.kerns[ki];
		if (!p->start)
			return final ? EDGES_UNKNOWN : EDGES_RUNNING;
		if (analysis_grids_kern_running(p, a->watermark))
			return EDGES_RUNNING;
		raise_kernel_end(a, p, SMTOP_READY_GRAPH_EDGE_KERNEL, corr, r);
		return EDGES_USED;
	}
	struct memop key = { .pid = pid, .corr = corr, .graph_node = d->dep };
	size_t lo = search_sorted(a->ri.gmemops, a->ri.n_gmemops, sizeof *a->ri.gmemops, &key, cmp_gmemop, 0);
	if (lo == a->ri.n_gmemops || cmp_gmemop(&a->ri.gmemops[lo], &key))
		return EDGES_UNKNOWN;
	const struct memop *m = &a->ri.gmemops[lo];
	ready_raise(r, m->end, m->kind == SMTOP_READY_AFTER_MEMCPY ? SMTOP_READY_GRAPH_EDGE_MEMCPY
								  : SMTOP_READY_GRAPH_EDGE_MEMSET, corr);
	return EDGES_USED;
}

/* k's node waits for the nodes its edges name, in the same graph launch
 * (the correlation id the launch's records share): kernels, copies and
 * memsets by their ends; empty and event-record nodes pass on their own
 * dependencies.  Any other node (host, event wait, child graph, ...) or a
 * dependency without its record makes the edges unknown. */
static enum edges ready_edges(const struct analysis *a, const struct kern *k, struct ready *r)
{
	uint32_t pid = analysis_grids_kern_pid(&a->kt, k), corr = k->correlation_id;
	uint64_t pass[GRAPH_PASS_MAX + 1];
	size_t n_pass = 1, done = 0;
	enum edges e = EDGES_ROOT;
	pass[0] = k->graph_node;
	while (done < n_pass) {
		size_t i = gdeps_of(&a->ri, pid, pass[done++]);
		if (i == a->ri.n_gdeps)
			return EDGES_UNKNOWN;
		for (; i < a->ri.n_gdeps && a->ri.gdeps[i].pid == pid && a->ri.gdeps[i].node == pass[done - 1]; i++) {
			const struct gdep *d = &a->ri.gdeps[i];
			enum edges got;
			if (!d->dep)
				continue;
			if (d->dep_type == GRAPH_NODE_EMPTY || d->dep_type == GRAPH_NODE_EVENT_RECORD) {
				if (n_pass == GRAPH_PASS_MAX + 1)
					return EDGES_UNKNOWN;
				pass[n_pass++] = d->dep;
				continue;
			}
			if (d->dep_type != GRAPH_NODE_KERNEL && d->dep_type != GRAPH_NODE_MEMCPY &&
			    d->dep_type != GRAPH_NODE_MEMSET)
				return EDGES_UNKNOWN;
			got = raise_graph_node(a, pid, corr, d, unstarted_final(a, k), r);
			if (got != EDGES_USED)
				return got;
			e = EDGES_USED;
		}
	}
	return e;
}

/* The kernel before k on its stream that is not of k's own graph launch
 * (its siblings run as the edges say, not in stream order), or NULL; the
 * kernel just before k when more than ANALYSIS_GRAPH_LOOKBACK siblings
 * come first (later too: the edges already imply it). */
static const struct kern *kernel_before_launch(const struct analysis *a, const struct kern *k,
					       int *far)
{
	const struct stream *s = &a->kt.streams[k->stream];
	*far = 0;
	for (size_t n = 0, i = k->pos; i > 0; i--, n++) {
		const struct kern *p = &a->kt.kerns[s->kernels[i - 1]];
		if (p->correlation_id != k->correlation_id)
			return p;
		if (n == ANALYSIS_GRAPH_LOOKBACK) {
			*far = 1;
			return &a->kt.kerns[s->kernels[k->pos - 1]];
		}
	}
	return NULL;
}

/* The copy or memset before k on its stream that is not of k's own graph
 * launch, or NULL. */
static const struct memop *memop_before_launch(const struct analysis *a, const struct kern *k)
{
	struct memop key = { k->start ? k->start : UINT64_MAX, 0, analysis_grids_kern_pid(&a->kt, k),
			     analysis_grids_kern_ctx(&a->kt, k), k->device_id, k->stream_id, k->correlation_id, 0, 0 };
	size_t lo = search_sorted(a->ri.memops, a->ri.n_memops, sizeof *a->ri.memops, &key, cmp_memop, 0);
	for (size_t n = 0; lo > 0 && memop_on(&a->ri.memops[lo - 1], &key) && n <= ANALYSIS_GRAPH_LOOKBACK;
	     lo--, n++)
		if (a->ri.memops[lo - 1].corr != k->correlation_id)
			return &a->ri.memops[lo - 1];
	return NULL;
}

/* 1 when a copy or memset without times was called on k's stream after
 * correlation id `after` and before k: k's ready time is not known (as
 * with a kernel that never started: unstarted_before). */
static int untimed_before(const struct analysis *a, const struct kern *k, uint32_t after)
{
	struct memop key = { 0, 0, analysis_grids_kern_pid(&a->kt, k), analysis_grids_kern_ctx(&a->kt, k),
			     k->device_id, k->stream_id, after, 0, 0 };
	size_t lo = search_sorted(a->ri.untimed, a->ri.n_untimed, sizeof *a->ri.untimed, &key, cmp_memop, 1);
	return lo < a->ri.n_untimed && memop_on(&a->ri.untimed[lo], &key) &&
	       a->ri.untimed[lo].corr < k->correlation_id;
}

/* The host's bound: CUPTI's submitted time where recorded; else the end
 * of the launch call, else CUPTI's queued time.  *called (when submitted
 * decided r, more than the threshold past the other bounds, and the launch
 * call was recorded) is r with the call's bound instead of submitted's:
 * ready_past_slice reads it.  Most submissions follow the other bounds
 * within microseconds, and need no look for their call. */
static void ready_host(const struct analysis *a, const struct kern *k, struct ready *r,
		       struct ready *called)
{
	uint32_t pid = analysis_grids_kern_pid(&a->kt, k);
	*called = (struct ready){ 0, SMTOP_READY_UNKNOWN, 0, 0 };
	if (!k->sub || k->sub_queued) {
		const struct launch *l = analysis_state_launch_find(&a->ri, pid, k->correlation_id);
		if (l)
			ready_raise(r, l->end, SMTOP_READY_LAUNCH_CALL, k->correlation_id);
		else
			ready_raise(r, k->sub, SMTOP_READY_HOST_SUBMIT, k->correlation_id);
		return;
	}
	struct ready before = *r;
	ready_raise(r, k->sub, SMTOP_READY_HOST_SUBMIT, k->correlation_id);
	if (r->bound != SMTOP_READY_HOST_SUBMIT || r->t <= before.t + a->p.blocking_threshold_ns)
		return;
	const struct launch *l = analysis_state_launch_find(&a->ri, pid, k->correlation_id);
	if (!l)
		return;
	*called = before;
	ready_raise(called, l->end, SMTOP_READY_LAUNCH_CALL, k->correlation_id);
}

/* Ready = the latest of stream order, event waits, the legacy default
 * stream, graph edges (else graph order) and the host (see docs/analysis.md).  Returns 0 if
 * unknown, -1 if it depends on a kernel still running.  *called: ready_host's. */
static int ready_time(const struct analysis *a, int32_t ki, struct ready *r, struct ready *called)
{
	const struct kern *k = &a->kt.kerns[ki];
	const struct stream *s = &a->kt.streams[k->stream];
	struct ready graph = { 0, SMTOP_READY_UNKNOWN, 0, 0 };
	enum edges e = k->is_graph && k->graph_node ? ready_edges(a, k, &graph) : EDGES_UNKNOWN;
	uint32_t after = 0;
	int far = 0;
	*r = (struct ready){ 0, SMTOP_READY_UNKNOWN, 0, 0 };
	*called = *r;
	if (e == EDGES_RUNNING)
		return -1;
	const struct kern *p = e != EDGES_UNKNOWN ? kernel_before_launch(a, k, &far)
			       : k->pos > 0 ? &a->kt.kerns[s->kernels[k->pos - 1]] : NULL;
	/* a node with dependencies needs no kernel before its launch: they imply it */
	if (p && !(far && e == EDGES_USED)) {
		if (!p->start)
			return unstarted_final(a, k) ? 0 : -1;
		if (analysis_grids_kern_running(p, a->watermark))
			return -1;
		raise_kernel_end(a, p, SMTOP_READY_AFTER_KERNEL, p->correlation_id, r);
	}
	if (p)
		after = p->correlation_id;
	const struct memop *m = e != EDGES_UNKNOWN ? memop_before_launch(a, k) : memop_before(a, k);
	if (m) {
		ready_raise(r, m->end, (enum smtop_ready_bound)m->kind, m->corr);
		after = m->corr > after ? m->corr : after;
	}
	if (untimed_before(a, k, after))
		return 0;
	int got = unstarted_before(a, k, after) ? 1 : ready_waits(a, k, after, r);
	if (!got)
		got = ready_legacy(a, k, r);
	if (got) /* 1: it waits for a kernel that never started */
		return got < 0 || !unstarted_final(a, k) ? -1 : 0;
	if (e == EDGES_UNKNOWN)
		ready_graph(a, k, r);
	else
		ready_raise_range(r, graph.t, graph.hi, graph.bound, graph.corr);
	ready_host(a, k, r, called);
	return r->t != 0;
}

static int same_stream(const struct kern *x, const struct kern *y)
{
	return x->stream == y->stream;
}

/* use: the SMs v could run on (a green context's), NULL for all of them;
 * a culprit without blocks has no known SMs and counts whole. */
static int cand_consider(struct analysis *a, struct cands *c, const struct kern *v,
			 const struct ext *x, uint64_t lo, uint64_t hi, const struct smmask *use)
{
	const struct kern *k = &a->kt.kerns[x->k];
	if (k == v || same_stream(k, v) || x->s >= hi || x->e <= lo)
		return 0;
	if (analysis_grids_kern_running(k, a->watermark))
		c->incomplete = 1;
	const struct grid *g = analysis_grids_kern_grid(&a->gt, k);
	struct cand cd = { x->k, 0, 0, g != NULL };
	cd.overlap = g ? analysis_grids_overlap(&a->gt, g, lo, hi, &cd.blocks) : overlap(x->s, x->e, lo, hi);
	if (g && use)
		analysis_partition_restrict(g, use, &cd);
	if (!cd.overlap)
		return 0;
	if (array_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v))
		return -1;
	c->v[c->n++] = cd;
	return 0;
}

/* Kernels on v's device resident during [lo, hi), on the SMs v could use. */
static int find_culprits(struct analysis *a, const struct kern *v, uint64_t lo, uint64_t hi,
			 struct cands *c)
{
	const struct device *d = &a->dt.devs[analysis_grids_kern_dev(&a->kt, v)];
	struct smmask mask;
	const struct smmask *use =
		analysis_partition_usable(&a->ct, &a->kt, &a->gt, a->watermark, v, &mask) ? &mask : NULL;
	c->n = 0;
	c->incomplete = 0;
	uint64_t from = lo > d->maxlen ? lo - d->maxlen : 0;
	size_t first = order_first_at(d->order, d->n_order, sizeof *d->order, offsetof(struct ext, s),
				      from);
	for (size_t i = first; i < d->n_order && d->order[i].s < hi; i++)
		if (cand_consider(a, c, v, &d->order[i], lo, hi, use))
			return -1;
	for (size_t i = 0; i < d->n_running; i++)
		if (cand_consider(a, c, v, &d->running[i], lo, hi, use))
			return -1;
	return 0;
}

/* CUPTI's submitted time is when the GPU took the kernel in, and a
 * time-sliced context takes nothing in while another process's slice runs:
 * a wait for the slice would hide behind it.  So when only other processes'
 * kernels ran between the launch call (called) and the submission, the
 * kernel was ready at the call.  Returns 0 when decided (r perhaps moved),
 * 1 when it must wait for more data, -1 on OOM. */
static int ready_past_slice(struct analysis *a, const struct kern *v, struct ready *r,
			    const struct ready *called, struct cands *c)
{
	if (!called->t || r->t <= called->t + a->p.blocking_threshold_ns)
		return 0;
	if (find_culprits(a, v, called->t, r->t, c))
		return -1;
	if (c->incomplete)
		return 1;
	uint32_t pid = analysis_grids_kern_pid(&a->kt, v);
	for (size_t i = 0; i < c->n; i++)
		if (analysis_grids_kern_pid(&a->kt, &a->kt.kerns[c->v[i].k]) == pid)
			return 0;
	if (c->n)
		*r = *called;
	return 0;
}

static int cmp_cand(const void *x, const void *y)
{
	const struct smtop_culprit *p = x, *q = y;
	if (p->overlap_ns != q->overlap_ns)
		return p->overlap_ns > q->overlap_ns ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->context_id != q->context_id)
		return p->context_id < q->context_id ? -1 : 1;
	return (p->grid_id > q->grid_id) - (p->grid_id < q->grid_id);
}

static int lower_priority(int32_t culprit, int32_t victim)
{
	return culprit != SMTOP_PRIORITY_UNKNOWN && victim != SMTOP_PRIORITY_UNKNOWN &&
	       culprit > victim;
}

static enum smtop_event_kind classify(struct analysis *a, const struct kern *v,
				      uint64_t ready, uint64_t first, int started,
				      const struct cands *c)
{
	if (started && analysis_timeslice_looks(a, v, ready, first, c))
		return SMTOP_EV_TIMESLICE;
	int32_t pv = stream_prio(a, (int32_t)(v - a->kt.kerns));
	const struct grid *vg = analysis_grids_kern_grid(&a->gt, v);
	uint64_t last = vg ? vg->last_start : (started ? first : a->watermark);
	if (!started)
		last = a->watermark;
	int resident = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct kern *k = &a->kt.kerns[c->v[i].k];
		if (!lower_priority(stream_prio(a, c->v[i].k), pv))
			continue;
		const struct grid *g = analysis_grids_kern_grid(&a->gt, k);
		int dispatched = g ? analysis_grids_started_between(&a->gt, g, ready, last)
				   : (k->start > ready && k->start < last);
		if (dispatched)
			return SMTOP_EV_INVERSION_DISPATCH;
		resident = 1;
	}
	return resident ? SMTOP_EV_INVERSION_RESIDENT : SMTOP_EV_BLOCKING;
}

/* 1 when some culprit's blocks have bounded ends: they may have left
 * before their bound, so their share of the wait (and whether they were
 * resident at all) is not certain. */
static int possible_culprits(const struct kernel_table *kt, const struct grid_table *gt,
			     const struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (kern_end_bounded(gt, &kt->kerns[c->v[i].k]))
			return 1;
	return 0;
}

static int make_event(struct analysis *a, const struct kern *v, const struct ready *r,
		      uint64_t first, int started, uint64_t wait, const struct cands *c,
		      struct smtop_event *ev)
{
	uint64_t ready = r->t;
	memset(ev, 0, sizeof *ev);
	ev->culprits = calloc(c->n, sizeof *ev->culprits);
	if (!ev->culprits)
		return -1;
	ev->kind = classify(a, v, ready, first, started, c);
	ev->pid = analysis_grids_kern_pid(&a->kt, v);
	ev->device_id = v->device_id;
	ev->context_id = analysis_grids_kern_ctx(&a->kt, v);
	ev->stream_id = v->stream_id;
	ev->correlation_id = v->correlation_id;
	ev->grid_id = v->grid_id;
	ev->priority = stream_prio(a, (int32_t)(v - a->kt.kerns));
	ev->ready = ready;
	ev->ready_bound = r->bound;
	ev->ready_correlation_id = r->corr;
	ev->start = started ? first : 0;
	ev->wait_ns = wait;
	ev->name = v->name;
	ev->from_blocks = analysis_grids_kern_grid(&a->gt, v) != NULL;
	uint64_t total = 0;
	for (size_t i = 0; i < c->n; i++)
		total += c->v[i].overlap;
	for (size_t i = 0; i < c->n; i++) {
		const struct kern *k = &a->kt.kerns[c->v[i].k];
		struct smtop_culprit *cu = &ev->culprits[i];
		cu->pid = analysis_grids_kern_pid(&a->kt, k);
		cu->device_id = k->device_id;
		cu->context_id = analysis_grids_kern_ctx(&a->kt, k);
		cu->stream_id = k->stream_id;
		cu->correlation_id = k->correlation_id;
		cu->grid_id = k->grid_id;
		cu->priority = stream_prio(a, c->v[i].k);
		cu->overlap_ns = c->v[i].overlap;
		cu->weight = (double)c->v[i].overlap / (double)total;
		cu->blocks = c->v[i].blocks;
		cu->name = k->name;
		if (!c->v[i].from_blocks)
			ev->from_blocks = 0;
	}
	ev->n_culprits = c->n;
	qsort(ev->culprits, c->n, sizeof *ev->culprits, cmp_cand);
	/* the real ready time lies in [ready, r->hi]: the wait, in
	 * [wait - (r->hi - ready), wait] */
	ev->wait_min_ns = wait > r->hi - ready ? wait - (r->hi - ready) : 0;
	ev->possible = (r->hi > ready ? SMTOP_POSSIBLE_READY : 0) |
		       (possible_culprits(&a->kt, &a->gt, c) ? SMTOP_POSSIBLE_CULPRITS : 0) |
		       (ev->kind == SMTOP_EV_TIMESLICE && kern_end_bounded(&a->gt, v) ? SMTOP_POSSIBLE_SLICE : 0);
	return 0;
}

static int events_push(struct vec_event *v, const struct smtop_event *ev)
{
	if (array_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
		return -1;
	v->v[v->n++] = *ev;
	return 0;
}

static void stream_record_wait(struct stream *s, uint64_t wait)
{
	if (array_grow((void **)&s->waits, &s->cap_waits, s->n_waits + 1, sizeof *s->waits) == 0) {
		s->waits[s->n_waits++] = wait;
		s->waits_sorted = 0;
	}
}

/* Victim's first start: its first block, else its kernel start. */
static int first_start(const struct grid_table *gt, const struct kern *v, uint64_t *first)
{
	const struct grid *g = analysis_grids_kern_grid(gt, v);
	*first = g ? g->first_start : v->start;
	return *first != 0;
}

/* Returns 1 when decided, 0 when it must wait for more data, -1 on OOM. */
static int decide(struct analysis *a, int32_t ki, struct cands *c)
{
	struct kern *v = &a->kt.kerns[ki];
	struct stream *s = &a->kt.streams[v->stream];
	struct ready r, called;
	uint64_t ready, first;
	if (analysis_grids_kern_running(v, a->watermark))
		return 0;
	int rk = ready_time(a, ki, &r, &called);
	if (rk < 0)
		return 0;
	if (rk == 0 || !first_start(&a->gt, v, &first)) {
		s->waits_unknown++;
		return 1;
	}
	int sliced = ready_past_slice(a, v, &r, &called, c);
	if (sliced)
		return sliced < 0 ? -1 : 0;
	ready = r.t;
	uint64_t wait = first > ready ? first - ready : 0;
	if (wait > a->p.blocking_threshold_ns) {
		if (find_culprits(a, v, ready, first, c))
			return -1;
		if (c->incomplete || !analysis_timeslice_data_complete(a, v, c))
			return 0;
		if (c->n) {
			struct smtop_event ev;
			if (make_event(a, v, &r, first, 1, wait, c, &ev))
				return -1;
			if (events_push(&a->vs.events, &ev)) {
				free(ev.culprits);
				return -1;
			}
			a->vs.events_sorted = 0;
			s->events[ev.kind]++;
			s->delay[ev.kind] += wait;
		}
	}
	stream_record_wait(s, wait);
	return 1;
}

/* A kernel not yet decided but already waiting longer than the threshold. */
static int provisional(struct analysis *a, int32_t ki, struct cands *c)
{
	const struct kern *v = &a->kt.kerns[ki];
	struct ready r, called;
	uint64_t ready, first;
	if (ready_time(a, ki, &r, &called) <= 0)
		return 0;
	int sliced = ready_past_slice(a, v, &r, &called, c);
	if (sliced)
		return sliced < 0 ? -1 : 0;
	ready = r.t;
	int started = first_start(&a->gt, v, &first) && first < a->watermark;
	uint64_t end = started ? first : a->watermark;
	uint64_t wait = end > ready ? end - ready : 0;
	if (wait <= a->p.blocking_threshold_ns)
		return 0;
	if (find_culprits(a, v, ready, end, c))
		return -1;
	if (!c->n)
		return 0;
	struct smtop_event ev;
	if (make_event(a, v, &r, first, started, wait, c, &ev))
		return -1;
	if (events_push(&a->vs.prov, &ev)) {
		free(ev.culprits);
		return -1;
	}
	return 0;
}

int analysis_event_cmp(const void *x, const void *y)
{
	const struct smtop_event *p = x, *q = y;
	return order_keys((const uint64_t[]){ p->ready, p->device_id, p->pid, p->context_id, p->grid_id,
					      p->correlation_id },
			  (const uint64_t[]){ q->ready, q->device_id, q->pid, q->context_id, q->grid_id,
					      q->correlation_id }, 6);
}

static int cmp_stream_order(const void *x, const void *y, void *ctx)
{
	const struct kernel_table *kt = ctx;
	const struct smtop_stream *p = &kt->streams[*(const size_t *)x].s;
	const struct smtop_stream *q = &kt->streams[*(const size_t *)y].s;
	return order_keys((const uint64_t[]){ p->device_id, p->pid, p->context_id, p->stream_id },
			  (const uint64_t[]){ q->device_id, q->pid, q->context_id, q->stream_id }, 4);
}

static int decide_all(struct analysis *a, struct cands *c)
{
	size_t keep = 0;
	for (size_t i = 0; i < a->vs.n_undecided; i++) {
		int32_t ki = a->vs.undecided[i];
		int r = decide(a, ki, c);
		if (r < 0) {
			/* Keep the rest so a later update can finish them. */
			memmove(&a->vs.undecided[keep], &a->vs.undecided[i],
				(a->vs.n_undecided - i) * sizeof *a->vs.undecided);
			a->vs.n_undecided = keep + a->vs.n_undecided - i;
			return -1;
		}
		if (r)
			a->kt.kerns[ki].decided = 1;
		else
			a->vs.undecided[keep++] = ki;
	}
	a->vs.n_undecided = keep;
	return 0;
}

void analysis_verdicts_prepare(struct analysis *a)
{
	sort_ready_inputs(&a->ri);
	for (size_t i = 0; i < a->kt.n_streams; i++)
		a->kt.stream_order[i] = i;
	if (a->kt.n_streams)
		qsort_r(a->kt.stream_order, a->kt.n_streams, sizeof *a->kt.stream_order, cmp_stream_order, &a->kt);
}

int analysis_verdicts_decide(struct analysis *a, int rc)
{
	struct cands c = { 0 };
	if (rc == 0 && decide_all(a, &c))
		rc = -1;
	analysis_state_events_clear(&a->vs.prov);
	for (size_t i = 0; rc == 0 && i < a->vs.n_undecided; i++)
		if (provisional(a, a->vs.undecided[i], &c))
			rc = -1;
	free(c.v);
	order_sort(a->vs.events.v, a->vs.events.n, sizeof *a->vs.events.v, &a->vs.events_sorted,
		   analysis_event_cmp);
	if (a->vs.prov.n)
		qsort(a->vs.prov.v, a->vs.prov.n, sizeof *a->vs.prov.v, analysis_event_cmp);
	return rc;
}
