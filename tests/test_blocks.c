/* The block lanes' launch hook (collectors/blocks.c) on a stand-in driver
 * (tests/support/libcuda) and host memory (tests/support/fake_device.c):
 * a module built with the block tracer header gets its context's ring at
 * the first launch of any of its functions, and launch callbacks, which
 * must make no driver call, learn which modules time their own blocks. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collectors/blocks.h"
#include "collectors/ring.h"
#include "tests/support/fake_device.h"

#ifndef FAKE_LIBCUDA
#error "FAKE_LIBCUDA: the path of the stand-in libcuda.so.1"
#endif

static void (*fake_function)(CUfunction f, CUmodule mod);
static void (*fake_global)(CUmodule mod, void *global, size_t bytes);
static size_t (*fake_streams_in)(CUcontext ctx);
static CUresult (*fake_set_current)(CUcontext ctx);
static CUresult (*fake_get_current)(CUcontext *ctx);
static void (*fake_destroy)(CUcontext ctx);
static struct ring *ring;

/* The stand-in is loaded before the collector looks for libcuda.so.1, and
 * is found by its name. */
static void setup(void)
{
	void *lib = dlopen(FAKE_LIBCUDA, RTLD_NOW | RTLD_GLOBAL);

	cr_assert_not_null(lib, "%s", dlerror());
	fake_function = (void (*)(CUfunction, CUmodule))dlsym(lib, "fake_libcuda_function");
	fake_global = (void (*)(CUmodule, void *, size_t))dlsym(lib, "fake_libcuda_global");
	fake_streams_in = (size_t (*)(CUcontext))dlsym(lib, "fake_libcuda_streams_in");
	fake_set_current = (CUresult (*)(CUcontext))dlsym(lib, "cuCtxSetCurrent");
	fake_get_current = (CUresult (*)(CUcontext *))dlsym(lib, "cuCtxGetCurrent");
	fake_destroy = (void (*)(CUcontext))dlsym(lib, "fake_libcuda_destroy");
	cr_assert(fake_function && fake_global && fake_streams_in && fake_set_current && fake_get_current &&
		  fake_destroy);
	ring = ring_create(1024);
	blocks_set_host(&fake_device_mem);
	cr_assert_eq(blocks_init(ring, 1), 0, "the lanes take the stand-in driver");
}

static void teardown(void)
{
	blocks_shutdown();
}

#define CTX ((CUcontext)(uintptr_t)3)
#define MOD(i) ((CUmodule)(uintptr_t)(0x10000 * (i)))
#define FUNC(i, j) ((CUfunction)(uintptr_t)(0x10000 * (i) + 0x10 * (j)))

Test(blocks, marked_modules_get_the_ring_at_their_first_launch, .init = setup, .fini = teardown)
{
	uint64_t pointer = 0;

	fake_function(FUNC(1, 1), MOD(1));
	fake_function(FUNC(1, 2), MOD(1));
	fake_function(FUNC(2, 1), MOD(2));
	fake_global(MOD(1), &pointer, sizeof pointer);

	cr_assert_not(blocks_module_traced(CTX, MOD(1)), "nothing is traced before its first launch");
	cr_assert_eq(blocks_on_launch(CTX, FUNC(1, 1)), 1, "a function of a marked module times its blocks");
	cr_assert_neq(pointer, 0, "the module's pointer holds the ring now");
	cr_assert(blocks_module_traced(CTX, MOD(1)));
	uint64_t first = pointer;
	pointer = 0;
	cr_assert_eq(blocks_on_launch(CTX, FUNC(1, 1)), 1, "a function seen before is answered from the map");
	cr_assert_eq(blocks_on_launch(CTX, FUNC(1, 2)), 1, "another function of the same module is traced too");
	cr_assert_eq(pointer, 0, "without storing the ring again");
	cr_assert_eq(blocks_on_launch(CTX, FUNC(2, 1)), 0, "a module without the header takes no ring");
	cr_assert_not(blocks_module_traced(CTX, MOD(2)));
	cr_assert_not(blocks_module_traced((CUcontext)(uintptr_t)4, MOD(1)), "rings are per context");
	cr_assert_not(blocks_module_traced(CTX, NULL));

	blocks_on_module_unload(CTX);
	cr_assert_not(blocks_module_traced(CTX, MOD(1)), "an unloaded module's address may come back as another");
	cr_assert_eq(blocks_on_launch(CTX, FUNC(1, 1)), 1);
	cr_assert_eq(pointer, first, "a module loaded at the same address gets the same ring");
}

Test(blocks, a_pointer_of_another_size_is_not_the_header, .init = setup, .fini = teardown)
{
	uint32_t small = 0;

	fake_function(FUNC(5, 1), MOD(5));
	fake_global(MOD(5), &small, sizeof small);
	cr_assert_eq(blocks_on_launch(CTX, FUNC(5, 1)), 0);
	cr_assert_eq(small, 0, "nothing was stored into it");
	cr_assert_not(blocks_module_traced(CTX, MOD(5)));
	cr_assert_eq(blocks_on_launch(CTX, (CUfunction)(uintptr_t)0x999), 0, "a function the driver does not know");
}

Test(blocks, own_code_makes_no_driver_call, .init = setup, .fini = teardown)
{
	uint64_t pointer = 0;

	fake_function(FUNC(6, 1), MOD(6));
	fake_global(MOD(6), &pointer, sizeof pointer);
	blocks_set_own_code(1);
	cr_assert_eq(blocks_on_launch(CTX, FUNC(6, 1)), 0, "our own launches are never traced");
	blocks_set_own_code(0);
	cr_assert_eq(pointer, 0);
	cr_assert_eq(blocks_on_launch(CTX, FUNC(6, 1)), 1);
}

/* A green context made current launches work the sanitizer names under the
 * primary: the primary's ring is made with the primary current (a stream
 * of the green one is none of the primary's), and the launching thread's
 * own context is current again afterwards. */
Test(blocks, a_ring_is_made_in_its_own_context, .init = setup, .fini = teardown)
{
	const CUcontext green = (CUcontext)(uintptr_t)0x77;
	uint64_t pointer = 0;
	CUcontext now = NULL;

	fake_function(FUNC(7, 1), MOD(7));
	fake_global(MOD(7), &pointer, sizeof pointer);
	cr_assert_eq(fake_set_current(green), CUDA_SUCCESS);
	cr_assert_eq(blocks_on_launch(CTX, FUNC(7, 1)), 1);
	cr_assert_neq(pointer, 0);
	cr_assert_eq(fake_streams_in(green), 0, "no stream of the ring's in the thread's green context");
	cr_assert_geq(fake_streams_in(CTX), 2, "the setup stream and a drain stream, in the ring's own");
	cr_assert_eq(fake_get_current(&now), CUDA_SUCCESS);
	cr_assert_eq(now, green, "the launching thread's context is current again");
}

/* A module's image names the ring's symbol, with its NUL, in its string
 * table when it was built with the header: PyTorch's never do, and their
 * launches then ask the driver nothing. */
Test(blocks, only_an_image_naming_the_ring_may_hold_it)
{
	static const char marked[] = "\0.text\0foo_kernel\0smtop_trace_ring\0.nv.global";
	static const char longer[] = "\0.text\0smtop_trace_ring_of_mine\0";
	static const char plain[] = "\0.text\0_Z6kernelPf\0.nv.constant0";

	cr_assert(blocks_image_may_hold_ring(marked, sizeof marked));
	cr_assert_not(blocks_image_may_hold_ring(plain, sizeof plain));
	cr_assert_not(blocks_image_may_hold_ring(longer, sizeof longer), "another symbol with the name as prefix");
	cr_assert_not(blocks_image_may_hold_ring(marked, 20), "the name past the image's end");
	cr_assert(blocks_image_may_hold_ring(NULL, 0), "an image not known may hold it");
}

/* A context whose ring cannot be made loses its marked kernels' blocks:
 * the workload's stderr says so in one line, not only under SMTOP_DEBUG. */
Test(blocks, a_context_without_its_ring_says_so, .init = setup, .fini = teardown)
{
	const CUcontext gone = (CUcontext)(uintptr_t)0x66;
	uint64_t pointer = 0;
	char line[512] = "";
	FILE *err;

	cr_redirect_stderr();
	fake_destroy(gone);
	fake_function(FUNC(8, 1), MOD(8));
	fake_global(MOD(8), &pointer, sizeof pointer);
	cr_assert_eq(blocks_on_launch(gone, FUNC(8, 1)), 0);
	cr_assert_eq(pointer, 0, "no ring was stored");
	cr_assert_eq(blocks_on_launch(gone, FUNC(8, 1)), 0, "nor at the next launch");
	fflush(stderr);
	err = cr_get_redirected_stderr();
	cr_assert_not_null(fgets(line, sizeof line, err));
	cr_assert(strstr(line, "smtop: pid 1: thread blocks of CUDA context") == line, "%s", line);
	cr_assert(strstr(line, "are not recorded: it cannot be made current\n"), "%s", line);
	cr_assert_null(fgets(line, sizeof line, err), "said once: %s", line);
}
