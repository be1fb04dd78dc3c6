/* What the benchmarks share: a monotonic clock in seconds and a small
 * deterministic generator, so their synthetic data repeat run to run. */
#ifndef SMTOP_TESTS_BENCH_UTIL_H
#define SMTOP_TESTS_BENCH_UTIL_H

#include <stdint.h>
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

#endif
