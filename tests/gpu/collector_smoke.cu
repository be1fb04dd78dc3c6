// Smoke workload for the smtop collector, to run on the GPU machine:
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -I. tests/gpu/collector_smoke.cu -o build/collector_smoke -ldl
//   build/smtop record -o /tmp/smoke.smtop -- build/collector_smoke
//   (or by hand: SMTOP_SESSION=<existing session> CUDA_INJECTION64_PATH=$PWD/build/libsmtop-inject.so build/collector_smoke)
//
// What it does, so the session can be checked against it exactly:
//   - two streams: "low" with priority 0 and "high" with the greatest priority (-5 on the H200);
//   - LAUNCHES_PER_STREAM traced kernels on each (GRID blocks of BLOCK threads each,
//     every block spinning ~SPIN_NS), alternating streams;
//   - one cudaMemcpy host->device of COPY_BYTES and one cudaMemsetAsync of COPY_BYTES;
//   - one NVTX push/pop range "smoke" around the launches;
//   - one smtop_note_request per stream, if the collector is loaded.
// It prints the counts as "key: value" lines on stdout.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define SMOKE_HAVE_NVTX 1
#else
#define SMOKE_HAVE_NVTX 0
#endif

#include "tests/gpu/smoke_spin.cuh"

#define LAUNCHES_PER_STREAM 200
#define GRID 264
#define BLOCK 128
#define SPIN_NS 20000ull
#define COPY_BYTES (4u << 20)

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void note_request(cudaStream_t s, uint64_t start, uint64_t end, const char *label)
{
	smtop_note_request_fn fn = (smtop_note_request_fn)dlsym(RTLD_DEFAULT, SMTOP_NOTE_REQUEST_SYMBOL);
	if (fn)
		fn((void *)s, start, end, label);
}

int main(void)
{
	int least = 0, greatest = 0;
	cudaStream_t low, high;
	int *sink;
	void *dev_buf, *host_buf;

	CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CK(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
	CK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
	CK(cudaMalloc(&sink, sizeof(int)));
	CK(cudaMalloc(&dev_buf, COPY_BYTES));
	CK(cudaMallocHost(&host_buf, COPY_BYTES));

	CK(cudaMemcpy(dev_buf, host_buf, COPY_BYTES, cudaMemcpyHostToDevice));
	CK(cudaMemsetAsync(dev_buf, 0, COPY_BYTES, low));
	CK(cudaMemsetAsync(sink, 0, sizeof(int), low));
	CK(cudaStreamSynchronize(low));

#if SMOKE_HAVE_NVTX
	nvtxRangePushA("smoke");
#endif
	uint64_t t0 = now_ns();
	for (int i = 0; i < LAUNCHES_PER_STREAM; i++) {
		smoke_spin<<<GRID, BLOCK, 0, low>>>(SPIN_NS, sink);
		CK(cudaGetLastError());
		smoke_spin<<<GRID, BLOCK, 0, high>>>(SPIN_NS, sink);
		CK(cudaGetLastError());
	}
	CK(cudaStreamSynchronize(low));
	uint64_t t_low = now_ns();
	CK(cudaStreamSynchronize(high));
	uint64_t t_high = now_ns();
#if SMOKE_HAVE_NVTX
	nvtxRangePop();
#endif
	note_request(low, t0, t_low, "smoke-low");
	note_request(high, t0, t_high, "smoke-high");

	int done = 0;
	CK(cudaMemcpy(&done, sink, sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaDeviceSynchronize());

	printf("priority_low: %d\n", least);
	printf("priority_high: %d\n", greatest);
	printf("kernels_launched: %d\n", 2 * LAUNCHES_PER_STREAM);
	printf("kernels_completed: %d\n", done);
	printf("blocks_launched: %d\n", 2 * LAUNCHES_PER_STREAM * GRID);
	printf("memcpy_htod_bytes: %u\n", COPY_BYTES);
	printf("memcpy_dtoh_bytes: %zu\n", sizeof(int));
	printf("memsets: 2\n");
	printf("nvtx_ranges: %d\n", SMOKE_HAVE_NVTX);
	printf("requests_noted: %d\n", dlsym(RTLD_DEFAULT, SMTOP_NOTE_REQUEST_SYMBOL) ? 2 : 0);

	CK(cudaFreeHost(host_buf));
	CK(cudaFree(dev_buf));
	CK(cudaFree(sink));
	CK(cudaStreamDestroy(low));
	CK(cudaStreamDestroy(high));
	return done == 2 * LAUNCHES_PER_STREAM ? 0 : 1;
}
