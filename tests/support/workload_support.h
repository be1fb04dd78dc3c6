/* A synthetic DNN-like workload for loader tests and benchmarks: kernels of
 * `grid` blocks started at a steady rate, round-robin over streams of mixed
 * priority, blocks on random SMs with log-uniform durations (real demo
 * blocks run 20 us to 1 ms).  Block i is a pure function of i, so any time
 * range can be generated on its own. */
#ifndef SMTOP_TESTS_WORKLOAD_SUPPORT_H
#define SMTOP_TESTS_WORKLOAD_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

struct workload {
	uint32_t n_sm, streams, grid, threads;
	uint64_t t0;                    /* first block start, CUPTI ns */
	double rate;                    /* blocks started per second */
	uint64_t dur_min, dur_max;      /* ns */
	uint64_t seed;
};

/* 132 SMs, 4 streams, 2048-block kernels of 64 threads, 20 us-1 ms blocks. */
void workload_default(struct workload *w, double rate, uint64_t t0);

void workload_block(const struct workload *w, uint64_t i, struct smtop_block *b);
/* Kernel k (grid id k + 1): its blocks are k * grid .. (k + 1) * grid - 1;
 * the name is static. */
void workload_kernel(const struct workload *w, uint64_t k, struct smtop_kernel *out);
int32_t workload_priority(const struct workload *w, uint32_t stream);
uint32_t workload_stream_id(const struct workload *w, uint32_t stream);

/* Appends the blocks of indices [0, n) ending in [t0, t1) to *out (grown). */
size_t workload_blocks_ending(const struct workload *w, uint64_t n, uint64_t t0, uint64_t t1,
			      struct smtop_block **out, size_t *cap);

/* Writes blocks [0, n) and their kernels into a new session at path, 50 ms
 * of GPU time per transaction as the collector does (each block and kernel
 * in the period it ends in); finish marks the session ended.  Aborts on
 * failure. */
void workload_write(const struct workload *w, const char *path, uint64_t n, int finish);

/* The same in steps: a session that grows while it is read. */
struct workload_writer;
struct workload_writer *workload_writer_open(const struct workload *w, const char *path,
					     uint64_t n);
/* Writes what ended before GPU time t. */
void workload_writer_until(struct workload_writer *ww, uint64_t t);
/* finish: writes the rest and marks the session ended. */
void workload_writer_close(struct workload_writer *ww, int finish);

#endif
