// Two or more GPUs in one process, for the collector and the session clock:
//
//   build/smtop record -o multi.smtop -- build/gpu/multi_gpu
//
// On every device D: one stream at priority 0 and one at the greatest
// priority, KERNELS traced kernels alternating between them, each of
// (D + 1) * SM-count blocks spinning SPIN_NS, all devices launched in turn so
// their kernels overlap in time.  Prints "devices: N" and one line per device,
// "device D sms S kernels K blocks B", so the session can be checked exactly.
// Exit status 2 when fewer than two devices are visible.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/gpu/smoke_spin.cuh"

#define KERNELS 60
#define BLOCK 128
#define SPIN_NS 20000ull
#define MAX_DEVICES 16

struct device_work {
	cudaStream_t s[2];
	int *sink;
	int sms, grid;
};

static void device_setup(int d, struct device_work *w)
{
	int least, greatest;

	CK(cudaSetDevice(d));
	CK(cudaDeviceGetAttribute(&w->sms, cudaDevAttrMultiProcessorCount, d));
	w->grid = (d + 1) * w->sms;
	CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CK(cudaStreamCreateWithPriority(&w->s[0], cudaStreamNonBlocking, least));
	CK(cudaStreamCreateWithPriority(&w->s[1], cudaStreamNonBlocking, greatest));
	CK(cudaMalloc(&w->sink, sizeof(int)));
	CK(cudaMemset(w->sink, 0, sizeof(int)));
	CK(cudaDeviceSynchronize());
}

int main(void)
{
	struct device_work w[MAX_DEVICES];
	int n = 0;

	CK(cudaGetDeviceCount(&n));
	if (n < 2) {
		fprintf(stderr, "multi_gpu: %d device visible; needs 2 or more\n", n);
		return 2;
	}
	if (n > MAX_DEVICES)
		n = MAX_DEVICES;
	for (int d = 0; d < n; d++)
		device_setup(d, &w[d]);
	for (int k = 0; k < KERNELS; k++)
		for (int d = 0; d < n; d++) {
			CK(cudaSetDevice(d));
			smoke_spin<<<w[d].grid, BLOCK, 0, w[d].s[k % 2]>>>(SPIN_NS, w[d].sink);
			CK(cudaGetLastError());
		}
	int failed = 0;
	printf("devices: %d\n", n);
	for (int d = 0; d < n; d++) {
		int done = 0;
		CK(cudaSetDevice(d));
		CK(cudaDeviceSynchronize());
		CK(cudaMemcpy(&done, w[d].sink, sizeof(int), cudaMemcpyDeviceToHost));
		printf("device %d sms %d kernels %d blocks %d\n", d, w[d].sms, done, KERNELS * w[d].grid);
		failed |= done != KERNELS;
		CK(cudaFree(w[d].sink));
		CK(cudaStreamDestroy(w[d].s[0]));
		CK(cudaStreamDestroy(w[d].s[1]));
	}
	return failed;
}
