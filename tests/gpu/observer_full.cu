/* Full grids for the observer effect (tests/gpu/run.sh section observer):
 * each kernel, alone on the GPU, launches 4 x (its occupancy limit x SMs)
 * blocks of 200 us, so blocks wait for room and every SM should fill to the
 * limit in each wave.  A tracer whose patches cost registers lowers that
 * limit: the most blocks resident per SM then falls below the runtime's
 * figure, and smtop report lists the kernel as a full grid below its
 * limit.  Header-marked (src/core/smtop_trace.cuh), so --sm marked records
 * the blocks too.  Prints one line per kernel:
 *   observer kernel=NAME threads=T regs=R smem=S occupancy_blocks_per_sm=O blocks=B */
#include <cstdio>

#include "kernels/cuda_check.cuh"
#include "src/core/smtop_trace.cuh"

#define FULL_NS 200000ull
#define WAVES 4

static __device__ void full_spin(void)
{
	unsigned long long t0 = smtop_globaltimer();
	while (smtop_globaltimer() - t0 < FULL_NS)
		;
}

/* Few registers, 256 threads: bound by the SM's threads (8 a SM on the H200). */
__global__ void obs_light(int *out)
{
	SMTOP_BLOCK_BEGIN();
	full_spin();
	if (threadIdx.x == 0)
		out[blockIdx.x] = (int)smtop_smid();
	SMTOP_BLOCK_END();
}

/* Many live values, as the placement demo's register-heavy kernel: bound by
 * registers (2 a SM at about 100 registers). */
__global__ void __launch_bounds__(256, 1) obs_regs(int *out, float seed)
{
	SMTOP_BLOCK_BEGIN();
	float r[96];
#pragma unroll
	for (int i = 0; i < 96; i++)
		r[i] = seed * (threadIdx.x + i);
	for (int it = 0; it < 64; it++)
#pragma unroll
		for (int i = 0; i < 96; i++)
			r[i] = r[i] * r[(i + 1) % 96] + 1e-3f;
	float s = 0.f;
#pragma unroll
	for (int i = 0; i < 96; i++)
		s += r[i];
	full_spin();
	if (threadIdx.x == 0)
		out[blockIdx.x] = s == 12345.f ? -2 : (int)smtop_smid();
	SMTOP_BLOCK_END();
}

static void run(const char *name, const void *fn, void **args, int sms, int **out)
{
	const int threads = 256;
	cudaFuncAttributes fa;
	int occ = 0;
	CK(cudaFuncGetAttributes(&fa, fn));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, threads, 0));
	int blocks = WAVES * occ * sms;
	CK(cudaMalloc(out, (size_t)blocks * sizeof(int)));
	args[0] = out;
	CK(cudaLaunchKernel(fn, blocks, threads, args, 0, 0));
	CK_LAUNCH();
	CK(cudaDeviceSynchronize());
	CK(cudaFree(*out));
	printf("observer kernel=%s threads=%d regs=%d smem=%zu occupancy_blocks_per_sm=%d blocks=%d\n",
	       name, threads, fa.numRegs, fa.sharedSizeBytes, occ, blocks);
}

int main(void)
{
	int dev, sms;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	int *out = NULL;
	float seed = 1.0001f;
	void *light_args[] = { NULL };
	void *regs_args[] = { NULL, &seed };
	run("obs_light", (const void *)obs_light, light_args, sms, &out);
	run("obs_regs", (const void *)obs_regs, regs_args, sms, &out);
	return 0;
}
