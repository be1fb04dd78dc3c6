/* The most blocks of one kernel resident on one SM at once, found by a
 * sweep over each SM's block starts as the blocks come: what a kernel's
 * occupancy limit (src/core/occupancy_limit.h) is measured against.  The
 * analysis keeps one per device (src/core/analysis_grids.c); the viewer's
 * model takes its figures from there.  Pure: no I/O.
 *
 * Blocks are half-open intervals [start, end): a block that starts when
 * another ends does not overlap it (the analysis' convention).  Each SM
 * keeps, for each kernel, the kernel's blocks still open at the latest
 * start that came for it there, so memory stays at the blocks resident at
 * once.  A session stores each SM's blocks of a process in start order, and
 * in that order the answer is exact whatever the interleaving of SMs,
 * kernels and processes.  A block that comes after later-starting blocks of
 * its kernel on its SM is counted against the blocks still kept: exact when
 * all that overlap it are, a lower bound otherwise (docs/analysis.md). */
#ifndef SMTOP_CORE_RESIDENCY_H
#define SMTOP_CORE_RESIDENCY_H

#include <stddef.h>
#include <stdint.h>

/* Blocks one kernel keeps open on one SM at most; past it the earliest
 * ending is dropped (only damaged or wildly out-of-order data gets there:
 * an SM holds at most 32 blocks on every GPU up to sm_120). */
#define RESIDENCY_OPEN_MAX 1024u
#define RESIDENCY_INLINE 4
/* A kernel's blocks on an SM are forgotten once a block of the same process
 * starts there after the last of them ended (in start order, no later block
 * of the kernel can overlap them), or one of another process, which may lag
 * behind, this long after: blocks come within a flush or two of their end
 * (the collector's writer commits every 50 ms). */
#define RESIDENCY_FORGET_NS 100000000ull

struct residency_span {
	uint64_t s, e;
};

/* The open blocks of one kernel on one SM. */
struct residency_list {
	int32_t owner;                  /* the caller's kernel or grid index */
	uint32_t series;                /* the process its blocks come from */
	uint32_t n, cap;                /* cap 0: the inline spans */
	uint64_t last_end;              /* latest end it was given */
	uint64_t max_s, min_e;          /* of the open blocks: a start in [max_s, min_e)
					 * overlaps them all and ends none */
	struct residency_span *heap;
	struct residency_span inl[RESIDENCY_INLINE];
};

struct residency_sm {
	struct residency_list *v;
	uint32_t n, cap;
	uint32_t last;                  /* the list the SM's last block went to */
};

struct residency {
	struct residency_sm *sms;
	uint32_t n_sms;
	uint64_t late;                  /* blocks that came after later-starting ones */
	uint64_t dropped;               /* open blocks dropped at RESIDENCY_OPEN_MAX */
};

void residency_init(struct residency *r);
void residency_free(struct residency *r);

/* Block [s, e) of owner on SM sm, from series (the process: its blocks
 * come in start order on each SM), whose most blocks on one SM at once the
 * caller keeps (most: so far, 0 at first).  Returns the most with this
 * block (>= 1; a block with e <= s counts 1 and is kept nowhere), or -1
 * when out of memory (nothing changed). */
int residency_add(struct residency *r, uint32_t sm, uint32_t series, int32_t owner, uint64_t s,
		  uint64_t e, int most);

/* Forgets everything at once (a session read to its end). */
void residency_clear(struct residency *r);

/* Bytes held. */
size_t residency_memory(const struct residency *r);

#endif
