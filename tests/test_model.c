/* The model: stream letters, lanes and ready times, bins and their levels,
 * pending blocks, events, detail windows. */
#include <criterion/criterion.h>
#include <string.h>

#include "src/model.h"
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
	cr_expect_eq(model_stream_kernel(&m, si, 0)->ready, US(10));
	cr_expect_eq(model_stream_kernel(&m, si, 1)->ready, US(100));
	cr_expect_eq(model_stream_kernel(&m, si, 2)->ready, 0);
	cr_expect_eq(model_kernel_wait(model_stream_kernel(&m, si, 1)), 30000);
}

Test(model, out_of_order_kernels_sorted_on_flush)
{
	dev(2048);
	kern(2, 5, 128, 0, 300, 400, "late");
	kern(1, 5, 128, 0, 100, 200, "early");
	model_flush(&m);
	uint32_t si = 0;
	cr_expect_str_eq(model_stream_kernel(&m, si, 0)->name, "early");
	cr_expect_eq(model_stream_kernel_before(&m, si, US(250)), 0);
	cr_expect_eq(model_stream_kernel_before(&m, si, US(50)), -1);
}

Test(model, short_names)
{
	dev(2048);
	kern(1, 5, 1, 0, 1, 2, "_Z10conv2d_fwdPKfPfi");
	kern(2, 5, 1, 0, 3, 4, "_ZN2at6native13reduce_kernelILi512EEEvv");
	kern(3, 5, 1, 0, 5, 6, "void at::native::vectorized_elementwise<float>(int)");
	cr_expect_str_eq(m.kernels[0].short_name, "conv2d_fwd");
	cr_expect_str_eq(m.kernels[1].short_name, "reduce_kernel");
	cr_expect_str_eq(m.kernels[2].short_name, "vectorized_elementwise");
	/* not names: a zero length keeps the whole as the label */
	kern(4, 5, 1, 0, 7, 8, "_ZN0E");
	kern(5, 5, 1, 0, 9, 10, "_Z0x");
	cr_expect_str_eq(m.kernels[3].short_name, "_ZN0E");
	cr_expect_str_eq(m.kernels[4].short_name, "_Z0x");
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
	cr_expect_eq(m.kernels[0].blocks_seen, 1);
	cr_expect_eq(m.kernels[0].first_block, US(0));
	cr_expect(m.kernels[0].sm_mask[0] & 4);
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
	model_detail_add_block(&m, &b, 1, 1);
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
	cr_expect_str_eq(m.events[1].ev.culprits[0].name, "culprit");
	cr_expect_eq(m.events[0].ev.ready, US(5), "sorted by ready");
	cr_expect_eq(m.events[1].kernel, 0);
	cr_expect_eq(m.kernels[0].ready, US(20), "the analysis's ready time wins");
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
