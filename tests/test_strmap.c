/* The one hash map of strings: it keeps its own copy of each key, where it
 * stays while the map grows, so the copy serves as an interned string. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "src/core/strmap.h"

Test(strmap, empty_map_finds_nothing)
{
	struct strmap m = { 0 };

	cr_expect_null(strmap_get(&m, "k"));
	cr_expect_null(strmap_find(&m, "k"));
	strmap_free(&m);
}

Test(strmap, put_copies_the_key_and_replaces_the_value)
{
	struct strmap m = { 0 };
	char key[] = "sgemm";

	cr_assert_not_null(strmap_put(&m, key, 1));
	key[0] = 'd';
	cr_expect_null(strmap_get(&m, "dgemm"), "the map holds a copy, not the caller's buffer");
	cr_assert_not_null(strmap_put(&m, "sgemm", 2));
	cr_expect_eq(m.n, 1);
	cr_expect_eq(*strmap_get(&m, "sgemm"), 2);
	cr_expect_null(strmap_get(&m, ""));
	strmap_free(&m);
}

Test(strmap, interned_copies_stay_put_while_it_grows)
{
	struct strmap m = { 0 };
	char key[64];
	const char *first = strmap_intern(&m, "key0");

	cr_assert_not_null(first);
	for (int i = 1; i < 50000; i++) {
		snprintf(key, sizeof key, "key%d", i);
		cr_assert_not_null(strmap_intern(&m, key));
	}
	cr_expect_eq(strmap_intern(&m, "key0"), first, "one copy, where it was");
	cr_expect_eq(strmap_find(&m, "key0"), first);
	cr_expect_eq(m.n, 50000);
	cr_expect_null(strmap_find(&m, "key50000"));
	strmap_free(&m);
}

Test(strmap, long_keys_and_clear)
{
	struct strmap m = { 0 };
	static char big[100000];

	memset(big, 'x', sizeof big - 1);
	cr_assert_not_null(strmap_put(&m, big, 9));
	cr_expect_eq(*strmap_get(&m, big), 9, "a key past the block size");
	strmap_clear(&m);
	cr_expect_eq(m.n, 0);
	cr_expect_null(strmap_get(&m, big));
	cr_assert_not_null(strmap_put(&m, "after", 1), "usable after a clear");
	strmap_free(&m);
}
