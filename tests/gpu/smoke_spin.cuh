/* The traced kernel of the GPU test programs in tests/gpu: every block spins
 * for ns of %globaltimer time; block 0 counts the kernel in *sink. */
#ifndef SMTOP_TESTS_SMOKE_SPIN_CUH
#define SMTOP_TESTS_SMOKE_SPIN_CUH

#include "kernels/cuda_check.cuh"
#include "src/core/smtop_trace.cuh"

__global__ void smoke_spin(unsigned long long ns, int *sink)
{
	SMTOP_BLOCK_BEGIN();
	unsigned long long t0 = smtop_globaltimer();
	while (smtop_globaltimer() - t0 < ns)
		;
	if (threadIdx.x == 0 && blockIdx.x == 0)
		atomicAdd(sink, 1);
	SMTOP_BLOCK_END();
}

#endif
