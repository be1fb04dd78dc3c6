/* The block lanes' state and the functions their files share:
 * collectors/blocks.c (the pure part, contexts and their rings, launches,
 * requests) and collectors/blocks_drain.c (the drain threads, the last
 * drain).  Private to them: everything else goes through
 * collectors/blocks.h. */
#ifndef SMTOP_COLLECTORS_BLOCKS_STATE_H
#define SMTOP_COLLECTORS_BLOCKS_STATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "collectors/blocks.h"
#include "collectors/ptrset.h"
#include "src/core/smtop_trace_abi.h"

#pragma GCC visibility push(hidden)

#define BLOCKS_MAX_CONTEXTS 64
#define BLOCKS_MAX_GROUPS 8             /* drain threads per context, at most */

/* What the lanes ask of the driver themselves, whatever the backend: their
 * own streams and contexts, the SM count, the launch hook's modules.  The
 * memory calls are the backend's (struct blocks_host). */
struct blocks_cu {
	__typeof__(cuStreamCreate) *stream_create;
	__typeof__(cuModuleGetGlobal) *module_get_global;
	__typeof__(cuFuncGetModule) *func_get_module;
	__typeof__(cuKernelGetFunction) *kernel_get_function;
	__typeof__(cuCtxSetCurrent) *ctx_set_current;
	__typeof__(cuCtxPushCurrent) *ctx_push_current;
	__typeof__(cuCtxPopCurrent) *ctx_pop_current;
	__typeof__(cuThreadExchangeStreamCaptureMode) *exchange_capture_mode;
	__typeof__(cuCtxGetDevice) *ctx_get_device;
	__typeof__(cuDeviceGetAttribute) *device_get_attribute;
};

enum blocks_ctx_state {
	BLOCKS_CTX_IDLE = 0,            /* known, but no instrumented module seen yet */
	BLOCKS_CTX_SETUP,               /* patched: ring on the GPU, first drain thread starting */
	BLOCKS_CTX_READY,
	BLOCKS_CTX_FAILED,
	BLOCKS_CTX_DEAD,                /* a drain failed: no more CUDA calls */
	BLOCKS_CTX_FINISHED,            /* final drain done */
};

/* One lane's blocks on their way into a chunk (the lane is one SM). */
struct blocks_stage {
	struct smtop_block *b;          /* DB_BLOCKCODEC_MAX_BLOCKS, at first use */
	uint32_t n;
	uint64_t since;                 /* monotonic ns when the first arrived */
};

struct blocks_ctx;

/* A drain thread and the lanes [lo, hi) it owns.  Groups share nothing but
 * the pinned image, where their lanes are disjoint, so they drain in
 * parallel: one thread alone cannot keep up with a block storm
 * (docs/collector.md). */
struct blocks_group {
	struct blocks_ctx *c;
	unsigned lo, hi;
	CUstream stream;                /* drain copies */
	void *copy;                     /* stream as the host's memory calls take it */
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock;           /* one drain of these lanes at a time */
	uint64_t dropped_seen;
	uint64_t drain_ns, drained;     /* time in drains, blocks staged (SMTOP_DEBUG) */
	uint64_t fetch_ns, observe_ns;  /* of it: copies off the GPU, the observer's */
	uint64_t pack_ns;               /* of it: packing chunks */
	uint64_t slowest_ns;            /* the longest drain */
	uint64_t held_back;             /* drains that left the slots on the GPU: writer behind */
	uint64_t busiest;               /* most new slots of one lane, last drain */
	uint8_t *packed;                /* encoding scratch */
};

struct blocks_ctx {
	CUcontext ctx;
	uint32_t context_id, device_id;
	_Atomic int state;
	_Atomic int stop;
	_Atomic uint32_t n_own_streams;
	uint32_t own_stream_ids[BLOCKS_MAX_GROUPS + 1];
	struct blocks_group groups[BLOCKS_MAX_GROUPS];
	unsigned n_groups;
	CUstream setup_stream;          /* module pointer stores, from launching threads */
	void *setup;                    /* setup_stream as the host's memory calls take it */
	CUdeviceptr ring;
	CUdeviceptr open_blocks;        /* patched modules: the open-block table */
	uint64_t ring_value;            /* host copy of the pointer stored in modules */
	struct smtop_trace_ring *host;  /* pinned image of the whole ring */
	uint64_t read[SMTOP_TRACE_LANES];
	unsigned stall[SMTOP_TRACE_LANES];
	uint64_t fresh[SMTOP_TRACE_LANES]; /* slots copied in this drain */
	struct blocks_stage stage[SMTOP_TRACE_LANES];
	pthread_mutex_t setup_lock;     /* the maps, module stores */
	/* functions and modules seen: 1 when the module holds the ring */
	struct ptrmap funcs, modules;
	/* The modules that hold the ring, for launch callbacks, which must
	 * not wait for setup_lock: its holder's driver calls may wait for
	 * their launch. */
	pthread_mutex_t traced_lock;
	struct ptrmap traced;
};

/* collectors/blocks.c */
extern struct blocks_cu blocks_cu;
extern struct ring *blocks_ring;
extern uint32_t blocks_pid;
extern struct blocks_ctx *blocks_ctxs[BLOCKS_MAX_CONTEXTS];
extern _Atomic size_t blocks_n_ctxs;
extern _Thread_local int blocks_tls_own;
extern const struct blocks_host *blocks_host;
CUstreamCaptureMode blocks_relax(void);
void blocks_unrelax(CUstreamCaptureMode mode);
struct smtop_trace_slot *blocks_lane_slots(struct blocks_ctx *c, unsigned l);
struct blocks_ctx *blocks_find(CUcontext ctx);
int blocks_finish_patched(struct blocks_ctx *c);

/* collectors/blocks_drain.c */
void *blocks_drain_main(void *arg);

#pragma GCC visibility pop

#endif
