/* A straightforward reference for the model's occupancy bins: every block
 * added to every level bin by bin, per stream, with exact integer sums; and
 * a comparison of a model's rings against it. */
#ifndef SMTOP_TESTS_MODEL_REF_H
#define SMTOP_TESTS_MODEL_REF_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/model.h"

struct model_ref_block {
	struct smtop_block b;
	uint32_t pid, ctx;
};

/* The blocks fed to a model, in any order. */
struct model_ref {
	struct model_ref_block *v;
	size_t n, cap;
};

void model_ref_add(struct model_ref *r, const struct smtop_block *b, size_t n, uint32_t pid,
		   uint32_t ctx);
void model_ref_free(struct model_ref *r);

struct model_ref_stats {
	size_t bins;            /* bins with data compared */
	size_t top2_checked;    /* of those, bins of one or two streams */
	size_t blocks;          /* blocks the model placed, as the reference sees it */
};

/* Compares m (flushed) with the reference occupancy of r's blocks (those
 * whose kernel m knows, on a known SM, ending after they start): the same
 * ring positions, the same occupancy in every bin, and, where a bin holds at
 * most two streams, the same two with their amounts.  Returns 0, or -1 with
 * the first difference in why. */
int model_ref_check(const struct model *m, const struct model_ref *r,
		    struct model_ref_stats *st, char *why, size_t len);

/* 1 if a's and b's rings hold the same bits (same device size assumed). */
int model_ref_same_bins(const struct model *a, const struct model *b);

/* 1 if a's and b's rings are at the same positions with the same occupancy
 * in every bin (their top-2 guesses may differ where blocks came in another
 * order and a bin holds more than two streams). */
int model_ref_same_occupancy(const struct model *a, const struct model *b);

#endif
