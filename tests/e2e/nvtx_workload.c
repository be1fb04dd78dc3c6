/* A workload that marks its work with NVTX through the header-only nvtx3
 * API, as PyTorch and CUDA programs do (NVTX loads NVTX_INJECTION64_PATH at
 * its first call), for tests/e2e/test_nvtx.sh.  Without a GPU it loads the
 * collector as the CUDA driver would (as inject_host.c does), with the
 * backend that traces nothing (SMTOP_SM=stub), so only its NVTX ranges
 * reach the session.
 *
 *   nvtx_workload [REQUESTS]
 *       before "CUDA" starts: a range "startup" and a mark "before cuInit";
 *       then REQUESTS (default 30) ranges "request N" (push/pop), each with
 *       two nested ranges "layer conv1", "layer conv2" in the domain "torch"
 *       (green); a start/end range "handoff" ended on another thread; a
 *       mark "done"; and a pop with nothing open.  Prints "workload ran"
 *       and exits with status 0.
 *   nvtx_workload REQUESTS crash
 *       the requests, then a call through a null function pointer (the
 *       fault a stray driver table entry gives): killed by SIGSEGV. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

static void work(void)
{
	struct timespec t = { 0, 200000 };

	nanosleep(&t, NULL);
}

static int start_collector(void)
{
	const char *lib = getenv("CUDA_INJECTION64_PATH");
	void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
	int (*init)(void) = NULL;

	if (!h) {
		fprintf(stderr, "nvtx_workload: cannot load %s\n", lib ? lib : "(unset)");
		return -1;
	}
	*(void **)&init = dlsym(h, "InitializeInjection");
	return init && init() == 1 ? 0 : -1;
}

static void layer(nvtxDomainHandle_t torch, const char *name)
{
	nvtxEventAttributes_t a = { 0 };

	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00c000u;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = name;
	nvtxDomainRangePushEx(torch, &a);
	work();
	nvtxDomainRangePop(torch);
}

static void *end_handoff(void *arg)
{
	nvtxRangeEnd(*(nvtxRangeId_t *)arg);
	return NULL;
}

/* A pointer the compiler cannot see is null. */
static void (*volatile nvtx_workload_null_fn)(void);

int main(int argc, char **argv)
{
	int requests = argc > 1 ? atoi(argv[1]) : 30;
	nvtxDomainHandle_t torch;
	nvtxRangeId_t handoff;
	pthread_t th;
	char name[64];

	nvtxRangePushA("startup");
	nvtxMarkA("before cuInit");
	work();
	nvtxRangePop();
	setenv("SMTOP_SM", "stub", 1);
	if (start_collector() != 0)
		fprintf(stderr, "nvtx_workload: the collector did not start\n");
	torch = nvtxDomainCreateA("torch");
	for (int i = 0; i < requests; i++) {
		snprintf(name, sizeof name, "request %d", i);
		nvtxRangePushA(name);
		layer(torch, "layer conv1");
		layer(torch, "layer conv2");
		nvtxRangePop();
	}
	if (argc > 2 && strcmp(argv[2], "crash") == 0)
		nvtx_workload_null_fn();
	handoff = nvtxRangeStartA("handoff");
	work();
	if (pthread_create(&th, NULL, end_handoff, &handoff) == 0)
		pthread_join(th, NULL);
	nvtxMarkA("done");
	nvtxRangePop();
	printf("workload ran\n");
	return 0;
}
