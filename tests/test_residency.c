/* The most blocks of a kernel resident on one SM at once
 * (src/core/residency.c): touching blocks do not overlap, SMs and kernels
 * are counted apart, processes may lag each other, and blocks in any order
 * give the answer of blocks in start order while the blocks they overlap
 * are kept. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "src/core/residency.h"

struct blk {
	uint32_t sm, series;
	int32_t owner;
	uint64_t s, e;
};

/* Feeds v[0..n) in order; the most per owner (owners 0..7). */
static void feed(const struct blk *v, size_t n, int most[8], struct residency *r)
{
	for (int i = 0; i < 8; i++)
		most[i] = 0;
	for (size_t i = 0; i < n; i++) {
		int c = residency_add(r, v[i].sm, v[i].series, v[i].owner, v[i].s, v[i].e);
		cr_assert_geq(c, 1);
		if (c > most[v[i].owner])
			most[v[i].owner] = c;
	}
}

static int most_of(const struct blk *v, size_t n, int owner)
{
	struct residency r;
	int most[8];
	residency_init(&r);
	feed(v, n, most, &r);
	residency_free(&r);
	return most[owner];
}

Test(residency, touching_is_not_overlap)
{
	/* two waves of two on SM 0: each ends exactly when the next starts */
	struct blk v[] = { { 0, 1, 0, 0, 10 }, { 0, 1, 0, 0, 10 }, { 0, 1, 0, 10, 20 },
			   { 0, 1, 0, 10, 20 }, { 0, 1, 0, 20, 30 } };
	cr_expect_eq(most_of(v, 5, 0), 2);
	struct blk w[] = { { 0, 1, 0, 0, 10 }, { 0, 1, 0, 9, 20 } };
	cr_expect_eq(most_of(w, 2, 0), 2);
	struct blk chain[] = { { 0, 1, 0, 0, 10 }, { 0, 1, 0, 10, 20 }, { 0, 1, 0, 20, 30 } };
	cr_expect_eq(most_of(chain, 3, 0), 1);
}

Test(residency, sms_and_kernels_apart)
{
	struct blk v[] = { { 0, 1, 0, 0, 10 }, { 1, 1, 0, 0, 10 }, { 0, 1, 1, 0, 10 },
			   { 0, 1, 1, 1, 10 }, { 0, 1, 1, 2, 10 }, { 2, 1, 0, 5, 6 } };
	cr_expect_eq(most_of(v, 6, 0), 1);
	cr_expect_eq(most_of(v, 6, 1), 3);
}

Test(residency, empty_blocks_count_one)
{
	struct blk v[] = { { 0, 1, 0, 5, 5 }, { 0, 1, 0, 5, 5 }, { 0, 1, 0, 7, 3 } };
	cr_expect_eq(most_of(v, 3, 0), 1);
}

/* One process's blocks come a whole batch behind another's on the same SM:
 * the lagging blocks keep their own open list right. */
Test(residency, lagging_series)
{
	struct blk v[] = {
		{ 0, 1, 0, 0, 10 }, { 0, 1, 0, 1, 10 }, { 0, 1, 0, 100, 110 },
		{ 0, 2, 1, 0, 50 }, { 0, 2, 1, 20, 60 }, { 0, 2, 1, 40, 70 },
		{ 0, 1, 0, 105, 120 },
	};
	cr_expect_eq(most_of(v, 7, 0), 2);
	cr_expect_eq(most_of(v, 7, 1), 3);
}

/* The same blocks forwards, backwards and shuffled (all kept: nothing ends
 * before a later start of its series is seen when the order is reversed). */
Test(residency, any_order_same_answer)
{
	enum { N = 400 };
	struct blk v[N];
	srand(7);
	uint64_t t[4] = { 0 };
	for (int i = 0; i < N; i++) {
		uint32_t sm = (uint32_t)(rand() % 4);
		uint64_t s = t[sm] + (uint64_t)(rand() % 5);
		t[sm] = s;
		v[i] = (struct blk){ sm, 1, rand() % 3, s, s + 1 + (uint64_t)(rand() % 30) };
	}
	int fwd[8], bwd[8], shuf[8];
	struct residency r;
	residency_init(&r);
	feed(v, N, fwd, &r);
	cr_expect_eq(r.late, 0);
	residency_free(&r);
	struct blk back[N];
	for (int i = 0; i < N; i++)
		back[i] = v[N - 1 - i];
	residency_init(&r);
	feed(back, N, bwd, &r);
	residency_free(&r);
	for (int i = N - 1; i > 0; i--) {
		int j = rand() % (i + 1);
		struct blk x = back[i];
		back[i] = back[j];
		back[j] = x;
	}
	residency_init(&r);
	feed(back, N, shuf, &r);
	residency_free(&r);
	/* an exact count by brute force */
	for (int o = 0; o < 3; o++) {
		int best = 0;
		for (int i = 0; i < N; i++) {
			if (v[i].owner != o)
				continue;
			int c = 0;
			for (int j = 0; j < N; j++)
				c += v[j].owner == o && v[j].sm == v[i].sm && v[j].s <= v[i].s &&
				     v[i].s < v[j].e;
			best = c > best ? c : best;
		}
		cr_expect_eq(fwd[o], best, "owner %d forwards %d, brute force %d", o, fwd[o], best);
		cr_expect_eq(bwd[o], best, "owner %d backwards %d, brute force %d", o, bwd[o], best);
		cr_expect_leq(shuf[o], best);
	}
}

/* In start order an SM keeps only the blocks still resident. */
Test(residency, memory_stays_small)
{
	struct residency r;
	residency_init(&r);
	for (uint64_t i = 0; i < 100000; i++)
		cr_assert_leq(residency_add(&r, (uint32_t)(i % 132), 1, (int32_t)(i / 1000), i, i + 500),
			      4);
	for (uint32_t sm = 0; sm < r.n_sms; sm++)
		cr_expect_leq(r.sms[sm].n, 5);
	cr_expect_eq(r.dropped, 0);
	residency_free(&r);
}
