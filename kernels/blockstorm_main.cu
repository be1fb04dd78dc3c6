/* blockstorm: a storm of tiny instrumented kernels to find the block tracer's
 * top rate.  `blockstorm --seconds S --blocks-per-kernel N [--streams K]
 * [--rate R] [--no-trace]` prints blocks launched and retired per second;
 * --no-trace runs an identical kernel without the macros, so the two rates give
 * the tracer's cost (run both with and without smtop attached); --rate paces
 * launches to R blocks per second, to find the rate where drops begin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kernels/cuda_check.cuh"
#include "src/core/smtop_trace.cuh"

#define MAX_STREAMS 64
#define THREADS 32

/* Almost nothing: one store per thread, so the block's cost is scheduling. */
__global__ void storm_traced(float *x)
{
	SMTOP_BLOCK_BEGIN();
	x[(size_t)blockIdx.x * THREADS + threadIdx.x] += 1.f;
	SMTOP_BLOCK_END();
}

__global__ void storm_plain(float *x)
{
	x[(size_t)blockIdx.x * THREADS + threadIdx.x] += 1.f;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: blockstorm [--seconds S] [--blocks-per-kernel N] [--streams K] [--rate R] [--no-trace]\n");
}

int main(int argc, char **argv)
{
	double seconds = 3;
	int blocks = 1024, nstreams = 8, trace = 1;
	double rate = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--no-trace") == 0) {
			trace = 0;
			continue;
		}
		if (v && strcmp(argv[i], "--seconds") == 0)
			seconds = atof(v);
		else if (v && strcmp(argv[i], "--blocks-per-kernel") == 0)
			blocks = atoi(v);
		else if (v && strcmp(argv[i], "--streams") == 0)
			nstreams = atoi(v);
		else if (v && strcmp(argv[i], "--rate") == 0)
			rate = atof(v);
		else {
			usage();
			return 2;
		}
		i++;
	}
	if (seconds <= 0 || rate < 0 || blocks < 1 || blocks > (1 << 24) || nstreams < 1 || nstreams > MAX_STREAMS) {
		usage();
		return 2;
	}
	cudaStream_t s[MAX_STREAMS];
	float *x[MAX_STREAMS];
	for (int i = 0; i < nstreams; i++) {
		CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
		CK(cudaMalloc(&x[i], sizeof(float) * THREADS * blocks));
		CK(cudaMemset(x[i], 0, sizeof(float) * THREADS * blocks));
	}
	/* Warm-up: module load and (with smtop) ring set-up are not the storm. */
	for (int i = 0; i < nstreams; i++) {
		if (trace)
			storm_traced<<<blocks, THREADS, 0, s[i]>>>(x[i]);
		else
			storm_plain<<<blocks, THREADS, 0, s[i]>>>(x[i]);
		CK_LAUNCH();
	}
	CK(cudaDeviceSynchronize());
	long kernels = 0;
	double t0 = now_s(), t;
	do {
		/* Batches keep the launch queues full without unbounded growth. */
		for (int b = 0; b < 64; b++) {
			int i = (int)(kernels % nstreams);
			if (trace)
				storm_traced<<<blocks, THREADS, 0, s[i]>>>(x[i]);
			else
				storm_plain<<<blocks, THREADS, 0, s[i]>>>(x[i]);
			CK_LAUNCH();
			kernels++;
		}
		t = now_s();
		if (kernels % (64 * 16) == 0)
			CK(cudaDeviceSynchronize());
		/* Paced: wait until the blocks launched so far are due. */
		while (rate > 0 && (double)kernels * blocks > rate * (t - t0) && t - t0 < seconds) {
			struct timespec nap = { 0, 200000 };
			nanosleep(&nap, NULL);
			t = now_s();
		}
	} while (t - t0 < seconds);
	CK(cudaDeviceSynchronize());
	double el = now_s() - t0;
	/* Every element was incremented once per kernel on its stream (+1 warm-up). */
	long expect_total = 0;
	int bad = 0;
	float *h = (float *)malloc(sizeof(float) * THREADS * blocks);
	if (!h) {
		fprintf(stderr, "blockstorm: out of host memory\n");
		return 1;
	}
	for (int i = 0; i < nstreams; i++) {
		long k = kernels / nstreams + (i < kernels % nstreams) + 1;
		expect_total += k - 1;
		CK(cudaMemcpy(h, x[i], sizeof(float) * THREADS * blocks, cudaMemcpyDeviceToHost));
		if (h[0] != (float)k || h[(size_t)THREADS * blocks - 1] != (float)k)
			bad = 1;
	}
	free(h);
	(void)expect_total;
	double bps = (double)kernels * blocks / el;
	printf("blockstorm rate_target=%.0f mode=%s streams=%d threads=%d blocks_per_kernel=%d kernels=%ld seconds=%.3f "
	       "kernels_per_s=%.0f blocks_per_s=%.0f verified=%s\n",
	       rate, trace ? "trace" : "no-trace", nstreams, THREADS, blocks, kernels, el, kernels / el, bps,
	       bad ? "no" : "yes");
	for (int i = 0; i < nstreams; i++) {
		CK(cudaFree(x[i]));
		CK(cudaStreamDestroy(s[i]));
	}
	return bad ? 1 : 0;
}
