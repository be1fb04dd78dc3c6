/* Whether the Compute Sanitizer can be loaded into a process that already
 * runs CUDA: a dormant `--sm entry` process pays the loaded sanitizer's cost
 * on every CUDA call (docs/performance.md), which loading it only when a
 * recording starts would avoid.
 *
 *   late_sanitizer early|late|renewed LIBSANITIZER PATCHES MODULE
 *
 * early opens the sanitizer (LIBSANITIZER, libsanitizer-public.so) and
 * subscribes before the first CUDA call, late after its own kernel ran;
 * renewed as late, then resets the device, so that the context the rest
 * runs in is made with the sanitizer attached.
 * Then, in each: its own kernel again (launch callbacks?), MODULE
 * (tests/gpu/modules/churn.cu's fatbin) loaded (resource callbacks?), and
 * both kernels patched at block entry with PATCHES
 * (tests/gpu/patches/count.cu: counts its calls) and launched (did the
 * patch run?).  Launches timed before and after the subscription.
 * Prints one line of key=value; exits 1 on a CUDA error or a wrong block. */
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include <time.h>

#include <cuda.h>
#include <dlfcn.h>
#include <sanitizer.h>

#include "kernels/cuda_check.cuh"
#include "tests/gpu/driver_modules.cuh"

#define LATE_BLOCKS 528
#define LATE_THREADS 128
#define LATE_TIMED 20000

struct late_api {
	SanitizerResult (*subscribe)(Sanitizer_SubscriberHandle *, Sanitizer_CallbackFunc, void *);
	SanitizerResult (*enable_domain)(uint32_t, Sanitizer_SubscriberHandle, Sanitizer_CallbackDomain);
	SanitizerResult (*add_patches)(const char *, CUcontext);
	SanitizerResult (*patch_instructions)(Sanitizer_InstructionId, CUmodule, const char *);
	SanitizerResult (*patch_module)(CUmodule);
	SanitizerResult (*set_data)(CUfunction, const void *);
	CUresult (*ctx_current)(CUcontext *);
	CUresult (*func_module)(CUmodule *, CUfunction);
	CUresult (*load)(CUmodule *, const void *);
	CUresult (*function)(CUfunction *, CUmodule, const char *);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   CUstream, void **, void **);
};

static struct late_api api;
static unsigned long long late_launches, late_resources;

__global__ void late_own(int *out, int v)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = v;
}

static void SANITIZERAPI late_callback(void *userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
				       const void *data)
{
	(void)userdata;
	(void)data;
	if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
		__atomic_add_fetch(&late_launches, 1, __ATOMIC_RELAXED);
	else if (domain == SANITIZER_CB_DOMAIN_RESOURCE)
		__atomic_add_fetch(&late_resources, 1, __ATOMIC_RELAXED);
}

/* Sets api.field to p: 0 when p is NULL. */
#define LATE_SET(field, p) ((*(void **)&api.field = (p)) != NULL)
#define LATE_SYM(lib, field, name) LATE_SET(field, dlsym(lib, name))
#define LATE_DRIVER(field, name) LATE_SET(field, driver_symbol(name))

static int late_open_driver(void)
{
	return LATE_DRIVER(ctx_current, "cuCtxGetCurrent") && LATE_DRIVER(func_module, "cuFuncGetModule") &&
			       LATE_DRIVER(load, "cuModuleLoadData") && LATE_DRIVER(function, "cuModuleGetFunction") &&
			       LATE_DRIVER(launch, "cuLaunchKernel")
		       ? 0
		       : -1;
}

/* Opens the sanitizer and subscribes to launches and resources: the
 * subscription's result, or -1 when the library or a symbol is missing. */
static int late_subscribe(const char *path)
{
	static Sanitizer_SubscriberHandle sub;
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	SanitizerResult r;

	if (!lib || !LATE_SYM(lib, subscribe, "sanitizerSubscribe") ||
	    !LATE_SYM(lib, enable_domain, "sanitizerEnableDomain") ||
	    !LATE_SYM(lib, add_patches, "sanitizerAddPatchesFromFile") ||
	    !LATE_SYM(lib, patch_instructions, "sanitizerPatchInstructions") ||
	    !LATE_SYM(lib, patch_module, "sanitizerPatchModule") ||
	    !LATE_SYM(lib, set_data, "sanitizerSetCallbackData")) {
		fprintf(stderr, "late_sanitizer: %s: %s\n", path, dlerror());
		return -1;
	}
	r = api.subscribe(&sub, late_callback, NULL);
	if (r == SANITIZER_SUCCESS)
		r = api.enable_domain(1, sub, SANITIZER_CB_DOMAIN_LAUNCH);
	if (r == SANITIZER_SUCCESS)
		r = api.enable_domain(1, sub, SANITIZER_CB_DOMAIN_RESOURCE);
	return (int)r;
}

/* Microseconds a launch of one block takes the host, over LATE_TIMED. */
static double late_launch_us(int *out)
{
	struct timespec t0, t1;

	CK(cudaDeviceSynchronize());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < LATE_TIMED; i++)
		late_own<<<1, 32>>>(out, i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CK(cudaDeviceSynchronize());
	return ((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3) / LATE_TIMED;
}

/* Patches f's module at block entry with the counting patch and launches f
 * once over LATE_BLOCKS blocks: how many times the patch ran, -1 when a
 * sanitizer call refused (*why: its result), -2 when a block wrote wrong. */
static long long late_patched_run(CUfunction f, int *out, int v, unsigned long long *counter, int *why)
{
	CUmodule mod;
	unsigned long long n = 0;
	void *args[] = { &out, &v };
	std::vector<int> got(LATE_BLOCKS);
	SanitizerResult r;

	CK(cudaMemset(counter, 0, sizeof *counter));
	if (api.func_module(&mod, f) != CUDA_SUCCESS)
		return *why = -1, -1;
	if ((r = api.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, mod, "late_count_enter")) != SANITIZER_SUCCESS ||
	    (r = api.patch_module(mod)) != SANITIZER_SUCCESS || (r = api.set_data(f, counter)) != SANITIZER_SUCCESS)
		return *why = (int)r, -1;
	if (api.launch(f, LATE_BLOCKS, 1, 1, LATE_THREADS, 1, 1, 0, 0, args, NULL) != CUDA_SUCCESS)
		return *why = -1, -1;
	CK(cudaMemcpy(got.data(), out, LATE_BLOCKS * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(&n, counter, sizeof n, cudaMemcpyDeviceToHost));
	for (int b = 0; b < LATE_BLOCKS; b++)
		if (got[b] != v)
			return -2;
	*why = 0;
	return (long long)n;
}

/* One key=value of the line, at once: a crash further on leaves those before. */
static void late_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *mode = argc == 5 ? argv[1] : "";
	int early = !strcmp(mode, "early"), renewed = !strcmp(mode, "renewed");
	int *out;
	unsigned long long *counter, launches_before, resources_before;
	int sub_result = 0, why_own = 0, why_new = 0;
	long long own_calls, loaded_calls;
	CUcontext ctx;
	CUmodule mod;
	CUfunction own, loaded;

	if (!early && !renewed && strcmp(mode, "late")) {
		fprintf(stderr, "usage: late_sanitizer early|late|renewed LIBSANITIZER PATCHES MODULE\n");
		return 2;
	}
	std::vector<char> image = read_image(argv[4]);
	if (image.empty()) {
		fprintf(stderr, "late_sanitizer: %s: cannot read the module\n", argv[4]);
		return 2;
	}
	late_say("mode=%s", mode);
	if (early && (sub_result = late_subscribe(argv[2])) < 0)
		return 1;
	CK(cudaMalloc(&out, LATE_BLOCKS * sizeof(int)));
	CK(cudaMalloc(&counter, sizeof *counter));
	if (late_open_driver() != 0) {
		fprintf(stderr, "late_sanitizer: cannot find the driver's calls in libcuda.so.1\n");
		return 1;
	}
	late_say(" launch_us_before=%.2f", late_launch_us(out));
	launches_before = late_launches;
	if (!early && (sub_result = late_subscribe(argv[2])) < 0)
		return 1;
	late_say(" subscribe=%d", sub_result);
	late_say(" launch_us_after=%.2f", late_launch_us(out));
	late_say(" launch_callbacks=%llu/%d", late_launches - launches_before, LATE_TIMED);
	if (renewed) {
		CK(cudaDeviceReset());
		CK(cudaMalloc(&out, LATE_BLOCKS * sizeof(int)));
		CK(cudaMalloc(&counter, sizeof *counter));
	}
	resources_before = late_resources;
	CK(cudaGetFuncBySymbol(&own, (const void *)late_own));
	if (api.ctx_current(&ctx) != CUDA_SUCCESS || api.load(&mod, image.data()) != CUDA_SUCCESS ||
	    api.function(&loaded, mod, "churn_mark") != CUDA_SUCCESS) {
		fprintf(stderr, "late_sanitizer: %s: cannot load its module\n", argv[4]);
		return 1;
	}
	late_say(" resource_callbacks_at_load=%llu", late_resources - resources_before);
	late_say(" add_patches=%d", (int)api.add_patches(argv[3], ctx));
	own_calls = late_patched_run(own, out, 7, counter, &why_own);
	late_say(" own_patch_calls=%lld own_result=%d", own_calls, why_own);
	loaded_calls = late_patched_run(loaded, out, 9, counter, &why_new);
	late_say(" loaded_patch_calls=%lld loaded_result=%d blocks=%d\n", loaded_calls, why_new, LATE_BLOCKS);
	return own_calls == -2 || loaded_calls == -2;
}
