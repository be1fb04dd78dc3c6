/* The one hash map of 64-bit keys: exact keys (ids, pointers) replace their
 * value, hashed wide keys keep every entry under one key, and the map grows
 * past thousands of entries without losing one. */
#include <criterion/criterion.h>

#include "src/core/u64map.h"

Test(u64map, empty_map_finds_nothing)
{
	struct u64map m = { 0 };
	size_t pos = 0;

	cr_expect_null(u64map_get(&m, 0));
	cr_expect_null(u64map_next(&m, 7, &pos));
	u64map_free(&m);
}

Test(u64map, put_replaces_and_grows)
{
	struct u64map m = { 0 };

	for (uint64_t k = 0; k < 100000; k++)
		cr_assert_eq(u64map_put(&m, k * 4096, k), 0);
	cr_assert_eq(u64map_put(&m, 0, 42), 0);
	cr_expect_eq(m.n, 100000, "a put of a key there replaces: %zu", m.n);
	cr_expect_eq(*u64map_get(&m, 0), 42);
	for (uint64_t k = 1; k < 100000; k++)
		cr_assert_eq(*u64map_get(&m, k * 4096), k);
	cr_expect_null(u64map_get(&m, 4095));
	cr_expect_geq(m.cap, 2 * m.n, "at most half full");
	cr_expect_eq(m.cap & (m.cap - 1), 0, "a power of two");
	u64map_free(&m);
}

Test(u64map, any_key_including_zero_and_max)
{
	struct u64map m = { 0 };

	cr_assert_eq(u64map_put(&m, 0, 1), 0);
	cr_assert_eq(u64map_put(&m, UINT64_MAX, 0), 0);
	cr_expect_eq(*u64map_get(&m, 0), 1);
	cr_expect_eq(*u64map_get(&m, UINT64_MAX), 0);
	u64map_free(&m);
}

Test(u64map, hashed_keys_keep_every_entry)
{
	struct u64map m = { 0 };
	uint64_t seen = 0;
	size_t pos = 0;

	for (uint64_t v = 0; v < 5; v++)
		cr_assert_eq(u64map_add(&m, 99, v), 0);
	cr_assert_eq(u64map_add(&m, 100, 7), 0);
	for (const uint64_t *v; (v = u64map_next(&m, 99, &pos));)
		seen |= 1ull << *v;
	cr_expect_eq(seen, 0x1f, "each of the five under one key: %#llx", (unsigned long long)seen);
	cr_expect_eq(*u64map_get(&m, 100), 7);
	u64map_free(&m);
}

Test(u64map, clear_keeps_room)
{
	struct u64map m = { 0 };

	cr_assert_eq(u64map_reserve(&m, 1000), 0);
	size_t cap = m.cap;
	for (uint64_t k = 0; k < 1000; k++)
		cr_assert_eq(u64map_add(&m, k, k), 0);
	cr_expect_eq(m.cap, cap, "reserved: no growth");
	u64map_clear(&m);
	cr_expect_eq(m.n, 0);
	cr_expect_eq(m.cap, cap);
	cr_expect_null(u64map_get(&m, 5));
	u64map_free(&m);
}
