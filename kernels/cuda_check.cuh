/* One clear line on any CUDA error, then exit 1: the demos are programs the
 * lead runs by hand on the GPU machine, so a failure must say where. */
#ifndef SMTOP_CUDA_CHECK_CUH
#define SMTOP_CUDA_CHECK_CUH

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

/* cudaErrorInsufficientDriver also comes when there is no driver at all
 * (libcudart cannot load libcuda.so.1): the runtime then reports driver
 * version 0, and "insufficient" would send the user after an upgrade. */
static inline const char *ck_error_text(cudaError_t e)
{
	int driver = -1;
	if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
	    driver == 0)
		return "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
	return cudaGetErrorString(e);
}

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t ck_e_ = (call);                                                        \
		if (ck_e_ != cudaSuccess) {                                                        \
			const char *ck_t_ = ck_error_text(ck_e_);                                  \
			if (ck_t_ != cudaGetErrorString(ck_e_))                                    \
				fprintf(stderr, "%s: %s\n", program_invocation_short_name, ck_t_); \
			else                                                                       \
				fprintf(stderr, "%s: CUDA error %s: %s at %s:%d (%s)\n",           \
					program_invocation_short_name, cudaGetErrorName(ck_e_),    \
					ck_t_, __FILE__, __LINE__, #call);                         \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* After every launch: catches bad configurations at once, not at the next sync. */
#define CK_LAUNCH() CK(cudaGetLastError())

#endif
