/* Green contexts: a kernel of a green context runs only on its context's
 * share of the SMs, so only what held those SMs can have kept it waiting.
 * The session does not store the share; the SMs its context's kernels ran
 * blocks on stand for it (docs/analysis.md, "Green contexts"). */
#ifndef SMTOP_ANALYSIS_PARTITION_H
#define SMTOP_ANALYSIS_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis_state.h"

/* The context (pid, dev, ctx), added when create is set (-1 when out of
 * memory); -1 when not known. */
int32_t analysis_partition_context(struct context_table *ct, uint32_t pid, uint32_t dev, uint32_t ctx,
				   int create);

/* Kernel ki, just added, brings its SMs to its context once it has ended. */
int analysis_partition_track(struct context_table *ct, int32_t ki);

/* The SMs of the kernels ended by the watermark reach their contexts: each
 * SM keeps the earliest end of a kernel that ran a block there.  A kernel
 * that ended has all its blocks in (the watermark's promise), so what a
 * context holds for times up to the watermark does not depend on how the
 * input was cut.  Returns 0, or -1 when out of memory. */
int analysis_partition_fold(struct context_table *ct, const struct kernel_table *kt,
			    const struct grid_table *gt, uint64_t watermark);

/* The SMs victim v could run on, into *use: when its context is green,
 * the SMs its context's kernels ran blocks on, of those that ended by the
 * time v ended (v's own included).  0 when every SM counts: v's context is
 * not green, or none of its SMs is known. */
int analysis_partition_usable(const struct context_table *ct, const struct kernel_table *kt,
			      const struct grid_table *gt, uint64_t watermark,
			      const struct kern *v, struct smmask *use);

/* Culprit grid g's overlap and resident blocks (in cd) on the SMs in use
 * only, by the share of its SMs that lie there: exact when its blocks ran
 * all inside or all outside them, else as if its block-time were spread
 * evenly over its SMs.  A grid with blocks past SM_MASK_BITS keeps all. */
void analysis_partition_restrict(const struct grid *g, const struct smmask *use, struct cand *cd);

#endif
