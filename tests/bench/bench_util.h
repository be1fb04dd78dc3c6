/* What the benchmarks share: a monotonic clock in seconds, a small
 * deterministic generator, so their synthetic data repeat run to run, and
 * the median, p99 and most of a set of samples. */
#ifndef SMTOP_TESTS_BENCH_UTIL_H
#define SMTOP_TESTS_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* v's n samples sorted in place; their median, p99 and most, each divided
 * by unit, into out (0s when there are none). */
static inline void bench_p50_p99_max(uint64_t *v, size_t n, double unit, double out[3])
{
	out[0] = out[1] = out[2] = 0.0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	out[0] = (double)v[n / 2] / unit;
	out[1] = (double)v[n * 99 / 100] / unit;
	out[2] = (double)v[n - 1] / unit;
}

#endif
