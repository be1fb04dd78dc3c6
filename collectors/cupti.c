#include "collectors/cupti.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "collectors/backend.h"
#include "collectors/blocks.h"
#include "collectors/convert.h"
#include "collectors/cupti_blocks.h"
#include "collectors/drops.h"
#include "collectors/graphs.h"
#include "collectors/log.h"
#include "collectors/ring.h"
#include "src/core/clock.h"
#include "src/core/threads.h"

#define CUPTI_PUSH_CHUNK 256

static struct ring *cupti_ring;
static uint32_t cupti_pid;
static CUpti_SubscriberHandle cupti_subscriber;
static _Atomic int cupti_active;
static pthread_mutex_t cupti_convert_lock = PTHREAD_MUTEX_INITIALIZER;
static struct convert_state *cupti_convert;
static pthread_t cupti_flush_thread;
static int cupti_flush_started;
static _Atomic int cupti_flush_stop;
static _Thread_local int cupti_tls_runtime_depth;
/* Recording switched on and off (smtop launch): API calls in flight at a
 * switch may see one callback of their two, so a thread's runtime depth is
 * trusted only within one recording, the one numbered cupti_generation. */
static _Atomic int cupti_recording = 1;
static _Atomic uint32_t cupti_generation;
static _Thread_local uint32_t cupti_tls_generation;
static _Thread_local uint32_t cupti_tls_tid;
/* CUPTI's timestamp minus CLOCK_REALTIME, for host times (NVTX ranges). */
static _Atomic int64_t cupti_host_offset;

/* Activity kinds: the first is essential, the rest are best effort. */
static const CUpti_ActivityKind cupti_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_DEVICE,
	CUPTI_ACTIVITY_KIND_CONTEXT,
	CUPTI_ACTIVITY_KIND_STREAM,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	CUPTI_ACTIVITY_KIND_CUDA_EVENT,
};

/* API calls worth a record: launches, copies, sets and waits.  Everything
 * else (PyTorch makes millions of trivial calls) stays untraced. */
static const char *const cupti_runtime_prefixes[] = {
	"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset",
	"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
	"cudaStreamWaitEvent", NULL,
};
static const char *const cupti_driver_prefixes[] = {
	"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset", "cuCtxSynchronize",
	"cuStreamSynchronize", "cuEventSynchronize", "cuStreamWaitEvent", NULL,
};

static const char *cupti_error(CUptiResult r)
{
	const char *s = NULL;

	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

static uint32_t cupti_tid(void)
{
	if (!cupti_tls_tid)
		cupti_tls_tid = (uint32_t)syscall(SYS_gettid);
	return cupti_tls_tid;
}

/* ---- activity buffers ------------------------------------------------------ */

/* CUPTI asks for a buffer on whichever thread records next (a workload
 * thread, after each flush) and zeroes all of a buffer it is not told is
 * zeroed, inside a launch or a synchronize (docs/performance.md).  So
 * cupti_enable_activity promises zeroed buffers, and they come from a pool
 * that the completion callback (the flush thread) refills, zeroing only the
 * bytes CUPTI wrote. */
#define CUPTI_POOL_MAX 32
#define CUPTI_ZERO_SLACK 4096 /* past the valid bytes, in case */

static pthread_mutex_t cupti_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *cupti_pool[CUPTI_POOL_MAX];
static size_t cupti_pool_n;

static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&cupti_pool_lock);
	if (cupti_pool_n)
		b = cupti_pool[--cupti_pool_n];
	pthread_mutex_unlock(&cupti_pool_lock);
	if (!b)
		b = calloc(1, CUPTI_BUFFER_BYTES);
	*buffer = b;
	*size = b ? CUPTI_BUFFER_BYTES : 0;
	*max_records = 0;
}

static void cupti_buffer_recycle(uint8_t *buffer, size_t size, size_t valid)
{
	size_t dirty = valid + CUPTI_ZERO_SLACK < size ? valid + CUPTI_ZERO_SLACK : size;

	if (size != CUPTI_BUFFER_BYTES) {
		free(buffer);
		return;
	}
	memset(buffer, 0, dirty);
	pthread_mutex_lock(&cupti_pool_lock);
	if (cupti_pool_n < CUPTI_POOL_MAX) {
		cupti_pool[cupti_pool_n++] = buffer;
		buffer = NULL;
	}
	pthread_mutex_unlock(&cupti_pool_lock);
	free(buffer);
}

/* Our own drain and setup copies would pollute the session. */
static int cupti_is_own(const struct smtop_record *r)
{
	switch (r->kind) {
	case SMTOP_REC_MEMCPY:
		return blocks_is_own_stream(r->u.memcpy.context_id, r->u.memcpy.stream_id);
	case SMTOP_REC_MEMSET:
		return blocks_is_own_stream(r->u.memset.context_id, r->u.memset.stream_id);
	case SMTOP_REC_SYNC:
		return blocks_is_own_stream(r->u.sync.context_id, r->u.sync.stream_id);
	case SMTOP_REC_CUDA_EVENT:
		return blocks_is_own_stream(r->u.cuda_event.context_id, r->u.cuda_event.stream_id);
	case SMTOP_REC_STREAM:
		return blocks_is_own_stream(r->u.stream.context_id, r->u.stream.stream_id);
	default:
		return 0;
	}
}

/* ---- what exists: devices, contexts, streams ------------------------------- */

/* CUPTI tells of a device, a context or a stream (with its priority) once,
 * when it is made; a session switched on later needs them all.  So those
 * kinds stay enabled while nothing is recorded (they cost nothing between
 * creations), and a copy of each record is kept here to open every new
 * session with. */
#define CUPTI_STANDING_MAX 4352

static struct smtop_record cupti_standing[CUPTI_STANDING_MAX];
static size_t cupti_standing_n;

static int cupti_is_standing(const struct smtop_record *r)
{
	return r->kind == SMTOP_REC_DEVICE || r->kind == SMTOP_REC_CONTEXT || r->kind == SMTOP_REC_STREAM;
}

static int cupti_same_thing(const struct smtop_record *a, const struct smtop_record *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case SMTOP_REC_DEVICE:
		return a->u.device.device_id == b->u.device.device_id;
	case SMTOP_REC_CONTEXT:
		return a->u.context.context_id == b->u.context.context_id;
	default:
		return a->u.stream.context_id == b->u.stream.context_id &&
		       a->u.stream.stream_id == b->u.stream.stream_id;
	}
}

/* r with strings of its own, or 0 when out of memory. */
static int cupti_copy_standing(const struct smtop_record *r, struct smtop_record *out)
{
	*out = *r;
	if (r->kind != SMTOP_REC_DEVICE)
		return 1;
	out->u.device.name = r->u.device.name ? strdup(r->u.device.name) : NULL;
	out->u.device.uuid = r->u.device.uuid ? strdup(r->u.device.uuid) : NULL;
	if ((r->u.device.name && !out->u.device.name) || (r->u.device.uuid && !out->u.device.uuid)) {
		records_free_owned(out);
		return 0;
	}
	return 1;
}

/* Under cupti_convert_lock. */
static void cupti_keep_standing(const struct smtop_record *r)
{
	struct smtop_record copy;
	size_t i;

	if (!cupti_is_standing(r) || !cupti_copy_standing(r, &copy))
		return;
	for (i = 0; i < cupti_standing_n && !cupti_same_thing(&cupti_standing[i], r); i++)
		;
	if (i == CUPTI_STANDING_MAX) {
		records_free_owned(&copy);
		return;
	}
	if (i < cupti_standing_n)
		records_free_owned(&cupti_standing[i]);
	else
		cupti_standing_n++;
	cupti_standing[i] = copy;
}

static void cupti_push_standing(void)
{
	pthread_mutex_lock(&cupti_convert_lock);
	for (size_t i = 0; i < cupti_standing_n; i++) {
		struct smtop_record copy;

		if (cupti_copy_standing(&cupti_standing[i], &copy))
			ring_push(cupti_ring, &copy);
	}
	pthread_mutex_unlock(&cupti_convert_lock);
}

/* Keeps what exists, and while nothing is recorded hands nothing on. */
static int cupti_hand_on(struct smtop_record *r)
{
	cupti_keep_standing(r);
	if (atomic_load(&cupti_recording))
		return 1;
	records_free_owned(r);
	return 0;
}

static void cupti_convert_buffer(uint8_t *buffer, size_t valid)
{
	struct smtop_record out[CUPTI_PUSH_CHUNK];
	CUpti_Activity *a = NULL;
	size_t n = 0;

	pthread_mutex_lock(&cupti_convert_lock);
	while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
		if (!convert_activity(cupti_convert, a, &out[n]))
			continue;
		if (cupti_is_own(&out[n])) {
			records_free_owned(&out[n]);
			continue;
		}
		if (!cupti_hand_on(&out[n]))
			continue;
		struct smtop_record last = out[n++]; /* read, never freed, below */
		for (;;) {
			if (n == CUPTI_PUSH_CHUNK) {
				ring_push_many(cupti_ring, out, n);
				n = 0;
			}
			if (!convert_stream_context(cupti_convert, &last, &out[n]))
				break;
			if (cupti_hand_on(&out[n]))
				n++;
		}
	}
	pthread_mutex_unlock(&cupti_convert_lock);
	if (n)
		ring_push_many(cupti_ring, out, n);
}

static void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
					    size_t size, size_t valid)
{
	size_t dropped = 0;

	if (atomic_load(&cupti_active) && valid > 0)
		cupti_convert_buffer(buffer, valid);
	if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
		drops_add(DROPS_CUPTI, dropped);
	cupti_buffer_recycle(buffer, size, valid);
}

/* ---- API callbacks --------------------------------------------------------- */

static int cupti_is_launch(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		return 1;
	default:
		return 0;
	}
}

/* Every launch variant's parameters start with the function, except the
 * Ex forms, which put the launch config first. */
static CUfunction cupti_launch_function(CUpti_CallbackId cbid, const void *params)
{
	if (!params)
		return NULL;
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
		return ((const cuLaunchKernelEx_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		return ((const cuLaunchKernelEx_ptsz_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
		return ((const cuLaunchKernel_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		return ((const cuLaunchKernel_ptsz_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
		return ((const cuLaunchCooperativeKernel_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		return ((const cuLaunchCooperativeKernel_ptsz_params *)params)->f;
	default:
		return NULL;
	}
}

/* A graph launch call's stream, as CUPTI numbers it: its kernels run at
 * that stream's priority on streams of the graph's own.  0 if not one. */
static int cupti_graph_launch_stream(const CUpti_CallbackData *d, CUpti_CallbackId cbid, int is_driver,
				     uint32_t *id)
{
	CUstream stream;
	uint8_t per_thread;

	if (!d->functionParams)
		return 0;
	if (!is_driver && (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
			   cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000)) {
		stream = (CUstream)((const cudaGraphLaunch_v10000_params *)d->functionParams)->stream;
		per_thread = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
	} else if (is_driver && (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
				 cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz)) {
		stream = ((const cuGraphLaunch_params *)d->functionParams)->hStream;
		per_thread = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
	} else {
		return 0;
	}
	return cuptiGetStreamIdEx(d->context, stream, per_thread, id) == CUPTI_SUCCESS;
}

static void cupti_api_exit(const CUpti_CallbackData *d, CUpti_CallbackId cbid, int is_driver)
{
	struct smtop_record rec;
	uint64_t start = *d->correlationData;
	uint64_t end = 0;
	int32_t ret = 0;

	if (start == 0)
		return;
	cuptiGetTimestamp(&end);
	/* an exit whose enter came before recording was switched on */
	if (end < start)
		return;
	if (d->functionReturnValue)
		memcpy(&ret, d->functionReturnValue, sizeof(ret));
	convert_api(&rec, cupti_pid, cupti_tid(), cbid, is_driver, ret, d->functionName,
		    start, end, d->correlationId);
	rec.u.api.has_stream = cupti_graph_launch_stream(d, cbid, is_driver, &rec.u.api.stream_id);
	ring_push(cupti_ring, &rec);
}

/* Driver calls made by the runtime would double every runtime record: a
 * driver call is recorded only when no runtime call encloses it (Triton and
 * other driver-API users). */
static void cupti_on_api(const CUpti_CallbackData *d, CUpti_CallbackId cbid, int is_driver,
			 int record)
{
	uint32_t generation = atomic_load_explicit(&cupti_generation, memory_order_relaxed);

	if (cupti_tls_generation != generation) {
		cupti_tls_generation = generation;
		cupti_tls_runtime_depth = 0;
	}
	if (d->callbackSite == CUPTI_API_ENTER) {
		uint64_t t = 0;

		if (record && !(is_driver && cupti_tls_runtime_depth > 0))
			cuptiGetTimestamp(&t);
		*d->correlationData = t;
		if (!is_driver)
			cupti_tls_runtime_depth++;
		return;
	}
	if (!is_driver && cupti_tls_runtime_depth > 0)
		cupti_tls_runtime_depth--;
	cupti_api_exit(d, cbid, is_driver);
}

static void cupti_on_context_created(CUcontext ctx)
{
	uint32_t ctx_id = 0, dev_id = 0;

	if (cuptiGetContextId(ctx, &ctx_id) != CUPTI_SUCCESS ||
	    cuptiGetDeviceId(ctx, &dev_id) != CUPTI_SUCCESS)
		return;
	pthread_mutex_lock(&cupti_convert_lock);
	convert_note_context(cupti_convert, ctx_id, dev_id);
	pthread_mutex_unlock(&cupti_convert_lock);
}

static uint64_t cupti_graph_node_id(void *node, void *ud)
{
	uint64_t id = 0;

	(void)ud;
	return cuptiGetGraphNodeId((CUgraphNode)node, &id) == CUPTI_SUCCESS ? id : 0;
}

static void cupti_push_records(struct smtop_record *recs, size_t n)
{
	if (n)
		ring_push_many(cupti_ring, recs, n);
}

/* Instantiation clones a graph's nodes, and the launches' records carry the
 * clones' ids: graphs.c maps the source graph's edges onto them. */
static void cupti_on_graph(CUpti_CallbackId cbid, const CUpti_GraphData *g)
{
	uint32_t graph_id = 0;

	if (!g)
		return;
	if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
		if (cuptiGetGraphId(g->graph, &graph_id) == CUPTI_SUCCESS)
			graphs_note_clone(cupti_graph_node_id(g->originalNode, NULL), cupti_graph_node_id(g->node, NULL),
					  graph_id);
	} else if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
		graphs_instantiated(g->graph, cupti_pid, cupti_graph_node_id, NULL, cupti_push_records);
	}
}

static void cupti_on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *r)
{
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
	case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
		cupti_on_graph(cbid, r->resourceDescriptor);
		break;
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
		cupti_on_context_created(r->context);
		break;
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		blocks_on_context_destroy(r->context);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
		blocks_on_module_unload(r->context);
		break;
	default:
		break;
	}
}

/* Which callbacks carry records; the rest (launch hook only) do not. */
static uint8_t cupti_record_runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t cupti_record_driver[CUPTI_DRIVER_TRACE_CBID_SIZE];

static void CUPTIAPI cupti_callback(void *userdata, CUpti_CallbackDomain domain,
				    CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *d = data;

	(void)userdata;
	if (!atomic_load_explicit(&cupti_active, memory_order_relaxed) || blocks_in_own_code())
		return;
	if (domain != CUPTI_CB_DOMAIN_RESOURCE && !atomic_load_explicit(&cupti_recording, memory_order_relaxed))
		return;
	switch (domain) {
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		cupti_on_api(d, cbid, 0, cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE && cupti_record_runtime[cbid]);
		break;
	case CUPTI_CB_DOMAIN_DRIVER_API:
		if (d->callbackSite == CUPTI_API_ENTER && cupti_is_launch(cbid))
			blocks_on_launch(d->context, cupti_launch_function(cbid, d->functionParams));
		cupti_on_api(d, cbid, 1, cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && cupti_record_driver[cbid]);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		cupti_on_resource(cbid, data);
		break;
	default:
		break;
	}
}

static int cupti_has_prefix(const char *name, const char *const *prefixes)
{
	for (size_t i = 0; prefixes[i]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* Chooses CBIDs by name so new API versions (cudaMemcpyBatchAsync_v13000...)
 * are covered without a table to maintain. */
/* SMTOP_<NAME>=0 turns a costly part of the collector off (docs/collector.md). */
static int cupti_option(const char *name)
{
	const char *v = getenv(name);
	return !(v && strcmp(v, "0") == 0);
}

int cupti_block_tracing(void)
{
	return blocks_wanted();
}

static int cupti_enable_domain(CUpti_CallbackDomain domain, uint32_t size,
			       const char *const *prefixes, uint8_t *record)
{
	int enabled = 0;
	int api = cupti_option("SMTOP_API");
	int blocks = cupti_block_tracing();

	for (uint32_t cbid = 1; cbid < size; cbid++) {
		const char *name = NULL;
		int launch = blocks && domain == CUPTI_CB_DOMAIN_DRIVER_API && cupti_is_launch(cbid);

		if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name)
			continue;
		record[cbid] = (uint8_t)(api && cupti_has_prefix(name, prefixes));
		if (!record[cbid] && !launch)
			continue;
		if (cuptiEnableCallback(1, cupti_subscriber, domain, cbid) == CUPTI_SUCCESS)
			enabled++;
	}
	return enabled;
}

static int cupti_enable_callbacks(char *reason, size_t len)
{
	static const CUpti_CallbackId resources[] = {
		CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
		CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
		CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
	};
	static const CUpti_CallbackId graph_resources[] = {
		CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
		CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
	};
	int n;

	n = cupti_enable_domain(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
				cupti_runtime_prefixes, cupti_record_runtime);
	log_debug("%d runtime API callbacks", n);
	n = cupti_enable_domain(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
				cupti_driver_prefixes, cupti_record_driver);
	log_debug("%d driver API callbacks", n);
	for (size_t i = 0; i < sizeof(resources) / sizeof(resources[0]); i++) {
		CUptiResult r = cuptiEnableCallback(1, cupti_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
						    resources[i]);
		if (r != CUPTI_SUCCESS) {
			snprintf(reason, len, "resource callbacks refused: %s", cupti_error(r));
			return -1;
		}
	}
	/* without them a graph's kernels fall back on graph order */
	for (size_t i = 0; i < sizeof(graph_resources) / sizeof(graph_resources[0]); i++) {
		CUptiResult r = cuptiEnableCallback(1, cupti_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
						    graph_resources[i]);
		if (r != CUPTI_SUCCESS)
			log_debug("graph callback %d refused: %s", (int)graph_resources[i], cupti_error(r));
	}
	return 0;
}

/* ---- activity enabling ----------------------------------------------------- */

static int cupti_enable_activity(char *reason, size_t len)
{
	uint8_t zeroed = 1;
	size_t zeroed_size = sizeof(zeroed);
	CUptiResult r;

	r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (r != CUPTI_SUCCESS)
		log_debug("system thread ids refused: %s", cupti_error(r));
	r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed);
	if (r != CUPTI_SUCCESS)
		log_debug("zeroed activity buffers refused: %s", cupti_error(r));
	r = cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed);
	if (r != CUPTI_SUCCESS) {
		snprintf(reason, len, "activity buffers refused: %s", cupti_error(r));
		return -1;
	}
	for (size_t i = 0; i < sizeof(cupti_kinds) / sizeof(cupti_kinds[0]); i++) {
		r = cuptiActivityEnable(cupti_kinds[i]);
		if (r == CUPTI_SUCCESS)
			continue;
		if (i == 0) {
			snprintf(reason, len, "kernel activity refused: %s", cupti_error(r));
			return -1;
		}
		log_debug("activity kind %d refused: %s", (int)cupti_kinds[i], cupti_error(r));
	}
	/* an event wait is ready when the GPU reached the event: without the
	 * timestamp the analysis falls back on the work queued before it */
	r = cuptiActivityEnableCudaEventDeviceTimestamps(1);
	if (r != CUPTI_SUCCESS)
		log_debug("CUDA event device timestamps refused: %s", cupti_error(r));
	r = cupti_option("SMTOP_LATENCY") ? cuptiActivityEnableLatencyTimestamps(1) : CUPTI_SUCCESS;
	if (r != CUPTI_SUCCESS)
		log_debug("latency timestamps refused: %s", cupti_error(r));
	return 0;
}

static void cupti_disable_activity(void)
{
	for (size_t i = 0; i < sizeof(cupti_kinds) / sizeof(cupti_kinds[0]); i++)
		cuptiActivityDisable(cupti_kinds[i]);
}

/* ---- host times ------------------------------------------------------------- */

/* CUPTI's clock and the host's CLOCK_REALTIME share the Unix epoch but need
 * not be one clock: the offset is taken between two host reads, the
 * tightest of a few, and again at every flush so a slewed wall clock is
 * followed. */
static void cupti_measure_offset(void)
{
	uint64_t best = UINT64_MAX;
	int64_t offset = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t c = 0, t0 = clock_real_ns(), t1;

		if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS || !c)
			return;
		t1 = clock_real_ns();
		if (t1 - t0 < best) {
			best = t1 - t0;
			offset = (int64_t)(c - (t0 + (t1 - t0) / 2));
		}
	}
	atomic_store_explicit(&cupti_host_offset, offset, memory_order_relaxed);
}

static void cupti_push_host_timed(struct smtop_record *rec)
{
	convert_host_times(rec, atomic_load_explicit(&cupti_host_offset, memory_order_relaxed));
	ring_push(cupti_ring, rec);
}

/* ---- flush thread ---------------------------------------------------------- */

/* cuptiActivityFlushPeriod only hands back full buffers; a plain flush every
 * 50 ms also returns the partly filled ones, keeping the view live. */
static void *cupti_flush_main(void *arg)
{
	struct timespec period = { 0, CUPTI_FLUSH_PERIOD_MS * 1000000L };

	(void)arg;
	while (!atomic_load(&cupti_flush_stop)) {
		nanosleep(&period, NULL);
		if (atomic_load(&cupti_active) && atomic_load(&cupti_recording) &&
		    !atomic_load(&cupti_flush_stop)) {
			cuptiActivityFlushAll(0);
			cupti_measure_offset();
		}
	}
	return NULL;
}

void cupti_flush(int forced)
{
	if (atomic_load(&cupti_active))
		cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void cupti_stop_flush_thread(void)
{
	if (!cupti_flush_started)
		return;
	atomic_store(&cupti_flush_stop, 1);
	pthread_join(cupti_flush_thread, NULL);
	cupti_flush_started = 0;
}

void cupti_disable(void)
{
	atomic_store(&cupti_active, 0);
}

/* ---- recording switched on and off ------------------------------------------ */

static int cupti_kind_is_standing(CUpti_ActivityKind k)
{
	return k == CUPTI_ACTIVITY_KIND_DEVICE || k == CUPTI_ACTIVITY_KIND_CONTEXT ||
	       k == CUPTI_ACTIVITY_KIND_STREAM;
}

/* Off: the kinds that record work and the API callbacks go (the launch
 * hook with them, so no module gets the block ring), then every buffer is
 * handed over, still to the session that ends. */
static int cupti_recording_off(void)
{
	for (size_t i = 0; i < sizeof(cupti_kinds) / sizeof(cupti_kinds[0]); i++)
		if (!cupti_kind_is_standing(cupti_kinds[i]))
			cuptiActivityDisable(cupti_kinds[i]);
	cuptiEnableDomain(0, cupti_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
	cuptiEnableDomain(0, cupti_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	atomic_store(&cupti_recording, 0);
	return 0;
}

/* On: the devices, contexts and streams made so far open the session. */
static int cupti_recording_on(char *reason, size_t len)
{
	CUptiResult r;
	int n;

	/* what was made while dormant reaches the standing copies first */
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cupti_measure_offset();
	cupti_push_standing();
	atomic_fetch_add(&cupti_generation, 1);
	atomic_store(&cupti_recording, 1);
	for (size_t i = 0; i < sizeof(cupti_kinds) / sizeof(cupti_kinds[0]); i++) {
		if (cupti_kind_is_standing(cupti_kinds[i]))
			continue;
		r = cuptiActivityEnable(cupti_kinds[i]);
		if (r != CUPTI_SUCCESS && i == 0) {
			snprintf(reason, len, "kernel activity refused: %s", cupti_error(r));
			cupti_recording_off();
			return -1;
		}
	}
	n = cupti_enable_domain(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
				cupti_runtime_prefixes, cupti_record_runtime);
	n += cupti_enable_domain(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
				 cupti_driver_prefixes, cupti_record_driver);
	log_debug("recording on: %d API callbacks", n);
	return 0;
}

static int cupti_set_recording(int on, char *reason, size_t len)
{
	if (!atomic_load(&cupti_active)) {
		snprintf(reason, len, "CUPTI tracing is not running");
		return -1;
	}
	if (on == atomic_load(&cupti_recording))
		return 0;
	return on ? cupti_recording_on(reason, len) : cupti_recording_off();
}

/* ---- start ---------------------------------------------------------------- */

static int cupti_subscribe(char *reason, size_t len)
{
	CUptiResult r = cuptiSubscribe(&cupti_subscriber, cupti_callback, NULL);

	if (r == CUPTI_SUCCESS)
		return 0;
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		snprintf(reason, len, "another CUPTI tool is attached (%s)", cupti_error(r));
	else
		snprintf(reason, len, "CUPTI refused to subscribe: %s", cupti_error(r));
	return -1;
}

int cupti_start(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	uint32_t version = 0;

	cupti_ring = ring;
	cupti_pid = pid;
	if (cuptiGetVersion(&version) == CUPTI_SUCCESS && version / 10000 != CUPTI_API_VERSION / 10000) {
		snprintf(reason, len, "CUPTI API version %u, built for %u", version, CUPTI_API_VERSION);
		return -1;
	}
	log_debug("CUPTI API version %u (built for %u)", version, CUPTI_API_VERSION);
	cupti_convert = convert_create(pid);
	if (!cupti_convert) {
		snprintf(reason, len, "out of memory");
		return -1;
	}
	blocks_set_host(cupti_blocks_host());
	if (cupti_subscribe(reason, len) != 0)
		goto fail_convert;
	atomic_store(&cupti_active, 1);
	if (cupti_enable_callbacks(reason, len) != 0 || cupti_enable_activity(reason, len) != 0)
		goto fail_subscribed;
	cupti_measure_offset();
	atomic_store(&cupti_flush_stop, 0);
	if (!cupti_option("SMTOP_FLUSH"))
		log_debug("no periodic flush: records arrive as buffers fill");
	else if (thread_start(&cupti_flush_thread, "smtop-flush", cupti_flush_main, NULL) == 0)
		cupti_flush_started = 1;
	else
		log_debug("no flush thread: records arrive as buffers fill");
	return 0;

fail_subscribed:
	atomic_store(&cupti_active, 0);
	cupti_disable_activity();
	cuptiUnsubscribe(cupti_subscriber);
fail_convert:
	convert_destroy(cupti_convert);
	cupti_convert = NULL;
	return -1;
}

const struct collector_backend collector_backend_cupti = {
	.name = "marked",
	.start = cupti_start,
	.flush = cupti_flush,
	.stop_threads = cupti_stop_flush_thread,
	.disable = cupti_disable,
	.push_host_timed = cupti_push_host_timed,
	.set_recording = cupti_set_recording,
};
