#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collectors/blocks.h"
#include "collectors/convert.h"
#include "collectors/drops.h"
#include "collectors/graphs.h"
#include "collectors/launch_ctx.h"
#include "collectors/launch_shards.h"
#include "collectors/launches.h"
#include "collectors/ptrset.h"
#include "collectors/ring.h"
#ifdef SMTOP_HAVE_SANITIZER
#include "collectors/sanitizer_convert.h"
#endif
#include "collectors/writer_thread.h"

#ifdef SMTOP_HAVE_SANITIZER
#include <generated_cuda_meta.h>
#endif
#include "db/reader.h"
#include "src/core/analysis.h"
#include "db/writer.h"
#include "ui/app/info.h"
#include "ui/app/record.h"
#include "src/core/sm_modes.h"
#include "collectors/backend.h"
#include "tests/support/cupti_support.h"

/* ---- convert ----------------------------------------------------------------- */

static struct convert_state *cs;

static void convert_setup(void)
{
	cs = convert_create(4242);
	cr_assert_not_null(cs);
}

static void convert_teardown(void)
{
	convert_destroy(cs);
}

static int conv(const void *activity, struct smtop_record *out)
{
	return convert_activity(cs, (const CUpti_Activity *)activity, out);
}

TestSuite(convert, .init = convert_setup, .fini = convert_teardown);

Test(convert, kernel_field_by_field)
{
	CUpti_ActivityKernel10 k;
	struct smtop_record r;
	char name[] = "_Z6vecAddPfS_S_i";

	cupti_support_kernel(&k, name);
	cr_assert_eq(conv(&k, &r), 1);
	cr_assert_eq(r.kind, SMTOP_REC_KERNEL);
	const struct smtop_kernel *o = &r.u.kernel;
	cr_assert_eq(o->start, 1000);
	cr_assert_eq(o->end, 2000);
	cr_assert_eq(o->queued, 900);
	cr_assert_eq(o->submitted, 950);
	cr_assert_eq(o->grid_id, 77);
	cr_assert_eq(o->pid, 4242);
	cr_assert_eq(o->device_id, 1);
	cr_assert_eq(o->context_id, 2);
	cr_assert_eq(o->stream_id, 13);
	cr_assert_eq(o->correlation_id, 99);
	cr_assert_eq(o->grid[0], 4);
	cr_assert_eq(o->grid[1], 2);
	cr_assert_eq(o->grid[2], 1);
	cr_assert_eq(o->block[0], 128);
	cr_assert_eq(o->block[1], 1);
	cr_assert_eq(o->block[2], 1);
	cr_assert_eq(o->registers, 32);
	cr_assert_eq(o->static_smem, 1024);
	cr_assert_eq(o->dynamic_smem, 2048);
	cr_assert_eq(o->local_mem, 16);
	cr_assert_eq(o->launch_type, CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR);
	cr_assert_eq(o->is_graph, 0);
	cr_assert_str_eq(o->name, name);
	cr_assert_neq(o->name, name, "the name is copied: CUPTI reuses its buffer");
	name[0] = 'X';
	cr_assert_eq(o->name[0], '_');
	records_free_owned(&r);
}

/* Host-timed records onto the kernels' timebase: every time moves by the
 * offset (negative too) but an unknown one, and a mark's missing end, stay
 * 0; records with no host time are left alone. */
Test(convert, host_times_move_by_the_offset)
{
	struct smtop_record sync = { .kind = SMTOP_REC_SYNC, .u.sync = { .start = 1000, .end = 5000 } };
	struct smtop_record api = { .kind = SMTOP_REC_API, .u.api = { .start = 2000, .end = 0 } };
	struct smtop_record mark = { .kind = SMTOP_REC_NVTX, .u.nvtx = { .start = 3000, .end = 0 } };
	struct smtop_record range = { .kind = SMTOP_REC_NVTX, .u.nvtx = { .start = 3000, .end = 3500 } };
	struct smtop_record kernel = { .kind = SMTOP_REC_KERNEL, .u.kernel = { .start = 7000, .end = 8000 } };

	convert_host_times(&sync, 20000);
	cr_assert_eq(sync.u.sync.start, 21000);
	cr_assert_eq(sync.u.sync.end, 25000);
	convert_host_times(&api, -500);
	cr_assert_eq(api.u.api.start, 1500);
	cr_assert_eq(api.u.api.end, 0, "unknown stays unknown");
	convert_host_times(&mark, 7);
	cr_assert_eq(mark.u.nvtx.start, 3007);
	cr_assert_eq(mark.u.nvtx.end, 0, "a mark has no end");
	convert_host_times(&range, 7);
	cr_assert_eq(range.u.nvtx.end, 3507);
	convert_host_times(&kernel, 20000);
	cr_assert_eq(kernel.u.kernel.start, 7000, "GPU times are not the host's");
	cr_assert_eq(kernel.u.kernel.end, 8000);
}

Test(convert, kernel_from_a_graph_and_large_grid_id)
{
	CUpti_ActivityKernel10 k;
	struct smtop_record r;

	cupti_support_kernel(&k, NULL);
	k.graphId = 3;
	k.graphNodeId = 1234567;
	k.gridId = (int64_t)1 << 40;
	cr_assert_eq(conv(&k, &r), 1);
	cr_assert_eq(r.u.kernel.is_graph, 1);
	cr_assert_eq(r.u.kernel.graph_node_id, 1234567);
	cr_assert_eq(r.u.kernel.grid_id, (uint64_t)1 << 40);
	cr_assert_null(r.u.kernel.name);
}

struct ts_case {
	uint64_t in, out;
};

ParameterizedTestParameters(convert, unknown_timestamps_become_zero)
{
	static struct ts_case cases[] = {
		{ 0, 0 },
		{ (uint64_t)CUPTI_TIMESTAMP_UNKNOWN, 0 },
		{ UINT64_MAX, 0 },
		{ 1, 1 },
		{ 1764480000000000000ull, 1764480000000000000ull },
	};
	return cr_make_param_array(struct ts_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct ts_case *c, convert, unknown_timestamps_become_zero)
{
	CUpti_ActivityKernel10 k;
	struct smtop_record r;

	cupti_support_kernel(&k, NULL);
	k.queued = c->in;
	k.submitted = c->in;
	k.start = c->in;
	k.end = c->in;
	cr_assert_eq(conv(&k, &r), 1);
	cr_assert_eq(r.u.kernel.queued, c->out);
	cr_assert_eq(r.u.kernel.submitted, c->out);
	cr_assert_eq(r.u.kernel.start, c->out);
	cr_assert_eq(r.u.kernel.end, c->out);
	cr_assert_eq(convert_timestamp(c->in), c->out);
}

struct prio_case {
	uint32_t raw;
	int32_t priority;
};

ParameterizedTestParameters(convert, stream_priority_is_int32)
{
	static struct prio_case cases[] = {
		{ 0u, 0 }, { 4294967291u, -5 }, { 4294967295u, -1 }, { 3u, 3 },
	};
	return cr_make_param_array(struct prio_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct prio_case *c, convert, stream_priority_is_int32)
{
	CUpti_ActivityStream s;
	struct smtop_record r;

	cupti_support_stream(&s, 2, 21, c->raw);
	cr_assert_eq(conv(&s, &r), 1);
	cr_assert_eq(r.kind, SMTOP_REC_STREAM);
	cr_assert_eq(r.u.stream.priority, c->priority);
	cr_assert_eq(r.u.stream.stream_id, 21);
	cr_assert_eq(r.u.stream.context_id, 2);
	cr_assert_eq(r.u.stream.pid, 4242);
	cr_assert_eq(r.u.stream.correlation_id, 5);
	cr_assert_eq(r.u.stream.flags, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING);
}

Test(convert, stream_takes_its_device_from_the_context)
{
	CUpti_ActivityContext3 c;
	CUpti_ActivityStream s;
	struct smtop_record r;

	cupti_support_stream(&s, 8, 21, 0);
	cr_assert_eq(conv(&s, &r), 1);
	cr_assert_eq(r.u.stream.device_id, 0, "unknown context: device 0");
	cupti_support_context(&c, 8, 3, 7);
	cr_assert_eq(conv(&c, &r), 1);
	cr_assert_eq(r.kind, SMTOP_REC_CONTEXT);
	cr_assert_eq(r.u.context.context_id, 8);
	cr_assert_eq(r.u.context.device_id, 3);
	cr_assert_eq(r.u.context.null_stream_id, 7);
	cr_assert_eq(r.u.context.pid, 4242);
	cr_assert_eq(conv(&s, &r), 1);
	cr_assert_eq(r.u.stream.device_id, 3);
	convert_note_context(cs, 9, 5);
	cupti_support_stream(&s, 9, 1, 0);
	cr_assert_eq(conv(&s, &r), 1);
	cr_assert_eq(r.u.stream.device_id, 5);
}

/* CUPTI's context record of a green context says so, and names the
 * context it was made from: the session's contexts table keeps both. */
Test(convert, a_green_context_record_says_it_is_green)
{
	CUpti_ActivityContext3 c;
	struct smtop_record r;

	cupti_support_context(&c, 2, 0, 14);
	c.isGreenContext = 1;
	c.parentContextId = 1;
	c.numMultiprocessors = 16;
	cr_assert_eq(conv(&c, &r), 1);
	cr_assert_eq(r.u.context.context_id, 2);
	cr_assert_eq(r.u.context.is_green, 1);
	cr_assert_eq(r.u.context.parent_context_id, 1);
	cupti_support_context(&c, 1, 0, 7);
	cr_assert_eq(conv(&c, &r), 1);
	cr_assert_eq(r.u.context.is_green, 0, "the primary context");
	cr_assert_eq(r.u.context.parent_context_id, 0);
}

/* A green context's stream: CUPTI's stream record names the primary context
 * (1), its kernels the green one (2 and, for a second green context, 3). */
Test(convert, green_context_streams_are_told_under_their_kernels_context)
{
	CUpti_ActivityKernel10 k;
	CUpti_ActivityStream s;
	struct smtop_record r, kr, extra;

	cupti_support_kernel(&k, "green");
	k.contextId = 2;
	k.streamId = 17;
	cr_assert_eq(conv(&k, &kr), 1);
	cr_assert_eq(convert_stream_context(cs, &kr, &extra), 0, "no stream record yet");
	cupti_support_stream(&s, 1, 17, 4294967291u);
	cr_assert_eq(conv(&s, &r), 1);
	cr_assert_eq(convert_stream_context(cs, &r, &extra), 1, "the kernel came first");
	cr_assert_eq(extra.kind, SMTOP_REC_STREAM);
	cr_assert_eq(extra.u.stream.context_id, 2);
	cr_assert_eq(extra.u.stream.stream_id, 17);
	cr_assert_eq(extra.u.stream.priority, -5);
	cr_assert_eq(convert_stream_context(cs, &r, &extra), 0, "told once");
	cr_assert_eq(convert_stream_context(cs, &kr, &extra), 0, "told once, by kernel too");
	records_free_owned(&kr);

	k.contextId = 3;
	cr_assert_eq(conv(&k, &kr), 1);
	cr_assert_eq(convert_stream_context(cs, &kr, &extra), 1, "a second context");
	cr_assert_eq(extra.u.stream.context_id, 3);
	cr_assert_eq(extra.u.stream.priority, -5);
	records_free_owned(&kr);

	/* a stream whose kernels run in its own context needs nothing */
	cupti_support_stream(&s, 2, 21, 0);
	cr_assert_eq(conv(&s, &r), 1);
	cr_assert_eq(convert_stream_context(cs, &r, &extra), 0);
	k.contextId = 2;
	k.streamId = 21;
	cr_assert_eq(conv(&k, &kr), 1);
	cr_assert_eq(convert_stream_context(cs, &kr, &extra), 0);
	records_free_owned(&kr);
}

Test(convert, memcpy_memset_sync)
{
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemset4 z;
	CUpti_ActivitySynchronization2 y;
	struct smtop_record r;

	cupti_support_memcpy(&m, 2, 14, 10, 20, 4096);
	m.graphNodeId = 31;
	cr_assert_eq(conv(&m, &r), 1);
	cr_assert_eq(r.u.memcpy.graph_node_id, 31);
	cr_assert_eq(r.kind, SMTOP_REC_MEMCPY);
	cr_assert_eq(r.u.memcpy.start, 10);
	cr_assert_eq(r.u.memcpy.end, 20);
	cr_assert_eq(r.u.memcpy.bytes, 4096);
	cr_assert_eq(r.u.memcpy.context_id, 2);
	cr_assert_eq(r.u.memcpy.stream_id, 14);
	cr_assert_eq(r.u.memcpy.correlation_id, 7);
	cr_assert_eq(r.u.memcpy.copy_kind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	cr_assert_eq(r.u.memcpy.src_kind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
	cr_assert_eq(r.u.memcpy.dst_kind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	cr_assert_eq(r.u.memcpy.pid, 4242);

	cupti_support_memset(&z, 2, 15, 30, 0, 512, 0xab);
	z.graphNodeId = 32;
	cr_assert_eq(conv(&z, &r), 1);
	cr_assert_eq(r.u.memset.graph_node_id, 32);
	cr_assert_eq(r.kind, SMTOP_REC_MEMSET);
	cr_assert_eq(r.u.memset.start, 30);
	cr_assert_eq(r.u.memset.end, 0);
	cr_assert_eq(r.u.memset.bytes, 512);
	cr_assert_eq(r.u.memset.value, 0xab);
	cr_assert_eq(r.u.memset.stream_id, 15);
	cr_assert_eq(r.u.memset.correlation_id, 8);

	cupti_support_sync(&y, 2, 16, 40, 50);
	cr_assert_eq(conv(&y, &r), 1);
	cr_assert_eq(r.kind, SMTOP_REC_SYNC);
	cr_assert_eq(r.u.sync.start, 40);
	cr_assert_eq(r.u.sync.end, 50);
	cr_assert_eq(r.u.sync.stream_id, 16);
	cr_assert_eq(r.u.sync.correlation_id, 9);
	cr_assert_eq(r.u.sync.type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
}

Test(convert, device)
{
	CUpti_ActivityDevice5 d;
	struct smtop_record r;

	cupti_support_device(&d, 0, "NVIDIA H200");
	cr_assert_eq(conv(&d, &r), 1);
	cr_assert_eq(r.kind, SMTOP_REC_DEVICE);
	const struct smtop_device *o = &r.u.device;
	cr_assert_eq(o->sm_count, 132);
	cr_assert_eq(o->cc_major, 9);
	cr_assert_eq(o->cc_minor, 0);
	cr_assert_eq(o->max_threads_per_sm, 2048);
	cr_assert_eq(o->max_blocks_per_sm, 32);
	cr_assert_eq(o->max_regs_per_sm, 65536);
	cr_assert_eq(o->max_smem_per_sm, 233472);
	cr_assert_eq(o->max_threads_per_block, 1024);
	cr_assert_eq(o->warp_size, 32);
	cr_assert_eq(o->global_memory_bytes, 150ull << 30);
	cr_assert_str_eq(o->name, "NVIDIA H200");
	cr_assert_str_eq(o->uuid, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
	records_free_owned(&r);
}

/* NVTX ranges come from the collector's own NVTX handlers (test_nvtx.c):
 * CUPTI marker records, were any to arrive, make none. */
Test(convert, cupti_markers_make_nothing)
{
	CUpti_ActivityMarker2 m;
	struct smtop_record r;

	cupti_support_marker(&m, CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 100, 5, "outer", NULL);
	cr_assert_eq(conv(&m, &r), 0);
	cupti_support_marker(&m, CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 400, 5, NULL, NULL);
	cr_assert_eq(conv(&m, &r), 0);
	cupti_support_marker(&m, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 3, 250, 5, "mark", NULL);
	cr_assert_eq(conv(&m, &r), 0);
}

Test(convert, unknown_kinds_make_nothing)
{
	CUpti_ActivityKernel10 k;
	struct smtop_record r;

	cupti_support_kernel(&k, NULL);
	k.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	cr_assert_eq(conv(&k, &r), 0);
}

Test(convert, api_record)
{
	struct smtop_record r;

	convert_api(&r, 1, 2, 211, 0, 0, "cudaLaunchKernel", 100, 150, 33);
	cr_assert_eq(r.kind, SMTOP_REC_API);
	cr_assert_eq(r.u.api.pid, 1);
	cr_assert_eq(r.u.api.tid, 2);
	cr_assert_eq(r.u.api.cbid, 211);
	cr_assert_eq(r.u.api.is_driver, 0);
	cr_assert_eq(r.u.api.start, 100);
	cr_assert_eq(r.u.api.end, 150);
	cr_assert_eq(r.u.api.correlation_id, 33);
	cr_assert_str_eq(r.u.api.name, "cudaLaunchKernel");
	records_free_owned(&r);
}

/* ---- ring -------------------------------------------------------------------- */

static struct smtop_record named_kernel(uint32_t corr)
{
	struct smtop_record r = { .kind = SMTOP_REC_KERNEL };
	char name[32];

	snprintf(name, sizeof(name), "k%u", corr);
	r.u.kernel.correlation_id = corr;
	r.u.kernel.name = strdup(name);
	return r;
}

Test(ring, fifo_single_producer)
{
	struct ring *q = ring_create(8);
	struct smtop_record r, out[8];

	for (uint32_t i = 0; i < 5; i++) {
		r = named_kernel(i);
		cr_assert_eq(ring_push(q, &r), 0);
	}
	cr_assert_eq(ring_count(q), 5);
	cr_assert_eq(ring_pop(q, out, 3), 3);
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(out[i].u.kernel.correlation_id, i);
		records_free_owned(&out[i]);
	}
	for (uint32_t i = 5; i < 10; i++) {
		r = named_kernel(i);
		cr_assert_eq(ring_push(q, &r), 0, "wraps around");
	}
	cr_assert_eq(ring_pop(q, out, 8), 7);
	for (uint32_t i = 0; i < 7; i++) {
		cr_assert_eq(out[i].u.kernel.correlation_id, i + 3);
		records_free_owned(&out[i]);
	}
	cr_assert_eq(ring_take_drops(q), 0);
	ring_destroy(q);
}

Test(ring, full_ring_counts_every_drop)
{
	struct ring *q = ring_create(4);
	struct smtop_record r, batch[5], out[4];

	for (uint32_t i = 0; i < 10; i++) {
		r = named_kernel(i);
		cr_assert_eq(ring_push(q, &r), i < 4 ? 0 : -1);
	}
	cr_assert_eq(ring_take_drops(q), 6);
	cr_assert_eq(ring_take_drops(q), 0, "taking resets");
	cr_assert_eq(ring_pop(q, out, 1), 1);
	records_free_owned(&out[0]);
	for (uint32_t i = 0; i < 5; i++)
		batch[i] = named_kernel(100 + i);
	cr_assert_eq(ring_push_many(q, batch, 5), 1, "one free slot");
	cr_assert_eq(ring_take_drops(q), 4);
	cr_assert_eq(ring_pop(q, out, 4), 4);
	cr_assert_eq(out[0].u.kernel.correlation_id, 1);
	cr_assert_eq(out[3].u.kernel.correlation_id, 100);
	cr_assert_str_eq(out[3].u.kernel.name, "k100");
	for (int i = 0; i < 4; i++)
		records_free_owned(&out[i]);
	ring_destroy(q);
}

#define PRODUCERS 4
#define PER_PRODUCER 20000

struct producer_arg {
	struct ring *q;
	uint32_t id;
};

static void *producer(void *p)
{
	struct producer_arg *a = p;

	for (uint32_t i = 0; i < PER_PRODUCER; i++) {
		struct smtop_record r = { .kind = SMTOP_REC_KERNEL };

		r.u.kernel.pid = a->id;
		r.u.kernel.correlation_id = i;
		ring_push(a->q, &r);
	}
	return NULL;
}

Test(ring, many_producers_one_consumer)
{
	struct ring *q = ring_create(1000);
	struct producer_arg args[PRODUCERS];
	pthread_t t[PRODUCERS];
	int64_t last[PRODUCERS];
	uint64_t popped = 0, drops = 0;
	struct smtop_record out[256];

	for (uint32_t i = 0; i < PRODUCERS; i++) {
		args[i] = (struct producer_arg){ q, i };
		last[i] = -1;
		pthread_create(&t[i], NULL, producer, &args[i]);
	}
	for (int done = 0; !done;) {
		size_t n = ring_pop(q, out, 256);

		for (size_t i = 0; i < n; i++) {
			uint32_t p = out[i].u.kernel.pid;

			cr_assert_lt(p, PRODUCERS);
			cr_assert_gt((int64_t)out[i].u.kernel.correlation_id, last[p],
				     "each producer's records stay in order");
			last[p] = out[i].u.kernel.correlation_id;
		}
		popped += n;
		drops += ring_take_drops(q);
		if (popped + drops == (uint64_t)PRODUCERS * PER_PRODUCER)
			done = 1;
	}
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(ring_pop(q, out, 256), 0);
	cr_assert_eq(popped + drops, (uint64_t)PRODUCERS * PER_PRODUCER);
	ring_destroy(q);
}

/* ---- block ring drain ---------------------------------------------------------- */

#define CAP 8

Test(blocks, empty_ring)
{
	struct smtop_trace_slot slots[CAP] = { 0 };

	cr_assert_eq(blocks_collect(slots, CAP, 0, 0, 0, NULL), 0);
	cr_assert_eq(blocks_collect(slots, CAP, 0, 3, 0, NULL), 0, "zeroed slots are never complete");
}

Test(blocks, complete_prefix_decodes)
{
	struct smtop_trace_slot slots[CAP] = { 0 };
	struct smtop_block out[CAP];

	cupti_support_slot(slots, CAP, 0, 77, 1000, 2000, 0, 5);
	cupti_support_slot(slots, CAP, 1, 77, 1032, 2064, 1, 131);
	cupti_support_slot(slots, CAP, 2, ((uint64_t)1 << 47) + 3, 1100, 2100, 70000, 0);
	cr_assert_eq(blocks_collect(slots, CAP, 0, 3, 2, out), 3);
	cr_assert_eq(out[0].grid_id, 77);
	cr_assert_eq(out[0].start, 1000);
	cr_assert_eq(out[0].end, 2000);
	cr_assert_eq(out[0].block, 0);
	cr_assert_eq(out[0].sm, 5);
	cr_assert_eq(out[0].device_id, 2);
	cr_assert_eq(out[1].sm, 131);
	cr_assert_eq(out[2].grid_id, ((uint64_t)1 << 47) + 3, "the tag is not part of the grid id");
	cr_assert_eq(out[2].block, 70000);
}

Test(blocks, stops_at_a_half_written_slot)
{
	struct smtop_trace_slot slots[CAP] = { 0 };

	cupti_support_slot(slots, CAP, 0, 1, 10, 20, 0, 0);
	cupti_support_slot(slots, CAP, 1, 1, 10, 20, 1, 0);
	cupti_support_half_slot(slots, CAP, 2, 1, 10);
	cupti_support_slot(slots, CAP, 3, 1, 10, 20, 3, 0);
	cr_assert_eq(blocks_collect(slots, CAP, 0, 4, 0, NULL), 2);
	/* The second half alone is not enough either. */
	slots[2].grid_tag = 0;
	slots[2].end = 20;
	slots[2].tag = smtop_trace_tag(2, CAP);
	cr_assert_eq(blocks_collect(slots, CAP, 0, 4, 0, NULL), 2);
	cupti_support_slot(slots, CAP, 2, 1, 10, 20, 2, 0);
	cr_assert_eq(blocks_collect(slots, CAP, 0, 4, 0, NULL), 4);
}

Test(blocks, wrapped_ring)
{
	struct smtop_trace_slot slots[CAP] = { 0 };
	struct smtop_block out[CAP];

	/* Lap 0 filled everything; the host has read 6 of them. */
	for (uint64_t i = 0; i < CAP; i++)
		cupti_support_slot(slots, CAP, i, 1, i, i + 1, (uint32_t)i, 0);
	/* Lap 1 wrote indices 8, 9 (positions 0, 1) but not yet 10 (position 2). */
	cupti_support_slot(slots, CAP, 8, 2, 8, 9, 8, 0);
	cupti_support_slot(slots, CAP, 9, 2, 9, 10, 9, 0);
	cr_assert_eq(blocks_collect(slots, CAP, 6, 11, 0, out), 4,
		     "6 and 7 from lap 0, 8 and 9 from lap 1; 10 still holds lap 0's tag");
	cr_assert_eq(out[0].block, 6);
	cr_assert_eq(out[1].block, 7);
	cr_assert_eq(out[2].block, 8);
	cr_assert_eq(out[2].grid_id, 2);
	cr_assert_eq(out[3].block, 9);
	cupti_support_slot(slots, CAP, 10, 2, 10, 11, 10, 0);
	cr_assert_eq(blocks_collect(slots, CAP, 6, 11, 0, NULL), 5);
}

Test(blocks, many_laps_later)
{
	struct smtop_trace_slot slots[CAP] = { 0 };
	uint64_t base = (uint64_t)CAP * 70000; /* past the 65535-lap tag wrap */

	for (uint64_t i = base; i < base + CAP; i++)
		cupti_support_slot(slots, CAP, i, 9, i, i, 0, 0);
	cr_assert_eq(blocks_collect(slots, CAP, base, base + CAP, 0, NULL), CAP);
	cr_assert_eq(blocks_collect(slots, CAP, base + 1, base + CAP + 1, 0, NULL), CAP - 1,
		     "index base+CAP still holds the previous lap");
}

Test(blocks, bad_arguments)
{
	struct smtop_trace_slot slots[CAP] = { 0 };

	for (uint64_t i = 0; i < CAP; i++)
		cupti_support_slot(slots, CAP, i, 1, 0, 0, 0, 0);
	cr_assert_eq(blocks_collect(slots, 6, 0, 4, 0, NULL), 0, "capacity must be a power of two");
	cr_assert_eq(blocks_collect(slots, CAP, 5, 4, 0, NULL), 0, "head behind read");
	cr_assert_eq(blocks_collect(slots, CAP, 0, 100, 0, NULL), CAP, "never past one lap");
}

Test(blocks, timer_tick)
{
	struct smtop_block b[3] = {
		{ .start = 1764480000000000032ull, .end = 1764480000000001024ull },
		{ .start = 1764480000000000096ull, .end = 1764480000000000160ull },
		{ .start = 1764480000000002048ull, .end = 1764480000000004000ull },
	};

	cr_assert_eq(blocks_timer_tick(b, 2, 0), 32);
	cr_assert_eq(blocks_timer_tick(b, 3, 0), 32);
	cr_assert_eq(blocks_timer_tick(b, 0, 0), 0);
}

/* ---- writer thread with a real session ------------------------------------------ */

static struct db_writer *join_session(const char *path, uint32_t pid)
{
	struct db_writer_options opt = { 0 };
	struct db_writer *w = NULL;
	char err[256] = "";

	opt.path = path;
	opt.pid = pid;
	opt.ppid = 1;
	opt.command = "./workload --flag";
	opt.create = 0;
	cr_assert_eq(db_writer_open(&w, &opt, err, sizeof(err)), 0, "%s", err);
	return w;
}

static const struct db_process_info *find_process(const struct db_session_info *info, uint32_t pid)
{
	for (size_t i = 0; i < info->n_processes; i++)
		if (info->processes[i].pid == pid)
			return &info->processes[i];
	return NULL;
}

static struct smtop_record blocks_record(uint32_t pid, uint32_t n)
{
	struct smtop_record r = { .kind = SMTOP_REC_BLOCKS };

	r.u.blocks.pid = pid;
	r.u.blocks.count = n;
	r.u.blocks.blocks = calloc(n, sizeof(struct smtop_block));
	for (uint32_t i = 0; i < n; i++) {
		r.u.blocks.blocks[i].grid_id = 77;
		r.u.blocks.blocks[i].start = 1764480000000000000ull + i * 64;
		r.u.blocks.blocks[i].end = 1764480000000000000ull + i * 64 + 32000;
		r.u.blocks.blocks[i].block = i;
		r.u.blocks.blocks[i].sm = (uint16_t)(i % 132);
	}
	return r;
}

static struct smtop_record timed_kernel(uint32_t pid, uint32_t i)
{
	struct smtop_record r = named_kernel(i);

	r.u.kernel.pid = pid;
	r.u.kernel.start = 1764480000000100000ull + i * 1000;
	r.u.kernel.end = r.u.kernel.start + 500;
	r.u.kernel.grid_id = i + 1;
	r.u.kernel.stream_id = 7;
	r.u.kernel.grid[0] = r.u.kernel.grid[1] = r.u.kernel.grid[2] = 1;
	r.u.kernel.block[0] = r.u.kernel.block[1] = r.u.kernel.block[2] = 1;
	return r;
}

static void read_info(const char *path, void (*check)(const struct db_session_info *))
{
	struct db_reader *rd = NULL;
	struct db_session_info info;
	char err[256] = "";

	cr_assert_eq(db_reader_open(&rd, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(db_reader_info(rd, &info), 0, "%s", db_reader_error(rd));
	check(&info);
	db_reader_close(rd);
}

static void check_stopped_session(const struct db_session_info *info)
{
	const struct db_process_info *p = find_process(info, 4242);

	cr_assert_eq(info->kernels, 3);
	cr_assert_eq(info->blocks, 10);
	cr_assert_not_null(p);
	cr_assert_str_eq(p->status, "exited");
	cr_assert_eq(p->drops_ring, 2);
	cr_assert_eq(p->drops_cupti, 5);
	cr_assert_eq(p->drops_blocks, 6);
}

Test(writer_thread, commits_records_and_drops)
{
	char path[256];
	struct ring *q = ring_create(4);
	struct smtop_record r;
	struct writer_thread_options opt = { 0 };

	cr_assert_eq(cupti_support_session(path, sizeof(path)), 0);
	struct db_writer *w = join_session(path, 4242);
	for (uint32_t i = 0; i < 3; i++) {
		r = timed_kernel(4242, i);
		ring_push(q, &r);
	}
	r = blocks_record(4242, 10);
	ring_push(q, &r);
	for (uint32_t i = 0; i < 2; i++) {
		r = timed_kernel(4242, 100 + i);
		cr_assert_eq(ring_push(q, &r), -1, "full");
	}
	drops_add(DROPS_CUPTI, 5);
	drops_add(DROPS_BLOCKS, 6);
	opt.writer = w;
	opt.ring = q;
	opt.path = path;
	opt.period_ms = 10;
	cr_assert_eq(writer_thread_start(&opt), 0);
	cr_assert(writer_thread_running());
	writer_thread_set_meta("globaltimer_ns_per_tick", "32");
	usleep(50000);
	writer_thread_stop();
	cr_assert_not(writer_thread_running());
	cr_assert_eq(ring_count(q), 0);
	cr_assert_eq(db_writer_set_process_status(w, "exited", NULL), 0);
	db_writer_close(w);
	ring_destroy(q);
	read_info(path, check_stopped_session);

	sqlite3 *db;
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT value FROM smtop_meta WHERE key='globaltimer_ns_per_tick'",
					-1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "32");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void check_crashed_session(const struct db_session_info *info)
{
	const struct db_process_info *p = find_process(info, 4243);

	cr_assert_eq(info->kernels, 5, "everything pushed before the signal is committed");
	cr_assert_not_null(p);
	cr_assert_str_eq(p->status, "crashed");
	cr_assert_not_null(p->reason);
	cr_assert(strstr(p->reason, "SIGTERM") != NULL, "%s", p->reason);
}

Test(writer_thread, signal_commit_is_acknowledged)
{
	char path[256];
	struct ring *q = ring_create(64);
	struct writer_thread_options opt = { 0 };
	struct smtop_record r;

	cr_assert_eq(cupti_support_session(path, sizeof(path)), 0);
	struct db_writer *w = join_session(path, 4243);
	opt.writer = w;
	opt.ring = q;
	opt.path = path;
	opt.period_ms = 10000; /* only the signal wakes it */
	cr_assert_eq(writer_thread_start(&opt), 0);
	for (uint32_t i = 0; i < 5; i++) {
		r = timed_kernel(4243, i);
		ring_push(q, &r);
	}
	cr_assert_eq(writer_thread_commit_from_signal(SIGTERM), 0);
	cr_assert_eq(ring_count(q), 0);
	read_info(path, check_crashed_session);
	writer_thread_stop();
	db_writer_close(w);
	ring_destroy(q);
}

Test(writer_thread, forgotten_after_fork)
{
	cr_assert_eq(writer_thread_commit_from_signal(SIGTERM), -1, "no thread: no wait");
	writer_thread_forget();
	cr_assert_not(writer_thread_running());
}

/* ---- drain threads wait for their context's start ---- */

struct start_race {
	_Atomic int state, stop;
	int result;
};

static void *await_start(void *arg)
{
	struct start_race *r = arg;

	r->result = blocks_await_start(&r->state, &r->stop, 0, 1);
	return NULL;
}

/* state 0: starting, 1: ready, 2: failed.  The thread comes up while its
 * context still starts (blocks_start_ring creates the threads first), as a
 * fast thread did in 5 runs of 13 on the H200, leaving its SMs undrained. */
static int race(struct start_race *r, int verdict, int stop)
{
	struct timespec later = { 0, 20000000 };
	pthread_t t;

	atomic_store(&r->state, 0);
	atomic_store(&r->stop, 0);
	r->result = -1;
	cr_assert_eq(pthread_create(&t, NULL, await_start, r), 0);
	nanosleep(&later, NULL);
	cr_expect_eq(r->result, -1, "still waiting while the context starts");
	if (stop)
		atomic_store(&r->stop, 1);
	else
		atomic_store(&r->state, verdict);
	pthread_join(t, NULL);
	return r->result;
}

Test(collector, drain_thread_waits_for_its_context_to_start)
{
	struct start_race r;

	cr_expect_eq(race(&r, 1, 0), 1, "ready: it drains");
	cr_expect_eq(race(&r, 2, 0), 0, "failed: it leaves");
	cr_expect_eq(race(&r, 1, 1), 0, "stopped while starting: it leaves");
	atomic_store(&r.state, 1);
	atomic_store(&r.stop, 0);
	cr_expect_eq(blocks_await_start(&r.state, &r.stop, 0, 1), 1, "ready before it came up");
}

/* ---- the Compute Sanitizer backend's pure parts --------------------------- */

static struct launch_info launch_of(uint64_t grid_id, uint32_t ctx, int32_t gx, int32_t gy, uint64_t launched)
{
	struct launch_info i = { 0 };

	i.grid_id = grid_id;
	i.context_id = ctx;
	i.device_id = 0;
	i.stream_id = 7;
	i.grid[0] = gx;
	i.grid[1] = gy;
	i.grid[2] = 1;
	i.block[0] = 128;
	i.block[1] = i.block[2] = 1;
	i.launched = launched;
	i.name = "_Z6kernelv";
	return i;
}

static struct smtop_block block_of(uint64_t grid_id, uint32_t b, uint64_t start, uint64_t end)
{
	struct smtop_block x = { .grid_id = grid_id, .block = b, .start = start, .end = end, .sm = (uint16_t)(b % 132) };

	return x;
}

static void free_records(struct smtop_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		records_free_owned(&r[i]);
}

Test(launches, a_kernel_is_complete_when_its_last_block_comes)
{
	struct launches *l = launches_create(42);
	struct launch_info i = launch_of(5, 1, 3, 2, 1000);
	struct smtop_block b[6];
	struct smtop_record out[4];

	cr_assert_eq(launches_add(l, 0, &i), 0);
	for (uint32_t k = 0; k < 6; k++)
		b[k] = block_of(5, k, 5000 + 10 * k, 9000 - 100 * k);
	cr_assert_eq(launches_note_blocks(l, 0, 1, b, 5, out, 4), 0, "5 of 6 blocks: not yet");
	cr_assert_eq(launches_pending(l), 1);
	cr_assert_eq(launches_note_blocks(l, 0, 1, b + 5, 1, out, 4), 1);
	struct smtop_kernel *k = &out[0].u.kernel;
	cr_assert_eq(out[0].kind, SMTOP_REC_KERNEL);
	cr_assert_eq(k->pid, 42);
	cr_assert_eq(k->grid_id, 5);
	cr_assert_eq(k->start, 5000, "the first block's start");
	cr_assert_eq(k->end, 9000, "the last block's end, not the last block to come");
	cr_assert_eq(k->grid[0], 3);
	cr_assert_eq(k->grid[1], 2);
	cr_assert_eq(k->stream_id, 7);
	cr_assert_str_eq(k->name, "_Z6kernelv");
	cr_assert_eq(k->submitted, 5000, "the only kernel sets the clock bound: it waited 0");
	cr_assert_eq(launches_pending(l), 0);
	free_records(out, 1);
	launches_destroy(l);
}

/* The host's launch time is on another clock: submitted = launched + the
 * least (first block - launch) seen, so no wait is ever made longer. */
static void fill_registers(struct launch_info *info)
{
	info->registers = 103;
	info->static_smem = 4096;
}

/* A function's first launch goes out before the driver was asked about it:
 * its record takes the attributes when it leaves, not as it came. */
Test(launches, attributes_unknown_at_the_launch_are_asked_at_the_record)
{
	struct launches *l = launches_create(42);
	struct launch_info i = launch_of(5, 1, 1, 1, 1000), known = launch_of(6, 1, 1, 1, 1000);
	struct smtop_block b = block_of(5, 0, 5000, 9000), c = block_of(6, 0, 5000, 9000);
	struct smtop_record out[2];

	i.function = known.function = (const void *)0x1234;
	known.registers = 26;
	launches_set_fill(l, fill_registers);
	cr_assert_eq(launches_add(l, 0, &i), 0);
	cr_assert_eq(launches_add(l, 0, &known), 0);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &b, 1, out, 1), 1);
	cr_expect_eq(out[0].u.kernel.registers, 103);
	cr_expect_eq(out[0].u.kernel.static_smem, 4096);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &c, 1, out + 1, 1), 1);
	cr_expect_eq(out[1].u.kernel.registers, 26, "known at the launch: kept");
	free_records(out, 2);
	launches_destroy(l);
}

static int fill_asked;

/* fill as the host thread answers it: not known the first time asked. */
static void fill_later(struct launch_info *info)
{
	if (fill_asked++)
		fill_registers(info);
}

/* A function launched once whose blocks all came before the host thread
 * asked the driver: its complete kernel is held (its grid id free for the
 * next launch) and goes out from the next sweep with the attributes. */
Test(launches, a_complete_kernel_waits_for_its_attributes)
{
	struct launches *l = launches_create(42);
	struct launch_info i = launch_of(5, 1, 1, 1, 1000), again = launch_of(5, 1, 1, 1, 2000);
	struct smtop_block b = block_of(5, 0, 5000, 9000), c = block_of(5, 0, 15000, 19000);
	struct smtop_record out[2];

	i.function = (const void *)0x1234;
	again.registers = 26;
	fill_asked = 0;
	launches_set_fill(l, fill_later);
	cr_assert_eq(launches_add(l, 0, &i), 0);
	cr_assert_eq(launches_add(l, 0, &again), 0);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &b, 1, out, 2), 0, "held: attributes unknown");
	cr_assert_eq(launches_note_blocks(l, 10, 1, &c, 1, out, 2), 1, "the replay's block is its own");
	cr_expect_eq(out[0].u.kernel.start, 15000);
	cr_expect_eq(out[0].u.kernel.registers, 26);
	free_records(out, 1);
	cr_assert_eq(launches_pending(l), 1);
	cr_assert_eq(launches_take_stale(l, 20, 2000000000ull, out, 2), 1, "known at the sweep");
	cr_expect_eq(out[0].u.kernel.start, 5000);
	cr_expect_eq(out[0].u.kernel.registers, 103);
	free_records(out, 1);
	cr_assert_eq(launches_pending(l), 0);
	launches_destroy(l);
}

Test(launches, submission_is_mapped_by_the_least_lag)
{
	struct launches *l = launches_create(1);
	struct launch_info a = launch_of(1, 1, 1, 1, 100), b = launch_of(2, 1, 1, 1, 200);
	struct smtop_block x = block_of(1, 0, 1100, 1200), y = block_of(2, 0, 1150, 1300);
	struct smtop_record out[2];

	launches_add(l, 0, &a);
	launches_add(l, 0, &b);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &x, 1, out, 2), 1);
	cr_assert_eq(out[0].u.kernel.submitted, 1100);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &y, 1, out + 1, 1), 1);
	/* lag of b is 950 < 1000: the bound tightens to 950 */
	cr_assert_eq(launches_clock_bound(l, 0), 950);
	cr_assert_eq(out[1].u.kernel.submitted, 200 + 950);
	cr_assert(out[1].u.kernel.submitted <= out[1].u.kernel.start);
	free_records(out, 2);
	launches_destroy(l);
}

/* A graph replayed launches its kernel nodes with the same grid id: the
 * blocks fill the oldest launch first, and each replay gets its grid. */
Test(launches, replays_of_one_grid_id_fill_in_order)
{
	struct launches *l = launches_create(1);
	struct smtop_block b[8];
	struct smtop_record out[4];
	size_t n;

	for (int r = 0; r < 3; r++) {
		struct launch_info i = launch_of(9, 1, 2, 1, 10 + r);
		cr_assert_eq(launches_add(l, 0, &i), 0);
	}
	for (uint32_t k = 0; k < 5; k++)
		b[k] = block_of(9, k % 2, 100 + 100 * k, 150 + 100 * k);
	n = launches_note_blocks(l, 0, 1, b, 5, out, 4);
	cr_assert_eq(n, 2, "5 blocks: two replays of 2 blocks complete");
	cr_assert_eq(launches_pending(l), 1);
	cr_assert_eq(launches_orphans(l), 0);
	free_records(out, n);
	launches_destroy(l);
}

Test(launches, contexts_keep_their_grid_ids_apart)
{
	struct launches *l = launches_create(1);
	struct launch_info a = launch_of(3, 1, 1, 1, 0), b = launch_of(3, 2, 1, 1, 0);
	struct smtop_block x = block_of(3, 0, 10, 20);
	struct smtop_record out[2];

	launches_add(l, 0, &a);
	launches_add(l, 0, &b);
	cr_assert_eq(launches_note_blocks(l, 0, 2, &x, 1, out, 2), 1);
	cr_assert_eq(out[0].u.kernel.context_id, 2);
	cr_assert_eq(launches_pending(l), 1);
	cr_assert_eq(launches_note_blocks(l, 0, 3, &x, 1, out + 1, 1), 0, "context 3 launched nothing");
	cr_assert_eq(launches_orphans(l), 1);
	free_records(out, 1);
	launches_destroy(l);
}

/* Kernels short of blocks (dropped in a full lane, or the process ends)
 * go out after they were idle long enough, with what came of them. */
Test(launches, stale_kernels_go_out_with_what_came)
{
	struct launches *l = launches_create(1);
	struct launch_info a = launch_of(1, 1, 4, 1, 0), b = launch_of(2, 1, 4, 1, 0);
	struct smtop_block x = block_of(1, 0, 500, 700);
	struct smtop_record out[4];

	launches_add(l, 1000, &a);
	launches_add(l, 1000, &b);
	launches_note_blocks(l, 5000, 1, &x, 1, out, 4);
	cr_assert_eq(launches_take_stale(l, 5500, 1000, out, 4), 1, "only b has been idle past 1000 ns");
	cr_assert_eq(out[0].u.kernel.grid_id, 2);
	cr_assert_eq(out[0].u.kernel.start, 0, "no block came: unknown, not 0 ns long");
	records_free_owned(&out[0]);
	cr_assert_eq(launches_take_stale(l, 5500, 0, out, 4), 1, "idle 0: every one");
	cr_assert_eq(out[0].u.kernel.start, 500);
	cr_assert_eq(out[0].u.kernel.end, 700);
	records_free_owned(&out[0]);
	cr_assert_eq(launches_pending(l), 0);
	launches_destroy(l);
}

/* Many launches in flight (PyTorch queues thousands) and removals in any
 * order keep every probe chain whole. */
Test(launches, thousands_in_flight_complete_in_any_order)
{
	enum { N = 5000 };
	struct launches *l = launches_create(1);
	struct smtop_record out[1];
	size_t done = 0;

	for (uint64_t g = 1; g <= N; g++) {
		struct launch_info i = launch_of(g, 1, 1, 1, 0);
		cr_assert_eq(launches_add(l, 0, &i), 0);
	}
	for (uint64_t k = 0; k < N; k++) {
		uint64_t g = 1 + (k * 7919) % N; /* a permutation of 1..N */
		struct smtop_block x = block_of(g, 0, 10 * g, 10 * g + 5);
		size_t n = launches_note_blocks(l, 0, 1, &x, 1, out, 1);
		cr_assert_eq(n, 1, "grid %llu", (unsigned long long)g);
		cr_assert_eq(out[0].u.kernel.grid_id, g);
		done += n;
		records_free_owned(&out[0]);
	}
	cr_assert_eq(done, N);
	cr_assert_eq(launches_pending(l), 0);
	cr_assert_eq(launches_orphans(l), 0);
	launches_destroy(l);
}

#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, launch_data_becomes_a_launch)
{
	Sanitizer_LaunchData ld;
	struct launch_info i;

	memset(&ld, 0, sizeof(ld));
	ld.functionName = "_Z3addPfS_";
	ld.gridDim_x = 7;
	ld.gridDim_y = 5;
	ld.gridDim_z = 3;
	ld.blockDim_x = 8;
	ld.blockDim_y = 8;
	ld.blockDim_z = 2;
	ld.gridId = 0x1234567890ull;
	ld.device = 1;
	sanitizer_launch_info(&ld, 4, 9, 777, 0, &i);
	cr_assert_eq(i.grid_id, 0x1234567890ull);
	cr_assert_eq(i.context_id, 4);
	cr_assert_eq(i.stream_id, 9);
	cr_assert_eq(i.device_id, 1);
	cr_assert_eq(i.grid[0] * i.grid[1] * i.grid[2], 105);
	cr_assert_eq(i.block[0] * i.block[1] * i.block[2], 128);
	cr_assert_eq(i.launched, 777);
	cr_assert_eq(i.is_graph, 0);
	cr_assert_str_eq(i.name, "_Z3addPfS_");
}
#endif

#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, only_kernel_nodes_of_a_graph_are_launches)
{
	Sanitizer_GraphNodeLaunchData g;

	memset(&g, 0, sizeof(g));
	g.nodeType = CU_GRAPH_NODE_TYPE_KERNEL;
	g.launchData.gridId = 77;
	cr_assert_eq(sanitizer_graph_node_launch(&g), &g.launchData);
	cr_assert_eq(sanitizer_graph_node_launch(&g)->gridId, 77);
	g.nodeType = CU_GRAPH_NODE_TYPE_MEMCPY;
	cr_assert_null(sanitizer_graph_node_launch(&g));
	g.nodeType = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	cr_assert_null(sanitizer_graph_node_launch(&g));
	cr_assert_null(sanitizer_graph_node_launch(NULL));
}
#endif

/* The launch calls' dynamic shared memory, which the launch callback lacks:
 * cuLaunchKernel's own field, cuLaunchKernelEx's config's. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, launch_calls_give_the_dynamic_shared_memory)
{
	CUfunction f = (CUfunction)(uintptr_t)0x1234;
	cuLaunchKernel_params plain = { .f = f, .gridDimX = 4, .gridDimY = 2, .gridDimZ = 1, .blockDimX = 128,
					.blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 49152 };
	CUlaunchConfig cfg = { .gridDimX = 8, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 256, .blockDimY = 1,
			       .blockDimZ = 1, .sharedMemBytes = 8192 };
	cuLaunchKernelEx_params ex = { .config = &cfg, .f = f };
	cuLaunchCooperativeKernel_params coop = { .f = f, .sharedMemBytes = 1024 };
	struct sanitizer_launch_shape shape;
	Sanitizer_LaunchData ld = { .gridDim_x = 4, .gridDim_y = 2, .gridDim_z = 1, .blockDim_x = 128,
				    .blockDim_y = 1, .blockDim_z = 1 };

	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &plain, &shape), 49152);
	cr_assert(sanitizer_launch_has_shape(&ld, &shape), "the launch callback is known by its shape");
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz, &plain, &shape),
		     49152);
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, &ex, &shape), 8192);
	cr_assert_eq(shape.grid[0], 8);
	cr_assert_eq(shape.block[0], 256);
	cr_assert_not(sanitizer_launch_has_shape(&ld, &shape), "another shape: another launch");
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel, &coop,
						   &shape), 1024);
	ex.config = NULL;
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, &ex, &shape), -1);
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuMemAlloc_v2, &plain, &shape), -1);
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, NULL, &shape), -1);
	size_t n = 0;
	while (sanitizer_launch_calls[n])
		n++;
	cr_assert_eq(n, 8, "every launch form, plain and per-thread stream, graph launches too (the patch gate)");
	cr_assert_eq(sanitizer_launch_dynamic_smem(SANITIZER_CBID_DRIVER_API_cuGraphLaunch, &plain, &shape), -1,
		     "a graph launch has no shape of its own");
}
#endif

/* The stream a launch call names, which says whether the call's thread is
 * asked which green context is current (a special handle's stream is that
 * green context's default stream). */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, launch_calls_name_their_stream)
{
	CUstream made = (CUstream)(uintptr_t)0x7000;
	cuLaunchKernel_params plain = { .hStream = made };
	CUlaunchConfig cfg = { .hStream = CU_STREAM_LEGACY };
	cuLaunchKernelEx_params ex = { .config = &cfg };
	cuLaunchCooperativeKernel_params coop = { .hStream = NULL };
	cuGraphLaunch_params graph = { .hStream = CU_STREAM_PER_THREAD };
	CUstream s;

	cr_assert(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &plain, &s));
	cr_assert_eq(s, made);
	cr_assert(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz, &plain, &s));
	cr_assert_eq(s, made);
	cr_assert(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, &ex, &s));
	cr_assert_eq(s, CU_STREAM_LEGACY);
	cr_assert(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel, &coop, &s));
	cr_assert_null(s, "the NULL stream is a stream too");
	cr_assert(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuGraphLaunch, &graph, &s));
	cr_assert_eq(s, CU_STREAM_PER_THREAD);
	ex.config = NULL;
	cr_assert_not(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, &ex, &s));
	cr_assert_not(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuMemAlloc_v2, &plain, &s));
	cr_assert_not(sanitizer_launch_stream(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, NULL, &s));
}
#endif

/* A graph node is its handle and its executable graph's number: a handle
 * reused by a later graph is another node. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, graph_nodes_of_two_graphs_stay_apart)
{
	const void *node = (const void *)(uintptr_t)0x562605daeeb8ull;
	uint64_t a = sanitizer_graph_node_id(1, node), b = sanitizer_graph_node_id(2, node);

	cr_assert_neq(a, b);
	cr_assert_eq(a & ((1ull << 47) - 1), 0x562605daeeb8ull);
	cr_assert_eq(a >> 47, 1);
	cr_assert_eq(sanitizer_graph_node_id(1, NULL), 0);
}
#endif

/* Under --sm entry with the header's marks (the default), a launch call's
 * function is asked at its entry whether its module times its own blocks:
 * every launch form names it, and no other call does. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, launch_calls_name_their_function)
{
	CUfunction f = (CUfunction)(uintptr_t)0x1234, g = (CUfunction)(uintptr_t)0x5678;
	cuLaunchKernel_params plain = { .f = f };
	cuLaunchKernelEx_params ex = { .f = g };
	cuLaunchCooperativeKernel_params coop = { .f = g };
	cuGraphLaunch_params graph = { 0 };

	cr_assert_eq(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &plain), f);
	cr_assert_eq(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz, &plain), f);
	cr_assert_eq(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, &ex), g);
	cr_assert_eq(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz, &ex), g);
	cr_assert_eq(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel, &coop), g);
	cr_assert_null(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuGraphLaunch, &graph),
		       "a graph's kernels are asked by their module at their node's launch");
	cr_assert_null(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuMemAlloc_v2, &plain));
	cr_assert_null(sanitizer_launch_function(SANITIZER_CBID_DRIVER_API_cuLaunchKernel, NULL));
}
#endif

/* Under --sm entry with the header's marks, a launch call's context gets a
 * ring only once a launch of its own named it: a green context, whose
 * launches name the primary, never does, and one seen both ways stays
 * "other". */
Test(collector, launch_ctx_hands_rings_only_to_a_launchs_own_context)
{
	static struct launch_ctx_table t;
	const void *primary = (const void *)(uintptr_t)0x1000, *green = (const void *)(uintptr_t)0x2000,
		   *mixed = (const void *)(uintptr_t)0x3000;

	cr_assert_eq(launch_ctx_kind(&t, primary), LAUNCH_CTX_UNKNOWN, "no launch seen: no ring yet");
	launch_ctx_note(&t, primary, primary);
	launch_ctx_note(&t, green, primary);
	cr_assert_eq(launch_ctx_kind(&t, primary), LAUNCH_CTX_SAME);
	cr_assert_eq(launch_ctx_kind(&t, green), LAUNCH_CTX_OTHER);
	launch_ctx_note(&t, green, green);
	cr_assert_eq(launch_ctx_kind(&t, green), LAUNCH_CTX_OTHER, "other stays other");
	launch_ctx_note(&t, mixed, mixed);
	launch_ctx_note(&t, mixed, primary);
	cr_assert_eq(launch_ctx_kind(&t, mixed), LAUNCH_CTX_OTHER, "same, then other: other");
	launch_ctx_note(&t, NULL, primary);
	cr_assert_eq(launch_ctx_kind(&t, NULL), LAUNCH_CTX_UNKNOWN, "a launch outside a call notes nothing");
	for (uintptr_t i = 0; i < LAUNCH_CTX_MAX; i++)
		launch_ctx_note(&t, (const void *)((i + 16) << 12), (const void *)((i + 16) << 12));
	cr_assert_eq(launch_ctx_kind(&t, (const void *)(uintptr_t)((LAUNCH_CTX_MAX + 15) << 12)),
		     LAUNCH_CTX_UNKNOWN, "a full table leaves later contexts unknown");
	cr_assert_eq(launch_ctx_kind(&t, primary), LAUNCH_CTX_SAME, "and keeps the first ones");
}

struct launch_ctx_racer {
	struct launch_ctx_table *t;
	uintptr_t first;
};

static void *launch_ctx_race(void *arg)
{
	struct launch_ctx_racer *r = arg;

	for (uintptr_t round = 0; round < 200; round++)
		for (uintptr_t c = 1; c <= 8; c++)
			launch_ctx_note(r->t, (const void *)(c << 12), (const void *)((c + r->first * (c == 8)) << 12));
	return NULL;
}

/* Launch callbacks of many threads note at once: each context takes one
 * slot, and a context that some thread saw launch elsewhere ends "other". */
Test(collector, launch_ctx_notes_from_many_threads_take_one_slot_each)
{
	static struct launch_ctx_table t;
	struct launch_ctx_racer r[4];
	pthread_t th[4];
	int slots = 0;

	for (int i = 0; i < 4; i++) {
		r[i] = (struct launch_ctx_racer){ &t, (uintptr_t)(i == 3) };
		cr_assert_eq(pthread_create(&th[i], NULL, launch_ctx_race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < LAUNCH_CTX_MAX; i++)
		slots += atomic_load(&t.call[i]) != NULL;
	cr_assert_eq(slots, 8);
	for (uintptr_t c = 1; c < 8; c++)
		cr_assert_eq(launch_ctx_kind(&t, (const void *)(c << 12)), LAUNCH_CTX_SAME);
	cr_assert_eq(launch_ctx_kind(&t, (const void *)(8 << 12)), LAUNCH_CTX_OTHER);
}

/* ptrmap_get reads without claiming: a launch callback asks whether a
 * module holds the block ring and never adds it. */
Test(collector, ptrmap_get_reads_without_adding)
{
	static struct ptrmap m;
	const void *mod = (const void *)(uintptr_t)0x4000, *other = (const void *)(uintptr_t)0x8000;
	uint32_t v = 9;

	cr_assert_not(ptrmap_get(&m, mod, &v));
	cr_assert_eq(v, 9, "a miss leaves *v alone");
	cr_assert_eq(m.keys.map.n, 0, "and adds nothing");
	ptrmap_put(&m, mod, 1);
	ptrmap_put(&m, other, 0);
	cr_assert(ptrmap_get(&m, mod, &v));
	cr_assert_eq(v, 1);
	cr_assert(ptrmap_get(&m, other, &v));
	cr_assert_eq(v, 0, "a module seen without the ring is held as 0, not as missing");
	ptrmap_clear(&m);
	cr_assert_not(ptrmap_get(&m, mod, &v));
	u64map_free(&m.keys.map);
}

/* Graph kernel nodes' dynamic shared memory is kept by node id for their
 * replays; a full map starts over (the driver is asked again), and
 * never answers for a node it does not hold.  ptrmap_add both claims a new
 * node (1) and reads a held node's value (0, *v). */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, graph_node_smem_map_keeps_each_nodes_value)
{
	static struct ptrmap m;
	uint32_t v = 7;
	uint64_t a = sanitizer_graph_node_id(1, (const void *)(uintptr_t)0x1000),
		 b = sanitizer_graph_node_id(2, (const void *)(uintptr_t)0x1000);
	const void *ka = (const void *)(uintptr_t)a, *kb = (const void *)(uintptr_t)b;

	cr_assert(ptrmap_add(&m, ka, &v), "a node not held yet is new");
	cr_assert_eq(v, 7);
	ptrmap_put(&m, ka, 4096);
	ptrmap_put(&m, kb, 0);
	cr_assert_not(ptrmap_add(&m, ka, &v));
	cr_assert_eq(v, 4096);
	cr_assert_not(ptrmap_add(&m, kb, &v));
	cr_assert_eq(v, 0, "a node of another graph keeps its own value");
	ptrmap_put(&m, ka, 512);
	cr_assert_not(ptrmap_add(&m, ka, &v));
	cr_assert_eq(v, 512, "a value put again replaces the first");
	cr_assert_eq(m.keys.map.n, 2);
	for (uintptr_t i = 1; i <= PTRSET_MAX; i++)
		ptrmap_put(&m, (const void *)(i << 4), (uint32_t)i);
	v = 77;
	cr_assert(ptrmap_add(&m, ka, &v), "started over when full");
	cr_assert_eq(v, 77);
	cr_assert_not(ptrmap_add(&m, (const void *)((uintptr_t)(PTRSET_MAX) << 4), &v));
	cr_assert_eq(v, PTRSET_MAX);
	v = 5;
	cr_assert_not(ptrmap_add(&m, ka, &v));
	cr_assert_eq(v, 77, "a node already there gives its value, not the new one");
}
#endif

/* The launch hook's functions and modules: a pointer is new once, NULL
 * every time (never kept), and a set of PTRSET_MAX starts over. */
Test(collector, ptrset_takes_each_pointer_once_and_starts_over_when_full)
{
	static struct ptrset s;
	int x = 0, y = 0;

	cr_assert(ptrset_add(&s, &x));
	cr_assert_not(ptrset_add(&s, &x));
	cr_assert(ptrset_add(&s, &y));
	cr_assert(ptrset_add(&s, NULL));
	cr_assert(ptrset_add(&s, NULL), "NULL is never kept");
	for (uintptr_t i = 1; s.map.n < PTRSET_MAX - 1; i++)
		ptrset_add(&s, (const void *)(i << 4));
	cr_assert_not(ptrset_add(&s, &x), "held while the set has room");
	cr_assert(ptrset_add(&s, (const void *)(uintptr_t)8));
	cr_assert_eq(s.map.n, PTRSET_MAX);
	cr_assert(ptrset_add(&s, &x), "the full set started over");
	cr_assert_not(ptrset_add(&s, &x));
	ptrset_clear(&s);
	cr_assert(ptrset_add(&s, &y));
	ptrset_clear(&s);
}

/* A graph launch call becomes the API record CUPTI would give, with its
 * stream; 13.0 moved the graph launch callbacks by two. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, a_graph_launch_call_is_an_api_record_with_its_stream)
{
	struct smtop_record r;

	sanitizer_graph_launch_call(42, 43, 7, 1000, 2000, 5, &r);
	cr_assert_eq(r.kind, SMTOP_REC_API);
	cr_assert_str_eq(r.u.api.name, "cudaGraphLaunch");
	cr_assert_eq(r.u.api.correlation_id, 7);
	cr_assert_eq(r.u.api.end, 2000);
	cr_assert_eq(r.u.api.stream_id, 5);
	cr_assert_eq(r.u.api.has_stream, 1);
	records_free_owned(&r);
	cr_assert_eq(sanitizer_numbering_of(13)->graph_launch_begin, 6);
	cr_assert_eq(sanitizer_numbering_of(13)->graph_launch_end, 7);
	cr_assert_eq(sanitizer_numbering_of(11)->graph_launch_begin, SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN);
}
#endif

/* The calls that load code wait at the patch switch's gate: the module
 * calls in both numberings, the library calls (CUDA 12 on) in 13's alone;
 * a launch or synchronize call is none of them. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, the_calls_that_load_code_are_known_by_numbering)
{
	const struct sanitizer_numbering *n13 = sanitizer_numbering_of(13), *n11 = sanitizer_numbering_of(11);

	cr_expect(sanitizer_is_load_call(n13, SANITIZER_CBID_DRIVER_API_cuModuleLoadData));
	cr_expect(sanitizer_is_load_call(n11, SANITIZER_CBID_DRIVER_API_cuModuleLoadDataEx));
	cr_expect(sanitizer_is_load_call(n13, SANITIZER_CBID_DRIVER_API_cuModuleGetFunction));
	cr_expect(sanitizer_is_load_call(n13, 678), "cuLibraryLoadData");
	cr_expect(sanitizer_is_load_call(n13, 681), "cuLibraryGetKernel");
	cr_expect_not(sanitizer_is_load_call(n11, 678), "11.8 has no library calls");
	cr_expect_not(sanitizer_is_load_call(n13, SANITIZER_CBID_DRIVER_API_cuLaunchKernel));
	cr_expect_not(sanitizer_is_load_call(n13, SANITIZER_CBID_DRIVER_API_cuStreamSynchronize));
	cr_expect_not(sanitizer_is_load_call(n13, 0));
}
#endif

/* SMTOP_CALLBACKS=handled enables, domain by domain, the callbacks smtop
 * reads and no other: a launch's begin alone of its three. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, the_handled_callbacks_are_those_smtop_reads)
{
	const struct sanitizer_numbering *n13 = sanitizer_numbering_of(13), *n11 = sanitizer_numbering_of(11);
	Sanitizer_CallbackId ids[SANITIZER_HANDLED_MAX];
	size_t k;

	k = sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_LAUNCH, ids);
	cr_assert_eq(k, 1);
	cr_expect_eq(ids[0], n13->launch_begin);
	k = sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_RESOURCE, ids);
	cr_expect_eq(k, 6, "contexts made, streams made and destroyed, modules loaded and unloaded, lazy patches");
	k = sanitizer_handled_ids(n11, SANITIZER_CB_DOMAIN_RESOURCE, ids);
	cr_expect_eq(k, 5, "11.8 has no lazy patch callback");
	k = sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_GRAPHS, ids);
	cr_expect_eq(k, 4);
	k = sanitizer_handled_ids(n11, SANITIZER_CB_DOMAIN_GRAPHS, ids);
	cr_expect_eq(k, 3, "11.8 has no graph exec destroying callback");
	for (size_t i = 0; i < k; i++)
		cr_expect_neq(ids[i], 0);
	k = sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_EVENTS, ids);
	cr_expect(k == 2 && ids[0] == n13->event_record && ids[1] == n13->event_stream_wait);
	cr_expect_eq(sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_MEMCPY, ids), 1);
	cr_expect_eq(sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_MEMSET, ids), 1);
	cr_expect_eq(sanitizer_handled_ids(n13, SANITIZER_CB_DOMAIN_DRIVER_API, ids), 0,
		     "the driver's calls are enabled call by call");
}
#endif

/* A launch's dynamic shared memory and graph node reach its record. */
Test(launches, dynamic_smem_and_graph_node_reach_the_record)
{
	struct launches *l = launches_create(42);
	struct launch_info i = launch_of(5, 1, 1, 1, 1000);
	struct smtop_block b = block_of(5, 0, 5000, 9000);
	struct smtop_record out[1];

	i.dynamic_smem = 49152;
	i.is_graph = 1;
	i.graph_node_id = 0x7f00aa00;
	cr_assert_eq(launches_add(l, 0, &i), 0);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &b, 1, out, 1), 1);
	cr_assert_eq(out[0].u.kernel.dynamic_smem, 49152);
	cr_assert_eq(out[0].u.kernel.graph_node_id, 0x7f00aa00);
	cr_assert_eq(out[0].u.kernel.is_graph, 1);
	free_records(out, 1);
	launches_destroy(l);
}

/* A graph's edges as records: one per edge, one for each node without a
 * dependency; a node the driver gave no id takes no part, and a node that
 * depends on it gets no row at all (its edges unknown, not fewer). */
Test(graphs, edges_and_roots_become_records)
{
	/* M -> A -> B, A -> C -> E, B -> E, X -> E; X (node 5) has no id */
	uint64_t ids[] = { 10, 11, 12, 13, 14, 0 };
	int32_t types[] = { 2, 0, 0, 0, 0, 5 };
	size_t from[] = { 0, 1, 1, 3, 2, 5 }, to[] = { 1, 2, 3, 4, 4, 4 };
	struct smtop_record out[12];
	size_t n = graphs_deps(9, ids, types, 6, from, to, 6, out);

	cr_assert_eq(n, 4, "the 3 edges into A, B and C, and the root M");
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(out[i].kind, SMTOP_REC_GRAPH_DEP);
		cr_assert_eq(out[i].u.graph_dep.pid, 9);
		cr_assert_neq(out[i].u.graph_dep.node_id, 14, "E depends on a node without an id");
	}
	cr_assert_eq(out[0].u.graph_dep.node_id, 11);
	cr_assert_eq(out[0].u.graph_dep.depends_on, 10);
	cr_assert_eq(out[0].u.graph_dep.dep_type, 2);
	cr_assert_eq(out[0].u.graph_dep.node_type, 0);
	cr_assert_eq(out[2].u.graph_dep.node_id, 13);
	cr_assert_eq(out[2].u.graph_dep.depends_on, 11);
	const struct smtop_graph_dep *root = &out[3].u.graph_dep;
	cr_assert_eq(root->node_id, 10);
	cr_assert_eq(root->depends_on, 0);
	cr_assert_eq(root->dep_type, -1);
	cr_assert_eq(root->node_type, 2);

	/* with X named, E's three edges are all there */
	ids[5] = 15;
	n = graphs_deps(9, ids, types, 6, from, to, 6, out);
	cr_assert_eq(n, 8, "6 edges, the roots M and X");
	cr_assert_eq(out[4].u.graph_dep.node_id, 14);
	cr_assert_eq(out[4].u.graph_dep.depends_on, 12);
	cr_assert_eq(out[5].u.graph_dep.depends_on, 15);
}

/* Instantiation clones the nodes: CUPTI's records carry the clones' ids,
 * so the edges are given in each graph the nodes were cloned into, through
 * a clone of a clone too. */
Test(graphs, node_ids_map_through_clones)
{
	uint32_t t[8];

	graphs_forget_clones();
	graphs_note_clone(10, 110, 2);
	graphs_note_clone(11, 111, 2);
	graphs_note_clone(111, 311, 3);
	graphs_note_clone(10, 210, 3);
	cr_assert_eq(graphs_id_in(10, 2), 110);
	cr_assert_eq(graphs_id_in(10, 3), 210);
	cr_assert_eq(graphs_id_in(11, 3), 311, "a clone of its clone");
	cr_assert_eq(graphs_id_in(12, 2), 0, "not cloned there");
	cr_assert_eq(graphs_id_in(12, 0), 12, "its own graph");
	cr_assert_eq(graphs_targets(t, 8), 2);
	cr_assert(t[0] + t[1] == 5);
	graphs_note_clone(12, 12, 2);
	cr_assert_eq(graphs_id_in(12, 2), 0, "a node is not its own clone");
	graphs_forget_clones();
	cr_assert_eq(graphs_id_in(10, 2), 0, "forgotten after graphs_forget_clones");
	cr_assert_eq(graphs_targets(t, 8), 0);
}

/* The callback numbers of CUDA 13.0 differ from the 11.8 headers': the
 * module callbacks moved by one (STREAM_DESTROY_FINISHED came before them),
 * the graph node launch by two.  CUDA 12 is not known. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, numbering_by_release)
{
	const struct sanitizer_numbering *old = sanitizer_numbering_of(11), *now = sanitizer_numbering_of(13);

	cr_assert_not_null(old);
	cr_assert_not_null(now);
	cr_assert_eq(old->module_loaded, SANITIZER_CBID_RESOURCE_MODULE_LOADED);
	cr_assert_eq(now->module_loaded, 9);
	cr_assert_eq(now->module_unloading, 10);
	cr_assert_eq(now->graph_node_launch_begin, 4);
	cr_assert_eq(now->graphexec_destroying, 3, "13.0's GRAPHEXEC_DESTROYING");
	cr_assert_eq(old->graphexec_destroying, 0, "11.8 has none");
	cr_assert_eq(now->context_created, old->context_created);
	cr_assert_eq(now->launch_begin, old->launch_begin);
	cr_assert_null(sanitizer_numbering_of(12));
	cr_assert_null(sanitizer_numbering_of(0));
}
#endif

#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, toolkit_version_from_its_files)
{
	cr_assert_eq(sanitizer_major_of_path("/usr/local/cuda-13.0/compute-sanitizer/libsanitizer-public.so"), 13);
	cr_assert_eq(sanitizer_major_of_path("/opt/cuda-11.8/compute-sanitizer/libsanitizer-public.so"), 11);
	cr_assert_eq(sanitizer_major_of_path("/usr/local/cuda/compute-sanitizer/libsanitizer-public.so"), 0);
	cr_assert_eq(sanitizer_major_of_path(NULL), 0);
	cr_assert_eq(sanitizer_major_of_version_json(
			     "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"13.0.2\"\n   },\n"
			     "   \"cuda_cccl\" : {\"version\" : \"3.0.1\"}}"), 13);
	cr_assert_eq(sanitizer_major_of_version_json("{\"cuda_cccl\" : {\"version\" : \"3.0.1\"}}"), 0);
	cr_assert_eq(sanitizer_major_of_version_json(""), 0);
}
#endif

#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, event_callbacks_become_the_records_cupti_gives)
{
	Sanitizer_EventData d = { .event = (CUevent)(uintptr_t)0x7f3a00012340ull,
				  .context = (CUcontext)(uintptr_t)0x10, .stream = (CUstream)(uintptr_t)0x20 };
	Sanitizer_EventData other = d;
	struct smtop_record r, w;

	other.event = (CUevent)(uintptr_t)0x7f3a00012350ull;
	sanitizer_event_record(&d, 77, 0, 1, 14, 41, &r);
	cr_assert_eq(r.kind, SMTOP_REC_CUDA_EVENT);
	cr_assert_eq(r.u.cuda_event.pid, 77);
	cr_assert_eq(r.u.cuda_event.stream_id, 14);
	cr_assert_eq(r.u.cuda_event.correlation_id, 41);
	cr_assert_eq(r.u.cuda_event.device_ts, 0, "the sanitizer gives no GPU time");
	cr_assert_eq(r.u.cuda_event.sync_id, SMTOP_SYNC_NONE);
	sanitizer_stream_wait(&d, 77, 1, 13, 42, 5000, &w);
	cr_assert_eq(w.kind, SMTOP_REC_SYNC);
	cr_assert_eq(w.u.sync.type, ANALYSIS_SYNC_STREAM_WAIT_EVENT);
	cr_assert_eq(w.u.sync.stream_id, 13);
	cr_assert_eq(w.u.sync.end, 5000);
	cr_assert_eq(w.u.sync.event_id, r.u.cuda_event.event_id, "the wait finds its record");
	cr_assert_neq(sanitizer_event_id(other.event), r.u.cuda_event.event_id);
	cr_assert_neq(sanitizer_event_id((void *)(uintptr_t)(0xffffffffull << 4)), SMTOP_SYNC_NONE);

	const struct sanitizer_numbering *old = sanitizer_numbering_of(11), *now = sanitizer_numbering_of(13);
	cr_assert_eq(old->event_record, SANITIZER_CBID_EVENTS_RECORD);
	cr_assert_eq(old->event_stream_wait, SANITIZER_CBID_EVENTS_STREAM_WAIT);
	cr_assert_eq(now->event_record, 3);
	cr_assert_eq(now->event_stream_wait, 4);
}
#endif

/* The driver's synchronize calls under --sm all become the SYNCHRONIZATION
 * rows CUPTI gives (a context's has no stream, a stream's no event), and
 * smtop info counts them by kind.  cuCtxSynchronize_v2, which
 * cudaDeviceSynchronize calls in CUDA 13, is known to 13's numbering only. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, synchronize_calls_become_cuptis_synchronization_records)
{
	const struct sanitizer_numbering *old = sanitizer_numbering_of(11), *now = sanitizer_numbering_of(13);
	CUstream low = (CUstream)(uintptr_t)0x5000, high = (CUstream)(uintptr_t)0x6000;
	CUevent ev = (CUevent)(uintptr_t)0x7f3a00012340ull;
	cuStreamSynchronize_params on_low = { .hStream = low }, on_high = { .hStream = high };
	cuEventSynchronize_params on_event = { .hEvent = ev };
	Sanitizer_EventData recorded = { .event = ev };
	struct smtop_record recs[5], event_rec;
	const uint64_t t0 = 1764480000000000000ull;
	void *handle;
	char path[256];

	cr_assert_eq(sanitizer_sync_call_type(now, SANITIZER_CBID_DRIVER_API_cuStreamSynchronize, &on_low, &handle),
		     SANITIZER_SYNC_STREAM);
	cr_assert_eq(handle, (void *)low);
	cr_assert_eq(sanitizer_sync_call_type(old, SANITIZER_CBID_DRIVER_API_cuStreamSynchronize_ptsz, &on_high,
					      &handle), SANITIZER_SYNC_STREAM);
	cr_assert_eq(handle, (void *)high);
	cr_assert_eq(sanitizer_sync_call_type(now, SANITIZER_CBID_DRIVER_API_cuCtxSynchronize, NULL, &handle),
		     SANITIZER_SYNC_CONTEXT);
	cr_assert_null(handle);
	cr_assert_eq(sanitizer_sync_call_type(now, 800, NULL, &handle), SANITIZER_SYNC_CONTEXT,
		     "13's cuCtxSynchronize_v2");
	cr_assert_eq(sanitizer_sync_call_type(old, 800, NULL, &handle), 0, "no such call in 11.8");
	cr_assert_eq(sanitizer_sync_call_type(now, SANITIZER_CBID_DRIVER_API_cuEventSynchronize, &on_event, &handle),
		     SANITIZER_SYNC_EVENT);
	cr_assert_eq(handle, (void *)ev);
	cr_assert_eq(sanitizer_sync_call_type(now, SANITIZER_CBID_DRIVER_API_cuLaunchKernel, &on_low, &handle), 0);
	cr_assert_eq(sanitizer_sync_call_type(now, 0, NULL, &handle), 0);
	cr_assert_eq(old->stream_synchronized, SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED);

	sanitizer_synchronization(SANITIZER_SYNC_STREAM, 4242, 1, 13, NULL, 20, t0, t0 + 4602, &recs[0]);
	sanitizer_synchronization(SANITIZER_SYNC_STREAM, 4242, 1, 13, NULL, 30, t0 + 10000, t0 + 20000, &recs[1]);
	sanitizer_synchronization(SANITIZER_SYNC_STREAM, 4242, 1, 14, NULL, 31, t0 + 20000, t0 + 21000, &recs[2]);
	sanitizer_synchronization(SANITIZER_SYNC_CONTEXT, 4242, 1, 14, NULL, 40, t0 + 30000, t0 + 38064, &recs[3]);
	sanitizer_synchronization(SANITIZER_SYNC_EVENT, 4242, 1, 14, ev, 41, t0 + 40000, t0 + 40100, &recs[4]);
	sanitizer_event_record(&recorded, 4242, 0, 1, 14, 39, &event_rec);
	cr_assert_eq(recs[0].kind, SMTOP_REC_SYNC);
	cr_assert_eq(recs[0].u.sync.stream_id, 13);
	cr_assert_eq(recs[0].u.sync.start, t0);
	cr_assert_eq(recs[0].u.sync.end, t0 + 4602, "the host waited from the call's entry to its exit");
	cr_assert_eq(recs[0].u.sync.event_id, SMTOP_SYNC_NONE);
	cr_assert_eq(recs[3].u.sync.stream_id, SMTOP_SYNC_NONE, "a context's synchronize names no stream");
	cr_assert_eq(recs[4].u.sync.stream_id, SMTOP_SYNC_NONE);
	cr_assert_eq(recs[4].u.sync.event_id, event_rec.u.cuda_event.event_id, "the event its record names");
	cr_assert_eq(recs[4].u.sync.sync_id, SMTOP_SYNC_NONE);

	cr_assert_eq(cupti_support_session(path, sizeof(path)), 0);
	struct db_writer *w = join_session(path, 4242);
	cr_assert_eq(db_writer_write(w, recs, 5), 0, "%s", db_writer_error(w));
	db_writer_close(w);
	struct db_reader *rd = NULL;
	struct db_session_info info;
	char err[256] = "";
	cr_assert_eq(db_reader_open(&rd, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(db_reader_info(rd, &info), 0, "%s", db_reader_error(rd));
	cr_assert_not(info.sync_types_known, "counted by kind only when asked");
	db_reader_sync_types(rd, &info);
	cr_assert(info.sync_types_known);
	cr_assert_eq(info.sync_types[3], 3);
	cr_assert_eq(info.sync_types[4], 1);
	cr_assert_eq(info.sync_types[1], 1);
	cr_assert_eq(info.sync_types[2], 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	info_print(out, &info);
	fclose(out);
	cr_assert(strstr(text, "syncs          3 stream, 1 context, 1 event synchronizations; 0 stream waits\n"),
		  "%s", text);
	free(text);
	db_reader_close(rd);
}
#endif

/* wait_stream under --sm all: the high-priority stream waits on an event
 * recorded after the low one's long kernel.  From the converted callbacks
 * the analysis sees the dependency; without them, a resident inversion. */
#ifdef SMTOP_HAVE_SANITIZER
Test(sanitizer, a_wait_stream_is_no_inversion)
{
	Sanitizer_EventData d = { .event = (CUevent)(uintptr_t)0x5550ull };
	struct smtop_stream lo = { .pid = 1, .context_id = 1, .stream_id = 1, .priority = 0 };
	struct smtop_stream hi = { .pid = 1, .context_id = 1, .stream_id = 2, .priority = -5 };
	struct smtop_kernel a = { .start = 1000, .end = 101000, .submitted = 900, .grid_id = 1,
				  .pid = 1, .context_id = 1, .stream_id = 1, .correlation_id = 1,
				  .name = "long" };
	struct smtop_kernel b = { .start = 101000, .end = 111000, .submitted = 1600, .grid_id = 2,
				  .pid = 1, .context_id = 1, .stream_id = 2, .correlation_id = 4,
				  .name = "relu" };
	struct smtop_block blocks[8];
	struct smtop_record rec, wait;

	for (int i = 0; i < 8; i++)
		blocks[i] = (struct smtop_block){ .grid_id = i < 4 ? 1 : 2, .sm = (uint16_t)(i % 4),
						  .start = i < 4 ? 1000 : 101000,
						  .end = i < 4 ? 101000 : 111000, .block = (uint32_t)(i % 4) };
	sanitizer_event_record(&d, 1, 0, 1, 1, 2, &rec);
	sanitizer_stream_wait(&d, 1, 1, 2, 3, 1500, &wait);
	for (int with_events = 0; with_events < 2; with_events++) {
		struct analysis *an = analysis_new(NULL);
		struct smtop_device dev = { .device_id = 0, .sm_count = 4 };

		cr_assert_not_null(an);
		analysis_add_device(an, &dev);
		analysis_add_stream(an, &lo);
		analysis_add_stream(an, &hi);
		analysis_add_kernel(an, &a);
		analysis_add_kernel(an, &b);
		cr_assert_eq(analysis_add_blocks(an, 1, 1, blocks, 8), 0);
		if (with_events) {
			cr_assert_eq(analysis_add_cuda_event(an, &rec.u.cuda_event), 0);
			cr_assert_eq(analysis_add_sync(an, &wait.u.sync), 0);
		}
		cr_assert_eq(analysis_update(an, ANALYSIS_WATERMARK_ALL), 0);
		if (with_events) {
			cr_expect_eq(analysis_event_count(an), 0);
		} else {
			cr_assert_eq(analysis_event_count(an), 1);
			cr_expect_eq(analysis_event(an, 0)->kind, SMTOP_EV_INVERSION_RESIDENT);
		}
		analysis_free(an);
	}
}
#endif

/* ---- a green context's stream under --sm all -------------------------------- */

/* The host thread answers a new stream's context: not yet the first time
 * fill asks, then green context 2 (its registers known all along). */
static int stream_asked;

static void fill_stream_later(struct launch_info *info)
{
	if (stream_asked++ && info->stream_pending) {
		info->record_context_id = 2;
		info->stream_pending = 0;
	}
}

static void fill_nothing(struct launch_info *info)
{
	(void)info;
}

/* A launch whose stream the host thread has not asked about yet: complete,
 * its kernel waits for the answer (its grid id free for the next launch),
 * and names the green context once told; a launch told at once names it
 * at once; a stream never told goes out stale under the launch's own
 * context.  Blocks come through the launch's context (1) throughout. */
/* The host thread reads its clock, then another thread's block comes: that
 * kernel is younger than the sweep's now, not two seconds idle (unsigned, the
 * age wrapped around and sent a kernel still taking blocks out with no end). */
Test(launches, a_block_after_the_sweeps_clock_is_not_idle)
{
	struct launches *l = launches_create(42);
	struct launch_info i = launch_of(5, 1, 2, 1, 1000);
	struct smtop_block b = block_of(5, 0, 5000, 9000), c = block_of(5, 1, 5100, 9100);
	struct smtop_record out[2];

	cr_assert_eq(launches_add(l, 3000000000ull, &i), 0);
	cr_assert_eq(launches_take_stale(l, 1000000000ull, 100, out, 2), 0, "launched after the sweep's now");
	cr_assert_eq(launches_note_blocks(l, 4000000000ull, 1, &b, 1, out, 2), 0);
	cr_assert_eq(launches_take_stale(l, 3500000000ull, 100, out, 2), 0, "a block came after now");
	cr_assert_eq(launches_note_blocks(l, 4000000001ull, 1, &c, 1, out, 2), 1, "complete, with its end");
	cr_assert_eq(out[0].u.kernel.end, 9100);
	free_records(out, 1);
	launches_destroy(l);
}

static struct smtop_record shards_out[64];
static size_t shards_n;

static void shards_push(struct smtop_record *recs, size_t n)
{
	cr_assert_leq(shards_n + n, 64);
	memcpy(shards_out + shards_n, recs, n * sizeof(*recs));
	shards_n += n;
}

static const struct smtop_kernel *shards_kernel(uint64_t grid_id, uint32_t correlation_id)
{
	for (size_t i = 0; i < shards_n; i++)
		if (shards_out[i].u.kernel.grid_id == grid_id && shards_out[i].u.kernel.correlation_id == correlation_id)
			return &shards_out[i].u.kernel;
	return NULL;
}

/* Kernels spread over the shards by grid id, their blocks interleaved as a
 * lane brings them: each completes with its own times, and every kernel's
 * submission time uses the least clock bound any shard saw. */
Test(launch_shards, interleaved_kernels_complete_across_shards)
{
	struct launch_shards *s = launch_shards_create(42, NULL, shards_push);
	struct smtop_block b[64];
	size_t n = 0;

	shards_n = 0;
	for (uint64_t g = 1; g <= 16; g++) {
		struct launch_info i = launch_of(g, 1, 4, 1, 1000 * g);

		i.correlation_id = (uint32_t)g;
		cr_assert_eq(launch_shards_add(s, 0, &i), 0);
	}
	cr_assert_not(launch_shards_bound_known(s, 0), "no block yet: the clocks are not told apart");
	cr_assert_eq(launch_shards_bound(s, 0), 0);
	for (uint32_t k = 0; k < 4; k++)
		b[n++] = block_of(1, k, k ? 1500 + k : 1100, 1900 + k); /* waited 100 ns: the least bound */
	launch_shards_note_blocks(s, 0, 1, b, n);
	cr_assert(launch_shards_bound_known(s, 0));
	cr_assert_eq(shards_n, 1);
	n = 0;
	for (uint32_t k = 0; k < 4; k++)
		for (uint64_t g = 2; g <= 16; g++)
			b[n++] = block_of(g, k, 1000 * g + 500 + k, 1000 * g + 900 + k);
	launch_shards_note_blocks(s, 0, 1, b, n);
	cr_assert_eq(shards_n, 16);
	cr_assert_eq(launch_shards_pending(s), 0);
	cr_assert_eq(launch_shards_orphans(s), 0);
	cr_assert_eq(launch_shards_bound(s, 0), 100);
	for (uint64_t g = 1; g <= 16; g++) {
		const struct smtop_kernel *k = shards_kernel(g, (uint32_t)g);

		cr_assert_not_null(k);
		cr_assert_eq(k->start, g == 1 ? 1100 : 1000 * g + 500);
		cr_assert_eq(k->end, 1000 * g + 903);
		cr_assert_leq(k->submitted, 1000 * g + 500, "never after its first block");
	}
	cr_assert_eq(shards_kernel(16, 16)->submitted, 16000 + 100, "grid 1's bound, from another shard");
	free_records(shards_out, shards_n);
	launch_shards_destroy(s);
}

/* Two GPUs whose %globaltimers run 80 us apart (two H200s of one host were
 * 79 us apart): each device's kernels are mapped by its own bound, so
 * neither's submissions come out early and no wait grows. */
Test(launch_shards, each_device_has_its_own_bound)
{
	struct launch_shards *s = launch_shards_create(1, NULL, shards_push);
	struct launch_info a = launch_of(1, 1, 1, 1, 100), b = launch_of(2, 2, 1, 1, 100);
	struct launch_info c = launch_of(3, 2, 1, 1, 5000);
	struct smtop_block x = block_of(1, 0, 1100, 1200);
	struct smtop_block y = block_of(2, 0, 81100, 81200), z = block_of(3, 0, 86500, 86600);

	shards_n = 0;
	b.device_id = c.device_id = 1;
	cr_assert_eq(launch_shards_add(s, 0, &a), 0);
	cr_assert_eq(launch_shards_add(s, 0, &b), 0);
	cr_assert_eq(launch_shards_add(s, 0, &c), 0);
	launch_shards_note_blocks(s, 0, 1, &x, 1);
	cr_assert(launch_shards_bound_known(s, 0));
	cr_assert_not(launch_shards_bound_known(s, 1), "device 1's timer is not device 0's");
	launch_shards_note_blocks(s, 0, 2, &y, 1);
	launch_shards_note_blocks(s, 0, 2, &z, 1);
	cr_assert_eq(launch_shards_bound(s, 0), 1000);
	cr_assert_eq(launch_shards_bound(s, 1), 81000);
	cr_assert_eq(shards_n, 3);
	cr_assert_eq(shards_kernel(3, 0)->submitted, 5000 + 81000, "device 1's bound, not device 0's 1000");
	cr_assert_leq(shards_kernel(3, 0)->submitted, shards_kernel(3, 0)->start);
	cr_assert_eq(launches_device_slot(LAUNCHES_DEVICES + 7), LAUNCHES_DEVICES - 1, "the last slot for the rest");
	free_records(shards_out, shards_n);
	launch_shards_destroy(s);
}

/* A graph replayed launches its kernel with the same grid id: in one lane's
 * window the replays' blocks never overlap in time, so each replay keeps
 * its own start and end (blocks of one launch that ran at once are counted
 * as one run). */
/* Two launches of grid 9 (a graph replayed: correlation ids 1 and 2), of
 * 2 blocks each, and one of grid 3 (correlation id 3) of `other` blocks. */
static struct launch_shards *replays_and_another(int32_t other)
{
	struct launch_shards *s = launch_shards_create(42, NULL, shards_push);
	struct launch_info l[] = { launch_of(9, 1, 2, 1, 1000), launch_of(9, 1, 2, 1, 1000),
				   launch_of(3, 1, other, 1, 1000) };

	shards_n = 0;
	for (uint32_t i = 0; i < 3; i++) {
		l[i].correlation_id = i + 1;
		cr_assert_eq(launch_shards_add(s, 0, &l[i]), 0);
	}
	return s;
}

Test(launch_shards, a_replays_blocks_keep_their_own_times)
{
	struct launch_shards *s = replays_and_another(2);
	struct smtop_block b[] = {
		block_of(9, 0, 2000, 2500), block_of(3, 0, 2100, 2600), block_of(9, 1, 2200, 2700),
		block_of(9, 0, 5000, 5500), block_of(3, 1, 5100, 5600), block_of(9, 1, 5200, 5700),
	};

	launch_shards_note_blocks(s, 0, 1, b, sizeof(b) / sizeof(b[0]));
	cr_assert_eq(shards_n, 3);
	cr_assert_eq(shards_kernel(9, 1)->start, 2000);
	cr_assert_eq(shards_kernel(9, 1)->end, 2700, "its own blocks, not the replay's");
	cr_assert_eq(shards_kernel(9, 2)->start, 5000);
	cr_assert_eq(shards_kernel(9, 2)->end, 5700);
	cr_assert_eq(shards_kernel(3, 3)->start, 2100);
	cr_assert_eq(shards_kernel(3, 3)->end, 5600);
	free_records(shards_out, shards_n);
	launch_shards_destroy(s);
}

/* The entry drain's closed blocks come in no order of their kernels (as
 * later blocks take their warp slots): the runs of a grid with one launch
 * count at once however far apart in time; a replayed grid's runs keep
 * their order, so each replay still gets its own blocks and times. */
Test(launch_shards, scattered_blocks_count_for_their_own_launches)
{
	struct launch_shards *s = replays_and_another(3);
	struct smtop_block b[] = {
		block_of(9, 0, 2000, 2500), block_of(3, 0, 2100, 2200), block_of(9, 1, 2600, 2700),
		block_of(3, 1, 4000, 4100), block_of(9, 0, 5000, 5500), block_of(3, 2, 5100, 5600),
		block_of(9, 1, 5800, 5900),
	};

	launch_shards_note_scattered(s, 0, 1, b, sizeof(b) / sizeof(b[0]));
	cr_assert_eq(shards_n, 3);
	cr_assert_eq(launch_shards_orphans(s), 0);
	cr_assert_eq(shards_kernel(9, 1)->start, 2000);
	cr_assert_eq(shards_kernel(9, 1)->end, 2700, "the first replay's blocks, though apart in time");
	cr_assert_eq(shards_kernel(9, 2)->start, 5000);
	cr_assert_eq(shards_kernel(9, 2)->end, 5900);
	cr_assert_eq(shards_kernel(3, 3)->start, 2100, "three runs, none overlapping, of one launch");
	cr_assert_eq(shards_kernel(3, 3)->end, 5600);
	free_records(shards_out, shards_n);
	launch_shards_destroy(s);
}

/* The sweep over the shards: a kernel still short of blocks goes out once
 * idle, one still taking blocks does not; blocks of no launch count. */
Test(launch_shards, the_stale_sweep_covers_every_shard)
{
	struct launch_shards *s = launch_shards_create(42, NULL, shards_push);
	struct smtop_block b = block_of(77, 0, 5000, 6000), lost = block_of(999, 0, 1, 2);

	shards_n = 0;
	for (uint64_t g = 70; g < 80; g++) {
		struct launch_info i = launch_of(g, 1, 2, 1, 1000);

		cr_assert_eq(launch_shards_add(s, 100, &i), 0);
	}
	launch_shards_note_blocks(s, 5000, 1, &b, 1);
	launch_shards_note_blocks(s, 5000, 1, &lost, 1);
	cr_assert_eq(launch_shards_orphans(s), 1);
	launch_shards_take_stale(s, 3000, 1000);
	cr_assert_eq(shards_n, 9, "all but the one whose block came at 5000");
	cr_assert_null(shards_kernel(77, 0));
	launch_shards_take_stale(s, 9000, 1000);
	cr_assert_eq(shards_n, 10);
	cr_assert_eq(shards_kernel(77, 0)->start, 5000, "short of a block: what came");
	cr_assert_eq(launch_shards_pending(s), 0);
	free_records(shards_out, shards_n);
	launch_shards_destroy(s);
}

Test(launches, a_new_streams_kernel_waits_for_its_context)
{
	struct launches *l = launches_create(42), *never = launches_create(42);
	struct launch_info i = launch_of(5, 1, 1, 1, 1000), told = launch_of(6, 1, 1, 1, 1000);
	struct smtop_block b = block_of(5, 0, 5000, 9000), c = block_of(6, 0, 6000, 9500);
	struct smtop_record out[2];

	i.function = told.function = (const void *)0x1234;
	i.registers = told.registers = 26;
	i.stream_pending = 1;
	told.record_context_id = 2;
	stream_asked = 0;
	launches_set_fill(l, fill_stream_later);
	cr_assert_eq(launches_add(l, 0, &i), 0);
	cr_assert_eq(launches_add(l, 0, &told), 0);
	cr_assert_eq(launches_note_blocks(l, 0, 1, &b, 1, out, 2), 0, "held: its stream not asked yet");
	cr_assert_eq(launches_note_blocks(l, 0, 1, &c, 1, out, 2), 1, "found by the launch's context");
	cr_expect_eq(out[0].u.kernel.context_id, 2, "told at the launch");
	free_records(out, 1);
	cr_assert_eq(launches_take_stale(l, 20, 2000000000ull, out, 2), 1, "told at the sweep");
	cr_expect_eq(out[0].u.kernel.grid_id, 5);
	cr_expect_eq(out[0].u.kernel.context_id, 2);
	cr_expect_eq(out[0].u.kernel.registers, 26);
	free_records(out, 1);

	launches_set_fill(never, fill_nothing);
	cr_assert_eq(launches_add(never, 0, &i), 0);
	cr_assert_eq(launches_note_blocks(never, 0, 1, &b, 1, out, 2), 0);
	cr_assert_eq(launches_take_stale(never, 20, 1000, out, 2), 0, "not stale yet");
	cr_assert_eq(launches_take_stale(never, 5000, 1000, out, 2), 1);
	cr_expect_eq(out[0].u.kernel.context_id, 1, "never told: the launch's context");
	free_records(out, 1);
	launches_destroy(never);
	launches_destroy(l);
}

#ifdef SMTOP_HAVE_SANITIZER
/* The records of one launch, copy and event record on a green context's
 * stream (9), from the sanitizer's own structs: their callbacks name the
 * primary context (backend context 1) and come before the host thread
 * asked the driver, so the copy and the event wait (parked) and the
 * kernel too (held); told green context 2, all of them name it, as CUPTI's
 * records do, and the green context's own record says what it is. */
struct green_stream_records {
	struct smtop_record context, kernel, copy, event, other;
	size_t n_unparked;
};

static void green_stream_records(struct green_stream_records *g)
{
	CUcontext primary = (CUcontext)(uintptr_t)0x10;
	CUstream stream = (CUstream)(uintptr_t)0x20;
	Sanitizer_LaunchData ld = { .context = primary, .stream = stream, .functionName = "_Z5inferv",
				    .gridDim_x = 4, .gridDim_y = 1, .gridDim_z = 1, .blockDim_x = 128,
				    .blockDim_y = 1, .blockDim_z = 1, .gridId = 77, .device = 0 };
	Sanitizer_MemcpyData cp = { .srcContext = primary, .srcStream = stream, .size = 4096, .isAsync = 1,
				    .direction = SANITIZER_MEMCPY_DIRECTION_HOST_TO_DEVICE };
	Sanitizer_EventData ev = { .event = (CUevent)(uintptr_t)0x7f3a00012340ull, .context = primary,
				   .stream = stream };
	struct sanitizer_parked *parked = calloc(1, sizeof *parked);
	struct launches *l = launches_create(4242);
	struct launch_info info;
	struct smtop_block b[4];
	struct smtop_record out[4];

	cr_assert(parked && l);
	stream_asked = 0;
	launches_set_fill(l, fill_stream_later);
	sanitizer_launch_info(&ld, 1, 9, 1000, 0, &info);
	info.function = (const void *)0x1234;
	info.registers = 32;
	info.stream_pending = 1;
	cr_assert_eq(launches_add(l, 0, &info), 0);
	sanitizer_memcpy(&cp, 4242, 0, 1, 9, 2, &out[0]);
	sanitizer_event_record(&ev, 4242, 0, 1, 9, 3, &out[1]);
	sanitizer_memcpy(&cp, 4242, 0, 1, 10, 4, &g->other);
	cr_assert_eq(sanitizer_park(parked, &out[0]), 0);
	cr_assert_eq(sanitizer_park(parked, &out[1]), 0);
	cr_assert_eq(sanitizer_park(parked, &g->other), 0, "another stream's, not asked either");
	cr_assert_eq(sanitizer_park(parked, &(struct smtop_record){ .kind = SMTOP_REC_KERNEL }), -1,
		     "kernels wait in their launch");
	for (uint32_t k = 0; k < 4; k++)
		b[k] = block_of(77, k, 5000 + 10 * k, 9000);
	cr_assert_eq(launches_note_blocks(l, 0, 1, b, 4, out, 4), 0, "held until told");

	/* the host thread: cuStreamGetCtx_v2 named a green context */
	sanitizer_green_context(4242, 0, 2, 1, &g->context);
	g->n_unparked = sanitizer_unpark(parked, 9, 2, out, 4);
	cr_assert_eq(g->n_unparked, 2);
	g->copy = out[0];
	g->event = out[1];
	cr_assert_eq(parked->n, 1, "stream 10 still waits");
	cr_assert_eq(launches_take_stale(l, 10, 2000000000ull, &g->kernel, 1), 1);
	launches_destroy(l);
	free(parked);
}

Test(sanitizer, a_green_contexts_stream_names_its_green_context)
{
	struct green_stream_records g;

	green_stream_records(&g);
	cr_assert_eq(g.context.kind, SMTOP_REC_CONTEXT);
	cr_expect_eq(g.context.u.context.context_id, 2);
	cr_expect_eq(g.context.u.context.is_green, 1);
	cr_expect_eq(g.context.u.context.parent_context_id, 1);
	cr_assert_eq(g.kernel.kind, SMTOP_REC_KERNEL);
	cr_expect_eq(g.kernel.u.kernel.context_id, 2, "not the primary its launch data named");
	cr_expect_eq(g.kernel.u.kernel.stream_id, 9);
	cr_expect_eq(g.kernel.u.kernel.grid_id, 77);
	cr_expect_eq(g.kernel.u.kernel.start, 5000);
	cr_assert_eq(g.copy.kind, SMTOP_REC_MEMCPY);
	cr_expect_eq(g.copy.u.memcpy.context_id, 2);
	cr_expect_eq(g.copy.u.memcpy.correlation_id, 2);
	cr_assert_eq(g.event.kind, SMTOP_REC_CUDA_EVENT);
	cr_expect_eq(g.event.u.cuda_event.context_id, 2);
	cr_expect_eq(g.other.u.memcpy.context_id, 1, "another stream keeps its own");
	records_free_owned(&g.kernel);
}

static int count_green(void *ud, const struct smtop_context *c)
{
	int *n = ud;
	if (c->context_id == 2) {
		cr_expect_eq(c->is_green, 1);
		cr_expect_eq(c->parent_context_id, 1);
		++*n;
	}
	return 0;
}

static int kernel_in_context_2(void *ud, const struct smtop_kernel *k)
{
	cr_expect_eq(k->context_id, 2);
	++*(int *)ud;
	return 0;
}

static int stream_in_context_2(void *ud, const struct smtop_stream *s)
{
	*(int *)ud += s->context_id == 2 && s->stream_id == 9 && s->priority == -5;
	return 0;
}

static int copy_in_context_2(void *ud, const struct smtop_memcpy *m)
{
	*(int *)ud += m->context_id == 2 && m->stream_id == 9;
	return 0;
}

/* The same records in a session read as a CUPTI session's of the same
 * program: the green context in TARGET_INFO_CUDA_CONTEXT_INFO
 * (isGreenContext 1, parentContextId 1), the stream under both contexts
 * (the primary's row, as CUPTI's stream record, and the green one's, which
 * the kernels find their priority by), kernel and copy rows under 2. */
Test(sanitizer, a_green_contexts_records_read_as_cuptis)
{
	struct green_stream_records g;
	struct smtop_record recs[6];
	char path[256];
	struct db_reader *rd = NULL;
	char err[256] = "";
	int contexts = 0, kernels = 0, streams = 0, copies = 0;
	int64_t km = 0, mm = 0;

	green_stream_records(&g);
	recs[0] = g.context;
	recs[1] = (struct smtop_record){ .kind = SMTOP_REC_STREAM, .u.stream = { .pid = 4242, .context_id = 1,
			.stream_id = 9, .priority = -5, .flags = 2 } };
	recs[2] = recs[1];
	recs[2].u.stream.context_id = 2;
	recs[3] = g.kernel;
	recs[4] = g.copy;
	recs[5] = g.event;
	cr_assert_eq(cupti_support_session(path, sizeof(path)), 0);
	struct db_writer *w = join_session(path, 4242);
	cr_assert_eq(db_writer_write(w, recs, 6), 0);
	db_writer_close(w);

	cr_assert_eq(db_reader_open(&rd, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(db_reader_contexts(rd, count_green, &contexts), 0);
	cr_assert_eq(db_reader_new_kernels(rd, &km, kernel_in_context_2, &kernels), 0);
	cr_assert_eq(db_reader_streams(rd, stream_in_context_2, &streams), 0);
	cr_assert_eq(db_reader_new_memcpys(rd, &mm, copy_in_context_2, &copies), 0);
	cr_expect_eq(contexts, 1);
	cr_expect_eq(kernels, 1);
	cr_expect_eq(streams, 1);
	cr_expect_eq(copies, 1);
	db_reader_close(rd);
}
#endif

/* The --sm modes the command line offers are the collector's backends. */
Test(backend, every_sm_mode_has_its_backend)
{
	char modes[256];

	for (size_t i = 0; i < sm_modes_count; i++)
		cr_expect_not_null(collector_backend_named(sm_modes[i].name), "%s", sm_modes[i].name);
	cr_expect_str_eq(sm_modes[0].name, RECORD_SM_DEFAULT);
	cr_expect_null(sm_mode_named("bogus"));
	cr_expect_str_eq(sm_modes_list(modes, sizeof modes),
			 "'marked' (CUPTI), 'entry' (every block's start, ends exact in windows, Compute "
			 "Sanitizer), 'exact' (every block's start and end, Compute Sanitizer) or "
			 "'all' (every block, Compute Sanitizer)");
}

/* With no name the collector runs the default mode's backend, the one
 * `smtop record` names when --sm is not given. */
Test(backend, no_name_is_the_default_mode)
{
	cr_expect_str_eq(collector_backend_named(NULL)->name, sm_mode_default()->name);
	cr_expect_str_eq(collector_backend_named("")->name, sm_mode_default()->name);
	cr_expect_str_eq(sm_mode_default()->name, RECORD_SM_DEFAULT);
}

/* Each mode's set-up says what smtop record finds and passes on, and why
 * a build cannot record it. */
Test(backend, every_sm_mode_has_its_setup)
{
	for (size_t i = 0; i < sm_modes_count; i++) {
		const struct sm_mode *m = &sm_modes[i];
		const struct sm_mode_library *lib;

		cr_assert_not_null(m->setup, "%s", m->name);
		lib = m->setup->library;
		if (!lib)
			continue;
		cr_expect(lib->env && lib->file && lib->toolkit_dir && lib->missing, "%s", m->name);
		cr_expect_eq(strncmp(lib->env, "SMTOP_", 6), 0, "%s: %s", m->name, lib->env);
	}
	cr_expect_null(sm_mode_named("marked")->setup->library);
	cr_expect_str_eq(sm_mode_named("all")->setup->library->env, "SMTOP_SANITIZER_LIB");
	cr_expect_str_eq(sm_mode_named("entry")->setup->library->version_env, "SMTOP_SANITIZER_VERSION");
#ifdef SMTOP_HAVE_SANITIZER
	cr_expect_null(sm_mode_named("all")->setup->unbuilt);
	cr_expect_null(sm_mode_named("entry")->setup->unbuilt);
#else
	cr_expect_not_null(sm_mode_named("all")->setup->unbuilt);
	cr_expect_not_null(sm_mode_named("entry")->setup->unbuilt);
#endif
}

/* A backend whose library smtop record did not find refuses in the one
 * line its mode's set-up gives, naming the mode; one this build lacks says
 * so the same way. */
static struct sm_mode_index {
	size_t i;
} sm_mode_indexes[8];

ParameterizedTestParameters(backend, refuses_as_its_mode_says)
{
	cr_assert_leq(sm_modes_count, sizeof(sm_mode_indexes) / sizeof(sm_mode_indexes[0]));
	for (size_t i = 0; i < sm_modes_count; i++)
		sm_mode_indexes[i].i = i;
	return cr_make_param_array(struct sm_mode_index, sm_mode_indexes, sm_modes_count);
}

ParameterizedTest(struct sm_mode_index *p, backend, refuses_as_its_mode_says)
{
	const struct sm_mode *m = &sm_modes[p->i];
	const struct sm_mode_library *lib = m->setup->library;
	char reason[512] = "", want[512];
	struct ring *ring;

	if (!lib && !m->setup->unbuilt)
		return; /* nothing to find: its backend starts for real */
	if (m->setup->unbuilt)
		snprintf(want, sizeof want, "--sm %s: this collector was built without %s", m->name, m->setup->unbuilt);
	else
		snprintf(want, sizeof want, "--sm %s needs %s", m->name, lib->missing);
	if (lib)
		unsetenv(lib->env);
	ring = ring_create(16);
	cr_assert_eq(collector_backend_named(m->name)->start(ring, 1, reason, sizeof reason), -1, "%s", m->name);
	cr_expect_str_eq(reason, want);
	ring_destroy(ring);
}

/* smtop record finds a mode's library in the user's CUDA Toolkit, or where
 * its env says; a path that is not there finds nothing. */
Test(backend, record_finds_a_modes_library)
{
	const struct sm_mode_library *lib = sm_mode_named("all")->setup->library;
	char dir[] = "/tmp/smtop-toolkit-XXXXXX", real[4096], path[4200], want[4300], found[4096];
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	snprintf(path, sizeof path, "%s/%s", real, lib->toolkit_dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(want, sizeof want, "%s/%s", path, lib->file);
	cr_assert_not_null(f = fopen(want, "w"));
	fclose(f);
	unsetenv(lib->env);
	setenv("CUDA_HOME", dir, 1);
	cr_assert_eq(record_find_library(lib, found, sizeof found), 0);
	cr_expect_str_eq(found, want);
	setenv(lib->env, "/no/such/libsanitizer-public.so", 1);
	cr_expect_eq(record_find_library(lib, found, sizeof found), -1);
	setenv(lib->env, want, 1);
	cr_expect_eq(record_find_library(lib, found, sizeof found), 0);
	unlink(want);
	rmdir(path);
	rmdir(dir);
}
