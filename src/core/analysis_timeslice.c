#include "src/core/analysis_timeslice.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/analysis_grids.h"
#include "src/core/analysis_state.h"
#include "src/core/clusters.h"

/* ---- time-slicing ---- */

/* Index of the first cluster whose activity [s, e + gap) reaches past t. */
static size_t clusters_reaching(const struct clusters *c, uint64_t t, uint64_t gap)
{
	size_t l = 0, r = c->n;
	if (t < gap)
		return 0;
	while (l < r) {
		size_t m = (l + r) / 2;
		if (c->v[m].e + gap <= t)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* Do the activities of two processes ([t, t + gap) around each block event)
 * meet inside [lo, hi)? */
static int activities_meet(const struct clusters *x, const struct clusters *y, uint64_t lo,
			   uint64_t hi)
{
	const uint64_t gap = ANALYSIS_SLICE_GAP_NS;
	size_t i = clusters_reaching(x, lo, gap), j = clusters_reaching(y, lo, gap);
	while (i < x->n && j < y->n && x->v[i].s < hi && y->v[j].s < hi) {
		uint64_t xe = x->v[i].e + gap, ye = y->v[j].e + gap;
		if (overlap(umax(x->v[i].s, lo), umin(xe, hi), umax(y->v[j].s, lo), umin(ye, hi)))
			return 1;
		if (xe < ye)
			i++;
		else
			j++;
	}
	return 0;
}

/* Could v's episode be time-slicing judged from block events: every
 * culprit has block records and is another process's, and v has block
 * records or at least a known end (its run, from its kernel record). */
static int slice_by_events(const struct kernel_table *kt, const struct grid_table *gt,
			   const struct kern *v, const struct cands *c)
{
	if ((!analysis_grids_kern_grid(gt, v) && !(v->start && v->end > v->start)) || !c->n)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (analysis_grids_kern_pid(kt, &kt->kerns[c->v[i].k]) == analysis_grids_kern_pid(kt, v) ||
		    !c->v[i].from_blocks)
			return 0;
	return 1;
}

/* The end of the window the time-slicing test reads: a gap past v's last
 * block end (its kernel's end without blocks). */
static uint64_t slice_window_end(const struct grid_table *gt, const struct kern *v)
{
	const struct grid *g = analysis_grids_kern_grid(gt, v);
	return (g ? g->last_end : v->end) + ANALYSIS_SLICE_GAP_NS;
}

/* v without block records leaves no events of its own run; but its slice
 * is its context's, so no culprit's process stamps an event inside it (a
 * gap from either end).  1 when one does, or when that cannot be told. */
static int culprit_inside_run(const struct clusters *x, const struct kern *v, uint64_t first)
{
	const uint64_t gap = ANALYSIS_SLICE_GAP_NS;
	if (v->end <= first + 2 * gap)
		return 0;
	return clusters_any_between(x, first + gap, v->end - gap, gap) != 0;
}

/* Every block event before the window's end is in: blocks that ended before
 * the watermark are, and a block still running belongs to a kernel still
 * running.  So wait while a kernel of v's or a culprit's process that began
 * before the window's end (plus a gap for clock slack) still runs. */
int analysis_timeslice_data_complete(const struct analysis *a, const struct kern *v,
				     const struct cands *c)
{
	if (a->watermark == ANALYSIS_WATERMARK_ALL || !slice_by_events(&a->kt, &a->gt, v, c))
		return 1;
	uint64_t hi = slice_window_end(&a->gt, v) + ANALYSIS_SLICE_GAP_NS;
	if (a->watermark < hi)
		return 0;
	const struct device *d = &a->dt.devs[analysis_grids_kern_dev(&a->kt, v)];
	for (size_t i = 0; i < d->n_running; i++) {
		const struct kern *k = &a->kt.kerns[d->running[i].k];
		if (d->running[i].s >= hi)
			continue;
		if (analysis_grids_kern_pid(&a->kt, k) == analysis_grids_kern_pid(&a->kt, v))
			return 0;
		for (size_t j = 0; j < c->n; j++)
			if (analysis_grids_kern_pid(&a->kt, &a->kt.kerns[c->v[j].k]) == analysis_grids_kern_pid(&a->kt, k))
				return 0;
	}
	return 1;
}

/* Time-sliced contexts take turns on the whole device: block events (starts
 * and ends) of one process never come within a context switch of the
 * other's, though a preempted block's recorded interval stays open across
 * the other's slice.  A culprit's process need not stamp any event in the
 * window: a slice whose blocks resume and go on running (long blocks) is
 * silent, and the culprit is resident in the wait all the same.
 * docs/analysis.md states the rule and its limits. */
int analysis_timeslice_looks(const struct analysis *a, const struct kern *v, uint64_t ready,
			     uint64_t first, const struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (analysis_grids_kern_pid(&a->kt, &a->kt.kerns[c->v[i].k]) == analysis_grids_kern_pid(&a->kt, v))
			return 0;
	if (!slice_by_events(&a->kt, &a->gt, v, c)) {
		/* Kernel intervals only: other processes never overlap v's run. */
		struct ext vx = analysis_grids_kern_ext(&a->kt, &a->gt, (int32_t)(v - a->kt.kerns), a->watermark);
		vx.s = first;
		for (size_t i = 0; i < c->n; i++) {
			struct ext x = analysis_grids_kern_ext(&a->kt, &a->gt, c->v[i].k, a->watermark);
			if (overlap(x.s, x.e, vx.s, vx.e))
				return 0;
		}
		return 1;
	}
	const struct grid *vg = analysis_grids_kern_grid(&a->gt, v);
	const struct device *d = &a->dt.devs[analysis_grids_kern_dev(&a->kt, v)];
	const struct activity *own = analysis_grids_activity_find(d, analysis_grids_kern_pid(&a->kt, v));
	uint64_t hi = slice_window_end(&a->gt, v);
	uint32_t done = analysis_grids_kern_pid(&a->kt, v);
	for (size_t i = 0; i < c->n; i++) {
		uint32_t pid = analysis_grids_kern_pid(&a->kt, &a->kt.kerns[c->v[i].k]);
		const struct activity *x = pid == done ? NULL : analysis_grids_activity_find(d, pid);
		if (!x)
			continue;
		done = pid;
		if (own && activities_meet(&own->ev, &x->ev, ready, hi))
			return 0;
		if (!vg && culprit_inside_run(&x->ev, v, first))
			return 0;
	}
	return 1;
}

