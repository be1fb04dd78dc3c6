/* One clear line on any CUDA error, then exit 1: the demos are programs the
 * lead runs by hand on the GPU machine, so a failure must say where. */
#ifndef SMTOP_CUDA_CHECK_CUH
#define SMTOP_CUDA_CHECK_CUH

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t ck_e_ = (call);                                                        \
		if (ck_e_ != cudaSuccess) {                                                        \
			fprintf(stderr, "%s: CUDA error %s: %s at %s:%d (%s)\n",                   \
				program_invocation_short_name, cudaGetErrorName(ck_e_),            \
				cudaGetErrorString(ck_e_), __FILE__, __LINE__, #call);             \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* After every launch: catches bad configurations at once, not at the next sync. */
#define CK_LAUNCH() CK(cudaGetLastError())

#endif
