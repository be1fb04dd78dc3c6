/* Analysis on hand-built traces (tests/support/trace_support.c).
 * Times in ns; device 0, context 1 unless a case says otherwise. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reader.h"
#include "src/core/analysis.h"
#include "tests/support/trace_support.h"

#define HI (-5)
#define LO 0
#define UNK SMTOP_PRIORITY_UNKNOWN

static struct analysis *run_all(const struct trace *t, uint64_t threshold)
{
	struct analysis_params p;
	analysis_params_default(&p);
	if (threshold)
		p.blocking_threshold_ns = threshold;
	struct analysis *a = analysis_new(&p);
	cr_assert_not_null(a);
	trace_feed_all(t, a);
	return a;
}

/* Culprit c (grid 1) fills 4 SMs over [1000, 101000); the victim (grid 2)
 * is submitted at 11000 and gets its first block at 101000. */
static void culprit_then_victim(struct trace *t, int32_t cprio, int32_t vprio, int blocks)
{
	trace_device(t, 0, 4);
	if (cprio != UNK)
		trace_stream(t, 1, 0, 1, cprio);
	if (vprio != UNK)
		trace_stream(t, 1, 0, 2, vprio);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	if (blocks) {
		trace_blocks(t, 1, 0, 1, 4, 1000, 101000);
		trace_blocks(t, 1, 0, 2, 4, 101000, 111000);
	}
}

static void b_no_contention(struct trace *t)
{
	trace_stream(t, 1, 0, 1, LO);
	trace_kernel(t, 1, 0, 1, 1, 1000, 2000, 5000);
	trace_blocks(t, 1, 0, 1, 4, 2000, 5000);
	/* A long wait on an idle GPU (launch latency) is not an episode. */
	trace_kernel(t, 1, 0, 1, 2, 6000, 90000, 95000);
	trace_blocks(t, 1, 0, 2, 4, 90000, 95000);
}

static void b_simple_blocking(struct trace *t) { culprit_then_victim(t, HI, LO, 1); }
static void b_resident_inversion(struct trace *t) { culprit_then_victim(t, LO, HI, 1); }
static void b_equal_prio(struct trace *t) { culprit_then_victim(t, LO, LO, 1); }
static void b_unknown_prio(struct trace *t) { culprit_then_victim(t, UNK, HI, 1); }
static void b_unknown_victim_prio(struct trace *t) { culprit_then_victim(t, LO, UNK, 1); }
static void b_kernel_only(struct trace *t) { culprit_then_victim(t, HI, LO, 0); }
static void b_kernel_only_resident(struct trace *t) { culprit_then_victim(t, LO, HI, 0); }

/* Low-priority culprit runs two waves; the second starts at 51000, after the
 * victim became ready at 11000, while the victim still waits. */
static void b_dispatch_inversion(struct trace *t)
{
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_blocks(t, 1, 0, 1, 4, 1000, 51000);
	trace_blocks(t, 1, 0, 1, 4, 51000, 101000);
	trace_blocks(t, 1, 0, 2, 4, 101000, 111000);
}

/* Kernel-only: a low-priority kernel that starts after the victim is ready
 * is seen dispatching even without blocks. */
static void b_kernel_only_dispatch(struct trace *t)
{
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 500, 20000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
}

/* The victim is zero-length (start == end) but still waited. */
static void b_zero_length_victim(struct trace *t)
{
	trace_stream(t, 1, 0, 1, HI);
	trace_stream(t, 1, 0, 2, LO);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 101000);
}

/* A zero-length kernel inside the wait holds no SM: no culprit, no event. */
static void b_zero_length_culprit(struct trace *t)
{
	trace_stream(t, 1, 0, 1, HI);
	trace_stream(t, 1, 0, 2, LO);
	trace_kernel(t, 1, 0, 1, 1, 500, 50000, 50000);
	trace_blocks(t, 1, 0, 1, 4, 50000, 50000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_blocks(t, 1, 0, 2, 4, 101000, 111000);
}

/* Second kernel of a stream, submitted long before, waits only 500 ns
 * after the first one's end, even though another stream is busy. */
static void b_back_to_back(struct trace *t)
{
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, LO);
	trace_kernel(t, 1, 0, 1, 1, 200, 1000, 50000);
	trace_blocks(t, 1, 0, 1, 2, 1000, 50000);
	trace_kernel(t, 1, 0, 1, 2, 2000, 50500, 90000);
	trace_blocks(t, 1, 0, 2, 2, 50500, 90000);
	trace_kernel(t, 1, 0, 2, 3, 0, 500, 100000);
	trace_blocks(t, 1, 0, 3, 2, 500, 100000);
}

/* Two victims ready at the same time on two streams behind one culprit. */
static void b_equal_ready(struct trace *t)
{
	culprit_then_victim(t, HI, LO, 1);
	trace_stream(t, 1, 0, 3, LO);
	trace_kernel(t, 1, 0, 3, 3, 11000, 101000, 111000);
	trace_blocks(t, 1, 0, 3, 4, 101000, 111000);
}

/* The culprit runs on another device: nothing competes with the victim.
 * Process 2 reuses the victim's grid id and context on device 1; its
 * blocks must not be taken for the victim's. */
static void b_devices_apart(struct trace *t)
{
	trace_stream(t, 1, 1, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 1, 1, 1, 500, 1000, 101000);
	trace_blocks(t, 1, 1, 1, 4, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 11500, 21500);
	trace_blocks(t, 1, 0, 2, 4, 11500, 21500);
	trace_stream(t, 2, 1, 2, LO);
	trace_kernel(t, 2, 1, 2, 2, 0, 200, 300);
	trace_blocks(t, 2, 1, 2, 4, 200, 300);
}

/* Another process held the device while the victim waited; its blocks end
 * just as the victim's start (the MPS hand-over): no switch between time
 * slices, so not time-slicing (the former rule, "no culprit resident during
 * the victim's run", took it for one). */
static void b_handover(struct trace *t)
{
	trace_stream(t, 2, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 2, 0, 1, 1, 500, 1000, 101000);
	trace_blocks(t, 2, 0, 1, 4, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_blocks(t, 1, 0, 2, 4, 101000, 111000);
}

/* Same, but the other process's tail overlaps the victim (MPS-like). */
static void b_not_timeslice(struct trace *t)
{
	trace_stream(t, 2, 0, 1, LO);
	trace_stream(t, 1, 0, 2, LO);
	trace_kernel(t, 2, 0, 1, 1, 500, 1000, 105000);
	trace_blocks(t, 2, 0, 1, 3, 1000, 101000);
	trace_blocks(t, 2, 0, 1, 1, 1000, 105000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_blocks(t, 1, 0, 2, 3, 101000, 111000);
}

enum builder {
	B_NO_CONTENTION, B_SIMPLE_BLOCKING, B_RESIDENT_INVERSION, B_DISPATCH_INVERSION,
	B_EQUAL_PRIO, B_UNKNOWN_PRIO, B_UNKNOWN_VICTIM_PRIO, B_KERNEL_ONLY,
	B_KERNEL_ONLY_RESIDENT, B_KERNEL_ONLY_DISPATCH, B_ZERO_LENGTH_VICTIM,
	B_ZERO_LENGTH_CULPRIT, B_BACK_TO_BACK, B_EQUAL_READY, B_DEVICES_APART, B_HANDOVER,
	B_NOT_TIMESLICE,
};

static void (*const builders[])(struct trace *t) = {
	b_no_contention, b_simple_blocking, b_resident_inversion, b_dispatch_inversion,
	b_equal_prio, b_unknown_prio, b_unknown_victim_prio, b_kernel_only,
	b_kernel_only_resident, b_kernel_only_dispatch, b_zero_length_victim,
	b_zero_length_culprit, b_back_to_back, b_equal_ready, b_devices_apart, b_handover,
	b_not_timeslice,
};

/* Criterion may re-execute the binary for each case: parameters hold no
 * pointers, only an index into builders. */
struct scase {
	enum builder build;
	size_t events;
	enum smtop_event_kind kind;
	uint64_t wait;
	size_t culprits;
	int from_blocks;
};

ParameterizedTestParameters(analysis, scenarios)
{
	static struct scase cases[] = {
		{ B_NO_CONTENTION, 0, 0, 0, 0, 0 },
		{ B_SIMPLE_BLOCKING, 1, SMTOP_EV_BLOCKING, 90000, 1, 1 },
		{ B_RESIDENT_INVERSION, 1, SMTOP_EV_INVERSION_RESIDENT, 90000, 1, 1 },
		{ B_DISPATCH_INVERSION, 1, SMTOP_EV_INVERSION_DISPATCH, 90000, 1, 1 },
		{ B_EQUAL_PRIO, 1, SMTOP_EV_BLOCKING, 90000, 1, 1 },
		{ B_UNKNOWN_PRIO, 1, SMTOP_EV_BLOCKING, 90000, 1, 1 },
		{ B_UNKNOWN_VICTIM_PRIO, 1, SMTOP_EV_BLOCKING, 90000, 1, 1 },
		{ B_KERNEL_ONLY, 1, SMTOP_EV_BLOCKING, 90000, 1, 0 },
		{ B_KERNEL_ONLY_RESIDENT, 1, SMTOP_EV_INVERSION_RESIDENT, 90000, 1, 0 },
		{ B_KERNEL_ONLY_DISPATCH, 1, SMTOP_EV_INVERSION_DISPATCH, 90000, 1, 0 },
		{ B_ZERO_LENGTH_VICTIM, 1, SMTOP_EV_BLOCKING, 90000, 1, 0 },
		{ B_ZERO_LENGTH_CULPRIT, 0, 0, 0, 0, 0 },
		{ B_BACK_TO_BACK, 0, 0, 0, 0, 0 },
		{ B_EQUAL_READY, 2, SMTOP_EV_BLOCKING, 90000, 1, 1 },
		{ B_DEVICES_APART, 0, 0, 0, 0, 0 },
		{ B_HANDOVER, 1, SMTOP_EV_INVERSION_RESIDENT, 90000, 1, 1 },
		{ B_NOT_TIMESLICE, 1, SMTOP_EV_BLOCKING, 90000, 1, 1 },
	};
	return cr_make_param_array(struct scase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct scase *c, analysis, scenarios)
{
	struct trace *t = trace_new();
	builders[c->build](t);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(a), c->events, "case %d: %zu events", (int)c->build,
		     analysis_event_count(a));
	for (size_t i = 0; i < c->events; i++) {
		const struct smtop_event *e = analysis_event(a, i);
		cr_expect_eq(e->kind, c->kind, "case %d: kind %s", (int)c->build, analysis_kind_name(e->kind));
		cr_expect_eq(e->wait_ns, c->wait, "case %d: wait %llu", (int)c->build,
			     (unsigned long long)e->wait_ns);
		cr_expect_eq(e->n_culprits, c->culprits, "case %d: culprits", (int)c->build);
		cr_expect_eq(e->from_blocks, c->from_blocks, "case %d: from_blocks", (int)c->build);
		cr_expect_eq(e->culprits[0].grid_id, 1, "case %d: culprit grid", (int)c->build);
	}
	cr_expect_eq(analysis_provisional_count(a), 0);
	analysis_free(a);
	trace_free(t);
}

Test(analysis, back_to_back_wait_counts_from_previous_end)
{
	struct trace *t = trace_new();
	b_back_to_back(t);
	struct analysis *a = run_all(t, 0);
	struct analysis_stream_summary s;
	cr_assert_eq(analysis_stream_summary(a, 0, &s), 0);
	cr_assert_eq(s.stream_id, 1);
	cr_expect_eq(s.wait.n, 2);
	cr_expect_eq(s.wait.max, 800, "first kernel waits 800 after submission, got %llu",
		     (unsigned long long)s.wait.max);
	cr_expect_eq(s.wait.p50, 500, "second waits 500 after the first ends, got %llu",
		     (unsigned long long)s.wait.p50);
	analysis_free(a);
	trace_free(t);
}

struct tcase {
	uint64_t threshold;
	size_t events;
};

ParameterizedTestParameters(analysis, threshold_edge)
{
	static struct tcase cases[] = {
		{ 89999, 1 }, { 90000, 0 }, { 90001, 0 }, { 20000, 1 },
	};
	return cr_make_param_array(struct tcase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct tcase *c, analysis, threshold_edge)
{
	struct trace *t = trace_new();
	culprit_then_victim(t, HI, LO, 1);
	struct analysis *a = run_all(t, c->threshold);
	cr_expect_eq(analysis_event_count(a), c->events, "threshold %llu",
		     (unsigned long long)c->threshold);
	analysis_free(a);
	trace_free(t);
}

Test(analysis, culprit_weights_sum_to_one_heaviest_first)
{
	struct trace *t = trace_new();
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, LO);
	trace_stream(t, 1, 0, 3, LO);
	/* grid 1: 1 block over the whole wait; grid 3: 4 blocks over it. */
	trace_kernel(t, 1, 0, 1, 1, 0, 1000, 101000);
	trace_blocks(t, 1, 0, 1, 1, 1000, 101000);
	trace_kernel(t, 1, 0, 3, 3, 0, 1000, 101000);
	trace_blocks(t, 1, 0, 3, 4, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_blocks(t, 1, 0, 2, 4, 101000, 111000);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(a), 1);
	const struct smtop_event *e = analysis_event(a, 0);
	cr_assert_eq(e->n_culprits, 2);
	cr_expect_eq(e->culprits[0].grid_id, 3);
	cr_expect_eq(e->culprits[0].overlap_ns, 4 * 90000);
	cr_expect_eq(e->culprits[0].blocks, 4);
	cr_expect_eq(e->culprits[1].grid_id, 1);
	cr_expect(fabs(e->culprits[0].weight - 0.8) < 1e-12);
	cr_expect(fabs(e->culprits[0].weight + e->culprits[1].weight - 1.0) < 1e-12);
	analysis_free(a);
	trace_free(t);
}

Test(analysis, kernel_still_running_in_live_session)
{
	struct trace *t = trace_new();
	culprit_then_victim(t, LO, HI, 1);
	struct analysis *a = analysis_new(NULL);
	analysis_add_stream(a, &t->streams[0]);
	analysis_add_stream(a, &t->streams[1]);
	/* At 60000 the culprit runs (end unknown) and the victim is waiting. */
	struct smtop_kernel c = t->kernels[0], v = t->kernels[1];
	c.end = 0;
	v.start = v.end = 0;
	analysis_add_kernel(a, &c);
	analysis_add_kernel(a, &v);
	cr_assert_eq(analysis_update(a, 60000), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	cr_assert_eq(analysis_provisional_count(a), 1);
	const struct smtop_event *p = analysis_provisional(a, 0);
	cr_expect_eq(p->start, 0);
	cr_expect_eq(p->wait_ns, 60000 - 11000);
	cr_expect_eq(p->kind, SMTOP_EV_INVERSION_RESIDENT);
	struct analysis_totals tot;
	analysis_totals(a, &tot);
	cr_expect_eq(tot.kernels_pending, 2);
	/* Both end; the final answer equals the whole-file one. */
	analysis_add_kernel(a, &t->kernels[0]);
	analysis_add_kernel(a, &t->kernels[1]);
	for (size_t i = 0; i < t->n_blocks; i++)
		analysis_add_block(a, 1, 1, &t->blocks[i].b);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_provisional_count(a), 0);
	cr_assert_eq(analysis_event_count(a), 1);
	struct analysis *w = run_all(t, 0);
	char why[128];
	cr_expect_eq(trace_compare(a, w, why, sizeof why), 0, "%s", why);
	analysis_free(w);
	analysis_free(a);
	trace_free(t);
}

struct icase {
	unsigned seed;
	int with_blocks;
	unsigned max_piece;
};

ParameterizedTestParameters(analysis, incremental_equals_whole)
{
	static struct icase cases[] = {
		{ 1, 1, 1 }, { 2, 1, 7 }, { 3, 1, 50 }, { 4, 1, 400 }, { 5, 0, 3 }, { 6, 0, 20 },
		{ 7, 1, 13 }, { 8, 1, 2 },
	};
	return cr_make_param_array(struct icase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct icase *c, analysis, incremental_equals_whole)
{
	struct trace *t = trace_random(c->seed, c->with_blocks);
	struct analysis *whole = run_all(t, 0);
	struct analysis *inc = analysis_new(NULL);
	trace_feed_pieces(t, inc, c->seed * 31u, c->max_piece);
	char why[128] = "";
	cr_expect_gt(analysis_event_count(whole), 0, "the random trace should have episodes");
	cr_expect_eq(trace_compare(whole, inc, why, sizeof why), 0, "seed %u: %s", c->seed, why);
	analysis_free(inc);
	analysis_free(whole);
	trace_free(t);
}

Test(analysis, kernel_only_reports_limits)
{
	struct trace *t = trace_new();
	b_kernel_only(t);
	struct analysis *a = run_all(t, 0);
	unsigned l = analysis_limits(a);
	cr_expect_eq(analysis_has_blocks(a), 0);
	cr_expect(l & ANALYSIS_LIMIT_DISPATCH_UNTOLD);
	cr_expect(l & ANALYSIS_LIMIT_SM_SHARE_ESTIMATE);
	cr_expect(l & ANALYSIS_LIMIT_WAIT_FROM_KERNELS);
	struct analysis_stream_summary s;
	analysis_stream_summary(a, 0, &s);
	cr_expect_eq(s.sm_share_from_blocks, 0);
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	b_simple_blocking(t);
	a = run_all(t, 0);
	cr_expect_eq(analysis_limits(a), 0);
	analysis_free(a);
	trace_free(t);
}

/* A graph replayed runs its kernels with the same grid id each launch:
 * the launches (correlation ids 3 and 5) are kernels of their own, each
 * judged, here by kernel intervals behind the low-priority grid 1. */
static void replayed_grid(struct trace *t, int blocks)
{
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 201000);
	for (uint32_t i = 0; i < 2; i++) {
		struct smtop_kernel *k = trace_kernel(t, 1, 0, 2, 7, 2000 + 90000 * i, 101000 + 50000 * i,
						      111000 + 50000 * i);
		k->correlation_id = 3 + 2 * i;
		k->is_graph = 1;
	}
	if (blocks) {
		trace_blocks(t, 1, 0, 1, 4, 1000, 201000);
		trace_blocks(t, 1, 0, 7, 4, 101000, 111000);
		trace_blocks(t, 1, 0, 7, 4, 151000, 161000);
	}
}

Test(analysis, replays_of_a_grid_are_kernels_of_their_own)
{
	for (int blocks = 0; blocks < 2; blocks++) {
		struct trace *t = trace_new();
		replayed_grid(t, blocks);
		struct analysis *a = run_all(t, 0);
		struct analysis_totals tot;
		analysis_totals(a, &tot);
		cr_expect_eq(tot.kernels, 3, "blocks %d", blocks);
		cr_assert_eq(analysis_event_count(a), 2, "blocks %d: each launch waited", blocks);
		const struct smtop_event *e0 = analysis_event(a, 0), *e1 = analysis_event(a, 1);
		cr_expect_eq(e0->correlation_id, 3);
		cr_expect_eq(e0->ready, 2000);
		cr_expect_eq(e0->start, 101000);
		cr_expect_eq(e1->correlation_id, 5);
		cr_expect_eq(e1->ready, 111000, "after the first launch on its stream");
		cr_expect_eq(e1->start, 151000, "its own start, not the grid's first block");
		analysis_free(a);
		trace_free(t);
	}
}

Test(analysis, stream_summary_share_and_requests)
{
	struct trace *t = trace_new();
	culprit_then_victim(t, HI, LO, 1);
	trace_request(t, 1, 2, 10000, 120000);
	trace_request(t, 1, 2, 20000, 130000);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_stream_count(a), 2);
	struct analysis_stream_summary s1, s2;
	analysis_stream_summary(a, 0, &s1);
	analysis_stream_summary(a, 1, &s2);
	cr_expect_eq(s1.stream_id, 1);
	cr_expect_eq(s1.busy_ns, 100000);
	/* 4 SMs over [1000, 111000): stream 1 holds 4 x 100000 of 4 x 110000. */
	cr_expect(s1.sm_share_from_blocks);
	cr_expect(fabs(s1.sm_share - 100000.0 / 110000.0) < 1e-9);
	cr_expect_eq(s2.events[SMTOP_EV_BLOCKING], 1);
	cr_expect_eq(s2.delay_ns[SMTOP_EV_BLOCKING], 90000);
	cr_expect_eq(s2.wait.max, 90000);
	cr_expect_eq(s2.turnaround.n, 2);
	cr_expect_eq(s2.turnaround.p50, 110000);
	cr_expect_eq(s1.turnaround.n, 0);
	analysis_free(a);
	trace_free(t);
}

/* A big culprit grid (beyond ANALYSIS_EXACT_BLOCKS) goes through the
 * profile; waves that line up with the window still give exact answers. */
Test(analysis, large_grid_profile)
{
	struct trace *t = trace_new();
	trace_device(t, 0, 132);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 0, 1024, 1024 + 4 * 65536);
	for (int w = 0; w < 4; w++)
		trace_blocks(t, 1, 0, 1, 132, 1024 + (uint64_t)w * 65536,
			     1024 + (uint64_t)(w + 1) * 65536);
	trace_kernel(t, 1, 0, 2, 2, 1024 + 65536, 1024 + 2 * 65536, 1024 + 3 * 65536);
	/* Half of the victim's blocks wait for the culprit's third wave. */
	trace_blocks(t, 1, 0, 2, 4, 1024 + 2 * 65536, 1024 + 2 * 65536 + 1000);
	trace_blocks(t, 1, 0, 2, 4, 1024 + 2 * 65536 + 1000, 1024 + 2 * 65536 + 2000);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(a), 1);
	const struct smtop_event *e = analysis_event(a, 0);
	cr_expect_eq(e->wait_ns, 65536);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_DISPATCH);
	cr_expect_eq(e->culprits[0].overlap_ns, 132ull * 65536);
	analysis_free(a);
	trace_free(t);
}

static void compact(struct analysis *a)
{
	analysis_compact(a);
}

/* Profiles packed after every piece (a packed grid whose blocks come later
 * is unpacked again) give the verdicts of profiles read as they grew. */
ParameterizedTestParameters(analysis, packed_profiles_change_no_verdict)
{
	static struct icase cases[] = {
		{ 11, 1, 1 }, { 12, 1, 5 }, { 13, 1, 40 }, { 14, 1, 300 }, { 15, 1, 9 },
	};
	return cr_make_param_array(struct icase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct icase *c, analysis, packed_profiles_change_no_verdict)
{
	struct trace *t = trace_random(c->seed, 1);
	struct analysis *grown = analysis_new(NULL), *packed = analysis_new(NULL);
	trace_feed_pieces(t, grown, c->seed, c->max_piece);
	trace_feed_pieces_each(t, packed, c->seed, c->max_piece, compact);
	struct analysis_memory mem;
	analysis_memory(packed, &mem);
	cr_expect_gt(mem.packed, 0, "seed %u: profiles were packed", c->seed);
	cr_expect_eq(mem.profiles, 0);
	char why[128] = "";
	cr_expect_gt(analysis_event_count(grown), 0);
	cr_expect_eq(trace_compare(grown, packed, why, sizeof why), 0, "seed %u: %s", c->seed, why);
	analysis_free(grown);
	analysis_free(packed);
	trace_free(t);
}

/* 0.4 s of kernels of 396 blocks, one a millisecond on alternating streams,
 * each submitted while the one before still holds the SMs. */
static struct trace *long_trace(void)
{
	struct trace *t = trace_new();
	trace_device(t, 0, 132);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	for (uint64_t k = 0; k < 400; k++) {
		uint64_t s = 1000000 + k * 1000000;
		trace_kernel(t, 1, 0, 1 + (uint32_t)(k % 2), k + 1, s - 300000, s, s + 1500000);
		for (uint64_t w = 0; w < 3; w++)
			trace_blocks(t, 1, 0, k + 1, 132, s + w * 500000, s + (w + 1) * 500000);
	}
	return t;
}

static void feed_records(const struct trace *t, struct analysis *a)
{
	for (size_t i = 0; i < t->n_devices; i++)
		cr_assert_eq(analysis_add_device(a, &t->devices[i]), 0);
	for (size_t i = 0; i < t->n_streams; i++)
		cr_assert_eq(analysis_add_stream(a, &t->streams[i]), 0);
	for (size_t i = 0; i < t->n_kernels; i++)
		cr_assert_eq(analysis_add_kernel(a, &t->kernels[i]), 0);
}

/* Blocks of a long session: a profile is packed once the blocks have moved
 * 100 ms past it, while they are still coming, so that only the recent ones
 * are whole; blocks that come late (here: in reverse order) unpack it again,
 * and the verdicts are the same either way. */
Test(analysis, profiles_are_packed_behind_the_blocks)
{
	struct trace *t = long_trace();
	struct analysis *fwd = analysis_new(NULL), *rev = analysis_new(NULL);
	feed_records(t, fwd);
	feed_records(t, rev);
	for (size_t i = 0; i < t->n_blocks; i++) {
		const struct trace_block *x = &t->blocks[i], *y = &t->blocks[t->n_blocks - 1 - i];
		cr_assert_eq(analysis_add_block(fwd, x->pid, x->context_id, &x->b), 0);
		cr_assert_eq(analysis_add_block(rev, y->pid, y->context_id, &y->b), 0);
	}
	struct analysis_memory mem;
	analysis_memory(fwd, &mem);
	cr_expect_gt(mem.packed, 0, "packed while blocks came");
	/* whole: the last 100 ms and what came since the last look (64 Ki
	 * blocks), some 270 grids of 400 at most, 12 bytes a bin or more */
	cr_expect_lt(mem.profiles, 300 * 12 * ANALYSIS_PROFILE_BINS,
		     "only the recent profiles whole: %zu bytes", mem.profiles);
	cr_expect_lt(mem.packed, 400 * 12 * ANALYSIS_PROFILE_BINS / 2,
		     "packed, a profile takes less than half its 12 bytes a bin: %zu bytes",
		     mem.packed);
	cr_assert_eq(analysis_update(fwd, ANALYSIS_WATERMARK_ALL), 0);
	cr_assert_eq(analysis_update(rev, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_gt(analysis_event_count(fwd), 100);
	char why[128] = "";
	cr_expect_eq(trace_compare(fwd, rev, why, sizeof why), 0, "%s", why);
	struct analysis *whole = run_all(t, 0);
	cr_expect_eq(trace_compare(fwd, whole, why, sizeof why), 0, "%s", why);
	analysis_free(whole);
	analysis_free(fwd);
	analysis_free(rev);
	trace_free(t);
}

/* A profiled culprit grid (more than ANALYSIS_EXACT_BLOCKS) whose starts
 * share one profile bin with the victim's whole wait: 20 blocks start just
 * before ready, one just after the victim's last start, and `inside` more
 * between them.  The profile alone cannot tell; the recorded starts can,
 * also once the profile is packed (`packed`: all blocks in, then packed,
 * then the verdicts). */
static struct analysis *binned_starts(uint64_t inside, int packed)
{
	/* Extent [0, 1000000]: 32 bins of 32768 ns; bin 10 holds the wait. */
	const uint64_t r = 10 * 32768 + 2000, l = r + 26000, end = 1000000;
	struct trace *t = trace_new();
	trace_device(t, 0, 132);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 0, 0, end);
	trace_blocks(t, 1, 0, 1, 32, 0, end);
	trace_blocks(t, 1, 0, 1, 20, r - 1000, end);
	trace_blocks(t, 1, 0, 1, 1, l + 1000, end);
	if (inside)
		trace_blocks(t, 1, 0, 1, 1, inside, end);
	trace_kernel(t, 1, 0, 2, 2, r, r + 25000, l + 4000);
	trace_blocks(t, 1, 0, 2, 1, r + 25000, l + 4000);
	trace_blocks(t, 1, 0, 2, 1, l, l + 4000);
	struct analysis *a;
	if (packed) {
		a = analysis_new(NULL);
		feed_records(t, a);
		for (size_t i = 0; i < t->n_blocks; i++) {
			const struct trace_block *x = &t->blocks[i];
			cr_assert_eq(analysis_add_block(a, x->pid, x->context_id, &x->b), 0);
		}
		analysis_compact(a);
		struct analysis_memory mem;
		analysis_memory(a, &mem);
		cr_assert_gt(mem.packed, 0);
		cr_assert_eq(mem.profiles, 0);
		cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	} else {
		a = run_all(t, 0);
	}
	trace_free(t);
	return a;
}

ParameterizedTestParameters(analysis, profiled_culprit_dispatch_from_recorded_starts)
{
	static int packed[] = { 0, 1 };
	return cr_make_param_array(int, packed, 2);
}

ParameterizedTest(int *packed, analysis, profiled_culprit_dispatch_from_recorded_starts)
{
	const uint64_t r = 10 * 32768 + 2000;
	struct analysis *a = binned_starts(0, *packed);
	cr_assert_eq(analysis_event_count(a), 1);
	cr_expect_eq(analysis_event(a, 0)->wait_ns, 25000);
	cr_expect_eq(analysis_event(a, 0)->kind, SMTOP_EV_INVERSION_RESIDENT,
		     "no culprit block started between ready and the victim's last start: %s",
		     analysis_kind_name(analysis_event(a, 0)->kind));
	analysis_free(a);
	a = binned_starts(r + 10000, *packed);
	cr_assert_eq(analysis_event_count(a), 1);
	cr_expect_eq(analysis_event(a, 0)->kind, SMTOP_EV_INVERSION_DISPATCH,
		     "a culprit block started at ready + 10 us: %s",
		     analysis_kind_name(analysis_event(a, 0)->kind));
	analysis_free(a);
}

/* ---- time-slicing ---- */

#define GAP ANALYSIS_SLICE_GAP_NS

/* Two processes take turns on a 4-SM device.  Process 2 (priority 0) runs
 * 100 us waves of grid 1 in its slices [0, 2000 us] and [4400, 6400 us);
 * the wave it starts at 2000 us is preempted at once and ends only after
 * the process resumes.  Process 1 (priority -5) submits grid 2 at 1000 us;
 * it runs in process 1's slice from 2000 us + switch_gap.  same_pid puts
 * both in process 1 on two streams. */
static void slices(struct trace *t, uint64_t switch_gap, int same_pid)
{
	const uint64_t us = 1000, p2 = same_pid ? 1 : 2;
	trace_device(t, 0, 4);
	trace_stream(t, (uint32_t)p2, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, (uint32_t)p2, 0, 1, 1, 0, 0, 6400 * us);
	for (uint64_t w = 0; w < 20; w++)
		trace_blocks(t, (uint32_t)p2, 0, 1, 4, w * 100 * us, (w + 1) * 100 * us);
	/* Started at 2000 us, preempted, resumed at 4400 us. */
	trace_blocks(t, (uint32_t)p2, 0, 1, 4, 2000 * us, 4450 * us);
	for (uint64_t w = 0; w < 19; w++)
		trace_blocks(t, (uint32_t)p2, 0, 1, 4, 4500 * us + w * 100 * us,
			     4600 * us + w * 100 * us);
	uint64_t v0 = 2000 * us + switch_gap;
	trace_kernel(t, 1, 0, 2, 2, 1000 * us, v0, v0 + 300 * us);
	for (uint64_t w = 0; w < 3; w++)
		trace_blocks(t, 1, 0, 2, 4, v0 + w * 100 * us, v0 + (w + 1) * 100 * us);
}

/* The same load shared the MPS way: process 2's blocks keep starting and
 * ending on SMs 2-3 while process 1's victim runs on SMs 0-1 as soon as
 * process 2's blocks there end. */
static void shared(struct trace *t)
{
	const uint64_t us = 1000;
	trace_device(t, 0, 4);
	trace_stream(t, 2, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 2, 0, 1, 1, 0, 0, 4000 * us);
	for (uint64_t w = 0; w < 40; w++) {
		/* SMs 0-1 busy until 2000 us, SMs 2-3 all along, 7 us apart. */
		if (w < 20)
			trace_blocks(t, 2, 0, 1, 2, w * 100 * us, (w + 1) * 100 * us);
		trace_blocks(t, 2, 0, 1, 4, w * 100 * us + 7 * us, (w + 1) * 100 * us + 7 * us);
	}
	trace_kernel(t, 1, 0, 2, 2, 1000 * us, 2000 * us, 2300 * us);
	for (uint64_t w = 0; w < 3; w++)
		trace_blocks(t, 1, 0, 2, 2, 2000 * us + w * 100 * us, 2000 * us + (w + 1) * 100 * us);
}

static const struct smtop_event *only_event(struct analysis *a)
{
	cr_assert_eq(analysis_event_count(a), 1, "%zu events", analysis_event_count(a));
	return analysis_event(a, 0);
}

Test(analysis, timeslice_from_alternating_slices)
{
	struct trace *t = trace_new();
	slices(t, 200000, 0);
	struct analysis *a = run_all(t, 0);
	const struct smtop_event *e = only_event(a);
	/* The preempted wave [2000, 4450 us) is open across the victim's run. */
	cr_expect_eq(e->kind, SMTOP_EV_TIMESLICE, "kind %s", analysis_kind_name(e->kind));
	cr_expect_eq(e->wait_ns, 1200000);
	cr_expect_eq(e->culprits[0].pid, 2);
	cr_expect_eq(e->from_blocks, 1);
	struct analysis *inc = analysis_new(NULL);
	trace_feed_pieces(t, inc, 7, 3);
	char why[128] = "";
	cr_expect_eq(trace_compare(a, inc, why, sizeof why), 0, "%s", why);
	analysis_free(inc);
	analysis_free(a);
	trace_free(t);
}

/* The switch gap at the rule's edge: events exactly GAP apart are separate
 * slices, one ns closer they are shared work. */
Test(analysis, timeslice_gap_edge)
{
	struct trace *t = trace_new();
	slices(t, GAP, 0);
	struct analysis *a = run_all(t, 0);
	cr_expect_eq(only_event(a)->kind, SMTOP_EV_TIMESLICE, "%s",
		     analysis_kind_name(only_event(a)->kind));
	analysis_free(a);
	trace_free(t);
	t = trace_new();
	slices(t, GAP - 1, 0);
	a = run_all(t, 0);
	cr_expect_eq(only_event(a)->kind, SMTOP_EV_INVERSION_DISPATCH, "%s",
		     analysis_kind_name(only_event(a)->kind));
	analysis_free(a);
	trace_free(t);
}

/* Process 2's slice holds the device while process 1's victim waits, but its
 * blocks, started in an earlier slice, neither start nor end in it (long
 * blocks resumed): process 2 stamps no event near the victim's wait, which
 * is time-slicing all the same.  Process 1 runs grid 2 in [1200, 1500 us)
 * (submitted then), submits grid 3 at 1510 us, and runs it in its next slice
 * from 4100 us; process 2's four blocks are open across [100, 6000 us). */
static void silent_slice(struct trace *t)
{
	const uint64_t us = 1000;
	trace_device(t, 0, 4);
	trace_stream(t, 2, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 2, 0, 1, 1, 0, 100 * us, 6000 * us);
	trace_blocks(t, 2, 0, 1, 4, 100 * us, 6000 * us);
	trace_kernel(t, 1, 0, 2, 2, 1200 * us, 1200 * us, 1500 * us);
	trace_blocks(t, 1, 0, 2, 4, 1200 * us, 1500 * us);
	trace_kernel(t, 1, 0, 2, 3, 1510 * us, 4100 * us, 4400 * us);
	trace_blocks(t, 1, 0, 3, 4, 4100 * us, 4400 * us);
}

Test(analysis, timeslice_through_a_silent_slice)
{
	struct trace *t = trace_new();
	silent_slice(t);
	struct analysis *a = run_all(t, 0);
	const struct smtop_event *e = only_event(a);
	cr_expect_eq(e->kind, SMTOP_EV_TIMESLICE, "kind %s", analysis_kind_name(e->kind));
	cr_expect_eq(e->wait_ns, 2590000);
	cr_expect_eq(e->culprits[0].pid, 2);
	analysis_free(a);
	trace_free(t);
}

/* A victim without block records (process 1's grid 3, a kernel the block
 * tracer does not mark, run over [1100, 1300 us)) behind process 2's grid
 * 1, whose blocks stay open across the victim's run (preempted: [100,
 * 2000 us)).  The kernel intervals overlap; the block events do not come
 * inside the victim's run, so it ran in a slice of its own.  With `shared`,
 * process 2 starts and ends blocks of grid 5 inside that run: the two
 * processes shared the device. */
static void unblocked_victim(struct trace *t, int shared)
{
	const uint64_t us = 1000;
	trace_device(t, 0, 4);
	trace_stream(t, 2, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 2, 0, 1, 1, 0, 100 * us, 2000 * us);
	trace_blocks(t, 2, 0, 1, 4, 100 * us, 2000 * us);
	trace_kernel(t, 1, 0, 2, 3, 150 * us, 1100 * us, 1300 * us);
	if (shared) {
		trace_stream(t, 2, 0, 4, LO);
		trace_kernel(t, 2, 0, 4, 5, 1140 * us, 1150 * us, 1160 * us);
		trace_blocks(t, 2, 0, 5, 4, 1150 * us, 1160 * us);
	}
}

Test(analysis, timeslice_of_a_victim_without_blocks)
{
	struct trace *t = trace_new();
	unblocked_victim(t, 0);
	struct analysis *a = run_all(t, 0);
	const struct smtop_event *e = only_event(a);
	cr_expect_eq(e->kind, SMTOP_EV_TIMESLICE, "kind %s", analysis_kind_name(e->kind));
	cr_expect_eq(e->wait_ns, 950000);
	cr_expect_eq(e->culprits[0].pid, 2);
	analysis_free(a);
	trace_free(t);
}

Test(analysis, victim_without_blocks_on_a_shared_device)
{
	struct trace *t = trace_new();
	unblocked_victim(t, 1);
	struct analysis *a = run_all(t, 0);
	const struct smtop_event *e = only_event(a);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT, "kind %s", analysis_kind_name(e->kind));
	analysis_free(a);
	trace_free(t);
}

Test(analysis, shared_device_is_not_timeslice)
{
	struct trace *t = trace_new();
	shared(t);
	struct analysis *a = run_all(t, 0);
	const struct smtop_event *e = only_event(a);
	/* Process 2 keeps dispatching on SMs 2-3 while the victim waits. */
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_DISPATCH, "kind %s", analysis_kind_name(e->kind));
	cr_expect_eq(e->wait_ns, 1000000);
	analysis_free(a);
	trace_free(t);
}

Test(analysis, same_process_slices_are_not_timeslice)
{
	struct trace *t = trace_new();
	slices(t, 200000, 1);
	struct analysis *a = run_all(t, 0);
	cr_expect_eq(only_event(a)->kind, SMTOP_EV_INVERSION_DISPATCH, "%s",
		     analysis_kind_name(only_event(a)->kind));
	analysis_free(a);
	trace_free(t);
}

/* Live: a block of the other process that starts during the victim's run
 * belongs to a kernel still running at the watermark, so it is not in yet;
 * the verdict waits for it instead of calling the episode time-slicing. */
Test(analysis, timeslice_verdict_waits_for_running_kernels)
{
	const uint64_t us = 1000;
	struct trace *t = trace_new();
	slices(t, 200000, 0);
	struct smtop_kernel *late = trace_kernel(t, 2, 0, 3, 3, 2305 * us, 2305 * us, 9000 * us);
	trace_stream(t, 2, 0, 3, LO);
	trace_blocks(t, 2, 0, 3, 1, 2305 * us, 9000 * us);
	struct analysis *whole = run_all(t, 0);
	cr_expect_eq(only_event(whole)->kind, SMTOP_EV_INVERSION_DISPATCH, "%s",
		     analysis_kind_name(only_event(whole)->kind));

	struct analysis *a = analysis_new(NULL);
	for (size_t i = 0; i < t->n_streams; i++)
		analysis_add_stream(a, &t->streams[i]);
	analysis_add_device(a, &t->devices[0]);
	struct smtop_kernel running = *late;
	running.end = 0;
	for (size_t i = 0; i < t->n_kernels; i++)
		analysis_add_kernel(a, t->kernels[i].grid_id == 3 ? &running : &t->kernels[i]);
	for (size_t i = 0; i < t->n_blocks; i++)
		if (t->blocks[i].b.grid_id != 3)
			analysis_add_block(a, t->blocks[i].pid, 1, &t->blocks[i].b);
	cr_assert_eq(analysis_update(a, 8000 * us), 0);
	cr_expect_eq(analysis_event_count(a), 0, "decided before the running kernel's blocks came");
	analysis_add_kernel(a, late);
	for (size_t i = 0; i < t->n_blocks; i++)
		if (t->blocks[i].b.grid_id == 3)
			analysis_add_block(a, t->blocks[i].pid, 1, &t->blocks[i].b);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	char why[128] = "";
	cr_expect_eq(trace_compare(whole, a, why, sizeof why), 0, "%s", why);
	analysis_free(a);
	analysis_free(whole);
	trace_free(t);
}

/* Recorded sessions read straight into an analysis; split gives each
 * stream a process of its own, which is what the same work looks like
 * under MPS (blocks of both share the SMs). */
/* contexts: FX_NO_CONTEXTS leaves them out, FX_CONTEXTS feeds them as
 * stored, FX_GREEN makes every context but the first green. */
enum { FX_NO_CONTEXTS, FX_CONTEXTS, FX_GREEN };

struct fixture_feed {
	struct analysis *a;
	struct smtop_kernel *k;
	size_t n, cap, last;
	int split, contexts;
};

static uint32_t split_pid(uint32_t pid, uint32_t stream)
{
	return pid * 1000u + stream;
}

static int fx_kernel(void *ud, const struct smtop_kernel *k)
{
	struct fixture_feed *f = ud;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->k = realloc(f->k, f->cap * sizeof *f->k);
		cr_assert_not_null(f->k);
	}
	f->k[f->n] = *k;
	if (f->split)
		f->k[f->n].pid = split_pid(k->pid, k->stream_id);
	return analysis_add_kernel(f->a, &f->k[f->n++]);
}

static int fx_stream(void *ud, const struct smtop_stream *s)
{
	struct fixture_feed *f = ud;
	struct smtop_stream c = *s;
	if (f->split)
		c.pid = split_pid(s->pid, s->stream_id);
	return analysis_add_stream(f->a, &c);
}

static int fx_context(void *ud, const struct smtop_context *c)
{
	struct fixture_feed *f = ud;
	struct smtop_context g = *c;
	if (f->contexts == FX_GREEN && c->context_id != 1)
		g.is_green = 1;
	return analysis_add_context(f->a, &g);
}

static int fx_is_kernel(const struct smtop_kernel *k, const struct smtop_block *b, uint32_t pid,
			uint32_t ctx)
{
	return k->grid_id == b->grid_id && k->context_id == ctx &&
	       k->pid == split_pid(pid, k->stream_id);
}

static int fx_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct fixture_feed *f = ud;
	uint32_t p = pid;
	/* Blocks come in runs of one grid: try the last kernel found first. */
	if (f->split && f->n && !fx_is_kernel(&f->k[f->last], b, pid, ctx))
		for (size_t i = 0; i < f->n; i++)
			if (fx_is_kernel(&f->k[i], b, pid, ctx)) {
				f->last = i;
				break;
			}
	if (f->split && f->n && fx_is_kernel(&f->k[f->last], b, pid, ctx))
		p = f->k[f->last].pid;
	return analysis_add_block(f->a, p, ctx, b);
}

static struct analysis *fixture_analysis_with(const char *name, int split, int contexts,
					       struct db_reader **rd)
{
	char path[256], err[256];
	snprintf(path, sizeof path, "tests/fixtures/%s.smtop", name);
	cr_assert_eq(db_reader_open(rd, path, err, sizeof err), 0, "%s", err);
	struct db_session_info info;
	cr_assert_eq(db_reader_info(*rd, &info), 0);
	struct fixture_feed f = { analysis_new(NULL), NULL, 0, 0, 0, split, contexts };
	cr_assert_not_null(f.a);
	for (size_t i = 0; i < info.n_devices; i++)
		analysis_add_device(f.a, &info.devices[i]);
	int64_t km = 0, bm = 0;
	if (contexts != FX_NO_CONTEXTS)
		cr_assert_eq(db_reader_contexts(*rd, fx_context, &f), 0);
	cr_assert_eq(db_reader_streams(*rd, fx_stream, &f), 0);
	cr_assert_eq(db_reader_new_kernels(*rd, &km, fx_kernel, &f), 0);
	cr_assert_eq(db_reader_new_blocks(*rd, &bm, fx_block, &f), 0);
	cr_assert_eq(analysis_update(f.a, ANALYSIS_WATERMARK_ALL), 0);
	free(f.k);
	return f.a;
}

static struct analysis *fixture_analysis(const char *name, int split, struct db_reader **rd)
{
	return fixture_analysis_with(name, split, FX_NO_CONTEXTS, rd);
}

static size_t count_kind(const struct analysis *a, enum smtop_event_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < analysis_event_count(a); i++)
		n += analysis_event(a, i)->kind == k;
	return n;
}

Test(analysis, recorded_timeslice_is_timeslice)
{
	struct db_reader *rd;
	struct analysis *a = fixture_analysis("timeslice", 0, &rd);
	size_t n = analysis_event_count(a);
	cr_expect_gt(n, 0);
	cr_expect_eq(count_kind(a, SMTOP_EV_TIMESLICE), n, "%zu of %zu episodes are timeslice",
		     count_kind(a, SMTOP_EV_TIMESLICE), n);
	analysis_free(a);
	db_reader_close(rd);
}

/* The timeslice demo under --sm all, 10 ms around a wait through a training
 * slice that started and ended no block: every episode judged from blocks
 * whose culprits are all in the other process is time-slicing. */
Test(analysis, recorded_sm_all_timeslice_is_timeslice)
{
	struct db_reader *rd;
	struct analysis *a = fixture_analysis("timeslice-sm-all", 0, &rd);
	size_t across = 0, sliced = 0;
	for (size_t i = 0; i < analysis_event_count(a); i++) {
		const struct smtop_event *e = analysis_event(a, i);
		int other = e->from_blocks && e->n_culprits > 0;
		for (size_t j = 0; other && j < e->n_culprits; j++)
			other = e->culprits[j].pid != e->pid;
		across += (size_t)other;
		sliced += (size_t)(other && e->kind == SMTOP_EV_TIMESLICE);
	}
	cr_expect_eq(across, 3, "%zu waits behind the other process", across);
	cr_expect_eq(sliced, across, "%zu of %zu are timeslice", sliced, across);
	analysis_free(a);
	db_reader_close(rd);
}

/* One-process sessions with their streams made processes: shared SMs, so
 * every episode keeps its kind and none is time-slicing. */
Test(analysis, recorded_concurrency_as_processes_is_not_timeslice)
{
	static const char *const names[] = { "priority-vs-training", "equal-priority",
					     "head-of-line" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct db_reader *r1, *r2;
		struct analysis *one = fixture_analysis(names[i], 0, &r1);
		struct analysis *many = fixture_analysis(names[i], 1, &r2);
		cr_expect_gt(analysis_event_count(one), 0, "%s", names[i]);
		cr_expect_eq(analysis_event_count(many), analysis_event_count(one), "%s", names[i]);
		cr_expect_eq(count_kind(many, SMTOP_EV_TIMESLICE), 0, "%s: %zu timeslice", names[i],
			     count_kind(many, SMTOP_EV_TIMESLICE));
		for (size_t k = 0; k < analysis_event_count(one) && k < analysis_event_count(many); k++)
			cr_expect_eq(analysis_event(many, k)->kind, analysis_event(one, k)->kind,
				     "%s episode %zu", names[i], k);
		analysis_free(one);
		analysis_free(many);
		db_reader_close(r1);
		db_reader_close(r2);
	}
}

/* ---- ready time bounds (docs/analysis.md, "ready time") ---- */

/* A low-priority culprit (grid 1, stream 1) fills the 4 SMs over
 * [1000, 101000); on stream 2 a high-priority kernel (grid 2, correlation
 * id 2) ends at 5000 and grid 4 (correlation id 4) gets its first block at
 * 101000.  Grid 4's submitted time is `sub` (0: none).  The caller adds what
 * else bounds grid 4 before analysis_update. */
static void bounded_victim_trace(struct trace *t, uint64_t sub)
{
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 1500, 2000, 5000);
	trace_kernel(t, 1, 0, 2, 4, sub, 101000, 111000);
	trace_blocks(t, 1, 0, 1, 4, 1000, 101000);
	trace_blocks(t, 1, 0, 2, 4, 2000, 5000);
	trace_blocks(t, 1, 0, 4, 4, 101000, 111000);
}

/* t's streams, device, kernels and blocks in an analysis not updated yet. */
static struct analysis *analysis_of(const struct trace *t)
{
	struct analysis *a = analysis_new(NULL);
	cr_assert_not_null(a);
	for (size_t i = 0; i < t->n_streams; i++)
		analysis_add_stream(a, &t->streams[i]);
	analysis_add_device(a, &t->devices[0]);
	for (size_t i = 0; i < t->n_kernels; i++)
		analysis_add_kernel(a, &t->kernels[i]);
	for (size_t i = 0; i < t->n_blocks; i++)
		analysis_add_block(a, t->blocks[i].pid, t->blocks[i].context_id, &t->blocks[i].b);
	return a;
}

static struct analysis *bounded_victim(struct trace *t, uint64_t sub)
{
	bounded_victim_trace(t, sub);
	return analysis_of(t);
}

/* bounded_victim's trace, after `edit` changed its records. */
static struct analysis *bounded_victim_edited(struct trace *t, void (*edit)(struct trace *t))
{
	bounded_victim_trace(t, 0);
	edit(t);
	return analysis_of(t);
}

/* grid 4 is call 8: room for calls 5 to 7 before it */
static void victim_called_later(struct trace *t)
{
	t->kernels[2].correlation_id = 8;
}

static const struct smtop_event *sole_event(struct analysis *a)
{
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_assert_eq(analysis_event_count(a), 1);
	return analysis_event(a, 0);
}

static struct smtop_memcpy copy_on(uint32_t stream, uint32_t corr, uint64_t start, uint64_t end)
{
	return (struct smtop_memcpy){ .start = start, .end = end, .pid = 1, .device_id = 0,
				      .context_id = 1, .stream_id = stream,
				      .correlation_id = corr, .bytes = 4096 };
}

static struct smtop_sync wait_on(uint32_t stream, uint32_t corr, uint64_t end, int32_t type)
{
	return (struct smtop_sync){ .start = end - 1000, .end = end, .pid = 1, .context_id = 1,
				    .stream_id = stream, .correlation_id = corr, .type = type };
}

static struct smtop_api launch_of(uint32_t corr, uint64_t end, const char *name)
{
	return (struct smtop_api){ .start = end - 2000, .end = end, .pid = 1, .tid = 7,
				   .correlation_id = corr, .name = name };
}

Test(ready, previous_kernel_sets_it_without_other_bounds)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 5000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_AFTER_KERNEL);
	cr_expect_eq(e->ready_correlation_id, 2);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "stream_order");
	cr_expect_str_eq(analysis_bound_op(e->ready_bound), "kernel");
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	analysis_free(a);
	trace_free(t);
}

Test(ready, copy_and_memset_are_stream_order)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	/* a copy after grid 2, then a memset; a copy of another stream and one
	 * of the same stream id in another context bound nothing */
	struct smtop_memcpy c = copy_on(2, 3, 6000, 40000), other = copy_on(1, 9, 6000, 90000);
	struct smtop_memcpy ctx2 = copy_on(2, 10, 7000, 95000);
	ctx2.context_id = 2;
	struct smtop_memset m = { .start = 41000, .end = 60000, .pid = 1, .device_id = 0,
				  .context_id = 1, .stream_id = 2, .correlation_id = 3 };
	cr_assert_eq(analysis_add_memcpy(a, &c), 0);
	cr_assert_eq(analysis_add_memcpy(a, &other), 0);
	cr_assert_eq(analysis_add_memcpy(a, &ctx2), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 40000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_AFTER_MEMCPY);
	cr_expect_eq(e->wait_ns, 101000 - 40000);
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	a = bounded_victim(t, 0);
	cr_assert_eq(analysis_add_memcpy(a, &c), 0);
	cr_assert_eq(analysis_add_memset(a, &m), 0);
	e = sole_event(a);
	cr_expect_eq(e->ready, 60000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_AFTER_MEMSET);
	cr_expect_str_eq(analysis_bound_op(e->ready_bound), "memset");
	analysis_free(a);
	trace_free(t);
}

Test(ready, event_wait_holds_back_the_next_operation)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	/* called between grid 2 (correlation 2) and grid 4 (correlation 4) */
	struct smtop_sync w = wait_on(2, 3, 70000, ANALYSIS_SYNC_STREAM_WAIT_EVENT);
	/* a stream synchronize is the host waiting: no bound */
	struct smtop_sync s = wait_on(2, 3, 80000, 3);
	/* a wait before grid 2 was grid 2's to wait for */
	struct smtop_sync early = wait_on(2, 1, 90000, ANALYSIS_SYNC_STREAM_WAIT_EVENT);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	cr_assert_eq(analysis_add_sync(a, &s), 0);
	cr_assert_eq(analysis_add_sync(a, &early), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 70000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_EVENT_WAIT);
	cr_expect_eq(e->ready_correlation_id, 3);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "event_wait");
	analysis_free(a);
	trace_free(t);
}

/* A copy between the wait and the kernel took the wait: the kernel is
 * held back by the copy's end, not the wait's. */
Test(ready, event_wait_applies_to_the_first_operation_after_it)
{
	/* grid 4 gets correlation id 8: the wait is call 5, a copy call 6 */
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, victim_called_later);
	struct smtop_sync w = wait_on(2, 5, 70000, ANALYSIS_SYNC_STREAM_WAIT_EVENT);
	struct smtop_memcpy c = copy_on(2, 6, 6000, 20000);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	cr_assert_eq(analysis_add_memcpy(a, &c), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 20000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_AFTER_MEMCPY);
	analysis_free(a);
	trace_free(t);
}

Test(ready, launch_call_end_without_submitted)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	struct smtop_api l = launch_of(4, 50000, "cudaLaunchKernel_v7000");
	struct smtop_api other = launch_of(4, 95000, "cudaLaunchKernel");
	other.pid = 2; /* same correlation id in another process */
	struct smtop_api get = launch_of(4, 99000, "cudaGetDevice");
	get.pid = 3;
	cr_assert_eq(analysis_add_api(a, &l), 0);
	cr_assert_eq(analysis_add_api(a, &other), 0);
	cr_assert_eq(analysis_add_api(a, &get), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 50000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_LAUNCH_CALL);
	cr_expect_eq(e->ready_correlation_id, 4);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "launch_call");
	cr_expect_null(analysis_bound_op(e->ready_bound));
	analysis_free(a);
	trace_free(t);
}

/* CUPTI's submitted time, where recorded, is the host's bound; the launch
 * call is not read then. */
Test(ready, submitted_before_launch_call)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 30000);
	struct smtop_api l = launch_of(4, 50000, "cudaLaunchKernel");
	cr_assert_eq(analysis_add_api(a, &l), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 30000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_HOST_SUBMIT);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "host_submit");
	analysis_free(a);
	trace_free(t);
}

/* A wait that the host or a dependency explains is no episode: with ready
 * moved to the bound, 5 us are left. */
Test(ready, explained_wait_is_no_episode)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	struct smtop_api l = launch_of(4, 96000, "cuLaunchKernel");
	cr_assert_eq(analysis_add_api(a, &l), 0);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	struct analysis_stream_summary s;
	for (size_t i = 0; i < analysis_stream_count(a); i++) {
		cr_assert_eq(analysis_stream_summary(a, i, &s), 0);
		if (s.stream_id == 2)
			cr_expect_eq(s.wait.max, 101000 - 96000);
	}
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	a = bounded_victim(t, 0);
	struct smtop_sync w = wait_on(2, 3, 100000, ANALYSIS_SYNC_STREAM_WAIT_EVENT);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	analysis_free(a);
	trace_free(t);
}

/* A time-sliced context: process 2's kernel (grid 1) holds the 4 SMs over
 * [1000, 101000); process 1's grid 4 is launched at 2000 but CUPTI's
 * submitted time is 140500, when its slice came after a context switch;
 * its first block 141000.  Grid 1 is of process `culprit_pid`. */
static struct analysis *sliced_victim(struct trace *t, uint32_t culprit_pid)
{
	trace_device(t, 0, 4);
	trace_stream(t, culprit_pid, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, culprit_pid, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 4, 140500, 141000, 151000);
	trace_blocks(t, culprit_pid, 0, 1, 4, 1000, 101000);
	trace_blocks(t, 1, 0, 4, 4, 141000, 151000);
	struct analysis *a = analysis_of(t);
	struct smtop_api l = launch_of(4, 2000, "cudaLaunchKernel");
	cr_assert_eq(analysis_add_api(a, &l), 0);
	return a;
}

/* The slice is the wait: submitted came only when process 2's slice ended,
 * so grid 4 is ready when its launch call returned. */
Test(ready, submitted_after_another_process_slice)
{
	struct trace *t = trace_new();
	struct analysis *a = sliced_victim(t, 2);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->kind, SMTOP_EV_TIMESLICE, "kind %s", analysis_kind_name(e->kind));
	cr_expect_eq(e->ready, 2000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_LAUNCH_CALL);
	cr_expect_eq(e->wait_ns, 139000);
	cr_expect_eq(e->culprits[0].pid, 2);
	analysis_free(a);
	trace_free(t);
}

/* The same gap with the victim's own process on the GPU is no slice: its
 * context was running, so submitted stays the bound and 500 ns are left. */
Test(ready, submitted_after_own_process_work_stays)
{
	struct trace *t = trace_new();
	struct analysis *a = sliced_victim(t, 1);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	analysis_free(a);
	trace_free(t);
}

/* Live: a kernel not started yet is held back by the copy queued before it
 * on its stream, as a provisional episode says. */
Test(ready, copy_before_a_kernel_not_started_yet)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	analysis_free(a);
	a = analysis_new(NULL);
	for (size_t i = 0; i < t->n_streams; i++)
		analysis_add_stream(a, &t->streams[i]);
	analysis_add_device(a, &t->devices[0]);
	struct smtop_kernel c = t->kernels[0], v = t->kernels[2];
	c.end = 0;
	v.start = v.end = 0;
	analysis_add_kernel(a, &c);
	analysis_add_kernel(a, &t->kernels[1]);
	analysis_add_kernel(a, &v);
	for (size_t i = 0; i < t->n_blocks; i++)
		if (t->blocks[i].b.grid_id != 4 && t->blocks[i].b.end <= 60000)
			analysis_add_block(a, 1, 1, &t->blocks[i].b);
	struct smtop_memcpy m = copy_on(2, 3, 6000, 30000);
	cr_assert_eq(analysis_add_memcpy(a, &m), 0);
	cr_assert_eq(analysis_update(a, 60000), 0);
	cr_assert_eq(analysis_provisional_count(a), 1);
	const struct smtop_event *p = analysis_provisional(a, 0);
	cr_expect_eq(p->start, 0);
	cr_expect_eq(p->ready, 30000);
	cr_expect_eq(p->ready_bound, SMTOP_READY_AFTER_MEMCPY);
	cr_expect_eq(p->wait_ns, 60000 - 30000);
	analysis_free(a);
	trace_free(t);
}

static struct smtop_cuda_event record_on(uint32_t stream, uint32_t corr, uint32_t event,
					 uint64_t device_ts)
{
	return (struct smtop_cuda_event){ .device_ts = device_ts, .sync_id = SMTOP_SYNC_NONE,
					  .pid = 1, .device_id = 0, .context_id = 1,
					  .stream_id = stream, .correlation_id = corr,
					  .event_id = event };
}

static struct smtop_sync wait_for(uint32_t stream, uint32_t corr, uint64_t end, uint32_t event)
{
	struct smtop_sync w = wait_on(stream, corr, end, ANALYSIS_SYNC_STREAM_WAIT_EVENT);
	w.event_id = event;
	return w;
}

/* Stream 2 waits (call 6) on event 7, recorded on stream 1 at call 5; the
 * whole session analysed. */
static void wait_on_recorded_event(struct analysis *a)
{
	struct smtop_cuda_event r = record_on(1, 5, 7, 0);
	struct smtop_sync w = wait_for(2, 6, 7000, 7);
	cr_assert_eq(analysis_add_cuda_event(a, &r), 0);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
}

/* PyTorch's wait_stream: stream 2 waits on an event recorded on stream 1
 * after grid 1, so grid 4 waited for grid 1 itself, not for the SMs. */
Test(ready, event_wait_waits_for_the_recorded_work)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, victim_called_later);
	wait_on_recorded_event(a);
	cr_expect_eq(analysis_event_count(a), 0);
	analysis_free(a);
	trace_free(t);

	/* a wait on another event: only the wait call bounds it */
	t = trace_new();
	a = bounded_victim_edited(t, victim_called_later);
	struct smtop_cuda_event r = record_on(1, 5, 7, 0);
	struct smtop_sync w = wait_for(2, 6, 7000, 9);
	cr_assert_eq(analysis_add_cuda_event(a, &r), 0);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 7000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_EVENT_WAIT);
	cr_expect_null(analysis_bound_op(e->ready_bound));
	analysis_free(a);
	trace_free(t);
}

/* The event's last record before the wait counts; one recorded after the
 * wait was called is the next wait's. */
Test(ready, event_wait_reads_the_record_before_it)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, victim_called_later);
	/* recorded on stream 3 (nothing ran there) at call 5, on stream 1
	 * after the wait (call 7): the GPU reached it at 60000 */
	struct smtop_cuda_event r = record_on(3, 5, 7, 60000), later = record_on(1, 7, 7, 0);
	struct smtop_sync w = wait_for(2, 6, 7000, 7);
	cr_assert_eq(analysis_add_cuda_event(a, &later), 0);
	cr_assert_eq(analysis_add_cuda_event(a, &r), 0);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 60000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_EVENT_DEVICE);
	cr_expect_eq(e->ready_correlation_id, 5);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "event_wait");
	cr_expect_str_eq(analysis_bound_op(e->ready_bound), "event");
	analysis_free(a);
	trace_free(t);
}

/* A copy queued before the record on the recording stream is what the
 * wait waited for. */
Test(ready, event_wait_after_a_copy_names_the_copy)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, victim_called_later);
	struct smtop_memcpy c = copy_on(3, 3, 6000, 80000);
	struct smtop_cuda_event r = record_on(3, 5, 7, 0);
	struct smtop_sync w = wait_for(2, 6, 7000, 7);
	cr_assert_eq(analysis_add_memcpy(a, &c), 0);
	cr_assert_eq(analysis_add_cuda_event(a, &r), 0);
	cr_assert_eq(analysis_add_sync(a, &w), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 80000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_EVENT_MEMCPY);
	cr_expect_eq(e->ready_correlation_id, 3);
	cr_expect_str_eq(analysis_bound_op(e->ready_bound), "memcpy");
	analysis_free(a);
	trace_free(t);
}

static void stream1_legacy_stream2_blocking(struct trace *t)
{
	t->streams[0].flags = ANALYSIS_STREAM_LEGACY;
	t->streams[1].flags = ANALYSIS_STREAM_BLOCKING;
}

static void stream1_blocking_stream2_legacy(struct trace *t)
{
	t->streams[0].flags = ANALYSIS_STREAM_BLOCKING;
	t->streams[1].flags = ANALYSIS_STREAM_LEGACY;
}

static void stream1_legacy_stream2_nonblocking(struct trace *t)
{
	t->streams[0].flags = ANALYSIS_STREAM_LEGACY;
	t->streams[1].flags = 2; /* CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING */
}

/* The legacy default stream and a blocking stream wait for each other's
 * earlier work: grid 4 waited for grid 1 whichever of them holds it.  A
 * non-blocking stream does not wait. */
Test(ready, legacy_default_stream_synchronizes)
{
	void (*synced[])(struct trace *) = { stream1_legacy_stream2_blocking,
					     stream1_blocking_stream2_legacy };
	for (size_t i = 0; i < 2; i++) {
		struct trace *t = trace_new();
		struct analysis *a = bounded_victim_edited(t, synced[i]);
		cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
		cr_expect_eq(analysis_event_count(a), 0, "case %zu", i);
		analysis_free(a);
		trace_free(t);
	}
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, stream1_legacy_stream2_nonblocking);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 5000);
	analysis_free(a);
	trace_free(t);
}

/* Stream 1 non-blocking, stream 2 legacy, and a blocking stream 3 whose
 * only work is a copy before grid 4's call, ending at 60000. */
static void legacy_waits_for_a_copy(struct trace *t)
{
	t->streams[0].flags = 2;
	t->streams[1].flags = ANALYSIS_STREAM_LEGACY;
	trace_stream(t, 1, 0, 3, LO);
	t->streams[2].flags = ANALYSIS_STREAM_BLOCKING;
}

/* The legacy stream's bound names the operation it waited for. */
Test(ready, legacy_bound_is_named)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, legacy_waits_for_a_copy);
	struct smtop_memcpy c = copy_on(3, 3, 6000, 60000);
	cr_assert_eq(analysis_add_memcpy(a, &c), 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 60000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_LEGACY_MEMCPY);
	cr_expect_eq(e->ready_correlation_id, 3);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "legacy_stream");
	cr_expect_str_eq(analysis_bound_op(e->ready_bound), "memcpy");
	char why[80];
	analysis_bound_brief(e, why, sizeof why);
	cr_expect_str_eq(why, "legacy sync: a memcpy ended (#3)");
	analysis_free(a);
	trace_free(t);
}

/* Stream 2's kernels come from a graph; grid 3, a node on another branch,
 * started first and ended at 90000, just before grid 4: it stands for the
 * dependency grid 4 waited for. */
static void graph_on_stream2(struct trace *t)
{
	for (size_t i = 0; i < t->n_kernels; i++)
		t->kernels[i].is_graph = t->kernels[i].stream_id == 2;
	struct smtop_kernel *k = trace_kernel(t, 1, 0, 2, 3, 0, 1700, 90000);
	k->is_graph = 1;
	k->correlation_id = 2;
	trace_blocks(t, 1, 0, 3, 1, 1700, 90000);
}

static void graph_on_stream2_not_marked(struct trace *t)
{
	graph_on_stream2(t);
	for (size_t i = 0; i < t->n_kernels; i++)
		t->kernels[i].is_graph = 0;
}

Test(ready, graph_kernel_waits_for_its_branch)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, graph_on_stream2);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	analysis_free(a);
	trace_free(t);

	/* the same without the graph: stream order alone leaves 96 us */
	t = trace_new();
	a = bounded_victim_edited(t, graph_on_stream2_not_marked);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 5000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_AFTER_KERNEL);
	analysis_free(a);
	trace_free(t);
}

/* One graph launch (correlation id 2) on stream 2: grid 2 (node 20, [2000,
 * 5000)) and grid 3 (node 30, another branch, [1700, 90000)) have no
 * dependency; grid 4 (node 40) depends on `dep` alone.  Graph order would
 * take grid 3's end for grid 4's ready time; the edges say what it was. */
static void graph_launch_on_stream2(struct trace *t)
{
	graph_on_stream2(t);
	for (size_t i = 0; i < t->n_kernels; i++) {
		struct smtop_kernel *k = &t->kernels[i];
		if (k->stream_id == 2) {
			k->correlation_id = 2;
			k->graph_node_id = 10 * k->grid_id;
		}
	}
}

static struct smtop_graph_dep edge(uint64_t node, int32_t type, uint64_t dep, int32_t dep_type)
{
	return (struct smtop_graph_dep){ node, dep, 1, type, dep ? dep_type : -1 };
}

/* The edges of the launch: roots 20 and 30, node 40 after `dep`, and the
 * passing node 36 (empty) after 20. */
static void add_graph_edges(struct analysis *a, uint64_t dep, int32_t dep_type)
{
	struct smtop_graph_dep d[] = {
		edge(20, 0, 0, 0), edge(30, 0, 0, 0), edge(40, 0, dep, dep_type),
		edge(36, 5, 20, 0), edge(35, 2, 0, 0),
	};
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		cr_assert_eq(analysis_add_graph_dep(a, &d[i]), 0);
}

/* Grid 4 depended on grid 2 only: ready at 5000, behind the low-priority
 * blocks resident since 1000 (graph order would say 90000: no wait). */
Test(ready, graph_edges_set_the_ready_time)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, graph_launch_on_stream2);
	add_graph_edges(a, 20, 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 5000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_GRAPH_EDGE_KERNEL);
	cr_expect_eq(e->ready_correlation_id, 2);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_str_eq(analysis_bound_name(e->ready_bound), "graph_edge");
	char why[80];
	analysis_bound_brief(e, why, sizeof why);
	cr_expect_str_eq(why, "the graph kernel it depends on ended (#2)");
	analysis_free(a);
	trace_free(t);

	/* without the edges, graph order */
	t = trace_new();
	a = bounded_victim_edited(t, graph_launch_on_stream2);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	analysis_free(a);
	trace_free(t);
}

/* graph_launch_on_stream2 with grid 4 after `dep`; memset_corr != 0 adds
 * node 35's memset [5500, 60000), of that correlation id, on memset_stream. */
static struct analysis *graph_launch_after(struct trace *t, uint64_t dep, int32_t dep_type,
					   uint32_t memset_stream, uint32_t memset_corr)
{
	struct analysis *a = bounded_victim_edited(t, graph_launch_on_stream2);
	add_graph_edges(a, dep, dep_type);
	if (memset_corr) {
		struct smtop_memset m = { .start = 5500, .end = 60000, .bytes = 64, .pid = 1, .context_id = 1,
					  .stream_id = memset_stream, .correlation_id = memset_corr,
					  .graph_node_id = 35 };
		cr_assert_eq(analysis_add_memset(a, &m), 0);
	}
	return a;
}

static size_t episodes_of(struct analysis *a)
{
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	return analysis_event_count(a);
}

/* An empty node passes its own dependency on; a memset node of the same
 * launch bounds by its end; a host node's end is not recorded, so the
 * edges fall back on graph order. */
Test(ready, graph_edges_through_other_nodes)
{
	struct trace *t = trace_new();
	struct analysis *a = graph_launch_after(t, 36, 5, 0, 0);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->ready, 5000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_GRAPH_EDGE_KERNEL);
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	a = graph_launch_after(t, 35, 2, 2, 2);
	e = sole_event(a);
	cr_expect_eq(e->ready, 60000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_GRAPH_EDGE_MEMSET);
	cr_expect_str_eq(analysis_bound_op(e->ready_bound), "memset");
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	a = graph_launch_after(t, 33, 3, 0, 0);
	cr_expect_eq(episodes_of(a), 0);
	analysis_free(a);
	trace_free(t);
}

/* A dependency of another launch of the same graph does not count: the
 * node's record must be of grid 4's own launch.  Unknown, so graph order
 * (90000): no episode; the other launch's memset (60000) would have left
 * one of 41 us. */
Test(ready, graph_edges_stay_within_a_launch)
{
	struct trace *t = trace_new();
	struct analysis *a = graph_launch_after(t, 35, 2, 3, 1);
	cr_expect_eq(episodes_of(a), 0);
	analysis_free(a);
	trace_free(t);
}

/* Grid 4 of a graph launch ran on a stream of the graph's own (stream 3,
 * priority 0 like the culprit's): launched into the priority -5 stream 2,
 * its wait is an inversion, not plain blocking. */
static void graph_kernel_on_its_own_stream(struct trace *t)
{
	trace_stream(t, 1, 0, 3, LO);
	struct smtop_kernel *k = &t->kernels[2];
	k->stream_id = 3;
	k->is_graph = 1;
	k->submitted = 5000; /* no stream order on a stream of its own */
}

Test(ready, graph_kernels_run_at_their_launch_streams_priority)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim_edited(t, graph_kernel_on_its_own_stream);
	const struct smtop_event *e = sole_event(a);
	cr_expect_eq(e->kind, SMTOP_EV_BLOCKING, "its own stream's priority: no inversion");
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	a = bounded_victim_edited(t, graph_kernel_on_its_own_stream);
	struct smtop_api launch = { .start = 100, .end = 200, .pid = 1, .tid = 1, .correlation_id = 4,
				    .name = "cudaGraphLaunch", .stream_id = 2, .has_stream = 1 };
	cr_assert_eq(analysis_add_api(a, &launch), 0);
	e = sole_event(a);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_eq(e->priority, HI);
	analysis_free(a);
	trace_free(t);
}

/* The unknown waits of stream `stream`, and the kernels left undecided. */
static size_t waits_unknown_on(struct analysis *a, uint32_t stream, size_t *pending)
{
	struct analysis_stream_summary s;
	struct analysis_totals tot;
	size_t unknown = 0;
	for (size_t i = 0; i < analysis_stream_count(a); i++) {
		cr_assert_eq(analysis_stream_summary(a, i, &s), 0);
		if (s.stream_id == stream)
			unknown = s.waits_unknown;
	}
	analysis_totals(a, &tot);
	*pending = tot.kernels_pending;
	return unknown;
}

/* A copy whose times are not known (--sm all) between grid 2 and grid 4:
 * grid 4 may have waited for it, so its wait is unknown, not blocking. */
Test(ready, untimed_copy_makes_the_wait_unknown)
{
	struct trace *t = trace_new();
	struct analysis *a = bounded_victim(t, 0);
	struct smtop_memcpy c = copy_on(2, 3, 0, 0), before = copy_on(2, 1, 0, 0);
	cr_assert_eq(analysis_add_memcpy(a, &before), 0); /* before grid 2: grid 2's */
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 1);
	analysis_free(a);
	trace_free(t);

	t = trace_new();
	a = bounded_victim(t, 0);
	cr_assert_eq(analysis_add_memcpy(a, &c), 0);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	size_t pending;
	cr_expect_eq(waits_unknown_on(a, 2, &pending), 1);
	analysis_free(a);
	trace_free(t);
}

/* A launch called between grid 2 and grid 4 that never started (--sm
 * entry dropped its blocks): grid 4 may have waited for it, so its wait is
 * unknown, not an inversion from grid 2's end.  Grid 4 started, so grid 3
 * never will (it would have started first): grid 4 is decided at once, and
 * grid 3 waits until the session is whole. */
Test(ready, kernel_that_never_started_makes_the_next_wait_unknown)
{
	struct trace *t = trace_new();
	bounded_victim_trace(t, 0);
	trace_kernel(t, 1, 0, 2, 3, 0, 0, 0);
	struct analysis *a = analysis_of(t);
	size_t pending;
	cr_assert_eq(analysis_update(a, 200000), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	cr_expect_eq(waits_unknown_on(a, 2, &pending), 1);
	cr_expect_eq(pending, 1);
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	cr_expect_eq(analysis_event_count(a), 0);
	cr_expect_eq(waits_unknown_on(a, 2, &pending), 2);
	cr_expect_eq(pending, 0);
	analysis_free(a);
	trace_free(t);
}

/* Stream 2 waits on an event recorded on stream 1 at call 5; the last
 * kernel called there before it (call 3) never started, so what the wait
 * held grid 4 back for is unknown (grid 1's end would explain it). */
Test(ready, event_recorded_after_a_kernel_that_never_started)
{
	struct trace *t = trace_new();
	bounded_victim_trace(t, 0);
	victim_called_later(t);
	trace_kernel(t, 1, 0, 1, 3, 0, 0, 0);
	struct analysis *a = analysis_of(t);
	wait_on_recorded_event(a);
	cr_expect_eq(analysis_event_count(a), 0);
	size_t pending;
	cr_expect_eq(waits_unknown_on(a, 2, &pending), 1);
	cr_expect_eq(pending, 0);
	analysis_free(a);
	trace_free(t);
}

/* ---- each kernel's most blocks on one SM against its occupancy limit ---- */

static const struct smtop_device occ_h200 = {
	.sm_count = 132, .cc_major = 9, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
	.max_regs_per_sm = 65536, .max_smem_per_sm = 233472, .warp_size = 32, .name = "H200",
};

/* Grid gid of `waves` waves of `per_sm` blocks on each of the 132 SMs, each
 * wave starting when the one before ends (touching: not overlapping). */
static void occ_grid(struct smtop_block *b, uint64_t gid, int waves, int per_sm, uint64_t t0)
{
	size_t n = 0;
	for (int w = 0; w < waves; w++)
		for (uint16_t sm = 0; sm < 132; sm++)
			for (int i = 0; i < per_sm; i++)
				b[n++] = (struct smtop_block){ .grid_id = gid, .sm = sm,
							       .start = t0 + (uint64_t)w * 1000,
							       .end = t0 + (uint64_t)(w + 1) * 1000 };
}

static struct analysis *occ_session(int backwards)
{
	struct analysis *a = analysis_new(NULL);
	cr_assert(a);
	cr_assert_eq(analysis_add_device(a, &occ_h200), 0);
	/* the placement demo's register-heavy kernel: 103 registers, 256 threads, limit 2 */
	struct smtop_kernel k = { .start = 1000, .end = 4000, .grid_id = 5, .pid = 1,
				  .context_id = 1, .stream_id = 7, .correlation_id = 10,
				  .grid = { 792, 1, 1 }, .block = { 256, 1, 1 }, .registers = 103,
				  .name = "regs" };
	cr_assert_eq(analysis_add_kernel(a, &k), 0);
	/* the same launch one block at a time: a full grid below its limit */
	k.grid_id = 6, k.correlation_id = 11, k.start = 10000, k.end = 13000;
	k.name = "one_at_a_time";
	cr_assert_eq(analysis_add_kernel(a, &k), 0);
	/* a small grid: one wave, never full */
	k.grid_id = 7, k.correlation_id = 12, k.start = 20000, k.end = 21000, k.name = "small";
	cr_assert_eq(analysis_add_kernel(a, &k), 0);
	static struct smtop_block b[792 + 396 + 132];
	occ_grid(b, 5, 3, 2, 1000);
	occ_grid(b + 792, 6, 3, 1, 10000);
	occ_grid(b + 792 + 396, 7, 1, 1, 20000);
	size_t n = sizeof b / sizeof b[0];
	for (size_t i = 0; i < n; i++) {
		const struct smtop_block *x = backwards ? &b[n - 1 - i] : &b[i];
		cr_assert_eq(analysis_add_blocks(a, 1, 1, x, 1), 0);
	}
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	return a;
}

Test(analysis, most_blocks_per_sm_against_the_limit)
{
	for (int backwards = 0; backwards < 2; backwards++) {
		struct analysis *a = occ_session(backwards);
		cr_assert_eq(analysis_kernel_count(a), 3);
		struct analysis_kernel_occupancy o[3];
		for (size_t i = 0; i < 3; i++)
			analysis_kernel_occupancy(a, i, &o[i]);
		cr_expect_eq(o[0].most_per_sm, 2, "backwards %d: %u", backwards, o[0].most_per_sm);
		cr_expect_eq(o[0].limit.blocks, 2);
		cr_expect_eq(o[0].limit.bound, OCCUPANCY_BOUND_REGISTERS);
		cr_expect_eq(o[0].threads, 256);
		cr_expect_eq(o[0].sms, 132);
		cr_expect_eq(o[0].blocks, 792);
		cr_expect(o[0].waited && o[0].full);
		cr_expect_eq(o[1].most_per_sm, 1);
		cr_expect(o[1].full, "396 blocks > 2 x 132, and blocks waited");
		cr_expect_eq(o[2].most_per_sm, 1);
		cr_expect(!o[2].waited && !o[2].full);
		/* a viewer hears of each kernel whose most rose, once */
		size_t ks[2], n = analysis_most_changed(a, ks, 2), m = analysis_most_changed(a, ks, 2);
		cr_expect_eq(n + m, 3);
		cr_expect_eq(analysis_most_changed(a, ks, 2), 0);
		analysis_free(a);
	}
}

Test(analysis, limit_unknown_without_device_or_registers)
{
	struct analysis *a = analysis_new(NULL);
	struct smtop_kernel k = { .start = 1, .end = 2, .grid_id = 5, .pid = 1, .context_id = 1,
				  .stream_id = 7, .block = { 256, 1, 1 }, .registers = 32 };
	cr_assert_eq(analysis_add_kernel(a, &k), 0);
	struct analysis_kernel_occupancy o;
	analysis_kernel_occupancy(a, 0, &o);
	cr_expect_eq(o.limit.bound, OCCUPANCY_BOUND_UNKNOWN);
	cr_expect_eq(o.most_per_sm, 0);
	cr_expect_eq(o.blocks, 0);
	cr_assert_eq(analysis_add_device(a, &occ_h200), 0);
	analysis_kernel_occupancy(a, 0, &o);
	cr_expect_eq(o.limit.blocks, 8);
	cr_expect_eq(o.limit.bound, OCCUPANCY_BOUND_THREADS);
	analysis_free(a);
}

/* ---- green contexts (docs/analysis.md, "Green contexts") ---- */

/* A stream of context ctx. */
static void stream_in(struct trace *t, uint32_t ctx, uint32_t stream, int32_t prio)
{
	trace_stream(t, 1, 0, stream, prio);
	t->streams[t->n_streams - 1].context_id = ctx;
}

static void kernel_in(struct trace *t, uint32_t ctx, uint32_t stream, uint64_t grid, uint64_t sub,
		      uint64_t start, uint64_t end)
{
	trace_kernel(t, 1, 0, stream, grid, sub, start, end)->context_id = ctx;
}

/* The green-contexts demo on 8 SMs: inference (priority -5, stream 2) in
 * green context 2 on SMs 0-3, training (priority 0, stream 1) in green
 * context 3 on SMs 4-7; every block comes through the primary context
 * (1), as the collectors give them.  Inference ran grid 10 before; its
 * grid 2 is ready at 11000 and starts at 101000 while training's grid 1
 * fills SMs 4-7 over [1000, 101000).  what adds a low-priority culprit
 * over the same time: OWN, stream 3 in inference's green context on its
 * SMs; PRIMARY, stream 4 in the primary context on all 8 SMs. */
enum { TWO_PARTS = 0, OWN = 1, PRIMARY = 2 };

static void two_partitions(struct trace *t, int green, int what)
{
	trace_device(t, 0, 8);
	trace_context(t, 1, 0, 1, 0);
	trace_context(t, 1, 0, 2, green);
	trace_context(t, 1, 0, 3, green);
	stream_in(t, 3, 1, LO);
	stream_in(t, 2, 2, HI);
	kernel_in(t, 2, 2, 10, 50, 100, 900);
	trace_blocks_on(t, 1, 0, 10, 4, 0, 100, 900);
	kernel_in(t, 3, 1, 1, 500, 1000, 101000);
	trace_blocks_on(t, 1, 0, 1, 4, 4, 1000, 101000);
	kernel_in(t, 2, 2, 2, 11000, 101000, 111000);
	trace_blocks_on(t, 1, 0, 2, 4, 0, 101000, 111000);
	if (what & OWN) {
		stream_in(t, 2, 3, LO);
		kernel_in(t, 2, 3, 3, 600, 1000, 101000);
		trace_blocks_on(t, 1, 0, 3, 4, 0, 1000, 101000);
	}
	if (what & PRIMARY) {
		stream_in(t, 1, 4, LO);
		kernel_in(t, 1, 4, 4, 700, 1000, 101000);
		trace_blocks_on(t, 1, 0, 4, 8, 0, 1000, 101000);
	}
}

static const struct smtop_culprit *culprit_of(const struct smtop_event *e, uint64_t grid)
{
	for (size_t i = 0; i < e->n_culprits; i++)
		if (e->culprits[i].grid_id == grid)
			return &e->culprits[i];
	return NULL;
}

/* Training's blocks held only SMs inference's green context cannot use:
 * inference waited (its wait counts), but behind nothing of training's. */
Test(green, the_other_partitions_blocks_are_no_culprit)
{
	struct trace *t = trace_new();
	two_partitions(t, 1, TWO_PARTS);
	struct analysis *a = run_all(t, 0);
	cr_expect_eq(analysis_event_count(a), 0);
	struct analysis_stream_summary s;
	for (size_t i = 0; i < analysis_stream_count(a); i++) {
		cr_assert_eq(analysis_stream_summary(a, i, &s), 0);
		if (s.stream_id == 2) {
			cr_expect_eq(s.context_id, 2);
			cr_expect_eq(s.wait.n, 2);
			cr_expect_eq(s.wait.max, 90000, "the wait is kept, with no one to blame");
		}
	}
	analysis_free(a);
	trace_free(t);
}

/* Contexts not known as green (sessions before contexts said so, or an
 * ordinary context): every SM counts, as before. */
Test(green, ordinary_contexts_keep_every_sm)
{
	struct trace *t = trace_new();
	two_partitions(t, 0, TWO_PARTS);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(a), 1);
	const struct smtop_event *e = analysis_event(a, 0);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_eq(e->n_culprits, 1);
	cr_expect_eq(e->culprits[0].grid_id, 1);
	cr_expect_eq(e->culprits[0].context_id, 3);
	analysis_free(a);
	trace_free(t);
}

/* A low-priority kernel of inference's own green context, on its SMs,
 * still makes an inversion; training still is no culprit. */
Test(green, a_culprit_on_its_own_partition_counts)
{
	struct trace *t = trace_new();
	two_partitions(t, 1, OWN);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(a), 1);
	const struct smtop_event *e = analysis_event(a, 0);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_eq(e->grid_id, 2);
	cr_expect_eq(e->n_culprits, 1);
	cr_expect_eq(e->culprits[0].grid_id, 3);
	cr_expect_eq(e->culprits[0].overlap_ns, 4 * 90000ull, "whole: all its SMs are inference's");
	cr_expect_eq(e->culprits[0].blocks, 4);
	cr_expect_null(culprit_of(e, 1));
	analysis_free(a);
	trace_free(t);
}

/* A kernel of the primary context ran on every SM: only its share on
 * inference's SMs counts, half of its block-time and blocks here. */
Test(green, a_culprit_on_every_sm_counts_by_its_share)
{
	struct trace *t = trace_new();
	two_partitions(t, 1, PRIMARY);
	struct analysis *a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(a), 1);
	const struct smtop_event *e = analysis_event(a, 0);
	cr_expect_eq(e->n_culprits, 1);
	const struct smtop_culprit *c = culprit_of(e, 4);
	cr_assert_not_null(c);
	cr_expect_eq(c->overlap_ns, 4 * 90000ull, "%llu", (unsigned long long)c->overlap_ns);
	cr_expect_eq(c->blocks, 4);
	cr_expect_eq(c->weight, 1.0);
	cr_expect_null(culprit_of(e, 1));
	analysis_free(a);
	trace_free(t);
}

/* The SMs a green context is known to use grow as its kernels end; what a
 * verdict reads of them was complete when it was made, so pieces give the
 * answer of the whole. */
Test(green, incremental_equals_whole)
{
	for (unsigned seed = 1; seed <= 8; seed++) {
		struct trace *t = trace_new();
		two_partitions(t, 1, OWN | PRIMARY);
		struct analysis *whole = run_all(t, 0);
		struct analysis *inc = analysis_new(NULL);
		trace_feed_pieces(t, inc, seed, 1 + seed % 4);
		char why[128] = "";
		cr_expect_eq(analysis_event_count(whole), 1);
		cr_expect_eq(trace_compare(whole, inc, why, sizeof why), 0, "seed %u: %s", seed, why);
		analysis_free(inc);
		analysis_free(whole);
		trace_free(t);
	}
}

/* The recorded sessions' verdicts, with their contexts read (none of them
 * says a context is green), are those without; the green-contexts demo's
 * CUPTI session, its two green contexts told as such, keeps its none. */
Test(green, fixtures_keep_their_verdicts)
{
	static const char *const names[] = { "priority-vs-training", "equal-priority", "head-of-line",
					     "green-contexts", "timeslice", "timeslice-sm-all", "mps",
					     "torch-sm-all", "graph-branch-sm-all", "wait-stream-sm-all" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int green = strcmp(names[i], "green-contexts") == 0;
		struct db_reader *r0, *r1;
		struct analysis *was = fixture_analysis_with(names[i], 0, FX_NO_CONTEXTS, &r0);
		struct analysis *now = fixture_analysis_with(names[i], 0, green ? FX_GREEN : FX_CONTEXTS, &r1);
		char why[128] = "";
		cr_expect_eq(trace_compare(was, now, why, sizeof why), 0, "%s: %s", names[i], why);
		if (green)
			cr_expect_eq(analysis_event_count(now), 0);
		analysis_free(was);
		analysis_free(now);
		db_reader_close(r0);
		db_reader_close(r1);
	}
}

/* ---- bounded block ends (--sm entry; docs/analysis.md, "Bounded block ends
 * and possible verdicts") ---- */

/* Entry-only tracing: a block's end is an upper bound. */
static void bound_blocks_of(struct trace *t, uint64_t grid, uint64_t end)
{
	for (size_t i = 0; i < t->n_blocks; i++)
		if (t->blocks[i].b.grid_id == grid) {
			t->blocks[i].b.flags |= SMTOP_BLOCK_END_BOUND;
			t->blocks[i].b.end = end;
		}
}

/* A low-priority culprit (grid 1, stream 1) holds the 4 SMs over [1000,
 * 101000).  On stream 2 (high priority) grid 2's blocks start at 2000,
 * 2100, 2200 and 2300 and end at 5000; grid 4 is submitted at `sub` (0:
 * unknown) and gets its first block at 101000.  bound_pred: grid 2's ends
 * are bounds, as `--sm entry` records them: the first block of the next
 * launch on its stream (101000), which is its kernel's end too.
 * bound_culprit: grid 1's ends are bounds (at the same 101000). */
static struct trace *entry_trace(int bound_pred, int bound_culprit, uint64_t sub)
{
	struct trace *t = trace_new();
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, LO);
	trace_stream(t, 1, 0, 2, HI);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 1500, 2000, 5000);
	trace_kernel(t, 1, 0, 2, 4, sub, 101000, 111000);
	trace_blocks(t, 1, 0, 1, 4, 1000, 101000);
	for (unsigned i = 0; i < 4; i++)
		trace_blocks_on(t, 1, 0, 2, 1, i, 2000 + 100 * i, 5000);
	trace_blocks(t, 1, 0, 4, 4, 101000, 111000);
	if (bound_pred) {
		bound_blocks_of(t, 2, 101000);
		t->kernels[1].end = 101000;
	}
	if (bound_culprit)
		bound_blocks_of(t, 1, 101000);
	return t;
}

static const struct smtop_event *entry_event(struct trace *t, struct analysis **a)
{
	*a = run_all(t, 0);
	cr_assert_eq(analysis_event_count(*a), 1);
	return analysis_event(*a, 0);
}

/* A stream successor behind a bounded predecessor: its bounded end is the
 * successor's own first block, so read at its word the wait is 0.  Ready
 * is the predecessor's last block start instead, and the episode possible,
 * its wait anywhere from 0 to 98.7 us. */
Test(bounded, successor_waits_from_the_last_block_start)
{
	struct trace *t = entry_trace(1, 0, 0);
	struct analysis *a;
	const struct smtop_event *e = entry_event(t, &a);
	cr_expect_eq(e->ready, 2300);
	cr_expect_eq(e->ready_bound, SMTOP_READY_AFTER_KERNEL);
	cr_expect_eq(e->ready_correlation_id, 2);
	cr_expect_eq(e->wait_ns, 98700);
	cr_expect_eq(e->wait_min_ns, 0);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_eq(e->possible, SMTOP_POSSIBLE_READY);
	analysis_free(a);
	trace_free(t);
}

/* The host's submission after the last block start sets ready; the
 * bounded end after it still makes the episode possible. */
Test(bounded, submission_after_the_last_block_start)
{
	struct trace *t = entry_trace(1, 0, 4000);
	struct analysis *a;
	const struct smtop_event *e = entry_event(t, &a);
	cr_expect_eq(e->ready, 4000);
	cr_expect_eq(e->ready_bound, SMTOP_READY_HOST_SUBMIT);
	cr_expect_eq(e->wait_ns, 97000);
	cr_expect_eq(e->wait_min_ns, 0);
	cr_expect_eq(e->possible, SMTOP_POSSIBLE_READY);
	analysis_free(a);
	trace_free(t);
}

/* The same schedule with exact ends: ready at the predecessor's end, and
 * the episode certain. */
Test(bounded, exact_ends_give_a_certain_episode)
{
	struct trace *t = entry_trace(0, 0, 0);
	struct analysis *a;
	const struct smtop_event *e = entry_event(t, &a);
	cr_expect_eq(e->ready, 5000);
	cr_expect_eq(e->wait_ns, 96000);
	cr_expect_eq(e->wait_min_ns, 96000);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_eq(e->possible, 0);
	analysis_free(a);
	trace_free(t);
}

/* Culprit blocks whose ends are bounds may have left before the wait
 * ended: the inversion is possible, its wait exact. */
Test(bounded, bounded_culprits_make_it_possible)
{
	struct trace *t = entry_trace(0, 1, 0);
	struct analysis *a;
	const struct smtop_event *e = entry_event(t, &a);
	cr_expect_eq(e->ready, 5000);
	cr_expect_eq(e->wait_ns, 96000);
	cr_expect_eq(e->wait_min_ns, 96000);
	cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
	cr_expect_eq(e->possible, SMTOP_POSSIBLE_CULPRITS);
	analysis_free(a);
	trace_free(t);
}

/* Every block bounded, as in a `--sm entry` session. */
Test(bounded, both_reasons_together)
{
	struct trace *t = entry_trace(1, 1, 0);
	struct analysis *a;
	const struct smtop_event *e = entry_event(t, &a);
	cr_expect_eq(e->ready, 2300);
	cr_expect_eq(e->possible, SMTOP_POSSIBLE_READY | SMTOP_POSSIBLE_CULPRITS);
	analysis_free(a);
	trace_free(t);
}

/* Fed in pieces with rising watermarks, the answer is the same. */
Test(bounded, pieces_give_the_whole_answer)
{
	for (unsigned seed = 1; seed <= 20; seed++) {
		struct trace *t = entry_trace(1, 1, 0);
		struct analysis *whole = run_all(t, 0), *inc = analysis_new(NULL);
		trace_feed_pieces(t, inc, seed, 1 + seed % 4);
		char why[128] = "";
		cr_expect_eq(trace_compare(whole, inc, why, sizeof why), 0, "seed %u: %s", seed, why);
		analysis_free(inc);
		analysis_free(whole);
		trace_free(t);
	}
}
