#include "src/core/gpu_clock.h"

#include <stdlib.h>

static int gpu_clock_double_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* v in int64's range (a damaged file can hold any time). */
static int64_t gpu_clock_clamp(double v)
{
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN;
	return (int64_t)v;
}

void gpu_clock_fit(const struct gpu_clock_sample *p, size_t n, struct gpu_clock *c)
{
	double slopes[GPU_CLOCK_MAX_SAMPLES * GPU_CLOCK_MAX_SAMPLES], at[GPU_CLOCK_MAX_SAMPLES], slope = 0;
	size_t ns = 0;

	if (n > GPU_CLOCK_MAX_SAMPLES)
		n = GPU_CLOCK_MAX_SAMPLES;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (p[j].g - p[i].g >= GPU_CLOCK_MIN_BASE_NS || p[i].g - p[j].g >= GPU_CLOCK_MIN_BASE_NS)
				slopes[ns++] = (double)(p[j].diff - p[i].diff) / (p[j].g - p[i].g);
	if (ns) {
		qsort(slopes, ns, sizeof *slopes, gpu_clock_double_cmp);
		slope = slopes[ns / 2];
	}
	if (slope > GPU_CLOCK_MAX_DRIFT || slope < -GPU_CLOCK_MAX_DRIFT)
		slope = 0; /* no clock drifts like that: damaged or foreign data */
	for (size_t i = 0; i < n; i++)
		at[i] = (double)p[i].diff - slope * (p[i].g - p[0].g);
	qsort(at, n, sizeof *at, gpu_clock_double_cmp);
	c->ref_ns = p[0].g >= 1.8e19 ? UINT64_MAX : (uint64_t)p[0].g;
	c->offset_ns = gpu_clock_clamp(at[n / 2]);
	c->drift_ppb = (int64_t)(slope * 1e9 + (slope < 0 ? -0.5 : 0.5));
}
