/* The most blocks of a kernel resident on one SM at once
 * (src/core/residency.c): touching blocks do not overlap, SMs and kernels
 * are counted apart, a process may lag another on the same SM, blocks in
 * any order give the answer of blocks in start order while the blocks they
 * overlap are kept, and an SM keeps only what can still overlap. */
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
		int c = residency_add(r, v[i].sm, v[i].series, v[i].owner, v[i].s, v[i].e,
				      most[v[i].owner]);
		cr_assert_geq(c, most[v[i].owner]);
		cr_assert_geq(c, 1);
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
 * the lagging process' kernel keeps its blocks. */
Test(residency, lagging_process)
{
	struct blk v[] = {
		{ 0, 1, 0, 0, 10 }, { 0, 1, 0, 1, 10 }, { 0, 1, 0, 100, 110 },
		{ 0, 2, 1, 0, 50 }, { 0, 2, 1, 20, 60 }, { 0, 2, 1, 40, 70 },
		{ 0, 1, 0, 105, 120 },
	};
	cr_expect_eq(most_of(v, 7, 0), 2);
	cr_expect_eq(most_of(v, 7, 1), 3);
}

/* The same blocks forwards, backwards and shuffled, against brute force:
 * forwards and backwards exact, any order never above. */
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

/* In start order an SM keeps only the kernels whose blocks may still be
 * resident, each with its blocks still open; another process' kernels stay
 * until long after their last end. */
Test(residency, memory_stays_small)
{
	struct residency r;
	residency_init(&r);
	for (uint64_t i = 0; i < 100000; i++)
		cr_assert_leq(residency_add(&r, (uint32_t)(i % 132), 1, (int32_t)(i / 1000), i,
					    i + 500, 0), 4);
	for (uint32_t sm = 0; sm < r.n_sms; sm++) {
		cr_expect_leq(r.sms[sm].n, 2, "SM %u keeps %u kernels", sm, r.sms[sm].n);
		for (uint32_t j = 0; j < r.sms[sm].n; j++)
			cr_expect_leq(r.sms[sm].v[j].n, 5);
	}
	cr_expect_eq(r.dropped, 0);
	/* process 2's kernel on SM 0 stays past process 1's later starts ... */
	cr_expect_eq(residency_add(&r, 0, 2, 500, 0, 10, 0), 1);
	cr_expect_eq(residency_add(&r, 0, 1, 501, 200000, 200010, 0), 1);
	int has500 = 0;
	for (uint32_t j = 0; j < r.sms[0].n; j++)
		has500 |= r.sms[0].v[j].owner == 500;
	cr_expect(has500);
	/* ... until one comes long after its last end */
	cr_expect_eq(residency_add(&r, 0, 1, 502, RESIDENCY_FORGET_NS + 11, RESIDENCY_FORGET_NS + 20, 0), 1);
	has500 = 0;
	for (uint32_t j = 0; j < r.sms[0].n; j++)
		has500 |= r.sms[0].v[j].owner == 500;
	cr_expect(!has500);
	residency_clear(&r);
	cr_expect_eq(r.n_sms ? r.sms[0].n : 0, 0);
	residency_free(&r);
}
