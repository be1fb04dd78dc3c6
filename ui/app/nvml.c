#include "ui/app/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/machine.h"

/* NVML's own types, as nvml.h declares them: its header is not needed to
 * build smtop. */
typedef int nvml_return;
typedef void *nvml_device;
#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_NAME_LEN 96
#define NVML_PROCS_MAX 256

struct nvml_utilization {
	unsigned int gpu, memory;
};

struct nvml_memory {
	unsigned long long total, free, used;
};

/* nvmlProcessInfo_t of _v3 and _v2 alike (v1 lacked the instance ids). */
struct nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;  /* ~0ull: NVML_VALUE_NOT_AVAILABLE */
	unsigned int gpu_instance_id, compute_instance_id;
};

struct nvml_process_sample {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

struct nvml {
	void *lib;
	unsigned count;
	unsigned long long util_seen;        /* the last sample's time stamp */
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	const char *(*error_string)(nvml_return);
	nvml_return (*get_count)(unsigned int *);
	nvml_return (*get_handle)(unsigned int, nvml_device *);
	nvml_return (*get_name)(nvml_device, char *, unsigned int);
	nvml_return (*get_util)(nvml_device, struct nvml_utilization *);
	nvml_return (*get_memory)(nvml_device, struct nvml_memory *);
	nvml_return (*get_procs)(nvml_device, unsigned int *, struct nvml_process_info *);
	nvml_return (*get_proc_util)(nvml_device, struct nvml_process_sample *, unsigned int *,
				     unsigned long long);
};

static const char *nvml_why(const struct nvml *n, nvml_return r)
{
	const char *s = n->error_string ? n->error_string(r) : NULL;
	return s ? s : "error";
}

static void *nvml_sym(void *lib, const char *name, const char *fallback)
{
	void *f = dlsym(lib, name);
	return f || !fallback ? f : dlsym(lib, fallback);
}

/* The functions smtop calls; the optional ones may stay NULL (their
 * columns then say N/A). */
static int nvml_bind(struct nvml *n)
{
	*(void **)&n->init = nvml_sym(n->lib, "nvmlInit_v2", "nvmlInit");
	*(void **)&n->shutdown = nvml_sym(n->lib, "nvmlShutdown", NULL);
	*(void **)&n->error_string = nvml_sym(n->lib, "nvmlErrorString", NULL);
	*(void **)&n->get_count = nvml_sym(n->lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	*(void **)&n->get_handle = nvml_sym(n->lib, "nvmlDeviceGetHandleByIndex_v2",
					    "nvmlDeviceGetHandleByIndex");
	*(void **)&n->get_name = nvml_sym(n->lib, "nvmlDeviceGetName", NULL);
	*(void **)&n->get_util = nvml_sym(n->lib, "nvmlDeviceGetUtilizationRates", NULL);
	*(void **)&n->get_memory = nvml_sym(n->lib, "nvmlDeviceGetMemoryInfo", NULL);
	*(void **)&n->get_procs = nvml_sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v3",
					   "nvmlDeviceGetComputeRunningProcesses_v2");
	*(void **)&n->get_proc_util = nvml_sym(n->lib, "nvmlDeviceGetProcessUtilization", NULL);
	return n->init && n->shutdown && n->get_count && n->get_handle ? 0 : -1;
}

int nvml_open(struct nvml **out, char *err, size_t errlen)
{
	const char *env = getenv("SMTOP_NVML_LIB");
	const char *path = env && *env ? env : "libnvidia-ml.so.1";
	struct nvml *n = calloc(1, sizeof *n);
	nvml_return r;

	if (!n) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		snprintf(err, errlen, "NVML (%s) cannot be loaded: no NVIDIA driver here", path);
		free(n);
		return -1;
	}
	if (nvml_bind(n) != 0) {
		snprintf(err, errlen, "%s lacks NVML's functions (nvmlInit_v2, nvmlDeviceGetCount_v2)", path);
	} else if ((r = n->init()) != NVML_SUCCESS) {
		snprintf(err, errlen, "NVML does not start: %s", nvml_why(n, r));
	} else if ((r = n->get_count(&n->count)) != NVML_SUCCESS) {
		snprintf(err, errlen, "NVML cannot count the GPUs: %s", nvml_why(n, r));
		n->shutdown();
	} else {
		*out = n;
		return 0;
	}
	dlclose(n->lib);
	free(n);
	return -1;
}

unsigned nvml_count(const struct nvml *n)
{
	return n->count;
}

static void nvml_sample_gpu(struct nvml *n, nvml_device d, struct machine_gpu *g)
{
	struct nvml_utilization u;
	struct nvml_memory mem;

	g->util = MACHINE_UNKNOWN;
	g->mem_used = g->mem_total = MACHINE_UNKNOWN_BYTES;
	if (!n->get_name || n->get_name(d, g->name, sizeof g->name) != NVML_SUCCESS)
		snprintf(g->name, sizeof g->name, "N/A");
	if (n->get_util && n->get_util(d, &u) == NVML_SUCCESS)
		g->util = (int)u.gpu;
	if (n->get_memory && n->get_memory(d, &mem) == NVML_SUCCESS) {
		g->mem_used = mem.used;
		g->mem_total = mem.total;
	}
}

static void nvml_sample_procs(struct nvml *n, nvml_device d, int gpu, struct machine *m)
{
	struct nvml_process_info info[NVML_PROCS_MAX];
	unsigned int count = NVML_PROCS_MAX;

	if (!n->get_procs || n->get_procs(d, &count, info) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count && i < NVML_PROCS_MAX; i++) {
		struct machine_proc *p = machine_find(m, gpu, (pid_t)info[i].pid);

		if (!p)
			p = machine_add(m, gpu, (pid_t)info[i].pid);
		if (p)
			p->mem_bytes = info[i].used_gpu_memory;
	}
}

/* SM utilisation per process since the last sample: NVML keeps samples
 * only on some GPUs and drivers; where it has none the column says N/A. */
static void nvml_sample_proc_util(struct nvml *n, nvml_device d, int gpu, struct machine *m,
				  unsigned long long since)
{
	struct nvml_process_sample s[NVML_PROCS_MAX];
	unsigned int count = NVML_PROCS_MAX;

	if (!n->get_proc_util || n->get_proc_util(d, s, &count, since) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count && i < NVML_PROCS_MAX; i++) {
		struct machine_proc *p = machine_find(m, gpu, (pid_t)s[i].pid);

		if (p && s[i].sm_util <= 100)
			p->sm_util = (int)s[i].sm_util;
		if (s[i].time_stamp > n->util_seen)
			n->util_seen = s[i].time_stamp;
	}
}

int nvml_sample(struct nvml *n, struct machine *m, char *err, size_t errlen)
{
	unsigned long long since = n->util_seen;

	m->n_gpus = m->n_procs = 0;
	snprintf(m->driver, sizeof m->driver, "NVML");
	for (unsigned i = 0; i < n->count && m->n_gpus < MACHINE_MAX_GPUS; i++) {
		nvml_device d;
		nvml_return r = n->get_handle(i, &d);
		struct machine_gpu *g = &m->gpus[m->n_gpus];

		if (r != NVML_SUCCESS) {
			snprintf(err, errlen, "NVML: GPU %u: %s", i, nvml_why(n, r));
			return -1;
		}
		memset(g, 0, sizeof *g);
		g->index = (int)i;
		nvml_sample_gpu(n, d, g);
		nvml_sample_procs(n, d, (int)m->n_gpus, m);
		nvml_sample_proc_util(n, d, (int)m->n_gpus, m, since);
		m->n_gpus++;
	}
	return 0;
}

void nvml_close(struct nvml *n)
{
	if (!n)
		return;
	n->shutdown();
	dlclose(n->lib);
	free(n);
}
