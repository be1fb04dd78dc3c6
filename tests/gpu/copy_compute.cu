// The classic overlap pattern, for the ready-time tests (make test-gpu
// section waits): STREAMS non-blocking streams, each round on each stream a
// copy in (pinned, COPY_BYTES), a traced kernel, a copy out.  The kernels
// are small (BLOCKS blocks each, all of them fit on the GPU at once), so no
// kernel ever waits for SMs: every wait is its own copies', which share the
// copy engines across the streams.  An analysis that counted only the
// previous kernel on the stream would see each kernel wait hundreds of us
// "behind" the other streams' kernels.
//
//   build/smtop record -o copy-compute.smtop -- build/gpu/copy_compute
//
// Prints "key: value" lines: streams, rounds, kernels, copies, blocks.
#include <cuda_runtime.h>
#include <stdio.h>

#include "tests/gpu/smoke_spin.cuh"

#define STREAMS 4
#define ROUNDS 40
#define BLOCKS 8
#define THREADS 128
#define SPIN_NS 150000ull
#define COPY_BYTES (16u << 20)

int main(void)
{
	cudaStream_t s[STREAMS];
	void *host[STREAMS], *dev[STREAMS];
	int *sink;

	CK(cudaMalloc((void **)&sink, sizeof(int)));
	CK(cudaMemset(sink, 0, sizeof(int)));
	for (int i = 0; i < STREAMS; i++) {
		CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
		CK(cudaMallocHost(&host[i], COPY_BYTES));
		CK(cudaMalloc(&dev[i], COPY_BYTES));
	}
	/* one warm-up kernel per stream, outside the rounds' pattern */
	for (int i = 0; i < STREAMS; i++) {
		smoke_spin<<<BLOCKS, THREADS, 0, s[i]>>>(1000, sink);
		CK_LAUNCH();
	}
	CK(cudaDeviceSynchronize());
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < STREAMS; i++) {
			CK(cudaMemcpyAsync(dev[i], host[i], COPY_BYTES, cudaMemcpyHostToDevice, s[i]));
			smoke_spin<<<BLOCKS, THREADS, 0, s[i]>>>(SPIN_NS, sink);
			CK_LAUNCH();
			CK(cudaMemcpyAsync(host[i], dev[i], COPY_BYTES, cudaMemcpyDeviceToHost, s[i]));
		}
	CK(cudaDeviceSynchronize());
	printf("streams: %d\nrounds: %d\nkernels: %d\ncopies: %d\nblocks: %d\n", STREAMS, ROUNDS,
	       STREAMS * (ROUNDS + 1), 2 * STREAMS * ROUNDS, STREAMS * (ROUNDS + 1) * BLOCKS);
	for (int i = 0; i < STREAMS; i++) {
		CK(cudaStreamDestroy(s[i]));
		CK(cudaFreeHost(host[i]));
		CK(cudaFree(dev[i]));
	}
	CK(cudaFree(sink));
	return 0;
}
