/* Host side of the block tracer: one device ring per CUDA context, handed to
 * every instrumented module at its first launch, drained every ~10 ms into
 * SMTOP_REC_BLOCKS records.  Protocol: src/core/smtop_trace_abi.h. */
#ifndef SMTOP_COLLECTORS_BLOCKS_H
#define SMTOP_COLLECTORS_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "src/core/smtop_trace_abi.h"
#include "src/core/records.h"

#pragma GCC visibility push(hidden)

struct ring;

/* Slots per lane: a lane holds the blocks of 2.16 M-block bursts over 132
 * SMs (DNN training kernels start blocks at 100-200 M/s for milliseconds,
 * faster than the drains take them); the ring takes 128 MiB of device memory
 * and as much pinned host memory, only in processes with instrumented
 * kernels.  8,192 slots dropped blocks in the demos' training bursts
 * (docs/performance.md). */
#define BLOCKS_LANE_CAPACITY (1u << 14)

/* The complete prefix of [read, head): counts slots from read whose two
 * halves both carry the tag of their lap, stopping at the first that does
 * not.  slots is the ring image (index i lives at i & (capacity - 1)).  With
 * out non-NULL, decodes that many blocks into it.  Pure. */
size_t blocks_collect(const struct smtop_trace_slot *slots, uint32_t capacity,
		      uint64_t read, uint64_t head, uint16_t device_id,
		      struct smtop_block *out);

/* A drain thread's wait for its context's start to finish: blocks_start_ring
 * starts the threads before it says the context is ready (their lanes may
 * still move to another group).  While *state is still `starting` (and
 * *stop is not set), waits; returns 1 when it became `ready`, 0 otherwise.
 * Taking "not ready yet" for "stop" let a thread leave at once, and its
 * share of the SMs dropped every block (docs/performance.md). */
int blocks_await_start(_Atomic int *state, _Atomic int *stop, int starting, int ready);

/* Greatest common divisor of the timestamps seen: the %globaltimer tick. */
uint64_t blocks_timer_tick(const struct smtop_block *b, size_t n, uint64_t tick);

/* Sees every block a drain takes, before it is packed (the sanitizer
 * backend makes kernel records from them).  Called from drain threads. */
typedef void blocks_observer_fn(uint32_t context_id, const struct smtop_block *b, size_t n);

/* How a backend reaches the GPU and names what it sees, for the lanes:
 * each backend fills one in and hands it over at its start
 * (blocks_set_host).  The CUPTI backend's (collectors/cupti_blocks.c) calls
 * the driver and CUPTI; the Compute Sanitizer's calls only the sanitizer,
 * since inside its callbacks a driver call can deadlock.  A stream passed
 * to the memory calls is one stream_handle gave; they return 0 on success. */
struct blocks_host {
	int (*alloc)(CUcontext ctx, void **dev, size_t bytes);
	int (*alloc_host)(CUcontext ctx, void **host, size_t bytes);
	int (*memset)(void *dev, int value, size_t bytes, void *stream);
	/* Copies, done by the next sync at the latest (the sanitizer's
	 * download returns when it is done). */
	int (*upload)(void *dev, const void *host, size_t bytes, void *stream);
	int (*download)(void *host, const void *dev, size_t bytes, void *stream);
	int (*sync)(void *stream);
	/* The handle the calls above take for a stream of ours, or NULL. */
	void *(*stream_handle)(CUcontext ctx, CUstream stream);
	/* ctx's ids as the backend's records number them.  NULL: the
	 * backend names them at its first blocks_context_ring. */
	void (*context_ids)(CUcontext ctx, uint32_t *context_id, uint32_t *device_id);
	/* The id the backend's records give a stream of ours, whose copies
	 * then stay out of the session: 0, or -1.  NULL: its records never
	 * show our copies. */
	int (*own_stream_id)(CUcontext ctx, CUstream stream, uint32_t *id);
	/* A workload's stream as the backend's records number it (demo
	 * requests), 0 when not known. */
	uint32_t (*stream_id)(void *stream);
	blocks_observer_fn *observer;   /* may be NULL */
	/* Every ring's header carries these SMTOP_PATCH_* flags for the device
	 * patches (a backend that patches modules), 0 for header-marked
	 * kernels. */
	uint32_t patch_flags;
	/* A drain thread per this many CPUs (SMTOP_DRAIN_THREADS overrides). */
	unsigned cpus_per_drain;
};

/* A backend's start, before the first launch: its host operations (kept
 * by pointer; NULL: no block tracing). */
void blocks_set_host(const struct blocks_host *host);

/* After the backend's start: block tracing on, unless SMTOP_BLOCKS=0, no
 * backend handed its host operations, or libcuda lacks a call the lanes
 * need; 0, or -1 (block tracing stays off). */
int blocks_init(struct ring *ring, uint32_t pid);

/* Whether thread blocks are to be traced (SMTOP_BLOCKS=0 turns the launch
 * hook and the lanes off). */
int blocks_wanted(void);

/* From the driver-API callback at the entry of a kernel launch: a module
 * built with src/core/smtop_trace.cuh gets its context's ring at its first
 * launch.  1 when f's module holds the ring (its blocks time themselves),
 * else 0. */
int blocks_on_launch(CUcontext ctx, CUfunction f);

/* Whether a module loaded from image (size bytes; NULL: not known) may be
 * built with src/core/smtop_trace.cuh: its image names the ring's symbol.
 * A patching backend asks blocks_on_launch only once such a module loaded,
 * so that a program without one (PyTorch) meets no driver call of ours
 * inside its launch calls. */
int blocks_image_may_hold_ring(const void *image, size_t size);

/* Whether mod holds ctx's ring, for a launch callback: no driver call, no
 * wait for a module being handed the ring (it counts as holding it). */
int blocks_module_traced(CUcontext ctx, CUmodule mod);

/* For a backend that patches every module, from a launch callback: the
 * device address of ctx's ring, made at the first call (ids as the backend
 * numbers them; launch_stream is the launch's stream handle), or 0 when
 * block tracing is off or failed there. */
uint64_t blocks_context_ring(CUcontext ctx, uint32_t context_id, uint32_t device_id, void *launch_stream);

/* Packs n blocks of one SM (sorted in place) into one chunk record for the
 * writer; scratch holds DB_BLOCKCODEC_MAX_BYTES(n).  A chunk that cannot be
 * made or queued counts its blocks as dropped. */
void blocks_pack(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
		 uint8_t *scratch);

/* Marks this thread as the collector's own (its CUDA calls are not the
 * workload's), or no longer. */
void blocks_set_own_code(int own);

/* Outside any callback: a stream of ctx for the collector's own copies
 * (made current on this thread), as the host's stream_handle gave it, or
 * NULL. */
void *blocks_patch_copy_stream(CUcontext ctx);

/* From the resource callbacks. */
void blocks_on_context_destroy(CUcontext ctx);
void blocks_on_module_unload(CUcontext ctx);

/* Whether a stream is one of ours, so its copies stay out of the session. */
int blocks_is_own_stream(uint32_t context_id, uint32_t stream_id);

/* Whether this thread is running collector code (drain threads, the launch
 * hook): CUPTI callbacks then ignore it. */
int blocks_in_own_code(void);

/* Stops drain threads after one final drain of each ring. */
void blocks_shutdown(void);

/* The writer stored (or dropped) n blocks that a drain handed over. */
void blocks_released(uint64_t n);

#pragma GCC visibility pop

#endif
