/* Kernels that know nothing of smtop (no src/core/smtop_trace.cuh), for the
 * --sm all backend: odd shapes (3-D grids, blocks not a multiple of a warp,
 * threads that exit early, warps that end long after thread 0), two stream
 * priorities, and a CUDA graph replayed, whose kernels fire no launch
 * callback.  Prints the blocks it launched: `expected_blocks=N kernels=K`. */
#include <cstdio>
#include <cstdlib>

#include "kernels/cuda_check.cuh"

__device__ unsigned long long um_now(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__device__ void um_spin(unsigned long long ns)
{
	unsigned long long t0 = um_now();
	while (um_now() - t0 < ns)
		;
}

/* Thread 0 leaves at once; the last warp spins: the block ends with it. */
__global__ void um_late_warp(int *out, unsigned long long ns)
{
	unsigned t = threadIdx.x;
	if (t == 0)
		return;
	if (t >= blockDim.x - 32)
		um_spin(ns);
	if (t == blockDim.x - 1)
		out[blockIdx.x] = 1;
}

/* 100 threads (a partial warp); half return before any work. */
__global__ void um_early(int *out)
{
	if (threadIdx.x & 1)
		return;
	um_spin(2000);
	out[blockIdx.x] = threadIdx.x;
}

__global__ void um_3d(int *out)
{
	um_spin(1000);
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
		out[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = 1;
}

__global__ void um_tiny(int *out)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

int main(void)
{
	int lo, hi;
	cudaStream_t s_lo, s_hi, s_g;
	int *buf;
	unsigned long long blocks = 0, kernels = 0;

	CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
	CK(cudaStreamCreateWithPriority(&s_lo, cudaStreamNonBlocking, lo));
	CK(cudaStreamCreateWithPriority(&s_hi, cudaStreamNonBlocking, hi));
	CK(cudaStreamCreateWithPriority(&s_g, cudaStreamNonBlocking, lo));
	CK(cudaMalloc(&buf, 1 << 24));
	for (int i = 0; i < 20; i++) {
		um_late_warp<<<264, 256, 0, s_lo>>>(buf, 20000);
		um_early<<<1000, 100, 0, s_hi>>>(buf);
		um_3d<<<dim3(7, 5, 3), dim3(8, 8, 2), 0, s_lo>>>(buf);
		um_tiny<<<4096, 128, 0, s_hi>>>(buf);
		blocks += 264 + 1000 + 105 + 4096;
		kernels += 4;
	}
	CK(cudaGetLastError());
	/* A graph of two kernels, captured once and replayed. */
	cudaGraph_t g;
	cudaGraphExec_t ge;
	CK(cudaStreamBeginCapture(s_g, cudaStreamCaptureModeGlobal));
	um_tiny<<<512, 64, 0, s_g>>>(buf);
	um_3d<<<dim3(3, 3, 3), dim3(4, 4, 4), 0, s_g>>>(buf);
	CK(cudaStreamEndCapture(s_g, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	for (int i = 0; i < 10; i++) {
		CK(cudaGraphLaunch(ge, s_g));
		blocks += 512 + 27;
		kernels += 2;
	}
	CK(cudaDeviceSynchronize());
	printf("expected_blocks=%llu kernels=%llu\n", blocks, kernels);
	return 0;
}
