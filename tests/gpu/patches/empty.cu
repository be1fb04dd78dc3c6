/* Patches that return at once, under the names of collectors/sanitizer_patch.cu's:
 * with SMTOP_PATCHES=build/gpu/empty-patches.fatbin, `--sm all` measures
 * what the Compute Sanitizer's patching costs before smtop's patches do any
 * work (make test-gpu section patch_cost; docs/performance.md). */
#include <stdint.h>

#include <sanitizer_patching.h>

extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_block_enter(void *userdata, uint64_t pc)
{
	(void)userdata;
	(void)pc;
	return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_block_exit(void *userdata, uint64_t pc)
{
	(void)userdata;
	(void)pc;
	return SANITIZER_PATCH_SUCCESS;
}
