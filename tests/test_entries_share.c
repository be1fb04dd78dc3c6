/* The split of a drain pass's blocks among the shares of the SMs
 * (collectors/entries_share.c): each block that entered is listed once, in
 * its SM's share, in order, however the pass is cut into ranges. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "collectors/entries_share.h"

#define T0 1764480000000000000ull
#define SHARES 3u

static struct smtop_entry entry(uint64_t t, uint32_t grid, uint16_t sm)
{
	return (struct smtop_entry){ .start = T0 + t, .grid = grid, .sm = sm, .slot = (uint8_t)(t % 64),
				     .check = smtop_entry_check(T0 + t) };
}

/* Three launches laid end to end: 50, 1 and 70 blocks; block i of launch k
 * on SM (i * 7 + k) % 11; launch 2 is short of every fifth block. */
static struct smtop_entry e0[50], e1[1], e2[70];
static struct entries_share_launch pass[3];

static void fill(void)
{
	for (uint32_t i = 0; i < 50; i++)
		e0[i] = entry(i, 1, (uint16_t)(i * 7 % 11));
	e1[0] = entry(0, 2, 1);
	for (uint32_t i = 0; i < 70; i++)
		e2[i] = i % 5 == 4 ? (struct smtop_entry){ 0 } : entry(i, 3, (uint16_t)((i * 7 + 2) % 11));
	pass[0] = (struct entries_share_launch){ .e = e0, .blocks = 50, .at = 0, .warps = 1, .grid = 1, .whole = 1 };
	pass[1] = (struct entries_share_launch){ .e = e1, .blocks = 1, .at = 50, .warps = 1, .grid = 2, .whole = 1 };
	pass[2] = (struct entries_share_launch){ .e = e2, .blocks = 70, .at = 51, .warps = 1, .grid = 3 };
}

static const struct smtop_entry *entry_at(uint32_t pos)
{
	return pos < 50 ? &e0[pos] : pos < 51 ? &e1[0] : &e2[pos - 51];
}

/* The pass cut at the given points, each range's lists read in order. */
static void split_and_check(const uint64_t *cuts, size_t n_cuts)
{
	struct entries_share_list lists[8][SHARES] = { 0 };
	size_t seen = 0;

	fill();
	for (size_t r = 0; r + 1 < n_cuts; r++)
		cr_assert_eq(entries_share_split(pass, 3, cuts[r], cuts[r + 1], SHARES, lists[r]), 0);
	for (unsigned s = 0; s < SHARES; s++) {
		int64_t last = -1;

		for (size_t r = 0; r + 1 < n_cuts; r++)
			for (size_t j = 0; j < lists[r][s].n; j++) {
				const struct entries_share_item *it = &lists[r][s].item[j];
				uint32_t pos = it->pos;

				cr_expect_gt((int64_t)pos, last, "in order");
				cr_expect_eq(entry_at(pos)->sm % SHARES, s, "in its SM's share");
				cr_expect_neq(entry_at(pos)->start, 0, "entered");
				/* the share reads its block from the list, not the arena */
				cr_expect_eq(it->start, entry_at(pos)->start);
				cr_expect_eq(it->sm, entry_at(pos)->sm);
				cr_expect_eq(it->slot, entry_at(pos)->slot);
				last = pos;
				seen++;
			}
	}
	cr_expect_eq(seen, 50 + 1 + 56, "every block that entered, once");
	for (size_t r = 0; r + 1 < n_cuts; r++)
		for (unsigned s = 0; s < SHARES; s++)
			entries_share_list_free(&lists[r][s]);
}

Test(entries_share, one_range_lists_every_entered_block_in_its_share)
{
	split_and_check((const uint64_t[]){ 0, 121 }, 2);
}

Test(entries_share, ranges_cut_inside_launches_list_the_same_blocks)
{
	split_and_check((const uint64_t[]){ 0, 17, 50, 51, 52, 90, 121 }, 7);
}

Test(entries_share, an_empty_range_lists_nothing)
{
	struct entries_share_list lists[SHARES] = { 0 };

	fill();
	cr_expect_eq(entries_share_split(pass, 3, 60, 60, SHARES, lists), 0);
	for (unsigned s = 0; s < SHARES; s++)
		cr_expect_eq(lists[s].n, 0);
}

Test(entries_share, a_block_traced_by_warps_starts_with_its_first_warp_that_entered)
{
	struct smtop_entry w[3] = { entry(30, 9, 4), { 0 }, entry(20, 9, 4) };
	struct entries_share_launch l = { .e = w, .blocks = 1, .warps = 3, .grid = 9 };
	uint64_t start = 0;
	uint16_t sm = 0;

	cr_assert(entries_share_block(&l, w, &start, &sm));
	cr_expect_eq(start, T0 + 20);
	cr_expect_eq(sm, 4);
	w[0].grid = w[2].grid = 8; /* an earlier launch's */
	cr_expect_not(entries_share_block(&l, w, &start, &sm));
}
