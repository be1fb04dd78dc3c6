/* Built only with the Compute Sanitizer API headers (SMTOP_HAVE_SANITIZER). */
#ifdef SMTOP_HAVE_SANITIZER
#include "collectors/sanitizer_convert.h"

#include <stdlib.h>
#include <string.h>

#include <generated_cuda_meta.h>

/* 11.8: the headers smtop builds with.  13: read off CUDA 13.0's
 * sanitizer_callbacks.h, which added STREAM_DESTROY_FINISHED (8) before
 * MODULE_LOADED and GRAPHEXEC_CREATING and _DESTROYING before the graph
 * launch callbacks; the struct fields smtop reads kept their places (new
 * fields came at the ends).  CUDA 12 is not known: its numbering was not
 * checked. */
#define SZ_MODULE_LOAD_CALLS                                                                              \
	SANITIZER_CBID_DRIVER_API_cuModuleLoad, SANITIZER_CBID_DRIVER_API_cuModuleLoadData,                 \
		SANITIZER_CBID_DRIVER_API_cuModuleLoadDataEx, SANITIZER_CBID_DRIVER_API_cuModuleLoadFatBinary, \
		SANITIZER_CBID_DRIVER_API_cuModuleGetFunction

static const struct sanitizer_numbering sanitizer_numberings[] = {
	{
		.major = 11,
		.context_created = SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED,
		.context_destroying = SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
		.stream_created = SANITIZER_CBID_RESOURCE_STREAM_CREATED,
		.stream_destroying = SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING,
		.module_loaded = SANITIZER_CBID_RESOURCE_MODULE_LOADED,
		.module_unloading = SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
		.launch_begin = SANITIZER_CBID_LAUNCH_BEGIN,
		.graph_node_launch_begin = SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN,
		/* 11.8 has no GRAPHEXEC_DESTROYING */
		.graph_launch_begin = SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN,
		.graph_launch_end = SANITIZER_CBID_GRAPHS_LAUNCH_END,
		.event_record = SANITIZER_CBID_EVENTS_RECORD,
		.event_stream_wait = SANITIZER_CBID_EVENTS_STREAM_WAIT,
		.memcpy_starting = SANITIZER_CBID_MEMCPY_STARTING,
		.memset_starting = SANITIZER_CBID_MEMSET_STARTING,
		.stream_synchronized = SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED,
		.sync_calls = { SANITIZER_CBID_DRIVER_API_cuStreamSynchronize,
				SANITIZER_CBID_DRIVER_API_cuStreamSynchronize_ptsz,
				SANITIZER_CBID_DRIVER_API_cuCtxSynchronize,
				SANITIZER_CBID_DRIVER_API_cuEventSynchronize, 0 },
		.load_calls = { SZ_MODULE_LOAD_CALLS, 0 },
	},
	{
		.major = 13,
		.context_created = 3,
		.context_destroying = 4,
		.stream_created = 6,
		.stream_destroying = 7,
		.module_loaded = 9,
		.module_unloading = 10,
		/* 24 is FUNCTIONS_LAZY_LOADED: the patch follows it */
		.functions_lazy_patched = 25,
		.launch_begin = 1,
		.graph_node_launch_begin = 4,
		.graphexec_destroying = 3,
		.graph_launch_begin = 6,
		.graph_launch_end = 7,
		/* the events domain kept its numbers and Sanitizer_EventData its
		 * fields (checked against the H200's 13.0 headers) */
		.event_record = 3,
		.event_stream_wait = 4,
		/* so did the copies and memsets, whose data only grew at its end */
		.memcpy_starting = 1,
		.memset_starting = 1,
		/* the driver API's ids only grow: the 11.8 ones hold, and
		 * cuCtxSynchronize_v2 (what cudaDeviceSynchronize calls in 13)
		 * is 800 */
		.stream_synchronized = 1,
		.sync_calls = { SANITIZER_CBID_DRIVER_API_cuStreamSynchronize,
				SANITIZER_CBID_DRIVER_API_cuStreamSynchronize_ptsz,
				SANITIZER_CBID_DRIVER_API_cuCtxSynchronize, 800,
				SANITIZER_CBID_DRIVER_API_cuEventSynchronize, 0 },
		/* and the library calls of CUDA 12 on: cuLibraryLoadData 678,
		 * cuLibraryLoadFromFile 679, cuLibraryGetKernel 681,
		 * cuLibraryGetModule 682, cuKernelGetFunction 683 (CUPTI's
		 * driver ids, which the sanitizer's follow) */
		.load_calls = { SZ_MODULE_LOAD_CALLS, 678, 679, 681, 682, 683, 0 },
	},
};

const struct sanitizer_numbering *sanitizer_numbering_of(unsigned major)
{
	for (size_t i = 0; i < sizeof(sanitizer_numberings) / sizeof(sanitizer_numberings[0]); i++)
		if (sanitizer_numberings[i].major == major)
			return &sanitizer_numberings[i];
	return NULL;
}

/* Appends id unless the numbering lacks it (0). */
static size_t handled_put(Sanitizer_CallbackId *out, size_t k, Sanitizer_CallbackId id)
{
	if (id)
		out[k++] = id;
	return k;
}

int sanitizer_is_load_call(const struct sanitizer_numbering *n, Sanitizer_CallbackId cbid)
{
	for (size_t i = 0; n->load_calls[i]; i++)
		if (n->load_calls[i] == cbid)
			return 1;
	return 0;
}

size_t sanitizer_handled_ids(const struct sanitizer_numbering *n, Sanitizer_CallbackDomain d,
			     Sanitizer_CallbackId *out)
{
	size_t k = 0;

	switch (d) {
	case SANITIZER_CB_DOMAIN_RESOURCE:
		k = handled_put(out, k, n->context_created);
		k = handled_put(out, k, n->stream_created);
		k = handled_put(out, k, n->stream_destroying);
		k = handled_put(out, k, n->module_loaded);
		k = handled_put(out, k, n->module_unloading);
		k = handled_put(out, k, n->functions_lazy_patched);
		break;
	case SANITIZER_CB_DOMAIN_LAUNCH:
		k = handled_put(out, k, n->launch_begin);
		break;
	case SANITIZER_CB_DOMAIN_GRAPHS:
		k = handled_put(out, k, n->graph_node_launch_begin);
		k = handled_put(out, k, n->graph_launch_begin);
		k = handled_put(out, k, n->graph_launch_end);
		k = handled_put(out, k, n->graphexec_destroying);
		break;
	case SANITIZER_CB_DOMAIN_EVENTS:
		k = handled_put(out, k, n->event_record);
		k = handled_put(out, k, n->event_stream_wait);
		break;
	case SANITIZER_CB_DOMAIN_MEMCPY:
		k = handled_put(out, k, n->memcpy_starting);
		break;
	case SANITIZER_CB_DOMAIN_MEMSET:
		k = handled_put(out, k, n->memset_starting);
		break;
	default:
		break;
	}
	return k;
}

unsigned sanitizer_major_of_path(const char *path)
{
	const char *p = path ? strstr(path, "cuda-") : NULL;

	while (p) {
		char *end;
		unsigned long v = strtoul(p + 5, &end, 10);

		if (end != p + 5 && *end == '.' && v > 0 && v < 1000)
			return (unsigned)v;
		p = strstr(p + 5, "cuda-");
	}
	return 0;
}

unsigned sanitizer_major_of_version_json(const char *text)
{
	const char *cuda = text ? strstr(text, "\"cuda\"") : NULL;
	const char *v = cuda ? strstr(cuda, "\"version\"") : NULL;

	if (!v || !(v = strchr(v + 9, '"')))
		return 0;
	unsigned long major = strtoul(v + 1, NULL, 10);
	return major > 0 && major < 1000 ? (unsigned)major : 0;
}

void sanitizer_launch_info(const Sanitizer_LaunchData *ld, uint32_t context_id, uint32_t stream_id,
			   uint64_t launched, int is_graph, struct launch_info *out)
{
	memset(out, 0, sizeof(*out));
	out->grid_id = ld->gridId;
	out->context_id = context_id;
	out->device_id = (uint32_t)ld->device;
	out->stream_id = stream_id;
	out->grid[0] = (int32_t)ld->gridDim_x;
	out->grid[1] = (int32_t)ld->gridDim_y;
	out->grid[2] = (int32_t)ld->gridDim_z;
	out->block[0] = (int32_t)ld->blockDim_x;
	out->block[1] = (int32_t)ld->blockDim_y;
	out->block[2] = (int32_t)ld->blockDim_z;
	out->is_graph = is_graph;
	out->launched = launched;
	out->name = ld->functionName;
}

const Sanitizer_CallbackId sanitizer_launch_calls[] = {
	SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
	SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
	SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel,
	SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz,
	/* no shape of their own, but their kernels run patched code too */
	SANITIZER_CBID_DRIVER_API_cuGraphLaunch, SANITIZER_CBID_DRIVER_API_cuGraphLaunch_ptsz, 0,
};

/* What a driver launch call's parameters say, each form's own fields
 * (each _ptsz form has its base form's): its function, stream and shape
 * where it has them. */
struct launch_call {
	CUfunction f;
	CUstream stream;
	int has_stream, has_shape;
	struct sanitizer_launch_shape shape;
	unsigned smem;
};

#define LAUNCH_CALL_SHAPE(p)                                                                              \
	((struct sanitizer_launch_shape){ { (p)->gridDimX, (p)->gridDimY, (p)->gridDimZ },                \
					  { (p)->blockDimX, (p)->blockDimY, (p)->blockDimZ } })

/* 0 for any other call, or no parameters. */
static int launch_call_read(Sanitizer_CallbackId cbid, const void *params, struct launch_call *l)
{
	*l = (struct launch_call){ 0 };
	if (!params)
		return 0;
	switch (cbid) {
	case SANITIZER_CBID_DRIVER_API_cuLaunchKernel:
	case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_params *p = params;
		*l = (struct launch_call){ .f = p->f, .stream = p->hStream, .has_stream = 1, .has_shape = 1,
					   .shape = LAUNCH_CALL_SHAPE(p), .smem = p->sharedMemBytes };
		return 1;
	}
	case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel:
	case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: {
		const cuLaunchCooperativeKernel_params *p = params;
		*l = (struct launch_call){ .f = p->f, .stream = p->hStream, .has_stream = 1, .has_shape = 1,
					   .shape = LAUNCH_CALL_SHAPE(p), .smem = p->sharedMemBytes };
		return 1;
	}
	case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx:
	case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *p = params;
		const CUlaunchConfig *c = p->config;
		l->f = p->f;
		if (c)
			*l = (struct launch_call){ .f = p->f, .stream = c->hStream, .has_stream = 1, .has_shape = 1,
						   .shape = LAUNCH_CALL_SHAPE(c), .smem = c->sharedMemBytes };
		return 1;
	}
	case SANITIZER_CBID_DRIVER_API_cuGraphLaunch:
	case SANITIZER_CBID_DRIVER_API_cuGraphLaunch_ptsz: /* no function or shape of its own */
		*l = (struct launch_call){ .stream = ((const cuGraphLaunch_params *)params)->hStream, .has_stream = 1 };
		return 1;
	default:
		return 0;
	}
}

CUfunction sanitizer_launch_function(Sanitizer_CallbackId cbid, const void *params)
{
	struct launch_call l;

	launch_call_read(cbid, params, &l);
	return l.f;
}

int sanitizer_launch_stream(Sanitizer_CallbackId cbid, const void *params, CUstream *stream)
{
	struct launch_call l;

	launch_call_read(cbid, params, &l);
	*stream = l.stream;
	return l.has_stream;
}

int64_t sanitizer_launch_dynamic_smem(Sanitizer_CallbackId cbid, const void *params,
				      struct sanitizer_launch_shape *shape)
{
	struct launch_call l;

	launch_call_read(cbid, params, &l);
	*shape = l.shape;
	return l.has_shape ? (int64_t)l.smem : -1;
}

int sanitizer_launch_has_shape(const Sanitizer_LaunchData *ld, const struct sanitizer_launch_shape *s)
{
	return ld->gridDim_x == s->grid[0] && ld->gridDim_y == s->grid[1] && ld->gridDim_z == s->grid[2] &&
	       ld->blockDim_x == s->block[0] && ld->blockDim_y == s->block[1] && ld->blockDim_z == s->block[2];
}

void sanitizer_graph_launch_call(uint32_t pid, uint32_t tid, uint32_t correlation_id, uint64_t start,
				 uint64_t end, uint32_t stream_id, struct smtop_record *out)
{
	memset(out, 0, sizeof *out);
	out->kind = SMTOP_REC_API;
	out->u.api = (struct smtop_api){ .start = start, .end = end, .pid = pid, .tid = tid,
					 .correlation_id = correlation_id, .name = strdup("cudaGraphLaunch"),
					 .stream_id = stream_id, .has_stream = 1 };
}

uint64_t sanitizer_graph_node_id(uint32_t exec_seq, const void *node)
{
	const uint64_t address = (1ull << 47) - 1;
	return node ? (uint64_t)exec_seq << 47 | ((uint64_t)(uintptr_t)node & address) : 0;
}

const Sanitizer_LaunchData *sanitizer_graph_node_launch(const Sanitizer_GraphNodeLaunchData *g)
{
	return g && g->nodeType == CU_GRAPH_NODE_TYPE_KERNEL ? &g->launchData : NULL;
}

int32_t sanitizer_sync_call_type(const struct sanitizer_numbering *numbering, Sanitizer_CallbackId cbid,
				 const void *params, void **handle)
{
	int known = 0;

	*handle = NULL;
	for (size_t i = 0; cbid && numbering->sync_calls[i]; i++)
		known |= numbering->sync_calls[i] == cbid;
	if (!known)
		return 0;
	switch (cbid) {
	case SANITIZER_CBID_DRIVER_API_cuStreamSynchronize:
	case SANITIZER_CBID_DRIVER_API_cuStreamSynchronize_ptsz:
		*handle = params ? ((const cuStreamSynchronize_params *)params)->hStream : NULL;
		return SANITIZER_SYNC_STREAM;
	case SANITIZER_CBID_DRIVER_API_cuEventSynchronize:
		*handle = params ? ((const cuEventSynchronize_params *)params)->hEvent : NULL;
		return SANITIZER_SYNC_EVENT;
	default: /* cuCtxSynchronize and its _v2 */
		return SANITIZER_SYNC_CONTEXT;
	}
}

void sanitizer_synchronization(int32_t type, uint32_t pid, uint32_t context_id, uint32_t stream_id,
			       const void *event, uint32_t correlation_id, uint64_t start, uint64_t end,
			       struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_SYNC;
	out->u.sync = (struct smtop_sync){
		.start = start, .end = end, .pid = pid, .context_id = context_id,
		.stream_id = type == SANITIZER_SYNC_STREAM ? stream_id : SMTOP_SYNC_NONE,
		.correlation_id = correlation_id, .type = type,
		.event_id = type == SANITIZER_SYNC_EVENT ? sanitizer_event_id(event) : SMTOP_SYNC_NONE,
		.sync_id = SMTOP_SYNC_NONE,
	};
}

uint32_t sanitizer_event_id(const void *event)
{
	uint32_t id = (uint32_t)((uintptr_t)event >> 4);

	return id == SMTOP_SYNC_NONE ? id - 1 : id;
}

void sanitizer_event_record(const Sanitizer_EventData *d, uint32_t pid, uint32_t device_id,
			    uint32_t context_id, uint32_t stream_id, uint32_t correlation_id,
			    struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_CUDA_EVENT;
	out->u.cuda_event = (struct smtop_cuda_event){
		.sync_id = SMTOP_SYNC_NONE, .pid = pid, .device_id = device_id,
		.context_id = context_id, .stream_id = stream_id,
		.correlation_id = correlation_id, .event_id = sanitizer_event_id(d->event),
	};
}

void sanitizer_stream_wait(const Sanitizer_EventData *d, uint32_t pid, uint32_t context_id,
			   uint32_t stream_id, uint32_t correlation_id, uint64_t when,
			   struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_SYNC;
	out->u.sync = (struct smtop_sync){
		.start = when, .end = when, .pid = pid, .context_id = context_id,
		.stream_id = stream_id, .correlation_id = correlation_id,
		.type = 2, /* CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT */
		.event_id = sanitizer_event_id(d->event), .sync_id = SMTOP_SYNC_NONE,
	};
}

/* CUpti_ActivityMemcpyKind of a sanitizer direction. */
static int32_t sanitizer_copy_kind(Sanitizer_MemcpyDirection d)
{
	switch (d) {
	case SANITIZER_MEMCPY_DIRECTION_HOST_TO_DEVICE: return 1;   /* HTOD */
	case SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_HOST: return 2;   /* DTOH */
	case SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_DEVICE: return 8; /* DTOD */
	case SANITIZER_MEMCPY_DIRECTION_HOST_TO_HOST: return 9;     /* HTOH */
	default: return 0;
	}
}

void sanitizer_memcpy(const Sanitizer_MemcpyData *d, uint32_t pid, uint32_t device_id,
		      uint32_t context_id, uint32_t stream_id, uint32_t correlation_id,
		      struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_MEMCPY;
	out->u.memcpy = (struct smtop_memcpy){
		.bytes = d->size, .pid = pid, .device_id = device_id, .context_id = context_id,
		.stream_id = stream_id, .correlation_id = correlation_id,
		.copy_kind = sanitizer_copy_kind(d->direction),
	};
}

void sanitizer_memset(const Sanitizer_MemsetData *d, uint32_t pid, uint32_t device_id,
		      uint32_t context_id, uint32_t stream_id, uint32_t correlation_id,
		      struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_MEMSET;
	out->u.memset = (struct smtop_memset){
		.bytes = d->width * (d->height ? d->height : 1) * (d->elementSize ? d->elementSize : 1),
		.pid = pid, .device_id = device_id, .context_id = context_id, .stream_id = stream_id,
		.correlation_id = correlation_id, .value = d->value,
	};
}

void sanitizer_green_context(uint32_t pid, uint32_t device_id, uint32_t context_id, uint32_t parent_id,
			     struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_CONTEXT;
	out->u.context = (struct smtop_context){ .pid = pid, .device_id = device_id, .context_id = context_id,
						 .parent_context_id = parent_id, .is_green = 1 };
}

/* The context field of a record sanitizer_park takes, its stream in *sid. */
static uint32_t *sanitizer_record_ids(struct smtop_record *r, uint32_t *sid)
{
	switch (r->kind) {
	case SMTOP_REC_MEMCPY: *sid = r->u.memcpy.stream_id; return &r->u.memcpy.context_id;
	case SMTOP_REC_MEMSET: *sid = r->u.memset.stream_id; return &r->u.memset.context_id;
	case SMTOP_REC_CUDA_EVENT: *sid = r->u.cuda_event.stream_id; return &r->u.cuda_event.context_id;
	case SMTOP_REC_SYNC: *sid = r->u.sync.stream_id; return &r->u.sync.context_id;
	default: return NULL;
	}
}

int sanitizer_record_stream(const struct smtop_record *r, uint32_t *stream_id)
{
	return sanitizer_record_ids((struct smtop_record *)r, stream_id) != NULL;
}

void sanitizer_record_set_context(struct smtop_record *r, uint32_t context_id)
{
	uint32_t sid, *ctx = sanitizer_record_ids(r, &sid);

	if (ctx)
		*ctx = context_id;
}

int sanitizer_park(struct sanitizer_parked *p, const struct smtop_record *r)
{
	uint32_t sid;

	if (!sanitizer_record_stream(r, &sid) || p->n == SANITIZER_PARKED_MAX)
		return -1;
	p->r[p->n++] = *r;
	return 0;
}

size_t sanitizer_unpark(struct sanitizer_parked *p, uint32_t stream_id, uint32_t context_id,
			struct smtop_record *out, size_t max)
{
	size_t keep = 0, done = 0;

	for (size_t i = 0; i < p->n; i++) {
		uint32_t sid = 0;

		sanitizer_record_stream(&p->r[i], &sid);
		if ((stream_id && sid != stream_id) || done == max) {
			p->r[keep++] = p->r[i];
			continue;
		}
		out[done] = p->r[i];
		if (context_id)
			sanitizer_record_set_context(&out[done], context_id);
		done++;
	}
	p->n = keep;
	return done;
}

#endif
