/* Where on the timeline `--sm entry` lost launches for want of room: a
 * launch the arena or its queue cannot hold runs without entries, and its
 * grid counts as dropped (collectors/entries.h).  The counts alone leave a
 * viewer's SMs idle where those kernels ran.  Launches dropped between two
 * reserved ones (launch order: seq S, then S + 1) form a gap, placed on the
 * GPU's clock from the first block of launch S to the first block of
 * launch S + 1, the stored kernels around it; the drain finds both as it
 * takes them.  Launch threads note gaps under the context's lock; the
 * drain collects them at each pass and places them as it takes launches.
 * Pure: no lock, no clock, so the tests drive it with numbers. */
#ifndef SMTOP_COLLECTORS_ENTRIES_GAPS_H
#define SMTOP_COLLECTORS_ENTRIES_GAPS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define ENTRIES_GAPS_NOTED 64   /* between two passes; past it the last grows */
#define ENTRIES_GAPS_OPEN 256   /* waiting for their launches; past it the last grows */
#define ENTRIES_GAPS_FIRSTS 1024 /* recent launches' first starts, direct-mapped */

struct entries_gap {
	uint64_t after_seq;     /* the last launch reserved before them (0: none) */
	uint64_t before_seq;    /* the first reserved after them */
	uint64_t launches, blocks;
	uint64_t from, to;      /* GPU ns, 0 while not known */
};

struct entries_gap_first {
	uint64_t seq, first;
};

struct entries_gaps {
	struct entries_gap noted[ENTRIES_GAPS_NOTED];   /* launch threads', under the lock */
	size_t n_noted;
	struct entries_gap open[ENTRIES_GAPS_OPEN];     /* the drain's */
	size_t n_open;
	struct entries_gap_first firsts[ENTRIES_GAPS_FIRSTS];
};

/* A placed gap, handed on: from <= to, both on the GPU's clock. */
typedef void entries_gap_fn(void *arg, const struct entries_gap *g);

/* A launch of `blocks` blocks found no room; after_seq is the last launch
 * reserved so far.  Under the context's lock. */
void entries_gaps_note(struct entries_gaps *g, uint64_t after_seq, uint64_t blocks);

/* The drain, under the same lock: the gaps noted since its last call
 * become its own (those after the same launch as one). */
void entries_gaps_collect(struct entries_gaps *g);

/* The drain took launch seq, whose first block started at first
 * (UINT64_MAX: none entered): the gaps it places both ends of go to emit. */
void entries_gaps_taken(struct entries_gaps *g, uint64_t seq, uint64_t first, entries_gap_fn *emit, void *arg);

/* At the end: every gap left goes to emit with what is known of it, an
 * end not known at end (GPU ns); one with neither of its launches' starts
 * known is left out (its blocks stay counted). */
void entries_gaps_finish(struct entries_gaps *g, uint64_t end, entries_gap_fn *emit, void *arg);

#pragma GCC visibility pop

#endif
