/* A block-entry patch that counts its calls into the counter its
 * function's callback data points at (tests/gpu/late_sanitizer.cu). */
#include <stdint.h>

#include <sanitizer_patching.h>

extern "C" __device__ __noinline__ SanitizerPatchResult late_count_enter(void *userdata, uint64_t pc)
{
	(void)pc;
	if (userdata)
		atomicAdd((unsigned long long *)userdata, 1ull);
	return SANITIZER_PATCH_SUCCESS;
}
