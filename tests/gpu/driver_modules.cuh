/* What the GPU test programs that load modules through the driver share:
 * the driver's calls by name and a module's image (a fatbin) read whole. */
#ifndef SMTOP_TESTS_DRIVER_MODULES_CUH
#define SMTOP_TESTS_DRIVER_MODULES_CUH

#include <cstdio>
#include <vector>

#include <dlfcn.h>

/* A driver call, from the libcuda the runtime already loaded (the tests
 * link no driver library of their own): NULL when it has none. */
static void *driver_symbol(const char *name)
{
	static void *lib;

	if (!lib)
		lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!lib)
		lib = dlopen("libcuda.so.1", RTLD_NOW);
	return lib ? dlsym(lib, name) : NULL;
}

/* Empty when path cannot be read. */
static std::vector<char> read_image(const char *path)
{
	std::vector<char> image;
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!f)
		return image;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		image.insert(image.end(), buf, buf + n);
	fclose(f);
	return image;
}

#endif
