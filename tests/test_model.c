/* The model: stream letters, lanes and ready times, bins and their levels,
 * pending blocks, events, detail windows. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reader.h"
#include "src/core/model.h"
#include "src/core/pool.h"
#include "tests/support/model_ref.h"
#include "tests/support/ui_support.h"

#define US UI_SUPPORT_US

static struct model m;

static void dev(uint32_t threads)
{
	struct smtop_device d = { .sm_count = 4, .max_threads_per_sm = threads, .name = "toy" };
	cr_assert_eq(model_set_device(&m, &d), 0);
}

static void kern(uint64_t gid, uint32_t stream, int threads, uint64_t sub, uint64_t s,
		 uint64_t e, const char *name)
{
	struct smtop_kernel k = { .start = US(s), .end = US(e), .submitted = sub ? US(sub) : 0,
				  .grid_id = gid, .pid = 1, .context_id = 1, .stream_id = stream,
				  .grid = { 1, 1, 1 }, .block = { threads, 1, 1 }, .name = name };
	cr_assert_eq(model_add_kernel(&m, &k), 0);
}

static void blk(uint64_t gid, uint16_t sm, uint64_t s, uint64_t e)
{
	struct smtop_block b = { .grid_id = gid, .sm = sm, .start = US(s), .end = US(e) };
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
}

static void setup(void)
{
	model_init(&m);
}

static void teardown(void)
{
	model_free(&m);
}

TestSuite(model, .init = setup, .fini = teardown);

Test(model, letters_by_priority_then_id)
{
	struct smtop_stream s = { .pid = 1, .context_id = 1, .stream_id = 9, .priority = 0 };
	model_add_stream(&m, &s);
	s.stream_id = 7;
	s.priority = SMTOP_PRIORITY_UNKNOWN;
	model_add_stream(&m, &s);
	s.stream_id = 8;
	s.priority = 0;
	model_add_stream(&m, &s);
	s.stream_id = 20;
	s.priority = -5;
	model_add_stream(&m, &s);
	cr_expect_eq(model_stream_by_rank(&m, 0)->stream_id, 20);
	cr_expect_eq(model_stream_by_rank(&m, 1)->stream_id, 8);
	cr_expect_eq(model_stream_by_rank(&m, 2)->stream_id, 9);
	cr_expect_eq(model_stream_by_rank(&m, 3)->stream_id, 7, "unknown priority goes last");
	cr_expect_eq(model_stream_by_rank(&m, 0)->letter, 'A');
	cr_expect_eq(model_stream_by_rank(&m, 3)->letter, 'D');
}

Test(model, ready_from_submission_and_previous_end)
{
	dev(2048);
	kern(1, 5, 128, 10, 20, 100, "a");
	kern(2, 5, 128, 50, 130, 200, "b");  /* submitted during a: ready at a's end */
	kern(3, 5, 128, 0, 210, 220, "c");   /* no latency timestamps: unknown */
	model_flush(&m);
	const struct model_stream *s = model_stream_by_rank(&m, 0);
	uint32_t si = (uint32_t)(s - m.streams);
	cr_expect_eq(model_stream_kernel_ready(&m, si, 0), US(10));
	cr_expect_eq(model_stream_kernel_ready(&m, si, 1), US(100));
	cr_expect_eq(model_stream_kernel_ready(&m, si, 2), 0);
	cr_expect_eq(model_kernel_ready(&m, model_stream_kernel(&m, si, 1)), US(100));
	cr_expect_eq(model_kernel_wait(&m, model_stream_kernel(&m, si, 1)), 30000);
}

/* A launch between b and d that never started (its blocks all dropped):
 * d may have waited for it, so its ready time is not known; c, launched
 * before it, keeps its own. */
Test(model, a_launch_that_never_started_hides_the_next_ready_time)
{
	dev(2048);
	struct smtop_kernel never = { .pid = 1, .context_id = 1, .stream_id = 5, .grid = { 1, 1, 1 },
				      .block = { 128, 1, 1 }, .name = "dropped" }; /* no times */
	kern(1, 5, 128, 10, 20, 100, "a");
	kern(2, 5, 128, 50, 130, 200, "b");
	never.grid_id = 4;
	cr_assert_eq(model_add_kernel(&m, &never), 0);
	kern(5, 5, 128, 210, 400, 420, "d");
	never.grid_id = 3;
	cr_assert_eq(model_add_kernel(&m, &never), 0);
	model_flush(&m);
	uint32_t si = 0;
	cr_assert_eq(m.streams[si].n_kernels, 5);
	const struct model_kernel *d = model_stream_kernel(&m, si, 4);
	cr_assert_eq(d->start, US(400));
	cr_expect_eq(model_kernel_ready(&m, d), 0);
	cr_expect_eq(model_kernel_ready(&m, model_stream_kernel(&m, si, 3)), US(100), "b: after a");
	cr_expect_eq(model_kernel_ready(&m, model_stream_kernel(&m, si, 2)), US(10), "a: from its submission");
}

Test(model, out_of_order_kernels_sorted_on_flush)
{
	dev(2048);
	kern(2, 5, 128, 0, 300, 400, "late");
	kern(1, 5, 128, 0, 100, 200, "early");
	model_flush(&m);
	uint32_t si = 0;
	cr_expect_str_eq(model_kernel_name(&m, model_stream_kernel(&m, si, 0)), "early");
	cr_expect_eq(model_stream_kernel_before(&m, si, US(250)), 0);
	cr_expect_eq(model_stream_kernel_before(&m, si, US(50)), -1);
}

Test(model, short_names)
{
	dev(2048);
	kern(1, 5, 1, 0, 1, 2, "_Z10conv2d_fwdPKfPfi");
	kern(2, 5, 1, 0, 3, 4, "_ZN2at6native13reduce_kernelILi512EEEvv");
	kern(3, 5, 1, 0, 5, 6, "void at::native::vectorized_elementwise<float>(int)");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[0]), "conv2d_fwd");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[1]), "reduce_kernel");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[2]), "vectorized_elementwise");
	/* not names: a zero length keeps the whole as the label */
	kern(4, 5, 1, 0, 7, 8, "_ZN0E");
	kern(5, 5, 1, 0, 9, 10, "_Z0x");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[3]), "_ZN0E");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[4]), "_Z0x");
}

Test(model, dominant_stream_and_fullness)
{
	dev(2048);
	struct smtop_stream s = { .pid = 1, .context_id = 1, .stream_id = 1, .priority = 0 };
	model_add_stream(&m, &s);
	s.stream_id = 2;
	s.priority = -1;
	model_add_stream(&m, &s);
	kern(1, 1, 1024, 0, 0, 100, "big");
	kern(2, 2, 256, 0, 0, 100, "small");
	blk(1, 0, 0, 100);
	blk(2, 0, 0, 100);
	model_flush(&m);
	struct model_cell c[1];
	model_sample_sms(&m, 0, 1, US(0), 64000, 1, c);
	cr_expect_eq(c[0].stream, 0, "stream 1 (index 0) holds more thread-time");
	cr_expect_eq(c[0].second, 1);
	cr_expect_float_eq(c[0].fullness, 1280.0f / 2048.0f, 1e-3);
	model_sample_sms(&m, 1, 1, US(0), 64000, 1, c);
	cr_expect_eq(c[0].stream, -1, "SM 1 idle");
}

/* Two streams holding an SM for the same thread-time, their blocks binned in
 * one order and then the other, in separate batches. */
static void equal_streams(int first, struct model_cell *c)
{
	dev(2048);
	struct smtop_stream s = { .pid = 1, .context_id = 1, .stream_id = 1, .priority = 0 };
	model_add_stream(&m, &s);
	s.stream_id = 2;
	model_add_stream(&m, &s);
	kern(1, 1, 512, 0, 0, 100, "one");
	kern(2, 2, 512, 0, 0, 100, "two");
	blk((uint64_t)first, 0, 0, 100);
	model_flush(&m);
	blk((uint64_t)(3 - first), 0, 0, 100);
	model_flush(&m);
	model_sample_sms(&m, 0, 1, US(0), 64000, 1, c);
}

Test(model, equal_streams_rank_by_stream_not_by_arrival)
{
	struct model_cell a[1], b[1];
	equal_streams(1, a);
	model_free(&m);
	model_init(&m);
	equal_streams(2, b);
	cr_expect_neq(a[0].stream, -1);
	cr_expect_neq(a[0].second, -1, "both streams in the bin");
	cr_expect_eq(a[0].stream, b[0].stream, "the dominant stream whichever batch came first");
	cr_expect_eq(a[0].second, b[0].second);
}

Test(model, absurd_sm_count_refused)
{
	struct smtop_device d = { .sm_count = MODEL_MAX_SMS + 1, .name = "damaged" };
	cr_assert_eq(model_set_device(&m, &d), -1);
	cr_assert_eq(m.has_device, 0);
	d.sm_count = MODEL_MAX_SMS;
	cr_assert_eq(model_set_device(&m, &d), 0);
}

Test(model, window_of_centuries_reads_only_held_bins)
{
	dev(2048);
	kern(1, 1, 1024, 0, 0, 100, "k");
	blk(1, 0, 0, 100);
	model_flush(&m);
	/* 50 columns of 3 years each: far more bins than the levels hold */
	struct model_cell c[50];
	model_sample_sms(&m, 0, 4, US(0), 100000000000000000ull, 50, c);
	cr_expect_eq(c[0].stream, 0, "the block shows in the first column");
	cr_expect_eq(c[1].stream, -1);
}

/* A damaged session's blocks near the ends of uint64 and lasting centuries,
 * one by one and batched: counted, binned without overflow (the sanitizer
 * build checks) in bounded pieces (39 hours at most), and drawn. */
Test(model, blocks_of_centuries_are_binned_bounded)
{
	dev(2048);
	kern(1, 1, 1024, 0, 0, 100, "k");
	blk(1, 0, 0, 100);
	struct smtop_block far[] = {
		{ .grid_id = 1, .sm = 1, .start = US(10), .end = UINT64_MAX - 5 },
		{ .grid_id = 1, .sm = 1, .start = UINT64_MAX - 100, .end = UINT64_MAX - 1 },
		{ .grid_id = 1, .sm = 2, .start = US(20), .end = (uint64_t)INT64_MAX + 7 },
	};
	cr_assert_eq(model_add_block(&m, &far[0], 1, 1), 0);
	cr_assert_eq(model_add_blocks(&m, far, 3, 1, 1), 0);
	cr_assert_eq(model_flush(&m), 0);
	cr_expect_eq(m.blocks, 5);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[0]), 5);
	cr_expect_eq(model_kernel_last_block(&m, &m.kernels[0]), UINT64_MAX - 1);
	cr_expect(m.kernels[0].shape & MODEL_KERNEL_WIDE, "centuries do not fit an offset");
	cr_expect_eq(model_kernel_first_block(&m, &m.kernels[0]), US(0));
	cr_expect_eq(model_kernel_end(&m, &m.kernels[0]), US(100));
	/* the whole span in columns of centuries, and its far end */
	struct model_cell c[10];
	model_sample_sms(&m, 0, 4, m.t_first, (m.t_last - m.t_first) / 10, 10, c);
	model_sample_sms(&m, 0, 4, UINT64_MAX - 1000, 100, 10, c);
	cr_expect_eq(c[9].stream, -1, "nothing binned past the clamp");
}

Test(model, fullness_relative_to_peak_without_limit)
{
	dev(0);
	kern(1, 1, 512, 0, 0, 100, "k");
	blk(1, 0, 0, 100);
	blk(1, 0, 0, 100);
	blk(1, 1, 0, 100);
	model_flush(&m);
	cr_expect_float_eq(model_sm_capacity(&m), 1024.0, 1e-6);
	struct model_cell c[1];
	model_sample_sms(&m, 1, 1, US(0), 64000, 1, c);
	cr_expect_float_eq(c[0].fullness, 0.5f, 1e-3);
}

Test(model, blocks_before_kernel_wait_in_pending)
{
	dev(2048);
	blk(7, 2, 0, 50);
	cr_expect_eq(m.n_pending, 1);
	cr_expect_eq(m.blocks, 0);
	kern(7, 1, 64, 0, 0, 50, "k");
	model_flush(&m);
	cr_expect_eq(m.n_pending, 0);
	cr_expect_eq(m.blocks, 1);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[0]), 1);
	cr_expect_eq(model_kernel_first_block(&m, &m.kernels[0]), US(0));
	cr_expect_eq(model_kernel_last_block(&m, &m.kernels[0]), US(50));
}

Test(model, blocks_before_device_wait_too)
{
	kern(1, 1, 64, 0, 0, 50, "k");
	blk(1, 0, 0, 50);
	cr_expect_eq(m.blocks, 0);
	dev(2048);
	model_flush(&m);
	cr_expect_eq(m.blocks, 1);
}

/* A green context's kernels run in their own context while their blocks come
 * through the primary context's ring: they meet on (process, device, grid
 * id); a kernel of the same grid id on another device stays apart. */
Test(model, blocks_join_their_kernel_across_contexts_not_devices)
{
	dev(2048);
	struct smtop_kernel k = { .start = US(0), .end = US(50), .grid_id = 7, .pid = 1,
				  .context_id = 2, .stream_id = 17, .grid = { 1, 1, 1 },
				  .block = { 64, 1, 1 }, .name = "green" };
	cr_assert_eq(model_add_kernel(&m, &k), 0);
	struct smtop_block b = { .grid_id = 7, .sm = 1, .start = US(0), .end = US(40) };
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	model_flush(&m);
	cr_expect_eq(m.n_pending, 0);
	cr_expect_eq(m.blocks, 1);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[0]), 1);
	b.device_id = 1;
	cr_assert_eq(model_add_block(&m, &b, 1, 2), 0);
	model_flush(&m);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[0]), 1, "device 1's grid 7 is another kernel");
	cr_expect_eq(m.n_pending, 1);
}

Test(model, bad_sm_counted)
{
	dev(2048);
	kern(1, 1, 64, 0, 0, 50, "k");
	blk(1, 9, 0, 50);
	cr_expect_eq(m.blocks_bad_sm, 1);
}

Test(model, fine_levels_forget_old_time_coarse_keep_it)
{
	dev(2048);
	kern(1, 1, 1024, 0, 0, 1000000, "long");
	blk(1, 0, 0, 10);                  /* at 0 us */
	blk(1, 0, 500000, 500010);         /* 0.5 s later: the 1 us ring moved on */
	model_flush(&m);
	cr_expect_gt(model_resolution(&m, US(0), US(40), 4000), MODEL_BASE_NS,
		     "the finest level no longer holds t=0");
	cr_expect_eq(model_resolution(&m, US(500000), US(500040), 4000), MODEL_BASE_NS);
	cr_expect(model_wants_detail(&m, US(0), US(40), 4000));
	cr_expect(model_wants_detail(&m, US(500000), US(500010), 1000),
		  "1 us columns are finer than the finest level");
	struct model_cell c[1];
	model_sample_sms(&m, 0, 1, US(0), 1000000000ULL, 1, c);
	cr_expect_eq(c[0].stream, 0, "the coarse level still has both blocks");
}

Test(model, detail_window_serves_fine_zoom)
{
	dev(2048);
	kern(1, 1, 1024, 0, 0, 1000000, "long");
	blk(1, 0, 0, 10);
	blk(1, 0, 500000, 500010);
	model_flush(&m);
	model_detail_begin(&m, US(0), US(20));
	struct smtop_block b = { .grid_id = 1, .sm = 0, .start = US(0), .end = US(10) };
	model_detail_add_block(&m, &b, 1);
	model_detail_end(&m);
	cr_expect_leq(model_resolution(&m, US(0), US(20), 1000), 1000);
	cr_expect_not(model_wants_detail(&m, US(0), US(20), 1000));
	struct model_cell c[20];
	model_sample_sms(&m, 0, 1, US(0), 1000, 20, c);
	cr_expect_eq(c[5].stream, 0);
	cr_expect_eq(c[15].stream, -1);
	cr_expect_float_eq(c[5].fullness, 0.5f, 1e-3);
}

Test(model, events_deep_copied_sorted_and_linked)
{
	dev(2048);
	kern(1, 1, 64, 10, 50, 60, "victim");
	char name[] = "victim";
	char cname[] = "culprit";
	struct smtop_culprit cu = { .pid = 1, .context_id = 1, .stream_id = 2, .name = cname };
	struct smtop_event e = { .kind = SMTOP_EV_INVERSION_RESIDENT, .pid = 1, .context_id = 1,
				 .stream_id = 1, .grid_id = 1, .ready = US(20), .start = US(50),
				 .wait_ns = 30000, .name = name, .n_culprits = 1, .culprits = &cu };
	model_add_event(&m, &e);
	e.ready = US(5);
	e.grid_id = 99;
	model_add_event(&m, &e);
	name[0] = 'X';
	cname[0] = 'X';
	model_flush(&m);
	cr_expect_str_eq(m.events[1].ev.name, "victim");
	cr_expect_str_eq(model_event_culprit(&m, 1, 0)->name, "culprit");
	cr_expect_eq(m.events[0].ev.ready, US(5), "sorted by ready");
	cr_expect_eq(m.events[1].kernel, 0);
	cr_expect_eq(model_kernel_ready(&m, &m.kernels[0]), US(20), "the analysis's ready time wins");
	cr_expect_eq(model_kernel_event(&m, &m.kernels[0]), 1);
	cr_expect_eq(model_event_at(&m, US(10)), 1);
}

Test(model, synthetic_h200)
{
	model_free(&m);
	ui_support_model(&m);
	cr_expect_eq(m.n_sm, 132);
	cr_expect_eq(m.n_streams, 3);
	cr_expect_eq(m.n_kernels, 6);
	cr_expect_eq(m.blocks, 2178);
	cr_expect_eq(m.n_pending, 0);
	cr_expect_eq(m.t_first, US(0));
	cr_expect_eq(m.t_last, US(2000));
	cr_expect_eq(model_stream_by_rank(&m, 0)->priority, -5);
}

/* ---- binning against a straightforward reference ---------------------------- */


static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Durations from 32 ns to ~2 ms, log-uniform, like real DNN blocks. */
static uint64_t rnd_dur(uint64_t *x)
{
	double f = (double)(rnd(x) % 10000) / 10000.0;
	return (uint64_t)(32.0 * pow(2e6 / 32.0, f));
}

struct synth {
	uint32_t n_sm, streams;
	struct smtop_block *b;
	size_t n;
};

/* Kernels on `streams` streams and their blocks in chunks of one SM sorted
 * by start, the chunks shuffled so that late ones carry old times; a few
 * blocks far in the past (before the origin) and a jump of seconds. */
static void synth_make(struct model *mm, struct synth *sy, uint32_t n_sm, uint32_t streams,
		       size_t per_kernel, size_t kernels, uint64_t seed)
{
	sy->n_sm = n_sm;
	sy->streams = streams;
	sy->n = per_kernel * kernels;
	sy->b = calloc(sy->n, sizeof *sy->b);
	struct smtop_device d = { .sm_count = n_sm, .max_threads_per_sm = 2048, .name = "toy" };
	cr_assert_eq(model_set_device(mm, &d), 0);
	uint64_t t = US(500000), x = seed;
	for (size_t k = 0; k < kernels; k++) {
		if (k == kernels / 2)
			t += 3000000000ULL; /* 3 s later: fine rings start over */
		t += rnd(&x) % 20000;
		struct smtop_kernel kr = { .start = t, .end = t + 1, .grid_id = k + 1, .pid = 1,
					   .context_id = 1, .stream_id = (uint32_t)(k % streams),
					   .block = { (int32_t)(32 << (k % 5)), 1, 1 }, .name = "k" };
		for (size_t i = 0; i < per_kernel; i++) {
			struct smtop_block *b = &sy->b[k * per_kernel + i];
			b->grid_id = k + 1;
			b->block = (uint32_t)i;
			b->sm = (uint16_t)(rnd(&x) % n_sm);
			b->start = t + rnd(&x) % 50000;
			b->end = b->start + rnd_dur(&x);
			if (rnd(&x) % 5000 == 0)
				b->end = b->start + 6000000000ULL; /* a persistent block, staged in pieces */
			if (b->end > kr.end)
				kr.end = b->end;
		}
		cr_assert_eq(model_add_kernel(mm, &kr), 0);
	}
	/* a block before the origin, arriving last */
	sy->b[sy->n - 1].start = US(100);
	sy->b[sy->n - 1].end = US(900);
	/* shuffle runs of blocks: out of order across "chunks" */
	for (size_t i = 0; i + 512 < sy->n; i += 512) {
		size_t j = (rnd(&x) % (sy->n / 512)) * 512;
		for (size_t c = 0; c < 512 && j + c < sy->n; c++) {
			struct smtop_block tmp = sy->b[i + c];
			sy->b[i + c] = sy->b[j + c];
			sy->b[j + c] = tmp;
		}
	}
}

static void synth_feed(struct model *mm, const struct synth *sy, size_t flush_every)
{
	/* the first block sets the origin: take one in the middle */
	size_t i0 = sy->n / 3;
	cr_assert_eq(model_add_block(mm, &sy->b[i0], 1, 1), 0);
	for (size_t i = 0; i < sy->n; i++) {
		if (i == i0)
			continue;
		cr_assert_eq(model_add_block(mm, &sy->b[i], 1, 1), 0);
		if (flush_every && i % flush_every == 0)
			cr_assert_eq(model_flush(mm), 0);
	}
	cr_assert_eq(model_flush(mm), 0);
}

static void expect_reference(const struct model *mm, const struct smtop_block *b, size_t n)
{
	struct model_ref r = { 0 };
	model_ref_add(&r, b, n, 1, 1);
	struct model_ref_stats st;
	char why[256] = "";
	int rc = model_ref_check(mm, &r, &st, why, sizeof why);
	model_ref_free(&r);
	cr_expect_eq(rc, 0, "%s", why);
	cr_expect_gt(st.bins, 1000, "bins compared: %zu", st.bins);
	cr_expect_gt(st.top2_checked, 100, "bins of one or two streams: %zu", st.top2_checked);
}

Test(model, bins_match_reference_synthetic)
{
	struct synth sy;
	synth_make(&m, &sy, 8, 3, 256, 400, 7);
	synth_feed(&m, &sy, 5000);
	expect_reference(&m, sy.b, sy.n);
	free(sy.b);
}

Test(model, bins_match_reference_many_streams)
{
	struct synth sy;
	synth_make(&m, &sy, 4, 40, 64, 800, 11); /* more streams than one sweep tells apart */
	synth_feed(&m, &sy, 0);
	expect_reference(&m, sy.b, sy.n);
	free(sy.b);
}

Test(model, bins_do_not_depend_on_threads_or_batches)
{
	struct synth sy;
	synth_make(&m, &sy, 16, 4, 512, 300, 3);
	synth_feed(&m, &sy, 7000);
	struct pool *p2 = pool_new(2), *p4 = pool_new(4);
	cr_assert(p2 && p4);
	struct model a, b;
	model_init(&a);
	model_init(&b);
	free(sy.b);
	synth_make(&a, &sy, 16, 4, 512, 300, 3);
	model_set_pool(&a, p2);
	synth_feed(&a, &sy, 7000);
	free(sy.b);
	synth_make(&b, &sy, 16, 4, 512, 300, 3);
	model_set_pool(&b, p4);
	synth_feed(&b, &sy, 7000);
	cr_expect(model_ref_same_bins(&m, &a), "2 threads: the same bits as one");
	cr_expect(model_ref_same_bins(&m, &b), "4 threads: the same bits as one");
	/* other batches: occupancy still the same (top-2 may merge differently) */
	struct model c;
	model_init(&c);
	free(sy.b);
	synth_make(&c, &sy, 16, 4, 512, 300, 3);
	model_set_pool(&c, p4);
	synth_feed(&c, &sy, 333);
	expect_reference(&c, sy.b, sy.n);
	model_free(&a);
	model_free(&b);
	model_free(&c);
	pool_free(p2);
	pool_free(p4);
	free(sy.b);
}

struct fixture_feed {
	struct model *m;
	struct model_ref *r;
};

static int fixture_kernel(void *ud, const struct smtop_kernel *k)
{
	return model_add_kernel(ud, k) != 0;
}

static int fixture_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct fixture_feed *f = ud;
	model_ref_add(f->r, b, 1, pid, ctx);
	return model_add_block(f->m, b, pid, ctx) != 0;
}

/* A session recorded on the H200, chunk by chunk as the loader reads it. */
static void load_fixture(struct model *mm, struct model_ref *r, const char *path)
{
	struct db_reader *rd;
	char err[256];
	cr_assert_eq(db_reader_open(&rd, path, err, sizeof err), 0, "%s", err);
	struct db_session_info info;
	cr_assert_eq(db_reader_info(rd, &info), 0);
	cr_assert_geq(info.n_devices, 1);
	cr_assert_eq(model_set_device(mm, &info.devices[0]), 0);
	int64_t km = 0, bm = 0;
	struct fixture_feed f = { mm, r };
	cr_assert_eq(db_reader_new_kernels(rd, &km, fixture_kernel, mm), 0);
	cr_assert_eq(db_reader_new_blocks(rd, &bm, fixture_block, &f), 0);
	cr_assert_eq(model_flush(mm), 0);
	db_reader_close(rd);
}

static void fixture_matches(const char *name, int threads)
{
	char path[256];
	snprintf(path, sizeof path, "tests/fixtures/%s.smtop", name);
	struct pool *p = pool_new(threads);
	model_set_pool(&m, p);
	struct model_ref r = { 0 };
	load_fixture(&m, &r, path);
	struct model_ref_stats st;
	char why[256] = "";
	cr_expect_eq(model_ref_check(&m, &r, &st, why, sizeof why), 0, "%s: %s", name, why);
	cr_expect_gt(st.blocks, 1000, "%s: blocks placed %zu", name, st.blocks);
	cr_expect_gt(st.bins, 1000, "%s: bins compared %zu", name, st.bins);
	model_ref_free(&r);
	model_free(&m);
	model_init(&m);
	pool_free(p);
}

Test(model, bins_match_reference_h200_fixtures)
{
	fixture_matches("priority-vs-training", 1);
	fixture_matches("equal-priority", 3);
	fixture_matches("smoke", 2);
}

Test(model, bins_of_fixture_identical_on_threads)
{
	struct model_ref r1 = { 0 }, r4 = { 0 };
	struct pool *p = pool_new(4);
	struct model b;
	model_init(&b);
	model_set_pool(&b, p);
	load_fixture(&m, &r1, "tests/fixtures/priority-vs-training.smtop");
	load_fixture(&b, &r4, "tests/fixtures/priority-vs-training.smtop");
	cr_expect(model_ref_same_bins(&m, &b));
	cr_expect_eq(m.blocks, b.blocks);
	model_free(&b);
	pool_free(p);
	model_ref_free(&r1);
	model_ref_free(&r4);
}

Test(model, chunks_place_like_single_blocks)
{
	struct synth sy;
	synth_make(&m, &sy, 8, 3, 256, 200, 5);
	/* a bad SM and an empty block inside the runs */
	sy.b[1000].sm = 99;
	sy.b[2000].end = sy.b[2000].start;
	synth_feed(&m, &sy, 0);
	struct model c;
	model_init(&c);
	free(sy.b);
	synth_make(&c, &sy, 8, 3, 256, 200, 5);
	sy.b[1000].sm = 99;
	sy.b[2000].end = sy.b[2000].start;
	size_t i0 = sy.n / 3;
	cr_assert_eq(model_add_blocks(&c, &sy.b[i0], 1, 1, 1), 0);
	for (size_t i = 0; i < sy.n; i += 300) {
		size_t n = sy.n - i < 300 ? sy.n - i : 300;
		if (i <= i0 && i0 < i + n) {
			cr_assert_eq(model_add_blocks(&c, &sy.b[i], i0 - i, 1, 1), 0);
			cr_assert_eq(model_add_blocks(&c, &sy.b[i0 + 1], i + n - i0 - 1, 1, 1), 0);
		} else {
			cr_assert_eq(model_add_blocks(&c, &sy.b[i], n, 1, 1), 0);
		}
	}
	cr_assert_eq(model_flush(&c), 0);
	cr_expect_eq(c.blocks, m.blocks);
	cr_expect_eq(c.blocks_bad_sm, 1);
	cr_expect_eq(m.blocks_bad_sm, 1);
	cr_expect_eq(c.t_first, m.t_first);
	cr_expect_eq(c.t_last, m.t_last);
	for (size_t k = 0; k < m.n_kernels; k++) {
		const struct model_kernel *x = &m.kernels[k], *y = &c.kernels[k];
		cr_expect(model_kernel_first_block(&m, x) == model_kernel_first_block(&c, y) &&
			  model_kernel_last_block(&m, x) == model_kernel_last_block(&c, y) &&
			  model_kernel_blocks_seen(&m, x) == model_kernel_blocks_seen(&c, y),
			  "kernel %zu", k);
	}
	for (size_t s = 0; s < m.n_streams; s++)
		cr_expect_eq(m.streams[s].blocks, c.streams[s].blocks);
	cr_expect(model_ref_same_bins(&m, &c));
	model_free(&c);
	free(sy.b);
}

/* The reference over b[0..n) and b[0..again) fed a second time. */
static void expect_reference_bins_of(const struct smtop_block *b, size_t n, size_t again)
{
	struct model_ref r = { 0 };
	model_ref_add(&r, b, n, 1, 1);
	model_ref_add(&r, b, again, 1, 1);
	struct model_ref_stats st;
	char why[256] = "";
	cr_expect_eq(model_ref_check(&m, &r, &st, why, sizeof why), 0, "%s", why);
	cr_expect_gt(st.bins, 10);
	model_ref_free(&r);
}

Test(model, waiting_grids_are_placed_as_their_kernels_come)
{
	dev(2048);
	struct smtop_block b[300];
	for (int i = 0; i < 300; i++)
		b[i] = (struct smtop_block){ .grid_id = 10 + (uint64_t)(i / 100), .sm = (uint16_t)(i % 4),
					     .start = US(i), .end = US(i + 50) };
	cr_assert_eq(model_add_blocks(&m, b, 300, 1, 1), 0);
	cr_expect_eq(m.n_pending, 300);
	cr_expect_eq(m.blocks, 0);
	kern(11, 1, 128, 0, 100, 200, "second");
	cr_assert_eq(model_flush(&m), 0);
	cr_expect_eq(m.n_pending, 200, "grid 11's blocks placed, 10 and 12 wait");
	cr_expect_eq(m.blocks, 100);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[0]), 100);
	cr_expect_eq(model_kernel_first_block(&m, &m.kernels[0]), US(100));
	cr_assert_eq(model_add_blocks(&m, b, 50, 1, 1), 0);
	cr_expect_eq(m.n_pending, 250, "more of grid 10 joins its wait");
	kern(10, 2, 64, 0, 0, 100, "first");
	kern(12, 1, 128, 0, 200, 300, "third");
	cr_assert_eq(model_flush(&m), 0);
	cr_expect_eq(m.n_pending, 0);
	cr_expect_eq(m.blocks, 350);
	expect_reference_bins_of(b, 300, 50);
}

/* The reference's bins for b[0..n) equal the model's. */
static void expect_same_as_reference(const struct smtop_block *b, size_t n)
{
	struct model_ref r = { 0 };
	model_ref_add(&r, b, n, 1, 1);
	struct model_ref_stats st;
	char why[256] = "";
	cr_expect_eq(model_ref_check(&m, &r, &st, why, sizeof why), 0, "%s", why);
	cr_expect_eq(st.blocks, n);
	model_ref_free(&r);
}

/* A ring holds as many bins as its data spans: the coarse levels of a
 * session of milliseconds stay a few bins long, and a ring that grows keeps
 * its bins (the reference sees the same occupancy before and after). */
Test(model, rings_grow_with_the_span_of_their_data)
{
	dev(2048);
	kern(1, 1, 256, 0, 0, 3000000, "k");
	struct smtop_block b[201];
	for (int i = 0; i < 200; i++) {
		b[i] = (struct smtop_block){ .grid_id = 1, .sm = (uint16_t)(i % 4),
					     .start = US(50 * (uint64_t)i), .end = US(50 * (uint64_t)i + 120) };
		cr_assert_eq(model_add_block(&m, &b[i], 1, 1), 0);
	}
	cr_assert_eq(model_flush(&m), 0);
	struct model_memory short_run, long_run;
	model_memory(&m, &short_run);
	size_t full = (size_t)m.n_sm * (MODEL_RING_BINS + MODEL_ROW_PAD) * sizeof(struct model_bin);
	/* 10 ms: levels 0 and 1 whole, level 2 a quarter, the ten others a few bins */
	cr_expect_lt(short_run.rings, 3 * full, "13 rings in %zu bytes", short_run.rings);
	cr_expect_lt(m.levels[MODEL_LEVELS - 1].n, 8);
	expect_same_as_reference(b, 200);
	/* two seconds later: the coarse rings grow and keep what they held */
	b[200] = (struct smtop_block){ .grid_id = 1, .sm = 2, .start = US(2000000), .end = US(2000300) };
	cr_assert_eq(model_add_block(&m, &b[200], 1, 1), 0);
	cr_assert_eq(model_flush(&m), 0);
	model_memory(&m, &long_run);
	cr_expect_gt(long_run.rings, short_run.rings);
	cr_expect_eq(m.levels[5].n, 512, "level 5 spans 2 s in 4 ms bins: %zu", m.levels[5].n);
	expect_same_as_reference(b, 201);
	struct model_cell c[1];
	model_sample_sms(&m, 0, 4, US(0), 2000000000ULL, 1, c);
	cr_expect_eq(c[0].stream, 0, "the first blocks are still in the coarsest level");
}

/* Loading's scratch goes back (model_trim) and comes again with new blocks;
 * the bins do not change. */
Test(model, trim_gives_the_stage_back)
{
	dev(2048);
	kern(1, 1, 256, 0, 0, 1000, "k");
	blk(1, 0, 0, 100);
	blk(1, 1, 10, 300);
	cr_assert_eq(model_flush(&m), 0);
	struct model_memory before, after;
	model_memory(&m, &before);
	cr_expect_gt(before.stage, 0);
	model_trim(&m);
	model_memory(&m, &after);
	cr_expect_lt(after.stage, before.stage);
	blk(1, 2, 200, 900);
	cr_assert_eq(model_flush(&m), 0);
	struct smtop_block b[] = {
		{ .grid_id = 1, .sm = 0, .start = US(0), .end = US(100) },
		{ .grid_id = 1, .sm = 1, .start = US(10), .end = US(300) },
		{ .grid_id = 1, .sm = 2, .start = US(200), .end = US(900) },
	};
	expect_same_as_reference(b, 3);
}

/* The compact kernel: offsets from start while they fit, whole values in
 * the wide table once one does not, read back the same either way. */
Test(model, compact_kernel_round_trip_and_wide_fallbacks)
{
	dev(2048);
	uint64_t t0 = 1700000000000000000ull;
	struct smtop_kernel k = { .start = t0, .end = t0 + 2500, .submitted = t0 - 700,
				  .grid_id = 5, .pid = 1, .context_id = 1, .stream_id = 3,
				  .correlation_id = 77, .block = { 128, 2, 1 }, .name = "plain" };
	cr_assert_eq(model_add_kernel(&m, &k), 0);
	/* a kernel of 5 s, a grid id past 32 bits, a submission 3 s before */
	struct smtop_kernel wide[3] = { k, k, k };
	wide[0].grid_id = 6;
	wide[0].end = t0 + 5000000000ull;
	wide[1].grid_id = (1ull << 40) + 7;
	wide[2].grid_id = 8;
	wide[2].submitted = t0 - 3000000000ull;
	for (int i = 0; i < 3; i++)
		cr_assert_eq(model_add_kernel(&m, &wide[i]), 0);
	cr_assert_eq(model_flush(&m), 0);
	const struct model_kernel *p = &m.kernels[0];
	cr_expect_eq(sizeof *p, 40, "40 bytes a kernel");
	cr_expect_eq(p->shape & MODEL_KERNEL_WIDE, 0, "fits");
	cr_expect_eq(model_kernel_end(&m, p), t0 + 2500);
	cr_expect_eq(model_kernel_submitted(&m, p), t0 - 700);
	cr_expect_eq(model_kernel_grid(&m, p), 5);
	cr_expect_eq(model_kernel_threads(&m, p), 256);
	cr_expect_eq(model_kernel_first_block(&m, p), 0, "no block yet");
	cr_expect_eq(model_kernel_blocks_seen(&m, p), 0);
	cr_expect_str_eq(model_kernel_name(&m, p), "plain");
	for (int i = 0; i < 3; i++) {
		const struct model_kernel *w = &m.kernels[1 + i];
		cr_expect_neq(w->shape & MODEL_KERNEL_WIDE, 0, "kernel %d is wide", i);
		cr_expect_eq(model_kernel_end(&m, w), wide[i].end);
		cr_expect_eq(model_kernel_submitted(&m, w), wide[i].submitted);
		cr_expect_eq(model_kernel_grid(&m, w), wide[i].grid_id);
		cr_expect_eq(model_kernel_threads(&m, w), 256);
		cr_expect_eq(model_find_kernel(&m, 1, 0, wide[i].grid_id), 1 + i, "found by its grid");
	}
	/* blocks: near ones stay compact, one 3 s after the start widens it */
	struct smtop_block b = { .grid_id = 5, .sm = 2, .start = t0 + 100, .end = t0 + 900 };
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	b.start = t0 - 50; /* a block before its kernel's start (the clocks' offset) */
	b.end = t0 + 400;
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	p = &m.kernels[0];
	cr_expect_eq(p->shape & MODEL_KERNEL_WIDE, 0);
	cr_expect_eq(model_kernel_first_block(&m, p), t0 - 50);
	cr_expect_eq(model_kernel_last_block(&m, p), t0 + 900);
	cr_expect_eq(model_kernel_blocks_seen(&m, p), 2);
	b.start = t0 + 3000000000ull;
	b.end = b.start + 10;
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	cr_expect_neq(p->shape & MODEL_KERNEL_WIDE, 0, "widened by a far block");
	cr_expect_eq(model_kernel_first_block(&m, p), t0 - 50, "kept through the move");
	cr_expect_eq(model_kernel_last_block(&m, p), t0 + 3000000010ull);
	cr_expect_eq(model_kernel_blocks_seen(&m, p), 3);
	cr_expect_eq(model_kernel_end(&m, p), t0 + 2500);
	cr_expect_eq(model_kernel_submitted(&m, p), t0 - 700);
	cr_expect_eq(model_find_kernel(&m, 1, 0, 5), 0, "still found");
	/* a replay's end growing past 32 bits of offset */
	model_kernel_set_end(&m, 2, t0 + 6000000000ull);
	cr_expect_eq(model_kernel_end(&m, &m.kernels[2]), t0 + 6000000000ull);
	struct model_memory mm;
	model_memory(&m, &mm);
	cr_expect_eq(m.n_wide, 4, "the three and the widened one");
	cr_expect_geq(mm.kernels, 4 * sizeof *p + m.n_wide * sizeof(struct model_kernel_wide));
}

/* With the culprits in the session file the model keeps the heaviest of
 * each episode, the streams of all for the timeline, and shows the rest
 * once they are read for the episode shown. */
Test(model, stored_culprits_keep_the_heaviest)
{
	dev(2048);
	kern(1, 1, 64, 0, 0, 100, "victim");
	kern(2, 2, 64, 0, 0, 100, "a");
	kern(3, 3, 64, 0, 0, 100, "b");
	model_flush(&m);
	m.culprits_stored = 1;
	struct smtop_culprit cu[2] = {
		{ .pid = 1, .context_id = 1, .stream_id = 2, .grid_id = 2, .weight = 0.7, .name = "a" },
		{ .pid = 1, .context_id = 1, .stream_id = 3, .grid_id = 3, .weight = 0.3, .name = "b" },
	};
	struct smtop_event e = { .kind = SMTOP_EV_BLOCKING, .pid = 1, .context_id = 1,
				 .stream_id = 1, .grid_id = 1, .ready = US(10), .start = US(50),
				 .wait_ns = US(40), .name = "victim", .n_culprits = 2, .culprits = cu };
	cr_assert_eq(model_add_event(&m, &e), 0);
	model_flush(&m);
	cr_expect_eq(m.events[0].culprits_held, 1);
	cr_expect_eq(m.events[0].ev.n_culprits, 2, "the count is the episode's");
	cr_expect_str_eq(model_event_culprit(&m, 0, 0)->name, "a");
	cr_expect_null(model_event_culprit(&m, 0, 1), "in the file");
	cr_expect(model_event_wants_culprits(&m, 0));
	long sa = model_find_stream(&m, 1, 0, 1, 2), sb = model_find_stream(&m, 1, 0, 1, 3);
	cr_expect_eq(m.events[0].culprit_streams, (1ull << sa) | (1ull << sb), "both streams");
	struct smtop_culprit *read = calloc(2, sizeof *read);
	read[0] = cu[0];
	read[1] = cu[1];
	read[0].name = strdup("a");
	read[1].name = strdup("b");
	model_focus_culprits(&m, 0, read, 2);
	cr_expect_str_eq(model_event_culprit(&m, 0, 1)->name, "b");
	cr_expect_not(model_event_wants_culprits(&m, 0));
	cr_expect_null(model_event_culprit(&m, 0, 2));
}

/* Kernels by grid id: a table per process and device for the ids that come
 * counting up, the hash for the rest; a relaunch with a reused id wins
 * either way, and each process keeps its own ids. */
Test(model, grid_table_and_hash_find_every_kernel)
{
	dev(2048);
	struct smtop_kernel k = { .start = US(1), .end = US(2), .pid = 1, .context_id = 1,
				  .stream_id = 1, .block = { 32, 1, 1 }, .name = "k" };
	uint64_t grids[] = { 100, 101, 103, 102, 99, 5000000, 104, 100 };
	size_t n = sizeof grids / sizeof grids[0];
	for (size_t i = 0; i < n; i++) {
		k.grid_id = grids[i];
		cr_assert_eq(model_add_kernel(&m, &k), 0);
	}
	k.pid = 2;
	k.grid_id = 100;
	cr_assert_eq(model_add_kernel(&m, &k), 0);
	cr_assert_eq(m.n_gtab, 2, "a table per process");
	cr_expect_eq(m.khash.n, 2, "the one below the first and the far one: %zu", m.khash.n);
	cr_expect_eq(model_find_kernel(&m, 1, 0, 100), 7, "the relaunch wins");
	cr_expect_eq(model_find_kernel(&m, 1, 0, 103), 2);
	cr_expect_eq(model_find_kernel(&m, 1, 0, 102), 3);
	cr_expect_eq(model_find_kernel(&m, 1, 0, 99), 4, "below the first: in the hash");
	cr_expect_eq(model_find_kernel(&m, 1, 0, 5000000), 5, "far after: in the hash");
	cr_expect_eq(model_find_kernel(&m, 1, 0, 104), 6);
	cr_expect_eq(model_find_kernel(&m, 2, 0, 100), 8, "another process' grid 100");
	cr_expect_eq(model_find_kernel(&m, 1, 0, 105), -1);
	cr_expect_eq(model_find_kernel(&m, 1, 1, 100), -1, "another device");
	cr_expect_eq(model_find_kernel(&m, 3, 0, 100), -1, "another process");
	k.pid = 1;
	k.grid_id = 99;
	cr_assert_eq(model_add_kernel(&m, &k), 0);
	cr_expect_eq(model_find_kernel(&m, 1, 0, 99), 9, "a relaunch in the hash wins too");
	/* blocks find theirs through the table of recent grids as well */
	struct smtop_block b = { .grid_id = 100, .sm = 1, .start = US(1), .end = US(2) };
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	b.grid_id = 99;
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[7]), 1);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[9]), 1);
	cr_expect_eq(model_kernel_blocks_seen(&m, &m.kernels[4]), 0, "replaced by its relaunch");
}

/* A session of varying grids has tens of thousands of launch shapes: a
 * compact kernel names 8 Mi of them (past 32 Ki, the index takes bits
 * beside the block count), and counts up to 16 Mi blocks before it goes
 * wide. */
Test(model, many_shapes_and_many_blocks_stay_exact)
{
	dev(2048);
	struct smtop_kernel k = { .start = US(1), .end = US(2), .pid = 1, .context_id = 1,
				  .stream_id = 1, .block = { 64, 1, 1 }, .name = "k" };
	for (int i = 0; i < 40000; i++) {
		k.grid_id = (uint64_t)i + 1;
		k.grid[0] = i + 1;
		cr_assert_eq(model_add_kernel(&m, &k), 0);
	}
	cr_expect_eq(m.n_shapes, 40000);
	cr_expect_eq(m.n_wide, 0, "all compact");
	for (int i = 0; i < 40000; i += 997)
		cr_expect_eq(model_kernel_shape(&m, &m.kernels[i])->grid[0], i + 1, "kernel %d", i);
	cr_expect_eq(model_kernel_shape(&m, &m.kernels[39999])->grid[0], 40000);
	/* a run of 16 Mi - 2 blocks, then two more: the second goes past */
	struct smtop_block b = { .grid_id = 40000, .sm = 0, .start = US(1), .end = US(2) };
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	struct model_kernel *p = &m.kernels[39999];
	p->blocks_seen = MODEL_KERNEL_BLOCKS - 1;
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	cr_expect_eq(p->shape & MODEL_KERNEL_WIDE, 0, "the last that fits");
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	cr_expect_neq(p->shape & MODEL_KERNEL_WIDE, 0, "wide past it");
	cr_expect_eq(model_kernel_blocks_seen(&m, p), (uint64_t)MODEL_KERNEL_BLOCKS + 1);
	cr_expect_eq(model_kernel_shape(&m, p)->grid[0], 40000, "its shape kept");
	cr_expect_eq(model_kernel_first_block(&m, p), US(1));
}

Test(model, smtops_ranges_of_dropped_launches_are_told_from_the_workloads)
{
	struct smtop_nvtx ours = { .start = US(10), .end = US(20),
				   .text = SMTOP_DROPPED_RANGE_TEXT ": 2 launches, 64 blocks (no room)",
				   .domain = SMTOP_NVTX_DOMAIN };
	struct smtop_nvtx theirs = ours, window = ours;

	theirs.domain = "training";
	window.text = "exact block ends";
	cr_assert_eq(model_add_nvtx(&m, &theirs), 0);
	cr_assert_eq(model_add_nvtx(&m, &window), 0);
	cr_expect_eq(m.n_dropped_ranges, 0, "a workload's range of that name, smtop's window: not ours");
	cr_assert_eq(model_add_nvtx(&m, &ours), 0);
	cr_expect_eq(m.n_dropped_ranges, 1);
	cr_expect(m.nvtx[2].dropped && !m.nvtx[0].dropped && !m.nvtx[1].dropped);
}
