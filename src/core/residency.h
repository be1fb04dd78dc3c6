/* The most blocks of one kernel resident on one SM at once, found by a
 * sweep over each SM's block starts as the blocks come: what a kernel's
 * occupancy limit (src/core/occupancy_limit.h) is measured against.  The
 * analysis (for `smtop report`) and the viewer's model each keep one.
 * Pure: no I/O.
 *
 * Blocks are half-open intervals [start, end): a block that starts when
 * another ends does not overlap it (the analysis' convention).  Each SM
 * keeps the blocks still open at the latest start its series (the blocks
 * of one process, which a session stores SM by SM in start order) has
 * reached, so memory stays at the blocks resident at once.  In that order
 * the answer is exact whatever the interleaving of SMs and processes; a
 * block that comes after later-starting blocks of its series is counted
 * against the blocks still kept (exact when they all are, a lower bound
 * otherwise: see docs/analysis.md). */
#ifndef SMTOP_CORE_RESIDENCY_H
#define SMTOP_CORE_RESIDENCY_H

#include <stddef.h>
#include <stdint.h>

/* Blocks one SM keeps open at most; past it the earliest ending is dropped
 * (only damaged or wildly out-of-order data gets there: an SM holds at
 * most 32 blocks on every GPU up to sm_120). */
#define RESIDENCY_OPEN_MAX 1024u

struct residency_open {
	uint64_t s, e;
	int32_t owner;                  /* the caller's kernel or grid index */
	uint32_t series;                /* the process the block came from */
};

struct residency_sm {
	struct residency_open *v;
	uint32_t n, cap;
};

struct residency {
	struct residency_sm *sms;
	uint32_t n_sms;
	uint64_t late;                  /* blocks that came after later-starting ones */
	uint64_t dropped;               /* open blocks dropped at RESIDENCY_OPEN_MAX */
};

void residency_init(struct residency *r);
void residency_free(struct residency *r);

/* Block [s, e) of owner on SM sm, from series.  Returns the most blocks of
 * owner resident at once on sm that this block takes part in (>= 1; a
 * block with e <= s counts 1 and is kept nowhere), or -1 when out of
 * memory (nothing changed).  The caller keeps the maximum per owner. */
int residency_add(struct residency *r, uint32_t sm, uint32_t series, int32_t owner, uint64_t s,
		  uint64_t e);

/* Bytes held by the open lists. */
size_t residency_memory(const struct residency *r);

#endif
