/* Each kernel's residency against its occupancy limit: the grid's most
 * blocks on one SM (kept as its blocks come, src/core/analysis_grids.c)
 * beside the limit of its launch on its device (src/core/occupancy_limit.c). */
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/analysis_grids.h"
#include "src/core/analysis_state.h"

size_t analysis_kernel_count(const struct analysis *a)
{
	return a->kt.n_kerns;
}

static void occupancy_of(const struct analysis *a, const struct kern *k,
			 struct analysis_kernel_occupancy *out)
{
	int32_t di = analysis_grids_kern_dev(&a->kt, k);
	const struct device *d = di >= 0 ? &a->dt.devs[di] : NULL;
	out->sms = d ? (d->sm_count ? d->sm_count : d->sm_seen) : 0;
	struct occupancy_launch l = { k->threads, k->registers, k->smem };
	if (!d || !d->has_rec || occupancy_limit(&d->rec, &l, &out->limit) != 0)
		memset(&out->limit, 0, sizeof out->limit);
	const struct grid *g = analysis_grids_kern_grid(&a->gt, k);
	if (!g)
		return;
	out->blocks = g->n;
	out->most_per_sm = g->most_per_sm;
	out->waited = g->last_start >= g->first_end;
	out->full = out->waited && out->limit.bound != OCCUPANCY_BOUND_UNKNOWN &&
		    out->blocks > (uint64_t)out->limit.blocks * out->sms;
}

void analysis_kernel_occupancy(const struct analysis *a, size_t i,
			       struct analysis_kernel_occupancy *out)
{
	const struct kern *k = &a->kt.kerns[i];
	const struct smtop_stream *s = &a->kt.streams[k->stream].s;
	memset(out, 0, sizeof *out);
	out->pid = s->pid;
	out->device_id = k->device_id;
	out->context_id = s->context_id;
	out->stream_id = k->stream_id;
	out->correlation_id = k->correlation_id;
	out->grid_id = k->grid_id;
	out->name = k->name;
	out->threads = k->threads;
	out->registers = k->registers;
	out->smem = k->smem;
	occupancy_of(a, k, out);
}

/* A grid whose kernel has not come leaves the queue: its kernel's record
 * queues it again (kern_create). */
size_t analysis_most_changed(struct analysis *a, size_t *out, size_t max)
{
	size_t n = 0, keep = 0;
	for (size_t i = 0; i < a->gt.n_most_changed; i++) {
		int32_t gi = a->gt.most_changed[i];
		struct grid *g = &a->gt.grids[gi];
		if (n < max && g->kernel >= 0) {
			out[n++] = (size_t)g->kernel;
			g->most_queued = 0;
		} else if (g->kernel >= 0) {
			a->gt.most_changed[keep++] = gi;
		} else {
			g->most_queued = 0;
		}
	}
	a->gt.n_most_changed = keep;
	return n;
}

long analysis_kernel_find(const struct analysis *a, uint32_t pid, uint32_t device_id,
			  uint64_t grid_id, uint32_t correlation_id)
{
	return analysis_state_imap_get(&a->kt, &a->kt.kern_map, analysis_grids_kern_key,
				       analysis_grids_key1(pid, device_id),
				       analysis_grids_key2_of(grid_id, correlation_id));
}
