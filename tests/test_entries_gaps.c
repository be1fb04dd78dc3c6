/* Where launches dropped for want of room lie on the timeline
 * (collectors/entries_gaps.c): noted by launch order, placed between the
 * first blocks of the stored launches around them. */
#include <criterion/criterion.h>

#include "collectors/entries_gaps.h"

#define OUT_MAX 8
static struct entries_gap out[OUT_MAX];
static size_t n_out;

static void take(void *arg, const struct entries_gap *g)
{
	(void)arg;
	cr_assert_lt(n_out, OUT_MAX);
	out[n_out++] = *g;
}

static struct entries_gaps gaps;

static void reset(void)
{
	gaps = (struct entries_gaps){ 0 };
	n_out = 0;
}

TestSuite(entries_gaps, .init = reset);

/* A launch of `blocks` refused after launch after_seq, collected by the
 * drain's next pass. */
static void refused(uint64_t after_seq, uint64_t blocks)
{
	entries_gaps_note(&gaps, after_seq, blocks);
	entries_gaps_collect(&gaps);
}

/* One gap placed, from and to on the GPU's clock. */
static void expect_one_gap(uint64_t from, uint64_t to)
{
	cr_assert_eq(n_out, 1);
	cr_expect_eq(out[0].from, from);
	cr_expect_eq(out[0].to, to);
}

Test(entries_gaps, launches_dropped_between_two_lie_between_their_first_blocks)
{
	entries_gaps_note(&gaps, 1, 100);
	refused(1, 50);
	entries_gaps_taken(&gaps, 1, 1000, take, NULL);
	cr_expect_eq(n_out, 0, "the launch after them is not taken yet");
	entries_gaps_taken(&gaps, 2, 5000, take, NULL);
	expect_one_gap(1000, 5000);
	cr_expect_eq(out[0].launches, 2);
	cr_expect_eq(out[0].blocks, 150);
	entries_gaps_finish(&gaps, 9000, take, NULL);
	cr_expect_eq(n_out, 1, "nothing left at the end");
}

Test(entries_gaps, the_launch_before_may_be_taken_before_the_gap_is_collected)
{
	entries_gaps_taken(&gaps, 7, 2000, take, NULL);
	refused(7, 10);
	entries_gaps_taken(&gaps, 8, 3000, take, NULL);
	expect_one_gap(2000, 3000);
}

Test(entries_gaps, launches_taken_out_of_order_still_place_both_ends)
{
	refused(3, 10);
	entries_gaps_taken(&gaps, 4, 3000, take, NULL);
	cr_expect_eq(n_out, 0, "the launch before (another stream) is still running");
	entries_gaps_taken(&gaps, 3, 2500, take, NULL);
	expect_one_gap(2500, 3000);
}

Test(entries_gaps, a_gap_before_any_launch_starts_where_it_ends)
{
	refused(0, 10);
	entries_gaps_taken(&gaps, 1, 4000, take, NULL);
	expect_one_gap(4000, 4000);
}

Test(entries_gaps, a_gap_still_open_at_the_end_runs_to_the_end)
{
	entries_gaps_taken(&gaps, 5, 1000, take, NULL);
	entries_gaps_note(&gaps, 5, 10);
	entries_gaps_note(&gaps, 5, 10);
	entries_gaps_finish(&gaps, 9000, take, NULL);
	cr_assert_eq(n_out, 1, "noted after the last pass, still placed");
	cr_expect_eq(out[0].launches, 2);
	cr_expect_eq(out[0].from, 1000);
	cr_expect_eq(out[0].to, 9000);
}

Test(entries_gaps, a_gap_whose_launches_never_started_is_left_out)
{
	refused(5, 10);
	entries_gaps_taken(&gaps, 5, UINT64_MAX, take, NULL);
	entries_gaps_finish(&gaps, 9000, take, NULL);
	cr_expect_eq(n_out, 0, "no place known: the counts alone say it");
}

Test(entries_gaps, a_full_list_grows_its_last_gap)
{
	for (uint64_t s = 1; s <= ENTRIES_GAPS_NOTED + 5; s++)
		entries_gaps_note(&gaps, s * 2, 1);
	cr_expect_eq(gaps.n_noted, ENTRIES_GAPS_NOTED);
	entries_gaps_collect(&gaps);
	entries_gaps_taken(&gaps, 2 * ENTRIES_GAPS_NOTED, 100, take, NULL);
	entries_gaps_taken(&gaps, 2 * (ENTRIES_GAPS_NOTED + 5) + 1, 900, take, NULL);
	cr_assert_eq(n_out, 1, "the last gap ends after the last launch dropped");
	cr_expect_eq(out[0].launches, 6);
	cr_expect_eq(out[0].from, 100);
	cr_expect_eq(out[0].to, 900);
	entries_gaps_finish(&gaps, 0, take, NULL);
	uint64_t launches = 0;
	for (size_t i = 0; i < n_out; i++)
		launches += out[i].launches;
	cr_expect_eq(n_out, 1, "the others' launches never started: left out");
	cr_expect_eq(launches, 6);
}
