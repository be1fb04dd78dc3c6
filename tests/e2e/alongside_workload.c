/* A long-running workload for tests/e2e/test_alongside.sh: started by
 * `smtop launch`, it loads the collector as the CUDA driver would (as
 * nvtx_workload.c does), with the backend that traces nothing
 * (SMTOP_SM=stub), so what a session holds is its NVTX ranges.
 *
 *   alongside_workload STOPFILE [SECONDS]
 *       prints "ready", then a push/pop range "step N" every 10 ms until
 *       STOPFILE exists or SECONDS (default 60) pass; prints "workload ran
 *       N steps" and exits with status 0. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

static int start_collector(void)
{
	const char *lib = getenv("CUDA_INJECTION64_PATH");
	void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
	int (*init)(void) = NULL;

	if (!h)
		return -1;
	*(void **)&init = dlsym(h, "InitializeInjection");
	return init && init() == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 60;
	struct timespec t = { 0, 10000000L };
	char name[32];
	long steps = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: alongside_workload STOPFILE [SECONDS]\n");
		return 2;
	}
	setenv("SMTOP_SM", "stub", 1);
	if (start_collector() != 0)
		fprintf(stderr, "alongside_workload: the collector did not start\n");
	printf("ready\n");
	fflush(stdout);
	for (; steps < seconds * 100 && access(argv[1], F_OK) != 0; steps++) {
		snprintf(name, sizeof name, "step %ld", steps);
		nvtxRangePushA(name);
		nanosleep(&t, NULL);
		nvtxRangePop();
	}
	printf("workload ran %ld steps\n", steps);
	return 0;
}
