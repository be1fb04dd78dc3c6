/* Pure conversions for the Compute Sanitizer backend: callback data into
 * launch records, and the callback numbers, which moved between releases
 * (the 11.8 headers smtop builds with number MODULE_LOADED 8, CUDA 13's 9).
 * No sanitizer call, so the tests feed it the API's own structs. */
#ifndef SMTOP_COLLECTORS_SANITIZER_CONVERT_H
#define SMTOP_COLLECTORS_SANITIZER_CONVERT_H

#include <stdint.h>

#include <sanitizer.h>

#include "collectors/launches.h"

#pragma GCC visibility push(hidden)

/* The callback ids smtop handles, as one release of the library numbers them. */
struct sanitizer_numbering {
	unsigned major;                 /* CUDA major version */
	Sanitizer_CallbackId context_created, context_destroying;
	Sanitizer_CallbackId stream_created, stream_destroying;
	Sanitizer_CallbackId module_loaded, module_unloading;
	Sanitizer_CallbackId functions_lazy_patched; /* 0: not in this numbering */
	Sanitizer_CallbackId launch_begin, graph_node_launch_begin;
	Sanitizer_CallbackId graphexec_destroying; /* 0: the release has none */
	Sanitizer_CallbackId graph_launch_begin, graph_launch_end;
	Sanitizer_CallbackId event_record, event_stream_wait;
	Sanitizer_CallbackId memcpy_starting, memset_starting;
	Sanitizer_CallbackId stream_synchronized;
	/* the driver's synchronize calls (driver API domain), ending with 0:
	 * 13.0 adds cuCtxSynchronize_v2 */
	Sanitizer_CallbackId sync_calls[6];
	/* the driver's calls that load code (a module, a library, or a
	 * function, which lazy loading loads on first use), ending with 0:
	 * the patch switch's gate holds them as it holds launches */
	Sanitizer_CallbackId load_calls[12];
};

/* The callback ids of domain d that smtop handles in numbering n, into out
 * (room for SANITIZER_HANDLED_MAX); how many.  The driver API and
 * synchronize domains are enabled call by call elsewhere: none here. */
#define SANITIZER_HANDLED_MAX 8
size_t sanitizer_handled_ids(const struct sanitizer_numbering *n, Sanitizer_CallbackDomain d,
			     Sanitizer_CallbackId *out);

/* The numbering of CUDA major version `major` (from the toolkit's
 * version.json or its folder name), or NULL when smtop does not know it. */
const struct sanitizer_numbering *sanitizer_numbering_of(unsigned major);

/* The major version in a toolkit path such as /usr/local/cuda-13.0/...,
 * or in the text of its version.json ("cuda" : { ... "version" : "13.0.48");
 * 0 when neither says. */
unsigned sanitizer_major_of_path(const char *path);
unsigned sanitizer_major_of_version_json(const char *text);

/* A kernel launch as smtop records it.  stream_id and context_id are the
 * backend's own numbers; launched is the host's CLOCK_REALTIME at the
 * callback.  The name points into ld (launches_add copies it). */
void sanitizer_launch_info(const Sanitizer_LaunchData *ld, uint32_t context_id, uint32_t stream_id,
			   uint64_t launched, int is_graph, struct launch_info *out);

/* A launch call's shape, to know its launch callback by. */
struct sanitizer_launch_shape {
	uint32_t grid[3], block[3];
};

/* The dynamic shared memory of a driver launch call (SANITIZER_CB_DOMAIN_
 * DRIVER_API, its callback id and functionParams) and its shape in *shape,
 * which the launch callback that follows on the same thread has: the
 * function handles differ (the runtime launches through CUkernel handles);
 * -1 for any other call. */
int64_t sanitizer_launch_dynamic_smem(Sanitizer_CallbackId cbid, const void *params,
				      struct sanitizer_launch_shape *shape);

/* The stream a driver launch call (graph launches too) launches into:
 * 1 and *stream (a special handle such as NULL included), 0 for any other
 * call or when it is not known. */
int sanitizer_launch_stream(Sanitizer_CallbackId cbid, const void *params, CUstream *stream);

/* The function (or CUkernel) a driver launch call launches, NULL for any
 * other call. */
CUfunction sanitizer_launch_function(Sanitizer_CallbackId cbid, const void *params);

/* 1 when ld was launched with shape. */
int sanitizer_launch_has_shape(const Sanitizer_LaunchData *ld, const struct sanitizer_launch_shape *shape);

/* 1 when driver API call cbid is one of n's load calls. */
int sanitizer_is_load_call(const struct sanitizer_numbering *n, Sanitizer_CallbackId cbid);

/* The driver launch calls sanitizer_launch_dynamic_smem reads (their ids
 * are the same in 11.8 and 13.0), ending with 0. */
extern const Sanitizer_CallbackId sanitizer_launch_calls[];

/* A graph launch call (its node launches' correlation id, host times on
 * the session's clock) as the API record CUPTI would give, with the stream
 * it was launched into.  The record owns its name (NULL when out of
 * memory: drop it). */
void sanitizer_graph_launch_call(uint32_t pid, uint32_t tid, uint32_t correlation_id, uint64_t start,
				 uint64_t end, uint32_t stream_id, struct smtop_record *out);

/* The id a graph node's records carry: its handle, with the number of its
 * executable graph in the bits above a user-space address (handles are
 * reused once a graph is destroyed). */
uint64_t sanitizer_graph_node_id(uint32_t exec_seq, const void *node);

/* The launch data of a kernel node of a graph launch, or NULL for the
 * other node types (copies, sets, allocations). */
const Sanitizer_LaunchData *sanitizer_graph_node_launch(const Sanitizer_GraphNodeLaunchData *g);

/* The events domain as CUPTI's records give it, so the analysis reads both
 * backends' sessions alike.  The ids are the backend's own numbers;
 * correlation_id is its call number, shared with launches so the order of
 * records, waits and launches on a stream is the order of the calls.  A
 * stream wait happens at `when` (GPU time; its call returns at once). */
void sanitizer_event_record(const Sanitizer_EventData *d, uint32_t pid, uint32_t device_id,
			    uint32_t context_id, uint32_t stream_id, uint32_t correlation_id,
			    struct smtop_record *out);
void sanitizer_stream_wait(const Sanitizer_EventData *d, uint32_t pid, uint32_t context_id,
			   uint32_t stream_id, uint32_t correlation_id, uint64_t when,
			   struct smtop_record *out);
/* An asynchronous copy or memset, as a record without times (the
 * sanitizer gives none): its place on its stream tells the analysis that
 * the kernel after it waited for something it cannot time. */
void sanitizer_memcpy(const Sanitizer_MemcpyData *d, uint32_t pid, uint32_t device_id,
		      uint32_t context_id, uint32_t stream_id, uint32_t correlation_id,
		      struct smtop_record *out);
void sanitizer_memset(const Sanitizer_MemsetData *d, uint32_t pid, uint32_t device_id,
		      uint32_t context_id, uint32_t stream_id, uint32_t correlation_id,
		      struct smtop_record *out);
/* CUpti_ActivitySynchronizationType: what a synchronize call waited for. */
#define SANITIZER_SYNC_EVENT 1   /* CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE */
#define SANITIZER_SYNC_STREAM 3  /* _STREAM_SYNCHRONIZE */
#define SANITIZER_SYNC_CONTEXT 4 /* _CONTEXT_SYNCHRONIZE */

/* CUpti_ActivitySynchronizationType of the driver synchronize call cbid
 * (one of numbering->sync_calls), with the stream or event its params name
 * in *handle (NULL for a context); 0 for any other call. */
int32_t sanitizer_sync_call_type(const struct sanitizer_numbering *numbering, Sanitizer_CallbackId cbid,
				 const void *params, void **handle);

/* A synchronize call as the SYNCHRONIZATION record CUPTI gives: the host
 * waited from start to end (host times on the session's clock).  Fields
 * that do not apply to its type (a context's stream, a stream's event) are
 * SMTOP_SYNC_NONE, as in CUPTI's. */
void sanitizer_synchronization(int32_t type, uint32_t pid, uint32_t context_id, uint32_t stream_id,
			       const void *event, uint32_t correlation_id, uint64_t start, uint64_t end,
			       struct smtop_record *out);

/* An event's id: its handle's address bits, unique among the events alive
 * at once (handles are heap addresses, 16-byte aligned); never
 * SMTOP_SYNC_NONE. */
uint32_t sanitizer_event_id(const void *event);

/* A green context's streams launch through the primary context (their
 * launch data name it), so their records would name it too: the backend
 * asks the driver each stream's green context from its host thread and
 * gives it a number of its own, as CUPTI's records do (docs/collector.md).
 * The context record of green context context_id, made from parent_id
 * (the context its streams launch through), on device_id. */
void sanitizer_green_context(uint32_t pid, uint32_t device_id, uint32_t context_id, uint32_t parent_id,
			     struct smtop_record *out);

/* Copies, memsets, event records and waits of a stream whose context the
 * host thread has not asked yet wait here, so that they name the context
 * its kernels will name (a kernel waits in its launch until complete,
 * copies and events are records at once).  POD records only. */
#define SANITIZER_PARKED_MAX 1024
struct sanitizer_parked {
	size_t n;
	struct smtop_record r[SANITIZER_PARKED_MAX];
};

/* 1 when r is a copy, memset, event record or wait (what sanitizer_park
 * takes), its stream in *stream_id. */
int sanitizer_record_stream(const struct smtop_record *r, uint32_t *stream_id);

/* r, such a record, now names context_id. */
void sanitizer_record_set_context(struct smtop_record *r, uint32_t context_id);

/* 0, or -1 when r is not such a record or p is full (send it as it is). */
int sanitizer_park(struct sanitizer_parked *p, const struct smtop_record *r);

/* Moves the records of stream_id (0: every stream) into out, at most max,
 * now naming context_id (0: as they were), keeping the others in order;
 * returns how many. */
size_t sanitizer_unpark(struct sanitizer_parked *p, uint32_t stream_id, uint32_t context_id,
			struct smtop_record *out, size_t max);

#pragma GCC visibility pop

#endif
