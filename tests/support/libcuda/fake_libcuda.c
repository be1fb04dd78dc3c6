/* A stand-in for libcuda.so.1, for the collector's block lanes without a
 * GPU (tests/test_blocks.c): streams are counters, each made in its
 * thread's current context (a stack per thread, as the driver's), and the
 * test names which functions live in which module and
 * which modules carry the block tracer header's pointer
 * (fake_libcuda_function, fake_libcuda_global); a context the test
 * destroyed (fake_libcuda_destroy) cannot be pushed.  Device memory is the
 * test's host memory (tests/support/fake_device.c). */
#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_MAX 64

struct fake_func {
	CUfunction f;
	CUmodule mod;
};

struct fake_global {
	CUmodule mod;
	void *global;
	size_t bytes;
};

static struct fake_func fake_funcs[FAKE_MAX];
static struct fake_global fake_globals[FAKE_MAX];
static size_t fake_n_funcs, fake_n_globals;
static uintptr_t fake_next_stream = 0x1000;
static CUcontext fake_stream_ctx[FAKE_MAX]; /* stream 0x1000 + i was made in [i] */
static _Thread_local CUcontext fake_ctx_stack[8];
static _Thread_local size_t fake_ctx_depth;
static CUcontext fake_ctx_destroyed; /* cannot be made current */

void fake_libcuda_function(CUfunction f, CUmodule mod)
{
	if (fake_n_funcs < FAKE_MAX)
		fake_funcs[fake_n_funcs++] = (struct fake_func){ f, mod };
}

/* mod's pointer named SMTOP_TRACE_SYMBOL lives at global, bytes long. */
void fake_libcuda_global(CUmodule mod, void *global, size_t bytes)
{
	if (fake_n_globals < FAKE_MAX)
		fake_globals[fake_n_globals++] = (struct fake_global){ mod, global, bytes };
}

static CUcontext fake_current(void)
{
	return fake_ctx_depth ? fake_ctx_stack[fake_ctx_depth - 1] : NULL;
}

void fake_libcuda_destroy(CUcontext ctx)
{
	fake_ctx_destroyed = ctx;
}

/* How many streams were made while ctx was current. */
size_t fake_libcuda_streams_in(CUcontext ctx)
{
	size_t n = 0;

	for (uintptr_t i = 0; i < fake_next_stream - 0x1000 && i < FAKE_MAX; i++)
		n += fake_stream_ctx[i] == ctx;
	return n;
}

CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
	(void)flags;
	if (fake_next_stream - 0x1000 < FAKE_MAX)
		fake_stream_ctx[fake_next_stream - 0x1000] = fake_current();
	*s = (CUstream)fake_next_stream++;
	return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule *mod, CUfunction f)
{
	for (size_t i = 0; i < fake_n_funcs; i++)
		if (fake_funcs[i].f == f) {
			*mod = fake_funcs[i].mod;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule mod, const char *name)
{
	(void)name;
	for (size_t i = 0; i < fake_n_globals; i++)
		if (fake_globals[i].mod == mod) {
			*dptr = (CUdeviceptr)(uintptr_t)fake_globals[i].global;
			*bytes = fake_globals[i].bytes;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
	if (!fake_ctx_depth)
		fake_ctx_depth = 1;
	fake_ctx_stack[fake_ctx_depth - 1] = ctx;
	return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *ctx)
{
	*ctx = fake_current();
	return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	if (ctx && ctx == fake_ctx_destroyed)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	if (fake_ctx_depth == sizeof(fake_ctx_stack) / sizeof(fake_ctx_stack[0]))
		return CUDA_ERROR_INVALID_VALUE;
	fake_ctx_stack[fake_ctx_depth++] = ctx;
	return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
	if (!fake_ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	fake_ctx_depth--;
	if (ctx)
		*ctx = fake_ctx_stack[fake_ctx_depth];
	return CUDA_SUCCESS;
}
