/* Loads the collector as the CUDA driver does (CUDA_INJECTION64_PATH names
 * it; InitializeInjection is called once), without a GPU, then goes on as a
 * workload would: prints "workload ran" and exits with status 5.  For the
 * refusal tests of tests/e2e/test_record.sh: a collector that cannot trace
 * says so in one line and the workload runs untraced, its status intact. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	const char *lib = getenv("CUDA_INJECTION64_PATH");
	void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
	int (*init)(void) = NULL;

	if (!h) {
		fprintf(stderr, "inject_host: cannot load %s: %s\n", lib ? lib : "(unset)", dlerror());
		return 2;
	}
	*(void **)&init = dlsym(h, "InitializeInjection");
	if (!init || init() != 1) {
		fprintf(stderr, "inject_host: InitializeInjection missing or failed\n");
		return 2;
	}
	printf("workload ran\n");
	return 5;
}
