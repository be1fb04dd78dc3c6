/* Analysis throughput: synthesises N blocks (default 100 M) of kernels on
 * 8 streams (priorities alternating -5 and 0) over 132 SMs, feeds them as a
 * live reader would (kernel record, then its blocks in batches, an update
 * every 64 kernels) and prints blocks/s, seconds and peak RSS.
 * Usage: bench_analysis [N_BLOCKS] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "src/core/analysis.h"
#include "tests/bench/bench_util.h"

#define SMS 132
#define STREAMS 8
#define BLOCKS_PER_SM 8
#define BATCH 65536

/* One kernel of n blocks in waves of SMS * BLOCKS_PER_SM starting at t0. */
static int feed_kernel(struct analysis *a, struct smtop_block *buf, uint64_t grid,
		       uint32_t stream, uint64_t t0, uint64_t n, uint64_t *rng, uint64_t *end)
{
	struct smtop_kernel k = {
		.start = t0, .submitted = t0 > 30000 ? t0 - 30000 : 1, .grid_id = grid,
		.pid = 1, .device_id = 0, .context_id = 1, .stream_id = stream,
		.correlation_id = (uint32_t)grid, .name = "bench_kernel",
		.grid = { (int32_t)n, 1, 1 }, .block = { 256, 1, 1 }, .registers = 32,
	};
	const uint64_t wave = SMS * BLOCKS_PER_SM, dur = 20000;
	uint64_t last = t0;
	size_t m = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t s = t0 + (i / wave) * dur + lcg(rng) % 2000;
		uint64_t e = s + dur - 2000 + lcg(rng) % 2000;
		buf[m++] = (struct smtop_block){ .grid_id = grid, .start = s, .end = e,
						 .block = (uint32_t)i, .sm = (uint16_t)(i % SMS) };
		if (e > last)
			last = e;
		if (m == BATCH) {
			if (analysis_add_blocks(a, 1, 1, buf, m))
				return -1;
			m = 0;
		}
	}
	if (m && analysis_add_blocks(a, 1, 1, buf, m))
		return -1;
	k.end = last;
	*end = last;
	return analysis_add_kernel(a, &k);
}

int main(int argc, char **argv)
{
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ull;
	const uint64_t per_kernel = 4 * SMS * BLOCKS_PER_SM;
	struct smtop_block *buf = malloc(BATCH * sizeof *buf);
	struct analysis *a = analysis_new(NULL);
	if (!buf || !a)
		return 1;
	struct smtop_device dev = { .device_id = 0, .sm_count = SMS };
	analysis_add_device(a, &dev);
	for (uint32_t s = 0; s < STREAMS; s++) {
		struct smtop_stream st = { .pid = 1, .device_id = 0, .context_id = 1,
					   .stream_id = s + 1, .priority = s % 2 ? 0 : -5 };
		analysis_add_stream(a, &st);
	}
	uint64_t stream_t[STREAMS] = { 0 }, rng = 42, grid = 0, done = 0;
	double t0 = now_s();
	while (done < total) {
		uint32_t s = (uint32_t)(grid % STREAMS);
		uint64_t n = total - done < per_kernel ? total - done : per_kernel, end;
		uint64_t start = stream_t[s] + 1000 + lcg(&rng) % 50000;
		if (feed_kernel(a, buf, ++grid, s + 1, start, n, &rng, &end))
			return 1;
		stream_t[s] = end;
		done += n;
		if (grid % 64 == 0 && analysis_update(a, start))
			return 1;
	}
	if (analysis_update(a, ANALYSIS_WATERMARK_ALL))
		return 1;
	double secs = now_s() - t0;
	struct analysis_totals tot;
	analysis_totals(a, &tot);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("bench_analysis: %llu blocks, %zu kernels, %zu events\n",
	       (unsigned long long)total, tot.kernels,
	       (size_t)analysis_event_count(a));
	printf("bench_analysis: %.3f s, %.1f M blocks/s, peak RSS %.1f MiB\n", secs,
	       (double)total / secs / 1e6, (double)ru.ru_maxrss / 1024.0);
	analysis_free(a);
	free(buf);
	return 0;
}
