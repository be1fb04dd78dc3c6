/* Plain records shared by the collector, the session store and the viewer.
 *
 * Every time is in nanoseconds on CUPTI's timebase (Unix epoch) unless a field
 * says otherwise; 0 means "unknown" and must be shown as N/A, never as 0.
 * Strings in records travelling from the collector to the writer are
 * malloc'd and owned by the record (the writer frees them); strings in records
 * handed out by the reader point into the reader's string table. */
#ifndef SMTOP_RECORDS_H
#define SMTOP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define SMTOP_PRIORITY_UNKNOWN INT32_MIN

enum smtop_rec_kind {
	SMTOP_REC_KERNEL = 1,
	SMTOP_REC_MEMCPY,
	SMTOP_REC_MEMSET,
	SMTOP_REC_API,
	SMTOP_REC_NVTX,
	SMTOP_REC_STREAM,
	SMTOP_REC_DEVICE,
	SMTOP_REC_CONTEXT,
	SMTOP_REC_SYNC,
	SMTOP_REC_BLOCKS,
	SMTOP_REC_CHUNK,
	SMTOP_REC_REQUEST,
	SMTOP_REC_CUDA_EVENT,
	SMTOP_REC_GRAPH_DEP,
};

struct smtop_kernel {
	uint64_t start, end;
	uint64_t queued, submitted;     /* CUPTI latency timestamps, 0 if unknown */
	uint64_t grid_id;               /* equals %gridid inside the kernel */
	uint32_t pid;
	uint32_t device_id, context_id, stream_id, correlation_id;
	int32_t grid[3], block[3];
	uint32_t registers;             /* per thread */
	uint32_t static_smem, dynamic_smem; /* bytes per block */
	uint32_t local_mem;             /* bytes per thread */
	int32_t launch_type;            /* CUpti_ActivityLaunchType */
	int32_t is_graph;               /* launched from a CUDA graph */
	uint64_t graph_node_id;         /* its node of the graph launched, 0 if none */
	const char *name;               /* mangled name as CUPTI gives it */
};

struct smtop_memcpy {
	uint64_t start, end, bytes;
	uint32_t pid, device_id, context_id, stream_id, correlation_id;
	int32_t copy_kind;              /* CUpti_ActivityMemcpyKind */
	int32_t src_kind, dst_kind;     /* CUpti_ActivityMemoryKind */
	uint64_t graph_node_id;         /* its node of the graph launched, 0 if none */
};

struct smtop_memset {
	uint64_t start, end, bytes;
	uint32_t pid, device_id, context_id, stream_id, correlation_id;
	uint32_t value;
	uint64_t graph_node_id;         /* its node of the graph launched, 0 if none */
};

/* A runtime or driver API call (launches, synchronisation, copies). */
struct smtop_api {
	uint64_t start, end;
	uint32_t pid, tid, correlation_id, cbid;
	int32_t is_driver;              /* 1 driver API, 0 runtime API */
	int32_t return_value;
	const char *name;               /* e.g. "cudaLaunchKernel" */
	/* a graph launch's stream, whose priority its kernels run at (they
	 * run on streams of the graph's own, CUPTI names them) */
	uint32_t stream_id;
	int32_t has_stream;
};

/* A CUDA synchronisation (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION). */
struct smtop_sync {
	uint64_t start, end;
	uint32_t pid, context_id, stream_id, correlation_id;
	int32_t type;                   /* CUpti_ActivitySynchronizationType */
	uint32_t event_id;              /* the CUDA event waited on; SMTOP_SYNC_NONE if none */
	uint64_t sync_id;               /* its record's cudaEventSyncId; SMTOP_SYNC_NONE if none */
};

/* CUPTI's CUPTI_SYNCHRONIZATION_INVALID_VALUE: a field that does not apply. */
#define SMTOP_SYNC_NONE UINT32_MAX

/* A cudaEventRecord (CUPTI_ACTIVITY_KIND_CUDA_EVENT): the event completes
 * when the work queued on its stream before the call is done. */
struct smtop_cuda_event {
	uint64_t device_ts;             /* when the GPU reached it; 0 if not collected */
	uint64_t sync_id;               /* matches smtop_sync.sync_id; SMTOP_SYNC_NONE if none */
	uint32_t pid, device_id, context_id, stream_id, correlation_id;
	uint32_t event_id;
};

/* An edge of an instantiated CUDA graph: node runs after depends_on.  Node
 * ids are those the kernel, copy and memset records of the graph's launches
 * carry (graph_node_id); a node without dependencies gets one row with
 * depends_on 0, so a node without rows is one whose edges are not known. */
struct smtop_graph_dep {
	uint64_t node_id, depends_on;
	uint32_t pid;
	int32_t node_type, dep_type;    /* CUgraphNodeType; dep_type -1 for none */
};

struct smtop_nvtx {
	uint64_t start, end;            /* end 0 for a mark */
	uint32_t pid, tid;
	int32_t color;
	const char *text;
	const char *domain;
};

struct smtop_stream {
	uint32_t pid, device_id, context_id, stream_id;
	int32_t priority;               /* lower = higher priority; UNKNOWN if not seen */
	uint32_t flags;                 /* CUpti_ActivityStreamFlag */
	uint32_t correlation_id;
};

struct smtop_device {
	uint32_t pid, device_id;
	uint32_t sm_count, cc_major, cc_minor;
	uint32_t max_threads_per_sm, max_blocks_per_sm, max_regs_per_sm;
	uint32_t max_smem_per_sm, max_threads_per_block, warp_size;
	uint64_t global_memory_bytes;
	const char *name;
	const char *uuid;               /* hex, may be NULL */
};

struct smtop_context {
	uint32_t pid, device_id, context_id;
	uint32_t null_stream_id;
	/* A green context runs its kernels on its own share of the SMs; its
	 * parent is the context it was made from (0: none or not known). */
	uint32_t parent_context_id;
	int32_t is_green;
};

/* One thread block, as the block tracer saw it.  Times here are on the
 * %globaltimer clock; the session's clock offset moves them onto CUPTI's. */
struct smtop_block {
	uint64_t grid_id;
	uint64_t start, end;
	uint32_t block;                 /* linear block index */
	uint16_t sm;
	uint8_t device_id;
	uint8_t flags;                  /* SMTOP_BLOCK_* */
};

/* The block's end is an upper bound, not a measurement: under `--sm entry`
 * only its start is recorded, and its end is the next entry on its SM's
 * warp slot or another bound the collector knew (docs/collector.md). */
#define SMTOP_BLOCK_END_BOUND 1u

/* Where launches ran whose blocks were dropped (an entry arena with no
 * room): an NVTX range of domain SMTOP_NVTX_DOMAIN whose text begins so,
 * which the viewer draws as unknown, not idle, on the SMs. */
#define SMTOP_NVTX_DOMAIN "smtop"
#define SMTOP_DROPPED_RANGE_TEXT "blocks dropped"

/* A batch of blocks from one process and context, owned by the record. */
struct smtop_blocks {
	uint32_t pid, device_id, context_id;
	uint32_t count;
	struct smtop_block *blocks;
};

/* Blocks of one SM already packed by db/blockcodec: the collector's drain
 * threads encode, so the single writer thread only stores.  data is owned. */
struct smtop_chunk {
	uint32_t pid, device_id, context_id, sm;
	uint32_t count, len;
	uint64_t start, end;
	uint8_t *data;
};

/* One inference request of a demo scenario: submitted at start, answered at end. */
struct smtop_request {
	uint64_t start, end;
	uint32_t pid, stream_id;
	const char *label;
};

enum smtop_event_kind {
	SMTOP_EV_BLOCKING = 1,          /* waited past the threshold while others were resident */
	SMTOP_EV_INVERSION_RESIDENT,    /* ... behind lower-priority blocks already running */
	SMTOP_EV_INVERSION_DISPATCH,    /* ... while lower-priority blocks were dispatched first */
	SMTOP_EV_TIMESLICE,             /* another process held the GPU (time-slicing) */
};

/* What set a kernel's ready time (docs/analysis.md): the latest of its
 * bounds.  Stored episodes keep it by these numbers (smtop_events.readyBound,
 * docs/session-format.md): append, never renumber. */
enum smtop_ready_bound {
	SMTOP_READY_UNKNOWN = 0,
	SMTOP_READY_AFTER_KERNEL,       /* stream order: the previous kernel's end */
	SMTOP_READY_AFTER_MEMCPY,       /* stream order: a copy's end */
	SMTOP_READY_AFTER_MEMSET,       /* stream order: a memset's end */
	SMTOP_READY_EVENT_WAIT,         /* a cudaStreamWaitEvent on the stream */
	SMTOP_READY_HOST_SUBMIT,        /* CUPTI's submitted (else queued) timestamp */
	SMTOP_READY_LAUNCH_CALL,        /* the end of the kernel's launch call */
	/* the work before the event a cudaStreamWaitEvent waits on, on the
	 * stream that recorded it: a kernel, copy or memset there, or the
	 * event's device timestamp (the four stay in this order) */
	SMTOP_READY_EVENT_KERNEL,
	SMTOP_READY_EVENT_MEMCPY,
	SMTOP_READY_EVENT_MEMSET,
	SMTOP_READY_EVENT_DEVICE,
	/* the legacy default stream's implicit synchronisation: the last
	 * kernel, copy or memset before it on the streams it waits for */
	SMTOP_READY_LEGACY_KERNEL,
	SMTOP_READY_LEGACY_MEMCPY,
	SMTOP_READY_LEGACY_MEMSET,
	SMTOP_READY_GRAPH_KERNEL,       /* a kernel of its graph that ended before it started */
	/* a node of its graph it depends on (the graph's edges): a kernel,
	 * copy or memset of the same graph launch (the three stay in order) */
	SMTOP_READY_GRAPH_EDGE_KERNEL,
	SMTOP_READY_GRAPH_EDGE_MEMCPY,
	SMTOP_READY_GRAPH_EDGE_MEMSET,
};
#define SMTOP_READY_MAX SMTOP_READY_GRAPH_EDGE_MEMSET /* the last of them */

/* A kernel whose blocks were resident while the victim waited. */
struct smtop_culprit {
	uint32_t pid, device_id, context_id, stream_id, correlation_id;
	uint64_t grid_id;
	int32_t priority;               /* SMTOP_PRIORITY_UNKNOWN if not known */
	uint64_t overlap_ns;            /* block-time (or kernel-time) overlapping the wait */
	double weight;                  /* overlap_ns over the sum for this event */
	uint32_t blocks;                /* culprit blocks resident during the wait, 0 if unknown */
	const char *name;
};

/* Why an episode is possible, not certain: its verdict rests on block ends
 * that are upper bounds (SMTOP_BLOCK_END_BOUND, docs/analysis.md). */
#define SMTOP_POSSIBLE_READY 1u     /* ready read a bounded kernel end as its least */
#define SMTOP_POSSIBLE_CULPRITS 2u  /* culprits' blocks may have left before their bound */
#define SMTOP_POSSIBLE_SLICE 4u     /* time-slicing read the victim's bounded block ends */
#define SMTOP_POSSIBLE_ALL 7u

/* A scheduling episode found by the analysis (see docs/analysis.md). */
struct smtop_event {
	enum smtop_event_kind kind;
	uint32_t pid, device_id, context_id, stream_id, correlation_id;
	uint64_t grid_id;
	int32_t priority;
	uint64_t ready;                 /* victim became ready */
	uint64_t start;                 /* victim's first block (or kernel) start */
	uint64_t wait_ns;               /* start - ready */
	int from_blocks;                /* 1: judged from block records; 0: kernel intervals only */
	const char *name;               /* victim kernel name */
	size_t n_culprits;
	struct smtop_culprit *culprits; /* heaviest first */
	enum smtop_ready_bound ready_bound; /* what set ready */
	uint32_t ready_correlation_id;  /* the operation or call behind it, 0 unknown */
	unsigned possible;              /* OR of SMTOP_POSSIBLE_*; 0: certain */
	uint64_t wait_min_ns;           /* the least wait the bounds allow: wait_ns
					 * when ready is exact */
};

/* The unit that travels through the collector's ring to the writer. */
struct smtop_record {
	enum smtop_rec_kind kind;
	union {
		struct smtop_kernel kernel;
		struct smtop_memcpy memcpy;
		struct smtop_memset memset;
		struct smtop_api api;
		struct smtop_sync sync;
		struct smtop_cuda_event cuda_event;
		struct smtop_graph_dep graph_dep;
		struct smtop_nvtx nvtx;
		struct smtop_stream stream;
		struct smtop_device device;
		struct smtop_context context;
		struct smtop_blocks blocks;
		struct smtop_chunk chunk;
		struct smtop_request request;
	} u;
};

/* Frees the strings and arrays a record owns (collector-side records only). */
void records_free_owned(struct smtop_record *rec);

/* A hash of what finds a block's kernel: process, device and grid id (grid
 * ids are unique per device, while the context a block came through need
 * not be its kernel's: a green context's blocks come through the primary
 * context). */
static inline uint64_t records_kernel_key(uint32_t pid, uint32_t device_id, uint64_t grid)
{
	uint64_t h = grid * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)pid << 32 | device_id) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

#endif
