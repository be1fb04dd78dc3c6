// Every kind of synchronize call the host makes, for the collector's
// SYNCHRONIZATION records under both backends:
//
//   build/smtop record --sm all -o s.smtop -- build/gpu/sync_kinds
//
// A traced kernel on a created stream, one on the legacy default stream
// (the handle NULL names it in the calls, so a backend must find the stream
// the kernel ran on), then cudaStreamSynchronize on each, an event recorded
// after a third kernel and cudaEventSynchronize on it, and
// cudaDeviceSynchronize.  Prints the counts smtop info must show, in its
// words: "syncs S stream, C context, E event synchronizations; 0 stream waits".
#include <cuda_runtime.h>
#include <stdio.h>

#include "tests/gpu/smoke_spin.cuh"

#define ROUNDS 3
#define SPIN_NS 50000ull

int main(void)
{
	cudaStream_t s;
	cudaEvent_t done;
	int *sink, n = 0;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
	CK(cudaMalloc(&sink, sizeof(int)));
	CK(cudaMemset(sink, 0, sizeof(int)));
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < ROUNDS; i++) {
		smoke_spin<<<8, 64, 0, s>>>(SPIN_NS, sink);
		smoke_spin<<<8, 64>>>(SPIN_NS, sink);
		CK(cudaGetLastError());
		CK(cudaStreamSynchronize(s));
		CK(cudaStreamSynchronize(0));
		smoke_spin<<<8, 64, 0, s>>>(SPIN_NS, sink);
		CK(cudaEventRecord(done, s));
		CK(cudaEventSynchronize(done));
	}
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(&n, sink, sizeof(int), cudaMemcpyDeviceToHost));
	printf("kernels %d of %d\n", n, 3 * ROUNDS);
	printf("syncs %d stream, %d context, %d event synchronizations; 0 stream waits\n", 2 * ROUNDS, 2,
	       ROUNDS);
	CK(cudaFree(sink));
	CK(cudaEventDestroy(done));
	CK(cudaStreamDestroy(s));
	return n == 3 * ROUNDS ? 0 : 1;
}
