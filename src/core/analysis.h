/* Scheduling analysis: ready times, waits, blocking episodes, priority
 * inversions and time-slicing, found from kernel records and (when present)
 * per-block records.  Pure: no I/O, no clock.  docs/analysis.md gives the
 * exact definitions this file implements.
 *
 * Feeding: add streams, devices, kernels, blocks, requests, and the copies,
 * memsets, synchronisations and API calls that bound ready times, in any
 * order, then call analysis_update(a, watermark).  The watermark is a promise from
 * the caller: every kernel and request that started before it has been added
 * (a kernel may still be running: end 0 or end > watermark; add it again
 * with the same pid, context and grid id once it has ended), and every block
 * that ended before it has been added.  Saved sessions pass
 * ANALYSIS_WATERMARK_ALL.  A kernel's verdict is final once it and every
 * kernel that could be its culprit ended at or before the watermark; until
 * then it may appear as a provisional event.  Feeding a session in pieces
 * with rising watermarks gives the same final answer as feeding it at once.
 *
 * Strings (kernel names) are borrowed: they must outlive the analysis, as
 * the session reader's strings do. */
#ifndef SMTOP_ANALYSIS_H
#define SMTOP_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis_version.h"
#include "src/core/occupancy_limit.h"
#include "src/core/records.h"


#define ANALYSIS_WATERMARK_ALL UINT64_MAX
#define ANALYSIS_DEFAULT_THRESHOLD_NS 20000u
/* Grids with at most this many blocks keep every block; larger ones keep a
 * per-grid profile of ANALYSIS_PROFILE_BINS time bins (see docs). */
#define ANALYSIS_EXACT_BLOCKS 32
#define ANALYSIS_PROFILE_BINS 32
/* Time-slicing test: block events of two processes at least this far apart
 * are taken for separate time slices: between a context switch's gap and
 * concurrent work's (docs/analysis.md, "Time-slicing"). */
#define ANALYSIS_SLICE_GAP_NS 32000u
/* CUpti_ActivitySynchronizationType's CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_
 * STREAM_WAIT_EVENT (cupti_activity.h; 3 is STREAM_SYNCHRONIZE). */
#define ANALYSIS_SYNC_STREAM_WAIT_EVENT 2
/* CUpti_ActivityStreamFlag: a stream created without cudaStreamNonBlocking
 * (it waits for the legacy default stream and the legacy stream for it),
 * and the legacy default stream itself. */
#define ANALYSIS_STREAM_BLOCKING 1
#define ANALYSIS_STREAM_LEGACY 3
/* How many kernels before a graph's kernel on its stream can stand for the
 * dependency it waited for (docs/analysis.md, "graph order"). */
#define ANALYSIS_GRAPH_LOOKBACK 64

struct analysis;

struct analysis_params {
	uint64_t blocking_threshold_ns; /* a wait must be strictly longer */
};

/* Conclusions that are weaker because block records are missing
 * (analysis_limits returns an OR of these). */
enum analysis_limit {
	ANALYSIS_LIMIT_WAIT_FROM_KERNELS = 1 << 0,   /* waits end at CUPTI start, not first block */
	ANALYSIS_LIMIT_DISPATCH_UNTOLD = 1 << 1,     /* resident vs dispatch inversion not told apart */
	ANALYSIS_LIMIT_SM_SHARE_ESTIMATE = 1 << 2,   /* SM share from kernel busy time */
	ANALYSIS_LIMIT_CULPRIT_WEIGHT_KERNEL = 1 << 3, /* culprits weighted by kernel time, not block time */
	ANALYSIS_LIMIT_SM_COUNT_GUESSED = 1 << 4,    /* SM count from the highest SM seen */
};
#define ANALYSIS_LIMIT_COUNT 5

struct analysis_percentiles {
	size_t n;                        /* samples; the rest is 0 when n == 0 */
	uint64_t p50, p90, p99, max;
};

struct analysis_stream_summary {
	uint32_t pid, device_id, context_id, stream_id;
	int32_t priority;                /* SMTOP_PRIORITY_UNKNOWN if not known */
	size_t kernels;                  /* kernels seen on the stream */
	size_t kernels_with_blocks;
	size_t waits_unknown;            /* kernels whose ready time is unknown */
	uint64_t busy_ns;                /* sum of ended kernels' durations */
	uint64_t block_time_ns;          /* sum of block durations, 0 without blocks */
	double sm_share;                 /* share of the device's SM-time over its span */
	int sm_share_from_blocks;        /* 0: estimated from kernel busy time */
	struct analysis_percentiles wait;
	struct analysis_percentiles turnaround; /* requests, n == 0 if none */
	size_t events[SMTOP_EV_TIMESLICE + 1]; /* as victim, indexed by kind */
	uint64_t delay_ns[SMTOP_EV_TIMESLICE + 1]; /* summed waits of those events */
};

struct analysis_totals {
	size_t kernels, kernels_with_blocks, kernels_pending, blocks;
	size_t events[SMTOP_EV_TIMESLICE + 1];
	uint64_t delay_ns[SMTOP_EV_TIMESLICE + 1];
};

void analysis_params_default(struct analysis_params *p);

/* Returns NULL when out of memory.  p may be NULL for the defaults. */
struct analysis *analysis_new(const struct analysis_params *p);
void analysis_free(struct analysis *a);
const struct analysis_params *analysis_get_params(const struct analysis *a);

/* Each returns 0, or -1 when out of memory (the analysis stays usable). */
int analysis_add_stream(struct analysis *a, const struct smtop_stream *s);
/* A context: a green one's kernels could use only its share of the SMs, so
 * only what ran there counts as their culprits (docs/analysis.md, "Green
 * contexts").  Like streams' priorities, add contexts before the kernels
 * of their streams are decided. */
int analysis_add_context(struct analysis *a, const struct smtop_context *c);
int analysis_add_device(struct analysis *a, const struct smtop_device *d);
int analysis_add_kernel(struct analysis *a, const struct smtop_kernel *k);
int analysis_add_block(struct analysis *a, uint32_t pid, uint32_t context_id,
		       const struct smtop_block *b);
int analysis_add_blocks(struct analysis *a, uint32_t pid, uint32_t context_id,
			const struct smtop_block *b, size_t n);
int analysis_add_request(struct analysis *a, const struct smtop_request *r);
/* What ready times read besides kernels (docs/analysis.md, "ready time"):
 * copies and memsets hold their stream back until they end, a
 * cudaStreamWaitEvent (a sync record of type ANALYSIS_SYNC_STREAM_WAIT_EVENT)
 * holds back the next operation on its stream, and a kernel without CUPTI's
 * submitted timestamp is not ready before its launch call (the API record
 * with its pid and correlation id) returned.  Other sync types and API calls
 * whose name has no "Launch" are ignored.  The watermark's promise covers
 * them as it covers kernels: every one that started before it was added. */
int analysis_add_memcpy(struct analysis *a, const struct smtop_memcpy *m);
int analysis_add_memset(struct analysis *a, const struct smtop_memset *m);
int analysis_add_sync(struct analysis *a, const struct smtop_sync *y);
/* A cudaEventRecord: a wait on its event (matched by pid, context, event id
 * and the last record called before the wait) holds its stream back until
 * the work queued before the record ended. */
int analysis_add_cuda_event(struct analysis *a, const struct smtop_cuda_event *e);
int analysis_add_graph_dep(struct analysis *a, const struct smtop_graph_dep *d);
int analysis_add_api(struct analysis *a, const struct smtop_api *c);

/* Decides every kernel that can be decided at watermark and rebuilds the
 * provisional events.  Returns 0, or -1 when out of memory. */
int analysis_update(struct analysis *a, uint64_t watermark);

/* Final events, ordered by ready time (then device, pid, context, grid). */
size_t analysis_event_count(const struct analysis *a);
const struct smtop_event *analysis_event(const struct analysis *a, size_t i);

/* Events of kernels not yet decided at the last watermark (a victim still
 * waiting has start 0 and wait_ns counted up to the watermark). */
size_t analysis_provisional_count(const struct analysis *a);
const struct smtop_event *analysis_provisional(const struct analysis *a, size_t i);

size_t analysis_stream_count(const struct analysis *a);
/* Fills out for stream i (ordered by device, pid, context, stream). */
int analysis_stream_summary(struct analysis *a, size_t i,
			    struct analysis_stream_summary *out);

void analysis_totals(const struct analysis *a, struct analysis_totals *out);

/* Packs every grid's time profile now (profiles are otherwise packed once
 * their blocks have stopped coming); verdicts do not change.  For a session
 * read to its end. */
void analysis_compact(struct analysis *a);

/* Bytes the analysis holds, by what for (from its counts, not from malloc). */
struct analysis_memory {
	size_t kernels;         /* kernels, their streams' order, waits */
	size_t grids;           /* per-grid summaries and the blocks of small grids */
	size_t profiles;        /* time profiles still taking blocks */
	size_t packed;          /* packed profiles */
	size_t index;           /* hashes, the culprit index, block activity */
	size_t events;          /* final and provisional events with their culprits */
	size_t total;           /* all of the above and the rest */
};
void analysis_memory(const struct analysis *a, struct analysis_memory *out);

/* A kernel's most blocks resident on one SM at once against its occupancy
 * limit (docs/analysis.md, "Observed residency and the occupancy limit"). */
struct analysis_kernel_occupancy {
	uint32_t pid, device_id, context_id, stream_id, correlation_id;
	uint64_t grid_id;
	const char *name;
	uint32_t threads, registers;    /* per block, per thread; 0 unknown */
	uint32_t smem;                  /* static + dynamic bytes per block */
	uint32_t sms;                   /* the device's SMs (guessed: highest seen + 1) */
	uint64_t blocks;                /* block records; 0: none */
	uint32_t most_per_sm;           /* 0 without block records */
	int waited;                     /* a block started after another of its blocks ended */
	int full;                       /* blocks > limit x sms, and waited: it could fill its limit */
	struct occupancy_limit limit;   /* bound UNKNOWN: no device record or launch fields */
};

/* Kernels in the order they were added. */
size_t analysis_kernel_count(const struct analysis *a);
void analysis_kernel_occupancy(const struct analysis *a, size_t i,
			       struct analysis_kernel_occupancy *out);

/* The index of the kernel of (pid, device, grid id; the correlation id
 * when the grid id is 0), -1 when not added. */
long analysis_kernel_find(const struct analysis *a, uint32_t pid, uint32_t device_id,
			  uint64_t grid_id, uint32_t correlation_id);

/* Kernels whose most_per_sm rose since the last call (a viewer copies
 * them): up to max kernel indices into out, forgotten once returned;
 * returns how many (call again while it returns max). */
size_t analysis_most_changed(struct analysis *a, size_t *out, size_t max);

/* 1 if any block record was added. */
int analysis_has_blocks(const struct analysis *a);
/* OR of enum analysis_limit for the data seen so far. */
unsigned analysis_limits(const struct analysis *a);
/* One line saying what the limit means and what would lift it. */
const char *analysis_limit_text(enum analysis_limit l);
/* The order of final events (qsort's comparator of struct smtop_event):
 * ready time, then device, pid, context, grid id, correlation id. */
int analysis_event_cmp(const void *x, const void *y);

/* Stable lower-case name of an event kind ("blocking", "inversion_resident",
 * "inversion_dispatch", "timeslice"). */
const char *analysis_kind_name(enum smtop_event_kind k);
/* Stable lower-case name of the bound that set a ready time: "stream_order",
 * "event_wait", "legacy_stream", "graph_order", "host_submit", "launch_call"
 * or "unknown". */
const char *analysis_bound_name(enum smtop_ready_bound b);
/* The operation behind the bound: "kernel", "memcpy", "memset" (the one
 * that ended last on the stream that held this one back), "event" (an
 * event's device timestamp); NULL for the host and the wait call itself. */
const char *analysis_bound_op(enum smtop_ready_bound b);
/* What set e's ready time in a few words, for narrow panes ("the kernel
 * before it ended (#12)", # a correlation id); report --explain says it at
 * length. */
void analysis_bound_brief(const struct smtop_event *e, char *buf, size_t len);

#endif
