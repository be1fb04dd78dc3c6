/* What the model's files share beyond src/core/model.h: src/core/model.c
 * (streams and kernels, bins, events, flush, replay), model_kernel.c (the
 * interned names and shapes, the compact kernel), model_blocks.c (placing
 * blocks, and those waiting for their kernel) and model_query.c (what the
 * views read).  Private to them. */
#ifndef SMTOP_SRC_CORE_MODEL_STATE_H
#define SMTOP_SRC_CORE_MODEL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/model.h"

/* An interned kernel name (model_kernel_intern_name). */
struct model_name {
	const char *name;               /* the copy in the model's nhash */
	char *short_name;
};

/* src/core/model.c */
int model_rings_fit(struct model *m, int64_t smin, int64_t emax);
long model_stream_find(struct model *m, uint32_t pid, uint32_t dev, uint32_t ctx, uint32_t id,
		       int create);
const struct model_stream *model_kstream(const struct model *m, const struct model_kernel *k);
long model_find_kernel_seen(struct model *m, uint32_t pid, uint32_t device_id, uint64_t grid);
int64_t model_rel_time(const struct model *m, uint64_t t);
uint64_t model_time_after(uint64_t t, uint64_t n, uint64_t step);
void model_note_time(struct model *m, uint64_t s, uint64_t e);
int model_draws(const struct model *m, uint32_t device_id);
int model_stage_block(struct model *m, const struct model_kernel *k, const struct smtop_block *b);

/* src/core/model_kernel.c */
long model_kernel_intern_name(struct model *m, const char *name);
long model_kernel_intern_shape(struct model *m, const struct model_shape *sh);
int model_kernel_encode(struct model *m, struct model_kernel *k, uint64_t grid, uint64_t end,
			uint64_t submitted, uint32_t shape);
int model_kernel_put_end(struct model *m, struct model_kernel *k, uint64_t end);
int model_kernel_note_blocks(struct model *m, struct model_kernel *k, uint64_t first,
			     uint64_t last, uint64_t n);

/* src/core/model_blocks.c */
int model_blocks_retry(struct model *m);
int model_blocks_bin_staged(struct model *m);

#endif
