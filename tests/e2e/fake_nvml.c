/* A stand-in for libnvidia-ml.so.1 for tests/e2e/test_machine.sh, loaded by
 * smtop through SMTOP_NVML_LIB: two GPUs and the processes listed in
 * FAKE_NVML_PROCS, "GPU:PID:MEM_MIB:SM_PERCENT" apart by commas, "-" for a
 * value NVML does not give.  GPU 1 gives no utilisation.  FAKE_NVML_INIT=fail
 * makes nvmlInit_v2 fail as it does with the driver not loaded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_GPUS 2
#define FAKE_PROCS_MAX 32
#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_NOT_FOUND 6

struct nvml_utilization { unsigned int gpu, memory; };
struct nvml_memory { unsigned long long total, free, used; };
struct nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};
struct nvml_process_sample {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

struct fake_proc {
	int gpu;
	unsigned pid;
	long long mem_mib;           /* -1: not given */
	int sm;                      /* -1: not given */
};

static struct fake_proc procs[FAKE_PROCS_MAX];
static int n_procs;

static long long field(const char *s)
{
	return s[0] == '-' ? -1 : atoll(s);
}

static void fake_parse(void)
{
	const char *env = getenv("FAKE_NVML_PROCS");
	char buf[1024], *save = NULL;

	n_procs = 0;
	snprintf(buf, sizeof buf, "%s", env ? env : "");
	for (char *t = strtok_r(buf, ",", &save); t && n_procs < FAKE_PROCS_MAX; t = strtok_r(NULL, ",", &save)) {
		char g[16], pid[16], mem[32], sm[16];

		if (sscanf(t, "%15[^:]:%15[^:]:%31[^:]:%15s", g, pid, mem, sm) != 4)
			continue;
		procs[n_procs++] = (struct fake_proc){ atoi(g), (unsigned)atoi(pid), field(mem), (int)field(sm) };
	}
}

static int gpu_of(void *d)
{
	return (int)(uintptr_t)d - 1;
}

int nvmlInit_v2(void)
{
	const char *f = getenv("FAKE_NVML_INIT");

	if (f && !strcmp(f, "fail"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	fake_parse();
	return NVML_SUCCESS;
}

int nvmlShutdown(void) { return NVML_SUCCESS; }

const char *nvmlErrorString(int r)
{
	return r == NVML_ERROR_DRIVER_NOT_LOADED ? "Driver Not Loaded" : "Unknown Error";
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = FAKE_GPUS;
	return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d)
{
	if (i >= FAKE_GPUS)
		return NVML_ERROR_INVALID_ARGUMENT;
	*d = (void *)(uintptr_t)(i + 1);
	return NVML_SUCCESS;
}

int nvmlDeviceGetName(void *d, char *name, unsigned int len)
{
	(void)d;
	snprintf(name, len, "NVIDIA H200");
	return NVML_SUCCESS;
}

int nvmlDeviceGetUtilizationRates(void *d, struct nvml_utilization *u)
{
	if (gpu_of(d) == 1)
		return NVML_ERROR_NOT_SUPPORTED;
	u->gpu = 37;
	u->memory = 12;
	return NVML_SUCCESS;
}

int nvmlDeviceGetMemoryInfo(void *d, struct nvml_memory *m)
{
	m->total = 150ull << 30;
	m->used = gpu_of(d) == 0 ? 12ull << 30 : 512ull << 20;
	m->free = m->total - m->used;
	return NVML_SUCCESS;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned int *count, struct nvml_process_info *info)
{
	unsigned n = 0;

	for (int i = 0; i < n_procs; i++) {
		if (procs[i].gpu != gpu_of(d))
			continue;
		if (n < *count)
			info[n] = (struct nvml_process_info){ procs[i].pid,
				procs[i].mem_mib < 0 ? ~0ull : (unsigned long long)procs[i].mem_mib << 20, ~0u, ~0u };
		n++;
	}
	int fits = n <= *count;
	*count = n;
	return fits ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
}

int nvmlDeviceGetProcessUtilization(void *d, struct nvml_process_sample *s, unsigned int *count,
				    unsigned long long since)
{
	unsigned n = 0;

	(void)since;
	for (int i = 0; i < n_procs; i++) {
		if (procs[i].gpu != gpu_of(d) || procs[i].sm < 0)
			continue;
		if (s && n < *count)
			s[n] = (struct nvml_process_sample){ procs[i].pid, 1, (unsigned)procs[i].sm, 0, 0, 0 };
		n++;
	}
	if (!n)
		return NVML_ERROR_NOT_FOUND;
	int fits = s && n <= *count;
	*count = n;
	return fits ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
}
