/* Entry-only tracing (`--sm entry`): the entries a launch's buffer holds,
 * the ends its blocks get from what came after them, and the chunk format
 * that keeps whether an end is a bound. */
#include <criterion/criterion.h>
#include <string.h>

#include "collectors/entries.h"
#include "collectors/slot_bounds.h"
#include "db/blockcodec.h"

static struct smtop_entry entry(uint64_t start, uint32_t grid, uint16_t sm, uint8_t slot)
{
	return (struct smtop_entry){ .start = start, .grid = grid, .sm = sm, .slot = slot,
				     .check = smtop_entry_check(start) };
}

Test(entries, taken_stops_at_the_first_entry_not_yet_written)
{
	struct smtop_entry e[5] = { entry(1000, 7, 0, 0), entry(1032, 7, 1, 0), { 0 }, entry(1096, 7, 3, 0) };

	cr_expect_eq(entries_taken(e, 0, 5, 7), 2);
	cr_expect_eq(entries_taken(e, 3, 5, 7), 1, "from 3: one, then zeroed memory");
	cr_expect_eq(entries_taken(e, 2, 5, 7), 0);
}

Test(entries, an_entry_of_an_earlier_launch_is_not_taken)
{
	struct smtop_entry e[2] = { entry(1000, 6, 0, 0), entry(1032, 7, 0, 1) };

	cr_expect_eq(entries_taken(e, 0, 2, 7), 0, "grid 6 left it: not this launch's");
	cr_expect_eq(entries_taken(e, 1, 2, 7), 1);
}

Test(entries, a_half_written_entry_is_not_taken)
{
	/* the second half is the new launch's, the first still the old one's */
	struct smtop_entry e = entry(5000, 7, 0, 0);

	e.start = 4000;
	cr_expect_eq(entries_taken(&e, 0, 1, 7), 0);
}

static struct smtop_block blk(uint64_t grid, uint32_t block, uint16_t sm, uint64_t start)
{
	return (struct smtop_block){ .grid_id = grid, .block = block, .sm = sm, .start = start };
}

Test(slot_bounds, the_next_entry_on_the_slot_bounds_the_end)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 2, 100), b = blk(1, 1, 2, 250), out;

	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	cr_expect_eq(slot_bounds_put(&t, &a, 5, 1, 1, 1, &out), 0, "nothing to close yet");
	cr_assert_eq(slot_bounds_put(&t, &b, 5, 1, 1, 1, &out), 1);
	cr_expect_eq(out.block, 0);
	cr_expect_eq(out.start, 100);
	cr_expect_eq(out.end, 250);
	cr_expect(out.flags & SMTOP_BLOCK_END_BOUND);
	slot_bounds_free(&t);
}

Test(slot_bounds, other_slots_and_sms_do_not_bound)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 2, 100), b = blk(1, 1, 2, 250), c = blk(1, 2, 3, 300), out;

	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	slot_bounds_put(&t, &a, 5, 1, 1, 1, &out);
	cr_expect_eq(slot_bounds_put(&t, &b, 6, 1, 1, 1, &out), 0);
	cr_expect_eq(slot_bounds_put(&t, &c, 5, 1, 1, 1, &out), 0);
	cr_expect_eq(t.n_open, 3);
	slot_bounds_free(&t);
}

Test(slot_bounds, a_late_arrival_closes_at_the_later_block_on_its_slot)
{
	/* launches complete out of order: the slot already holds a block that
	 * entered after this one */
	struct slot_bounds t;
	struct smtop_block later = blk(2, 0, 0, 900), early = blk(1, 0, 0, 400), out;

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	slot_bounds_put(&t, &later, 0, 2, 2, 2, &out);
	cr_assert_eq(slot_bounds_put(&t, &early, 0, 1, 1, 1, &out), 1);
	cr_expect_eq(out.grid_id, 1);
	cr_expect_eq(out.end, 900);
	cr_expect_eq(t.n_open, 1, "the later block stays open");
	slot_bounds_free(&t);
}

Test(slot_bounds, a_later_launch_of_the_stream_bounds_its_earlier_blocks)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), g = blk(3, 0, 1, 120), out[4];

	cr_assert_eq(slot_bounds_init(&t, 2), 0);
	slot_bounds_put(&t, &a, 0, 7, 7, 1, out);
	slot_bounds_put(&t, &g, 0, 0, 0, 2, out); /* a graph node: no stream */
	cr_expect_eq(slot_bounds_sweep(&t, out, 4), 0, "no later launch yet");
	slot_bounds_launch_started(&t, 9, 3, 150); /* another stream's */
	cr_expect_eq(slot_bounds_sweep(&t, out, 4), 0);
	slot_bounds_launch_started(&t, 7, 4, 180);
	cr_assert_eq(slot_bounds_sweep(&t, out, 4), 1);
	cr_expect_eq(out[0].grid_id, 1);
	cr_expect_eq(out[0].end, 180);
	cr_expect_eq(t.n_open, 1);
	slot_bounds_free(&t);
}

Test(slot_bounds, the_stream_bound_tightens_a_slot_bound)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), b = blk(5, 0, 0, 500), out;

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	slot_bounds_put(&t, &a, 3, 7, 7, 1, &out);
	slot_bounds_launch_started(&t, 7, 2, 160);
	cr_assert_eq(slot_bounds_put(&t, &b, 3, 8, 8, 3, &out), 1);
	cr_expect_eq(out.end, 160);
	slot_bounds_free(&t);
}

Test(slot_bounds, the_end_closes_every_open_block)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), b = blk(1, 1, 1, 200), out[4];

	cr_assert_eq(slot_bounds_init(&t, 2), 0);
	slot_bounds_put(&t, &a, 0, 7, 7, 1, out);
	slot_bounds_put(&t, &b, 9, 7, 7, 1, out);
	cr_assert_eq(slot_bounds_close_all(&t, 1000, out, 4), 2);
	cr_expect_eq(out[0].end, 1000);
	cr_expect_eq(out[1].end, 1000);
	cr_expect_eq(t.n_open, 0);
	cr_expect_eq(slot_bounds_close_all(&t, 2000, out, 4), 0);
	slot_bounds_free(&t);
}

Test(slot_bounds, a_bound_never_precedes_the_start)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), out;

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	slot_bounds_put(&t, &a, 0, 7, 7, 1, &out);
	cr_assert_eq(slot_bounds_close_all(&t, 0, &out, 1), 1, "clock unknown at the end");
	cr_expect_eq(out.end, 100);
	slot_bounds_free(&t);
}

Test(slot_bounds, beyond_the_table_the_end_is_the_start)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 300, 100), out;

	cr_assert_eq(slot_bounds_init(&t, 256), 0);
	cr_assert_eq(slot_bounds_put(&t, &a, 70, 7, 7, 1, &out), 1);
	cr_expect_eq(out.end, 100);
	cr_expect(out.flags & SMTOP_BLOCK_END_BOUND);
	slot_bounds_free(&t);
}

Test(blockcodec, the_bound_flag_survives_a_chunk)
{
	struct smtop_block in[3] = {
		{ .grid_id = 4, .start = 1000, .end = 2000, .block = 0, .flags = SMTOP_BLOCK_END_BOUND },
		{ .grid_id = 4, .start = 1032, .end = 1500, .block = 1 },
		{ .grid_id = 4, .start = 1064, .end = 9000, .block = 2, .flags = SMTOP_BLOCK_END_BOUND },
	}, out[3];
	uint8_t buf[DB_BLOCKCODEC_MAX_BYTES(3)];
	size_t len = db_blockcodec_encode(in, 3, buf);

	cr_assert_gt(len, 0);
	cr_expect_eq(buf[0], DB_BLOCKCODEC_VERSION_BOUNDS);
	cr_assert_eq(db_blockcodec_decode(buf, len, 1, 0, out, 3), 3);
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(out[i].end, in[i].end, "block %d", i);
		cr_expect_eq(out[i].flags, in[i].flags, "block %d", i);
	}
}

Test(blockcodec, exact_chunks_keep_version_1)
{
	struct smtop_block in = { .grid_id = 4, .start = 1000, .end = 2000 }, out;
	uint8_t buf[DB_BLOCKCODEC_MAX_BYTES(1)];
	size_t len = db_blockcodec_encode(&in, 1, buf);

	cr_expect_eq(buf[0], DB_BLOCKCODEC_VERSION);
	cr_assert_eq(db_blockcodec_decode(buf, len, 1, 0, &out, 1), 1);
	cr_expect_eq(out.flags, 0);
}

Test(slot_bounds, a_synchronize_call_bounds_the_launches_it_waited_for)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), b = blk(2, 0, 1, 300), g = blk(3, 0, 2, 150), out[4];

	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	slot_bounds_put(&t, &a, 0, 7, 7, 1, out);
	slot_bounds_put(&t, &g, 0, 0, 7, 2, out); /* a graph node launched on stream 7 */
	slot_bounds_put(&t, &b, 0, 7, 7, 3, out); /* launched after the call */
	slot_bounds_synced(&t, 7, 2, 500);
	cr_assert_eq(slot_bounds_sweep(&t, out, 4), 2);
	cr_expect_eq(out[0].end, 500);
	cr_expect_eq(out[1].end, 500);
	cr_expect_eq(t.n_open, 1, "launch 3 came after the call");
	slot_bounds_synced(&t, 0, 3, 800); /* the whole context */
	cr_assert_eq(slot_bounds_sweep(&t, out, 4), 1);
	cr_expect_eq(out[0].grid_id, 2);
	cr_expect_eq(out[0].end, 800);
	slot_bounds_free(&t);
}

Test(slot_bounds, a_synchronize_call_on_another_stream_does_not_bound)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), out;

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	slot_bounds_put(&t, &a, 0, 7, 7, 1, &out);
	slot_bounds_synced(&t, 8, 5, 500);
	cr_expect_eq(slot_bounds_sweep(&t, &out, 1), 0);
	slot_bounds_free(&t);
}

Test(slot_bounds, a_block_put_after_its_bound_is_swept)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), out;

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	slot_bounds_launch_started(&t, 7, 2, 400);
	cr_expect_eq(slot_bounds_sweep(&t, &out, 1), 0);
	slot_bounds_put(&t, &a, 0, 7, 7, 1, &out);
	cr_assert_eq(slot_bounds_sweep(&t, &out, 1), 1);
	cr_expect_eq(out.end, 400);
	slot_bounds_free(&t);
}

/* ---- exact windows ---------------------------------------------------------- */

Test(slot_bounds, a_block_with_its_exact_end_keeps_it_and_bounds_the_one_before)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 2, 100), b = blk(1, 1, 2, 250), c = blk(1, 2, 2, 400), out;

	b.end = 330;
	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	slot_bounds_put(&t, &a, 5, 1, 1, 1, &out);
	cr_assert_eq(slot_bounds_put(&t, &b, 5, 1, 1, 1, &out), 1);
	cr_expect_eq(out.end, 250, "a is bounded by b's entry");
	cr_expect(out.flags & SMTOP_BLOCK_END_BOUND);
	cr_assert_eq(slot_bounds_put(&t, &c, 5, 1, 1, 1, &out), 1);
	cr_expect_eq(out.block, 1);
	cr_expect_eq(out.end, 330, "b's end was measured");
	cr_expect_not(out.flags & SMTOP_BLOCK_END_BOUND);
	cr_expect_eq(t.error.n, 1);
	cr_expect_eq(slot_error_quantile(&t.error, 0.5), 64, "inferred 400, exact 330: 70 ns, in the bucket from 64");
	cr_expect_eq(t.error.under, 0);
	slot_bounds_free(&t);
}

Test(slot_bounds, a_kernels_longest_measured_block_tightens_its_inferred_ends)
{
	struct slot_bounds t;
	struct smtop_block w = blk(1, 0, 0, 1000), w2 = blk(1, 1, 0, 2000), a = blk(2, 0, 1, 5000),
			   next = blk(3, 0, 1, 9000), other = blk(4, 0, 3, 5000), onext = blk(5, 0, 3, 9000), out;

	w.end = 1300; /* measured in a window: 300 ns */
	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	slot_bounds_kernel(&t, 0xabc);
	slot_bounds_put(&t, &w, 0, 1, 1, 1, &out);
	slot_bounds_put(&t, &w2, 0, 1, 1, 1, &out); /* closes w: learned */
	slot_bounds_put(&t, &a, 0, 1, 1, 2, &out);
	slot_bounds_kernel(&t, 0xdef);
	cr_assert_eq(slot_bounds_put(&t, &next, 0, 1, 1, 3, &out), 1);
	cr_expect_eq(out.grid_id, 2);
	cr_expect_eq(out.end, 5300, "kernel 0xabc's blocks took at most 300 ns, not the 4000 to the next entry");
	cr_expect(out.flags & SMTOP_BLOCK_END_BOUND, "still inferred");
	slot_bounds_put(&t, &other, 0, 1, 1, 4, &out);
	cr_assert_eq(slot_bounds_put(&t, &onext, 0, 1, 1, 5, &out), 1);
	cr_expect_eq(out.end, 9000, "an unmeasured kernel keeps its bound");
	slot_bounds_free(&t);
}

Test(slot_bounds, an_inferred_end_before_the_exact_one_is_counted_under)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 2, 100), b = blk(2, 0, 2, 150), out;

	a.end = 180; /* another warp of a outlived thread 0's, which b followed */
	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	slot_bounds_put(&t, &a, 5, 1, 1, 1, &out);
	cr_assert_eq(slot_bounds_put(&t, &b, 5, 1, 1, 2, &out), 1);
	cr_expect_eq(out.end, 180);
	cr_expect_eq(t.error.under, 1);
	cr_expect_eq(slot_error_quantile(&t.error, 0.5), 30, "30 ns off");
	slot_bounds_free(&t);
}

Test(slot_bounds, blocks_left_open_at_the_end_are_not_measured)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 2, 100), out[4];

	a.end = 180;
	cr_assert_eq(slot_bounds_init(&t, 4), 0);
	slot_bounds_put(&t, &a, 5, 1, 1, 1, out);
	cr_assert_eq(slot_bounds_close_all(&t, 100000, out, 4), 1);
	cr_expect_eq(out[0].end, 180);
	cr_expect_eq(t.error.n, 0, "the process's end bounds nothing between windows");
	slot_bounds_free(&t);
}

Test(slot_bounds, a_block_traced_by_warps_ends_with_its_last_warp)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), b = blk(2, 0, 0, 200), c = blk(3, 0, 0, 350), out[4];
	const uint8_t two[] = { 3, 7 }, first[] = { 3 }, second[] = { 7 };

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	cr_expect_eq(slot_bounds_put_warps(&t, &a, two, 2, 1, 1, 1, out), 0);
	cr_expect_eq(slot_bounds_put_warps(&t, &b, first, 1, 2, 2, 2, out), 0, "one warp of a is still open");
	cr_assert_eq(slot_bounds_put_warps(&t, &c, second, 1, 3, 3, 3, out), 1);
	cr_expect_eq(out[0].grid_id, 1);
	cr_expect_eq(out[0].end, 350, "the later of its warps' bounds");
	cr_expect(out[0].flags & SMTOP_BLOCK_END_BOUND);
	slot_bounds_free(&t);
}

Test(slot_bounds, a_warp_traced_block_with_its_exact_end_is_measured_once)
{
	struct slot_bounds t;
	struct smtop_block a = blk(1, 0, 0, 100), b = blk(2, 0, 0, 200), c = blk(3, 0, 0, 330), out[4];
	const uint8_t two[] = { 3, 7 }, first[] = { 3 }, second[] = { 7 };

	a.end = 300;
	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	slot_bounds_put_warps(&t, &a, two, 2, 1, 1, 1, out);
	slot_bounds_put_warps(&t, &b, first, 1, 2, 2, 2, out);
	cr_assert_eq(slot_bounds_put_warps(&t, &c, second, 1, 3, 3, 3, out), 1);
	cr_expect_eq(out[0].end, 300);
	cr_expect_not(out[0].flags & SMTOP_BLOCK_END_BOUND);
	cr_expect_eq(t.error.n, 1, "one block, one measurement");
	cr_expect_eq(t.error.under, 0);
	cr_expect_eq(slot_error_quantile(&t.error, 0.5), 30, "inferred 330 against exact 300");
	cr_expect_eq(t.error.sm_exact_ns[0], 200, "SM 0 held it 200 ns by its exact end");
	cr_expect_eq(t.error.sm_inferred_ns[0], 230, "and 230 by its inferred end");
	slot_bounds_free(&t);
}

Test(slot_bounds, warp_groups_are_reused_as_blocks_close)
{
	/* one SM has 64 groups: 1000 blocks of 2 warps pass through them */
	struct slot_bounds t;
	struct smtop_block out[4];
	size_t closed = 0;

	cr_assert_eq(slot_bounds_init(&t, 1), 0);
	for (uint32_t i = 0; i < 1000; i++) {
		struct smtop_block b = blk(1, i, 0, 100 + 10 * (uint64_t)i);
		const uint8_t slots[] = { (uint8_t)(2 * i % 64), (uint8_t)((2 * i + 1) % 64) };

		closed += slot_bounds_put_warps(&t, &b, slots, 2, 1, 1, 1, out);
	}
	cr_expect_eq(closed, 1000 - 32, "all but the last lap's 32 blocks");
	for (size_t k; (k = slot_bounds_close_all(&t, 1000000, out, 4));)
		closed += k;
	cr_expect_eq(closed, 1000);
	cr_expect_eq(t.n_open, 0);
	size_t free_groups = 0;
	for (uint32_t g = t.free_group; g; g = t.groups[g - 1].next_free)
		free_groups++;
	cr_expect_eq(free_groups, 64, "every group back on the free list");
	slot_bounds_free(&t);
}
