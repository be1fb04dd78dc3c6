/* The SMs a green context's kernels could run on, as its kernels' blocks
 * show them, and culprits weighed on those SMs only. */
#include "src/core/analysis_partition.h"

#include <string.h>

#include "src/core/analysis_grids.h"
#include "src/core/array.h"

static int32_t context_find(const struct context_table *ct, uint32_t pid, uint32_t dev,
			    uint32_t ctx)
{
	return analysis_state_map_get(&ct->ctx_map, analysis_grids_key1(pid, ctx), dev);
}

int32_t analysis_partition_context(struct context_table *ct, uint32_t pid, uint32_t dev, uint32_t ctx,
				   int create)
{
	int32_t ci = context_find(ct, pid, dev, ctx);
	if (ci >= 0 || !create)
		return ci;
	if (array_grow((void **)&ct->ctxs, &ct->cap_ctxs, ct->n_ctxs + 1, sizeof *ct->ctxs))
		return -1;
	ci = (int32_t)ct->n_ctxs;
	if (analysis_state_map_put(&ct->ctx_map, analysis_grids_key1(pid, ctx), dev, ci))
		return -1;
	struct context *c = &ct->ctxs[ct->n_ctxs++];
	c->pid = pid;
	c->dev = dev;
	c->ctx = ctx;
	c->green = 0;
	for (size_t i = 0; i < SM_MASK_BITS; i++)
		c->first_end[i] = UINT64_MAX;
	return ci;
}

int analysis_partition_track(struct context_table *ct, int32_t ki)
{
	if (array_grow((void **)&ct->unfolded, &ct->cap_unfolded, ct->n_unfolded + 1, sizeof *ct->unfolded))
		return -1;
	ct->unfolded[ct->n_unfolded++] = ki;
	return 0;
}

/* Ended kernel k's SMs, each with k's end, into its context. */
static int fold_one(struct context_table *ct, const struct kernel_table *kt,
		    const struct grid_table *gt, const struct kern *k)
{
	/* a grid several launches share is none of them alone */
	const struct grid *g = analysis_grids_kern_grid(gt, k);
	if (!g)
		return 0;
	const struct smtop_stream *s = &kt->streams[k->stream].s;
	int32_t ci = analysis_partition_context(ct, s->pid, k->device_id, s->context_id, 1);
	if (ci < 0)
		return -1;
	uint64_t *first_end = ct->ctxs[ci].first_end;
	for (size_t w = 0; w < SM_MASK_WORDS; w++)
		for (uint64_t bits = g->sms.w[w]; bits; bits &= bits - 1) {
			size_t sm = w * 64 + (size_t)__builtin_ctzll(bits);
			if (k->end < first_end[sm])
				first_end[sm] = k->end;
		}
	return 0;
}

int analysis_partition_fold(struct context_table *ct, const struct kernel_table *kt,
			    const struct grid_table *gt, uint64_t watermark)
{
	size_t keep = 0, i = 0;
	for (; i < ct->n_unfolded; i++) {
		int32_t ki = ct->unfolded[i];
		if (analysis_grids_kern_running(&kt->kerns[ki], watermark))
			ct->unfolded[keep++] = ki;
		else if (fold_one(ct, kt, gt, &kt->kerns[ki]))
			break;
	}
	if (i == ct->n_unfolded) {
		ct->n_unfolded = keep;
		return 0;
	}
	/* out of memory: the rest wait for the next update */
	memmove(&ct->unfolded[keep], &ct->unfolded[i], (ct->n_unfolded - i) * sizeof *ct->unfolded);
	ct->n_unfolded = keep + ct->n_unfolded - i;
	return -1;
}

static int mask_empty(const struct smmask *m)
{
	for (size_t w = 0; w < SM_MASK_WORDS; w++)
		if (m->w[w])
			return 0;
	return 1;
}

int analysis_partition_usable(const struct context_table *ct, const struct kernel_table *kt,
			      const struct grid_table *gt, uint64_t watermark,
			      const struct kern *v, struct smmask *use)
{
	const struct smtop_stream *s = &kt->streams[v->stream].s;
	int32_t ci = context_find(ct, s->pid, v->device_id, s->context_id);
	if (ci < 0 || !ct->ctxs[ci].green)
		return 0;
	/* a victim still running (a provisional verdict) has not folded yet */
	uint64_t until = analysis_grids_kern_running(v, watermark) ? watermark : v->end;
	const struct grid *own = analysis_grids_kern_grid(gt, v);
	memset(use, 0, sizeof *use);
	for (size_t sm = 0; sm < SM_MASK_BITS; sm++)
		if (ct->ctxs[ci].first_end[sm] <= until)
			use->w[sm / 64] |= 1ull << (sm % 64);
	for (size_t w = 0; own && w < SM_MASK_WORDS; w++)
		use->w[w] |= own->sms.w[w];
	return !mask_empty(use);
}

static uint32_t mask_count(const struct smmask *m, const struct smmask *and)
{
	uint32_t n = 0;
	for (size_t w = 0; w < SM_MASK_WORDS; w++)
		n += (uint32_t)__builtin_popcountll(and ? m->w[w] & and->w[w] : m->w[w]);
	return n;
}

void analysis_partition_restrict(const struct grid *g, const struct smmask *use, struct cand *cd)
{
	uint32_t all = mask_count(&g->sms, NULL), on = mask_count(&g->sms, use);
	if (g->sms_far || !all || on == all)
		return;
	cd->overlap = cd->overlap * on / all;
	/* rounded, and at least one while any of its block-time lies there */
	cd->blocks = (uint32_t)(((uint64_t)cd->blocks * on + all / 2) / all);
	if (cd->overlap && !cd->blocks && on)
		cd->blocks = 1;
}
