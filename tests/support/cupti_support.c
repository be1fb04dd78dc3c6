#include "tests/support/cupti_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/writer.h"

void cupti_support_kernel(CUpti_ActivityKernel10 *k, const char *name)
{
	memset(k, 0, sizeof(*k));
	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->registersPerThread = 32;
	k->start = 1000;
	k->end = 2000;
	k->queued = 900;
	k->submitted = 950;
	k->deviceId = 1;
	k->contextId = 2;
	k->streamId = 13;
	k->gridX = 4;
	k->gridY = 2;
	k->gridZ = 1;
	k->blockX = 128;
	k->blockY = 1;
	k->blockZ = 1;
	k->staticSharedMemory = 1024;
	k->dynamicSharedMemory = 2048;
	k->localMemoryPerThread = 16;
	k->correlationId = 99;
	k->gridId = 77;
	k->name = name;
	k->launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
}

void cupti_support_stream(CUpti_ActivityStream *s, uint32_t context, uint32_t stream,
			  uint32_t raw_priority)
{
	memset(s, 0, sizeof(*s));
	s->kind = CUPTI_ACTIVITY_KIND_STREAM;
	s->contextId = context;
	s->streamId = stream;
	s->priority = raw_priority;
	s->flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING;
	s->correlationId = 5;
}

void cupti_support_memcpy(CUpti_ActivityMemcpy6 *m, uint32_t context, uint32_t stream,
			  uint64_t start, uint64_t end, uint64_t bytes)
{
	memset(m, 0, sizeof(*m));
	m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	m->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m->bytes = bytes;
	m->start = start;
	m->end = end;
	m->deviceId = 0;
	m->contextId = context;
	m->streamId = stream;
	m->correlationId = 7;
}

void cupti_support_memset(CUpti_ActivityMemset4 *m, uint32_t context, uint32_t stream,
			  uint64_t start, uint64_t end, uint64_t bytes, uint32_t value)
{
	memset(m, 0, sizeof(*m));
	m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m->value = value;
	m->bytes = bytes;
	m->start = start;
	m->end = end;
	m->contextId = context;
	m->streamId = stream;
	m->correlationId = 8;
}

void cupti_support_sync(CUpti_ActivitySynchronization2 *y, uint32_t context, uint32_t stream,
			uint64_t start, uint64_t end)
{
	memset(y, 0, sizeof(*y));
	y->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y->type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	y->start = start;
	y->end = end;
	y->correlationId = 9;
	y->contextId = context;
	y->streamId = stream;
}

void cupti_support_device(CUpti_ActivityDevice5 *d, uint32_t id, const char *name)
{
	memset(d, 0, sizeof(*d));
	d->kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d->globalMemorySize = 150ull << 30;
	d->numThreadsPerWarp = 32;
	d->numMultiprocessors = 132;
	d->maxWarpsPerMultiprocessor = 64;
	d->maxBlocksPerMultiprocessor = 32;
	d->maxSharedMemoryPerMultiprocessor = 233472;
	d->maxRegistersPerMultiprocessor = 65536;
	d->maxThreadsPerBlock = 1024;
	d->computeCapabilityMajor = 9;
	d->computeCapabilityMinor = 0;
	d->id = id;
	for (int i = 0; i < 16; i++)
		d->uuid.bytes[i] = (char)(0xa0 + i);
	d->name = name;
}

void cupti_support_context(CUpti_ActivityContext3 *c, uint32_t context, uint32_t device,
			   uint16_t null_stream)
{
	memset(c, 0, sizeof(*c));
	c->kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	c->contextId = context;
	c->deviceId = device;
	c->nullStreamId = null_stream;
}

void cupti_support_marker(CUpti_ActivityMarker2 *m, CUpti_ActivityFlag flags, uint32_t id,
			  uint64_t t, uint32_t tid, const char *name, const char *domain)
{
	memset(m, 0, sizeof(*m));
	m->kind = CUPTI_ACTIVITY_KIND_MARKER;
	m->flags = flags;
	m->timestamp = t;
	m->id = id;
	m->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m->objectId.pt.processId = 1234;
	m->objectId.pt.threadId = tid;
	m->name = name;
	m->domain = domain;
}

void cupti_support_slot(struct smtop_trace_slot *slots, uint32_t capacity, uint64_t index,
			uint64_t grid, uint64_t start, uint64_t end, uint32_t block, uint16_t sm)
{
	struct smtop_trace_slot *s = &slots[index & (capacity - 1)];
	uint16_t tag = smtop_trace_tag(index, capacity);

	s->grid_tag = (grid & 0xffffffffffffull) | ((uint64_t)tag << 48);
	s->start = start;
	s->end = end;
	s->block = block;
	s->sm = sm;
	s->tag = tag;
}

void cupti_support_half_slot(struct smtop_trace_slot *slots, uint32_t capacity, uint64_t index,
			     uint64_t grid, uint64_t start)
{
	struct smtop_trace_slot *s = &slots[index & (capacity - 1)];
	uint16_t tag = smtop_trace_tag(index, capacity);

	s->grid_tag = (grid & 0xffffffffffffull) | ((uint64_t)tag << 48);
	s->start = start;
}

int cupti_support_session(char *path, size_t len)
{
	char dir[] = "/tmp/smtop-test-XXXXXX";
	struct db_writer_options opt = { 0 };
	struct db_writer *w = NULL;
	char err[256];

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, len, "%s/session.smtop", dir);
	opt.path = path;
	opt.pid = 1;
	opt.ppid = 0;
	opt.command = "smtop record";
	opt.create = 1;
	opt.session_command = "test workload";
	if (db_writer_open(&w, &opt, err, sizeof(err)) != 0) {
		fprintf(stderr, "cupti_support_session: %s\n", err);
		return -1;
	}
	db_writer_close(w);
	return 0;
}
