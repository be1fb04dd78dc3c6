/* Block ends under entry-only tracing (`--sm entry`): only a block's start,
 * SM and thread 0's hardware warp slot are recorded, so its end is bounded
 * from above by what came after it:
 *   - the next block that entered on the same SM and warp slot (a warp
 *     keeps its slot for its whole life, so the slot's next warp entered
 *     after this one left);
 *   - the first block of a later launch on the same stream (stream order;
 *     not for graph kernels, whose nodes follow the graph's edges);
 *   - the return of a host synchronize call that waited for its launch
 *     (its stream's, or the whole context's), or of a synchronous copy
 *     to the host on its stream;
 *   - at the end of the process, the GPU clock then.
 * The bound is the least of those known when the block is closed, and
 * no later than the block's start plus its kernel's longest block measured
 * in an exact window (so between windows it is an inference, not a strict
 * bound); every such block comes out with SMTOP_BLOCK_END_BOUND.  A block
 * put with its exact end (b.end, measured in a window) keeps it, without
 * the flag, and still bounds the block before it on its slot.  It bounds thread 0's warp:
 * another warp of the block may outlive it (docs/collector.md).
 * Pure: no CUDA, no lock (one drain thread owns a table). */
#ifndef SMTOP_COLLECTORS_SLOT_BOUNDS_H
#define SMTOP_COLLECTORS_SLOT_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

#pragma GCC visibility push(hidden)

#define SLOT_BOUNDS_SLOTS 64     /* warp slots per SM (%warpid < 64 up to cc 12.x) */
#define SLOT_BOUNDS_STREAMS 1024 /* streams remembered, direct-mapped */

/* A block whose end is not known yet.  stream 0: no stream bound applies;
 * order: the stream it was launched on, a graph node's too. */
struct slot_open {
	struct smtop_block b;           /* b.end: its exact end, 0 when unknown */
	uint32_t stream, order;
	uint64_t seq;                   /* its launch's number, in launch order */
	uint64_t kernel;                /* its kernel (function), 0: unknown */
	uint32_t group;                 /* a warp of groups[group - 1]'s block; 0: a block */
};

/* A block traced warp by warp: it closes when its last open warp does,
 * at the latest of their ends. */
struct slot_group {
	struct smtop_block b;           /* b.end: its exact end, 0 when unknown */
	uint64_t kernel;
	uint64_t inferred;              /* the latest end of its warps closed so far */
	uint32_t left;                  /* its warps still open; 0: the group is free */
	uint32_t next_free;             /* index + 1 of the next free group */
	int measured;                   /* every warp closed so far was measured */
};

/* A synchronize call returned at `at` (GPU clock, at most): the launches up
 * to seq of its stream (0: of every stream) had ended by then. */
struct slot_sync {
	uint32_t stream;
	uint64_t seq, at;
};

/* The latest launch of a stream whose first block is known. */
struct slot_stream {
	uint32_t id;
	uint64_t seq, first;
};

/* Kernels' longest blocks measured in exact windows, direct-mapped. */
#define SLOT_BOUNDS_KERNELS 4096
struct slot_kernel {
	uint64_t kernel, longest;
};

/* How far inferred ends fell from exact ones: |inferred - exact| in
 * buckets of an eighth of a power of two; under counts the inferred ends
 * that came before the exact one (another warp outlived thread 0's).
 * Per SM, the time the same blocks held it, exact and inferred: their
 * ratio is how much busier the inferred ends draw each SM. */
#define SLOT_ERROR_BUCKETS 512
#define SLOT_ERROR_SMS 256
struct slot_error {
	uint64_t n, under;
	uint64_t buckets[SLOT_ERROR_BUCKETS];
	uint64_t sm_exact_ns[SLOT_ERROR_SMS], sm_inferred_ns[SLOT_ERROR_SMS];
};

struct slot_bounds {
	uint32_t n_sm;
	uint64_t kernel;                /* of the blocks put next */
	struct slot_kernel kernels[SLOT_BOUNDS_KERNELS];
	struct slot_error error;
	struct slot_open *open;         /* n_sm * SLOT_BOUNDS_SLOTS; b.start 0: free */
	struct slot_group *groups;      /* as many: a block has a warp open */
	uint16_t *open_on;              /* n_sm: the open slots of each SM */
	uint32_t free_group;            /* index + 1 of the first free group; 0: none */
	struct slot_stream streams[SLOT_BOUNDS_STREAMS];
	struct slot_sync syncs[SLOT_BOUNDS_STREAMS];
	struct slot_sync all;
	size_t n_open;
	int changed;                    /* a bound came since the last sweep */
};

/* 0, or -1 when out of memory. */
int slot_bounds_init(struct slot_bounds *t, uint32_t n_sm);
void slot_bounds_free(struct slot_bounds *t);

/* Block b entered on sm's warp slot `slot` (b.sm and b.start set; b.end
 * its exact end or 0), from
 * launch seq of stream (0: none).  Whatever that closes (b's predecessor on
 * the slot, or b itself when a later block already holds it: launches
 * complete out of order) goes to *closed; returns 1 then, else 0.  A block
 * of an SM or slot beyond the table has nothing to bound it: it comes back
 * at once with end = start. */
int slot_bounds_put(struct slot_bounds *t, const struct smtop_block *b, unsigned slot, uint32_t stream,
		    uint32_t order, uint64_t seq, struct smtop_block *closed);

/* Block b traced warp by warp: n of its warps entered, on the warp slots
 * slots[0..n) of b.sm.  Its end is the latest of its warps' ends, each
 * bounded as a block's is.  Whatever closes (at most n blocks: this one or
 * those whose last warp held one of the slots) goes to closed; returns how
 * many. */
size_t slot_bounds_put_warps(struct slot_bounds *t, const struct smtop_block *b, const uint8_t *slots,
			     unsigned n, uint32_t stream, uint32_t order, uint64_t seq, struct smtop_block *closed);

/* The kernel (its function) of the blocks put from now on: a block with
 * an exact end teaches it its longest block, which then tightens the
 * inferred ends of its blocks between windows.  0: not known. */
void slot_bounds_kernel(struct slot_bounds *t, uint64_t kernel);

/* The value below which a share q (0..1) of the measured errors fall, at
 * the lower edge of its bucket; 0 when none was measured. */
uint64_t slot_error_quantile(const struct slot_error *e, double q);

/* Launch seq of stream had its first block start at first: a bound for the
 * blocks of the stream's earlier launches. */
void slot_bounds_launch_started(struct slot_bounds *t, uint32_t stream, uint64_t seq, uint64_t first);

/* A synchronize call on stream (0: the context) that waited for launches
 * up to seq returned at `at` on the GPU clock (at most). */
void slot_bounds_synced(struct slot_bounds *t, uint32_t stream, uint64_t seq, uint64_t at);

/* Closes the open blocks that a later launch of their stream or a
 * synchronize call bounds, at
 * most cap, into out; returns how many. */
size_t slot_bounds_sweep(struct slot_bounds *t, struct smtop_block *out, size_t cap);

/* Closes every open block at the least of its stream bound and end (the
 * GPU's clock at the end of the process), at most cap; returns how many. */
size_t slot_bounds_close_all(struct slot_bounds *t, uint64_t end, struct smtop_block *out, size_t cap);

#pragma GCC visibility pop

#endif
