/* Host side of entry-only tracing (`--sm entry`): each launch gets its own
 * stretch of a per-context arena in device memory as its per-launch
 * callback data, where the sanitizer's entry patch writes one struct
 * smtop_entry per block (src/core/smtop_trace_abi.h).  A drain thread per
 * context copies the stretches of launches still short of entries, takes a
 * launch once every block has entered, bounds the blocks' ends
 * (collectors/slot_bounds.h) and packs them into chunks like the lanes'
 * (collectors/entries_pack.h); SMTOP_ENTRY_WORKERS splits the bounding
 * and packing among a team of threads, each a share of the SMs.
 * A launch the arena has no room for is recorded without blocks, its grid
 * counts as dropped, and the hooks' dropped places it between the launches
 * around it (collectors/entries_gaps.h). */
#ifndef SMTOP_COLLECTORS_ENTRIES_H
#define SMTOP_COLLECTORS_ENTRIES_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "collectors/blocks.h"
#include "collectors/entries_pack.h"
#include "src/core/smtop_trace_abi.h"

#pragma GCC visibility push(hidden)

/* Entries in one context's arena: 256 MiB of device memory and as much
 * pinned host memory.  It holds every block launched and not yet entered,
 * and PyTorch queues a training step's worth ahead: 8 M entries filled. */
#define ENTRIES_ARENA SMTOP_ENTRIES_ARENA

/* How many leading entries of a launch's stretch are its own (grid and
 * check match), from `from` on.  Pure. */
size_t entries_taken(const struct smtop_entry *e, size_t from, size_t n, uint32_t grid);

/* Device's GPU clock at host_ns (CLOCK_REALTIME), at most, or 0 when not
 * known yet. */
typedef uint64_t entries_clock_fn(uint32_t device, uint64_t host_ns);

/* What entries.c calls outside itself. */
typedef int entries_set_data_fn(void *launch, CUfunction f, void *stream, const void *data);
struct entries_hooks {
	entries_set_data_fn *set_data;  /* gives a launch its data */
	blocks_observer_fn *observer;   /* makes kernel records of closed blocks; may be NULL */
	entries_clock_fn *clock;        /* may be NULL */
	void *(*copy_stream)(CUcontext ctx); /* a stream for the drain's copies (blocks_patch_copy_stream) */
	entries_pack_fn *pack;          /* one SM's blocks into a chunk (blocks_pack) */
	/* launches dropped for want of room, between from and to on the GPU's
	 * clock (collectors/entries_gaps.h); may be NULL */
	void (*dropped)(uint64_t from, uint64_t to, uint64_t launches, uint64_t blocks);
};

/* Before the first launch: the sanitizer's memory calls (only they are
 * safe inside its callbacks), the hooks, and whether the entry patch
 * writes an entry per warp (block i's warp w at i * warps + w) rather than
 * per block. */
void entries_start(const struct blocks_host *mem, const struct entries_hooks *hooks, int per_warp);

/* Whether the arena lies in pinned host memory (SMTOP_ENTRY_ARENA=host),
 * which the exits of a window must then reach with the system's atomics. */
int entries_arena_in_host(void);

/* From a launch callback: reserves the launch's entries and hands their
 * address to it.  stream_id 0: no stream order bounds its blocks (graph
 * nodes).  0, or -1 when it could not (its blocks count as dropped). */
struct entries_launch_info {
	CUcontext ctx;
	uint32_t context_id, device_id, stream_id;
	uint32_t order_stream;         /* the stream it was launched on, graph nodes' too */
	uint32_t correlation_id;       /* shared by the nodes of one graph launch */
	uint64_t grid_id, blocks;
	uint32_t threads;              /* per block */
	void *launch, *stream;         /* the sanitizer's handles */
	CUfunction function;
	uint64_t kernel;               /* its function's number, for the block lengths learned (0: none) */
};
int entries_on_launch(const struct entries_launch_info *l);

/* How many launches ctx has had so far: what a synchronize call entered
 * now waits for. */
uint64_t entries_launched(CUcontext ctx);

/* The drain passes over ctx's entries so far, and the copies from the GPU
 * they made (0 and 0 before its first launch). */
void entries_passes(CUcontext ctx, uint64_t *passes, uint64_t *copies);

/* The ends of blocks of launches made in exact windows that were given up
 * without all their ends, as the drain last saw them. */
enum entries_end_state {
	ENTRIES_END_NONE,       /* no exit wrote it: grid and count 0 */
	ENTRIES_END_PARTIAL,    /* its grid, fewer threads than the block's */
	ENTRIES_END_STALE,      /* another grid's, more threads, or an end before its start */
	ENTRIES_END_STATES
};

/* ctx's counts of those ends, by state (all 0 before its first launch). */
void entries_window_misses(CUcontext ctx, uint64_t out[ENTRIES_END_STATES]);

/* A synchronize call on ctx returned at host_ns (CLOCK_REALTIME): the
 * launches up to seq (entries_launched at its entry) of stream (0: of
 * every stream) had all ended. */
void entries_synced(CUcontext ctx, uint32_t stream, uint64_t seq, uint64_t host_ns);

/* Around a switch of the exit patches (exact windows): on = 1 before
 * they are patched, on = 0 once they are removed.  Launches made between
 * the two wait for their blocks' exact ends. */
void entries_exits(int on);

/* Recording goes off (the GPU drained, nothing launched since): each
 * context's drain thread takes every launch listed and closes every open
 * block (its end bounded by the GPU's clock now), so that the session
 * ending holds them.  0, or -1 when a drain had not done so in wait_ns. */
int entries_settle(uint64_t wait_ns);

/* At the end: a last drain of every context, every block closed. */
void entries_shutdown(void);

#pragma GCC visibility pop

#endif
