#include <criterion/criterion.h>

#include "src/core/gpu_clock.h"

/* Samples on a line (offset 60 us at g0, drift 13 ppm, as one H200 host
 * drifted) with one window far off: Theil-Sen keeps the line. */
Test(gpu_clock, fit_ignores_one_odd_window)
{
	struct gpu_clock_sample p[GPU_CLOCK_MAX_SAMPLES];
	struct gpu_clock c;
	double g0 = 1.8e18;

	for (int i = 0; i < GPU_CLOCK_MAX_SAMPLES; i++) {
		p[i].g = g0 + i * 5e8;
		p[i].diff = 60000 + (int64_t)(13e-6 * i * 5e8);
	}
	p[3].diff += 40000; /* a window whose kernels were matched wrongly */
	gpu_clock_fit(p, GPU_CLOCK_MAX_SAMPLES, &c);
	cr_assert_eq(c.ref_ns, (uint64_t)g0);
	cr_assert_eq(c.drift_ppb, 13000, "drift %lld ppb", (long long)c.drift_ppb);
	cr_assert_eq(c.offset_ns, 60000);
	cr_assert_eq(gpu_clock_cupti(&c, (uint64_t)g0 + 1000000000ull), (uint64_t)g0 + 1000000000ull + 60000 + 13000);
}

Test(gpu_clock, one_sample_is_an_offset_alone)
{
	struct gpu_clock_sample p = { .g = 1e18, .diff = -1870257 };
	struct gpu_clock c;

	gpu_clock_fit(&p, 1, &c);
	cr_assert_eq(c.offset_ns, -1870257);
	cr_assert_eq(c.drift_ppb, 0);
}

/* Samples closer than GPU_CLOCK_MIN_BASE_NS give no slope; a slope past
 * 1000 ppm is no clock's (damaged data) and is dropped. */
Test(gpu_clock, no_drift_from_short_bases_or_impossible_slopes)
{
	struct gpu_clock_sample near[2] = { { 1e18, 100 }, { 1e18 + 1e7, 900 } };
	struct gpu_clock_sample wild[2] = { { 1e18, 0 }, { 1e18 + 1e9, 5000000 } };
	struct gpu_clock c;

	gpu_clock_fit(near, 2, &c);
	cr_assert_eq(c.drift_ppb, 0);
	gpu_clock_fit(wild, 2, &c);
	cr_assert_eq(c.drift_ppb, 0, "5000 ppm is refused");
}
