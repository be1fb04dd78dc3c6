#include "db/names.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* libstdc++ is already loaded in every CUDA process; elsewhere (smtop itself,
 * tests) it is loaded once here if present on the system. */
static cxa_demangle_fn names_demangler(void)
{
	static cxa_demangle_fn fn;
	static int looked;

	if (!looked) {
		void *lib;

		looked = 1;
		fn = (cxa_demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (!fn && (lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
			fn = (cxa_demangle_fn)(uintptr_t)dlsym(lib, "__cxa_demangle");
	}
	return fn;
}

char *db_names_demangle(const char *name)
{
	cxa_demangle_fn fn;
	char *out;
	int status = -1;

	if (strncmp(name, "_Z", 2) == 0 && (fn = names_demangler())) {
		out = fn(name, NULL, NULL, &status);
		if (out && status == 0)
			return out;
		free(out);
	}
	return strdup(name);
}
