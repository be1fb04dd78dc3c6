/* Occupancy binning for the model's pyramid (struct model_level rings):
 * blocks are staged as they arrive and binned in batches, each SM's batch
 * by one sweep over its time span, so that a block costs the same whatever
 * its length and however many levels there are.  See docs/ui.md ("The
 * model", "Binning").  The helpers below are shared with src/core/model.c, which
 * reads the bins and fills the detail level. */
#ifndef SMTOP_BINNING_H
#define SMTOP_BINNING_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/model.h"

struct pool;
struct binning;

/* Staged blocks before binning_push reports the stage full: big batches
 * amortise the sweep (25 ms of a 20 M blocks/s workload fit in one), at
 * 16 bytes a block. */
#define BINNING_STAGE_MAX (1u << 19)

/* Bin arithmetic works on times relative to the model's origin.  A damaged
 * file may hold any time, so these are clamped to a range where the sums and
 * differences of bin indices cannot overflow, and a block is binned for at
 * most BINNING_BLOCK_MAX_NS (39 hours: pieces of a long block stay few). */
#define BINNING_REL_MAX (INT64_MAX / 4)
#define BINNING_BLOCK_MAX_NS (1ll << 47)

static inline int64_t binning_rel(uint64_t t, int64_t origin)
{
	uint64_t o = (uint64_t)origin;
	if (t >= o)
		return t - o > (uint64_t)BINNING_REL_MAX ? BINNING_REL_MAX : (int64_t)(t - o);
	return o - t > (uint64_t)BINNING_REL_MAX ? -BINNING_REL_MAX : -(int64_t)(o - t);
}

static inline int64_t binning_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0)) ? q - 1 : q;
}

/* Rings hold a power-of-two number of bins, so the mask is a modulo that is
 * also right for negative indices. */
static inline size_t binning_ring_slot(const struct model_level *l, int64_t idx)
{
	return (size_t)((uint64_t)idx & (uint64_t)(l->n - 1));
}

static inline void binning_bin_clear(struct model_bin *b)
{
	*b = (struct model_bin){ 0, 0, 0, MODEL_NO_STREAM, MODEL_NO_STREAM };
}

/* Space-saving top-2 (the caller adds amt to occ): exact when a bin holds at
 * most two streams, a good guess of the dominant one otherwise.  Two streams
 * of equal amounts rank by stream number, so that which came first (the
 * batches' order) does not decide the dominant one. */
static inline void binning_bin_note(struct model_bin *b, uint16_t s, uint64_t amt)
{
	if (b->top == s || b->top == MODEL_NO_STREAM) {
		b->top = s;
		b->top_amt += amt;
		return;
	}
	if (b->second == s) {
		b->second_amt += (float)amt;
	} else if (b->second == MODEL_NO_STREAM || b->second_amt < (float)amt) {
		b->second = s;
		b->second_amt = (float)amt;
	} else {
		return;
	}
	if (b->second_amt > (float)b->top_amt ||
	    (b->second_amt == (float)b->top_amt && b->second < b->top)) {
		uint16_t t = b->top;
		uint64_t ta = b->top_amt;
		b->top = b->second;
		b->top_amt = (uint64_t)b->second_amt;
		b->second = t;
		b->second_amt = (float)ta;
	}
}

struct binning *binning_new(void);
void binning_free(struct binning *b);

/* Sizes the stage for SMs 0..n_sm-1 and empties it (the bins were
 * reallocated).  Returns 0, or -1 when out of memory. */
int binning_set_sms(struct binning *b, uint32_t n_sm);

/* Stages [s, e) (ns from the model's origin, s < e) of a block of `threads`
 * threads of model stream `stream` on SM sm (below binning_set_sms' count).  Returns 0, 1 when the stage is
 * full (the caller should binning_apply), or -1 when out of memory. */
int binning_push(struct binning *b, uint32_t sm, int64_t s, int64_t e, uint32_t threads,
		 uint16_t stream);
/* The same for n blocks (start < end) of one kernel on SM sm, on CUPTI
 * time: origin is the model's. */
int binning_push_blocks(struct binning *b, uint32_t sm, const struct smtop_block *blk, size_t n,
			int64_t origin, uint32_t threads, uint16_t stream);
size_t binning_staged(const struct binning *b);
/* Frees the stage and the sweeps' scratch when nothing is staged (they are
 * made again by the next push and apply). */
void binning_trim(struct binning *b);
/* Bytes of the stage's lists (as much of them as was ever filled) and the
 * sweeps' scratch. */
size_t binning_memory(const struct binning *b);
/* The most it was, at a batch or now. */
size_t binning_memory_peak(const struct binning *b);
/* Earliest start and latest end staged (ns from the origin), INT64_MAX and
 * INT64_MIN when nothing is: the model sizes its rings before a batch. */
void binning_extent(const struct binning *b, int64_t *smin, int64_t *emax);

/* Adds everything staged to levels[0..MODEL_LEVELS) of n_sm SMs, moving the
 * rings forward to the latest end staged (each ring must already hold, in
 * memory, every bin of its span from the earliest start staged on), on p's threads (p may be NULL).
 * With peak non-NULL, raises *peak to the highest mean resident threads of
 * a finest-level bin it wrote.  Returns 0, or -1 when out of memory (nothing
 * is binned then; the stage is kept). */
int binning_apply(struct binning *b, struct model_level *levels, uint32_t n_sm,
		  uint32_t n_streams, struct pool *p, double *peak);

#endif
