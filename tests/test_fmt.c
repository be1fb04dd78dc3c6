/* The one formatter for durations and the one for counts: every place that
 * prints a wait, a span or a count goes through them, so 50 us reads the
 * same in the report, the viewer, the lessons and the library. */
#include <criterion/criterion.h>
#include <string.h>

#include "src/core/fmt.h"

Test(fmt, durations)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 0, "0.0 us" }, { 500, "0.5 us" }, { 9949, "9.9 us" }, { 50000, "50 us" },
		{ 999000, "999 us" }, { 2400000, "2.40 ms" }, { 25760000, "25.76 ms" },
		{ 125400000, "125.4 ms" }, { 999940000, "999.9 ms" }, { 1250000000, "1.25 s" },
		{ 59990000000ULL, "59.99 s" }, { 185000000000ULL, "3m05s" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char b[32];
		cr_expect_str_eq(fmt_duration(b, sizeof b, cases[i].ns, 1), cases[i].want);
		cr_expect_leq(strlen(b), 8, "the library's column holds 8: %s", b);
	}
}

Test(fmt, unknown_duration_is_na)
{
	char b[32];
	cr_expect_str_eq(fmt_duration(b, sizeof b, 123, 0), "N/A");
}

Test(fmt, counts_have_thousands_separators)
{
	char b[32];
	cr_expect_str_eq(fmt_count(b, sizeof b, 999), "999");
	cr_expect_str_eq(fmt_count(b, sizeof b, 126680), "126,680");
	cr_expect_str_eq(fmt_count(b, sizeof b, 4412345), "4,412,345");
	cr_expect_str_eq(fmt_count(b, sizeof b, 41200000), "41.2 M");
	cr_expect_str_eq(fmt_count_exact(b, sizeof b, 41200000), "41,200,000");
	cr_expect_str_eq(fmt_count_exact(b, sizeof b, 18446744073709551615ULL),
			 "18,446,744,073,709,551,615");
	cr_expect_str_eq(fmt_count_exact(b, sizeof b, 0), "0");
	char small[5];
	cr_expect_str_eq(fmt_count_exact(small, sizeof small, 126680), "126,", "cut, never past len");
}
