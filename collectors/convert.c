#include "collectors/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct convert_state *convert_create(uint32_t pid)
{
	struct convert_state *s = calloc(1, sizeof(*s));

	if (s)
		s->pid = pid;
	return s;
}

void convert_destroy(struct convert_state *s)
{
	free(s);
}

static struct convert_stream_seen *convert_stream_slot(struct convert_state *s, uint32_t id)
{
	/* kernels come in runs on one stream */
	if (s->last_stream < s->n_streams && s->streams[s->last_stream].s.stream_id == id)
		return &s->streams[s->last_stream];
	for (size_t i = 0; i < s->n_streams; i++)
		if (s->streams[i].s.stream_id == id)
			return &s->streams[s->last_stream = i];
	if (s->n_streams == CONVERT_MAX_STREAMS)
		return NULL;
	s->last_stream = s->n_streams;
	struct convert_stream_seen *q = &s->streams[s->n_streams++];
	memset(q, 0, sizeof *q);
	q->s.stream_id = id;
	return q;
}

static void convert_stream_note_kernel(struct convert_stream_seen *q, uint32_t ctx)
{
	for (uint32_t i = 0; i < q->n_ctx; i++)
		if (q->ctx[i] == ctx)
			return;
	if (q->n_ctx < CONVERT_STREAM_CONTEXTS)
		q->ctx[q->n_ctx++] = ctx;
}

int convert_stream_context(struct convert_state *s, const struct smtop_record *r,
			   struct smtop_record *out)
{
	struct convert_stream_seen *q;
	if (r->kind == SMTOP_REC_KERNEL) {
		q = convert_stream_slot(s, r->u.kernel.stream_id);
		if (q)
			convert_stream_note_kernel(q, r->u.kernel.context_id);
	} else if (r->kind == SMTOP_REC_STREAM) {
		q = convert_stream_slot(s, r->u.stream.stream_id);
		if (q && !q->recorded) {
			q->s = r->u.stream;
			q->recorded = 1;
		}
	} else {
		return 0;
	}
	if (!q || !q->recorded)
		return 0;
	for (uint32_t i = 0; i < q->n_ctx; i++) {
		if (q->ctx[i] == q->s.context_id || (q->told & 1u << i))
			continue;
		q->told |= 1u << i;
		memset(out, 0, sizeof *out);
		out->kind = SMTOP_REC_STREAM;
		out->u.stream = q->s;
		out->u.stream.context_id = q->ctx[i];
		return 1;
	}
	return 0;
}

uint64_t convert_timestamp(uint64_t t)
{
	/* CUPTI 13 spells "unknown" as 0; older releases used all ones. */
	return (t == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN || t == UINT64_MAX) ? 0 : t;
}

static void convert_shift(uint64_t *t, int64_t offset)
{
	if (*t)
		*t = (uint64_t)((int64_t)*t + offset);
}

void convert_host_times(struct smtop_record *r, int64_t offset)
{
	switch (r->kind) {
	case SMTOP_REC_SYNC:
		convert_shift(&r->u.sync.start, offset);
		convert_shift(&r->u.sync.end, offset);
		break;
	case SMTOP_REC_API:
		convert_shift(&r->u.api.start, offset);
		convert_shift(&r->u.api.end, offset);
		break;
	case SMTOP_REC_NVTX:
		convert_shift(&r->u.nvtx.start, offset);
		convert_shift(&r->u.nvtx.end, offset);
		break;
	default:
		break;
	}
}

int32_t convert_priority(uint32_t raw)
{
	int32_t p;

	memcpy(&p, &raw, sizeof(p));
	return p;
}

static char *convert_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

void convert_note_context(struct convert_state *s, uint32_t context_id, uint32_t device_id)
{
	for (size_t i = 0; i < s->n_contexts; i++) {
		if (s->context_ids[i] == context_id) {
			s->device_ids[i] = device_id;
			return;
		}
	}
	if (s->n_contexts == CONVERT_MAX_CONTEXTS)
		return;
	s->context_ids[s->n_contexts] = context_id;
	s->device_ids[s->n_contexts] = device_id;
	s->n_contexts++;
}

static uint32_t convert_device_of(const struct convert_state *s, uint32_t context_id)
{
	for (size_t i = 0; i < s->n_contexts; i++)
		if (s->context_ids[i] == context_id)
			return s->device_ids[i];
	return 0;
}

static void convert_kernel(const struct convert_state *s, const CUpti_ActivityKernel10 *k,
			   struct smtop_record *out)
{
	struct smtop_kernel *o = &out->u.kernel;

	out->kind = SMTOP_REC_KERNEL;
	o->start = convert_timestamp(k->start);
	o->end = convert_timestamp(k->end);
	o->queued = convert_timestamp(k->queued);
	o->submitted = convert_timestamp(k->submitted);
	o->grid_id = (uint64_t)k->gridId;
	o->pid = s->pid;
	o->device_id = k->deviceId;
	o->context_id = k->contextId;
	o->stream_id = k->streamId;
	o->correlation_id = k->correlationId;
	o->grid[0] = k->gridX;
	o->grid[1] = k->gridY;
	o->grid[2] = k->gridZ;
	o->block[0] = k->blockX;
	o->block[1] = k->blockY;
	o->block[2] = k->blockZ;
	o->registers = k->registersPerThread;
	o->static_smem = (uint32_t)k->staticSharedMemory;
	o->dynamic_smem = (uint32_t)k->dynamicSharedMemory;
	o->local_mem = k->localMemoryPerThread;
	o->launch_type = k->launchType;
	o->is_graph = k->graphId != 0 || k->graphNodeId != 0;
	o->graph_node_id = k->graphNodeId;
	o->name = convert_strdup(k->name);
}

static void convert_memcpy(const struct convert_state *s, const CUpti_ActivityMemcpy6 *m,
			   struct smtop_record *out)
{
	struct smtop_memcpy *o = &out->u.memcpy;

	out->kind = SMTOP_REC_MEMCPY;
	o->start = convert_timestamp(m->start);
	o->end = convert_timestamp(m->end);
	o->bytes = m->bytes;
	o->pid = s->pid;
	o->device_id = m->deviceId;
	o->context_id = m->contextId;
	o->stream_id = m->streamId;
	o->correlation_id = m->correlationId;
	o->copy_kind = m->copyKind;
	o->src_kind = m->srcKind;
	o->dst_kind = m->dstKind;
	o->graph_node_id = m->graphNodeId;
}

static void convert_memset(const struct convert_state *s, const CUpti_ActivityMemset4 *m,
			   struct smtop_record *out)
{
	struct smtop_memset *o = &out->u.memset;

	out->kind = SMTOP_REC_MEMSET;
	o->start = convert_timestamp(m->start);
	o->end = convert_timestamp(m->end);
	o->bytes = m->bytes;
	o->pid = s->pid;
	o->device_id = m->deviceId;
	o->context_id = m->contextId;
	o->stream_id = m->streamId;
	o->correlation_id = m->correlationId;
	o->value = m->value;
	o->graph_node_id = m->graphNodeId;
}

static void convert_sync(const struct convert_state *s, const CUpti_ActivitySynchronization2 *y,
			 struct smtop_record *out)
{
	struct smtop_sync *o = &out->u.sync;

	out->kind = SMTOP_REC_SYNC;
	o->start = convert_timestamp(y->start);
	o->end = convert_timestamp(y->end);
	o->pid = s->pid;
	o->context_id = y->contextId;
	/* A context or device sync has no stream: CUPTI says 0xffffffff. */
	o->stream_id = y->streamId;
	o->correlation_id = y->correlationId;
	o->type = (int32_t)y->type;
	o->event_id = y->cudaEventId;
	o->sync_id = y->cudaEventSyncId;
}

static void convert_cuda_event(const struct convert_state *s, const CUpti_ActivityCudaEvent2 *e,
			       struct smtop_record *out)
{
	struct smtop_cuda_event *o = &out->u.cuda_event;

	out->kind = SMTOP_REC_CUDA_EVENT;
	o->device_ts = e->deviceTimestamp ? convert_timestamp(e->deviceTimestamp) : 0;
	o->sync_id = e->cudaEventSyncId;
	o->pid = s->pid;
	o->device_id = e->deviceId;
	o->context_id = e->contextId;
	o->stream_id = e->streamId;
	o->correlation_id = e->correlationId;
	o->event_id = e->eventId;
}

static void convert_stream(const struct convert_state *s, const CUpti_ActivityStream *y,
			   struct smtop_record *out)
{
	struct smtop_stream *o = &out->u.stream;

	out->kind = SMTOP_REC_STREAM;
	o->pid = s->pid;
	o->device_id = convert_device_of(s, y->contextId);
	o->context_id = y->contextId;
	o->stream_id = y->streamId;
	o->priority = convert_priority(y->priority);
	o->flags = (uint32_t)y->flag;
	o->correlation_id = y->correlationId;
}

static char *convert_uuid_hex(const CUuuid *u)
{
	static const char hex[] = "0123456789abcdef";
	char *s = malloc(2 * sizeof(u->bytes) + 1);
	size_t n = 0;

	if (!s)
		return NULL;
	for (size_t i = 0; i < sizeof(u->bytes); i++) {
		unsigned char b = (unsigned char)u->bytes[i];

		s[n++] = hex[b >> 4];
		s[n++] = hex[b & 15];
	}
	s[n] = '\0';
	return s;
}

static void convert_device(const struct convert_state *s, const CUpti_ActivityDevice5 *d,
			   struct smtop_record *out)
{
	struct smtop_device *o = &out->u.device;

	out->kind = SMTOP_REC_DEVICE;
	o->pid = s->pid;
	o->device_id = d->id;
	o->sm_count = d->numMultiprocessors;
	o->cc_major = d->computeCapabilityMajor;
	o->cc_minor = d->computeCapabilityMinor;
	o->max_threads_per_sm = d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp;
	o->max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
	o->max_regs_per_sm = d->maxRegistersPerMultiprocessor;
	o->max_smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
	o->max_threads_per_block = d->maxThreadsPerBlock;
	o->warp_size = d->numThreadsPerWarp;
	o->global_memory_bytes = d->globalMemorySize;
	o->name = convert_strdup(d->name);
	o->uuid = convert_uuid_hex(&d->uuid);
}

static void convert_context(struct convert_state *s, const CUpti_ActivityContext3 *c,
			    struct smtop_record *out)
{
	struct smtop_context *o = &out->u.context;

	convert_note_context(s, c->contextId, c->deviceId);
	out->kind = SMTOP_REC_CONTEXT;
	o->pid = s->pid;
	o->device_id = c->deviceId;
	o->context_id = c->contextId;
	o->null_stream_id = c->nullStreamId;
	o->parent_context_id = c->parentContextId;
	o->is_green = c->isGreenContext != 0;
}

int convert_activity(struct convert_state *s, const CUpti_Activity *a, struct smtop_record *out)
{
	memset(out, 0, sizeof(*out));
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		convert_kernel(s, (const CUpti_ActivityKernel10 *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		convert_memcpy(s, (const CUpti_ActivityMemcpy6 *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		convert_memset(s, (const CUpti_ActivityMemset4 *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		convert_sync(s, (const CUpti_ActivitySynchronization2 *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		convert_cuda_event(s, (const CUpti_ActivityCudaEvent2 *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_STREAM:
		convert_stream(s, (const CUpti_ActivityStream *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		convert_device(s, (const CUpti_ActivityDevice5 *)a, out);
		return 1;
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		convert_context(s, (const CUpti_ActivityContext3 *)a, out);
		return 1;
	default:
		return 0;
	}
}

void convert_api(struct smtop_record *out, uint32_t pid, uint32_t tid, uint32_t cbid,
		 int is_driver, int32_t return_value, const char *name,
		 uint64_t start, uint64_t end, uint32_t correlation_id)
{
	struct smtop_api *o = &out->u.api;

	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_API;
	o->start = convert_timestamp(start);
	o->end = convert_timestamp(end);
	o->pid = pid;
	o->tid = tid;
	o->correlation_id = correlation_id;
	o->cbid = cbid;
	o->is_driver = is_driver ? 1 : 0;
	o->return_value = return_value;
	o->name = convert_strdup(name);
}
