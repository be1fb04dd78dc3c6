/* smtop-demo: scenarios that make the block scheduler's behaviour visible
 * (Gilman & Walls 2021).  `smtop-demo --list` explains each one.
 * Exit codes: 0 ok, 1 CUDA error or failed check, 2 unsupported here. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda.h>
#include "kernels/cuda_check.cuh"
#include "kernels/demo_run.cuh"
#include "src/core/smtop_trace.cuh"

struct scenario {
	const char *name;
	int (*run)(struct demo_opts *o);
	const char *help;
};

/* ---- helpers ---- */
static int prio_range(int *least, int *greatest)
{
	CK(cudaDeviceGetStreamPriorityRange(least, greatest));
	return 0;
}

static int run_pair_threads(struct demo_opts *o, struct role *inf, struct role *tr)
{
	int a[2], b[2]; /* a: trainer -> inference, b: inference -> trainer */
	if (pipe(a) != 0 || pipe(b) != 0) {
		perror("smtop-demo: pipe");
		return 1;
	}
	inf->o = tr->o = o;
	inf->fd_in = a[0];
	tr->fd_out = a[1];
	tr->fd_in = b[0];
	inf->fd_out = b[1];
	pthread_t th;
	if (pthread_create(&th, NULL, demo_train_role, tr) != 0) {
		perror("smtop-demo: pthread_create");
		return 1;
	}
	demo_infer_role(inf);
	pthread_join(th, NULL);
	for (int i = 0; i < 2; i++) {
		close(a[i]);
		close(b[i]);
	}
	return inf->rc || tr->rc ? 1 : 0;
}

/* ---- priority-vs-training / equal-priority ---- */
static int run_priority(struct demo_opts *o, int equal)
{
	int least, greatest;
	prio_range(&least, &greatest);
	struct role inf, tr;
	memset(&inf, 0, sizeof inf);
	memset(&tr, 0, sizeof tr);
	inf.priority = equal ? least : greatest;
	tr.priority = least;
	return run_pair_threads(o, &inf, &tr);
}

static int sc_priority(struct demo_opts *o)
{
	return run_priority(o, 0);
}

static int sc_equal(struct demo_opts *o)
{
	return run_priority(o, 1);
}

/* ---- head-of-line ---- */
/* Holds its SM for ns of wall time: a stand-in for one long layer's block. */
__global__ void hol_long_kernel(unsigned long long ns, int *sink)
{
	SMTOP_BLOCK_BEGIN();
	unsigned long long t0 = smtop_globaltimer();
	while (smtop_globaltimer() - t0 < ns)
		;
	if (threadIdx.x == 0 && ns == 1)
		sink[0] = 1;
	SMTOP_BLOCK_END();
}

__global__ void hol_short_kernel(float *x)
{
	SMTOP_BLOCK_BEGIN();
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	x[i] = x[i] * 0.5f + 1.f;
	SMTOP_BLOCK_END();
}

static float event_ms(cudaEvent_t a, cudaEvent_t b)
{
	float ms;
	CK(cudaEventElapsedTime(&ms, a, b));
	return ms;
}

static int sc_head_of_line(struct demo_opts *o)
{
	int least, greatest, sms = 0, dev;
	prio_range(&least, &greatest);
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	cudaStream_t sl, ss;
	CK(cudaStreamCreateWithPriority(&sl, cudaStreamNonBlocking, least));
	CK(cudaStreamCreateWithPriority(&ss, cudaStreamNonBlocking, greatest));
	cudaEvent_t l0, l1, s0, s1;
	CK(cudaEventCreate(&l0));
	CK(cudaEventCreate(&l1));
	CK(cudaEventCreate(&s0));
	CK(cudaEventCreate(&s1));
	float *x;
	int *sink;
	CK(cudaMalloc(&x, sizeof(float) * sms * 128));
	CK(cudaMemset(x, 0, sizeof(float) * sms * 128));
	CK(cudaMalloc(&sink, sizeof(int)));
	const unsigned long long hold_ns = 20000000ull; /* 20 ms per block */
	const int long_blocks = 2 * sms;              /* 2 x 1024 threads: every SM full */
	struct lat alone = {0}, waited = {0}, longk = {0};

	for (int i = 0; i < 20; i++) { /* the short kernel on an idle GPU */
		CK(cudaEventRecord(s0, ss));
		hol_short_kernel<<<sms, 128, 0, ss>>>(x);
		CK_LAUNCH();
		CK(cudaEventRecord(s1, ss));
		CK(cudaEventSynchronize(s1));
		lat_add(&alone, (uint64_t)(event_ms(s0, s1) * 1e6));
	}
	int rounds = (int)(o->seconds / 0.025);
	if (rounds < 3)
		rounds = 3;
	for (int i = 0; i < rounds; i++) {
		CK(cudaEventRecord(l0, sl));
		hol_long_kernel<<<long_blocks, 1024, 0, sl>>>(hold_ns, sink);
		CK_LAUNCH();
		CK(cudaEventRecord(l1, sl));
		usleep(2000); /* let the long kernel's blocks become resident first */
		uint64_t t0 = demo_now_real();
		CK(cudaEventRecord(s0, ss));
		hol_short_kernel<<<sms, 128, 0, ss>>>(x);
		CK_LAUNCH();
		CK(cudaEventRecord(s1, ss));
		CK(cudaEventSynchronize(s1));
		uint64_t t1 = demo_now_real();
		demo_note_request((void *)ss, t0, t1, "short-kernel");
		CK(cudaEventSynchronize(l1));
		lat_add(&waited, (uint64_t)(event_ms(s0, s1) * 1e6));
		lat_add(&longk, (uint64_t)(event_ms(l0, l1) * 1e6));
	}
	double a50 = lat_pct_ms(&alone, 50), w50 = lat_pct_ms(&waited, 50);
	printf("summary scenario=head-of-line rounds=%d long_blocks=%d long_threads=1024 long_hold_ms=%.1f "
	       "long_median_ms=%.3f short_priority=%d long_priority=%d short_alone_median_ms=%.3f "
	       "short_contended_median_ms=%.3f short_contended_p99_ms=%.3f short_wait_median_ms=%.3f\n",
	       rounds, long_blocks, hold_ns / 1e6, lat_pct_ms(&longk, 50), greatest, least, a50, w50,
	       lat_pct_ms(&waited, 99), w50 - a50);
	lat_free(&alone);
	lat_free(&waited);
	lat_free(&longk);
	CK(cudaFree(x));
	CK(cudaFree(sink));
	return 0;
}

/* ---- placement ---- */
#define PLACE_NS 2000000ull

static __device__ void place_body(int *smid_out)
{
	unsigned long long t0 = smtop_globaltimer();
	while (smtop_globaltimer() - t0 < PLACE_NS)
		;
	if (threadIdx.x == 0)
		smid_out[blockIdx.x] = (int)smtop_smid();
}

__global__ void place_tiny(int *out)
{
	SMTOP_BLOCK_BEGIN();
	place_body(out);
	SMTOP_BLOCK_END();
}

__global__ void place_wide(int *out)
{
	SMTOP_BLOCK_BEGIN();
	place_body(out);
	SMTOP_BLOCK_END();
}

__global__ void place_smem(int *out)
{
	SMTOP_BLOCK_BEGIN();
	extern __shared__ float big[];
	big[threadIdx.x] = (float)threadIdx.x; /* touch it: the allocation is what matters */
	place_body(out);
	if (big[threadIdx.x] < 0.f)
		out[0] = -1;
	SMTOP_BLOCK_END();
}

/* Many live values so the compiler has to keep them in registers. */
__global__ void __launch_bounds__(256, 1) place_regs(int *out, float seed)
{
	SMTOP_BLOCK_BEGIN();
	float r[96];
#pragma unroll
	for (int i = 0; i < 96; i++)
		r[i] = seed * (threadIdx.x + i);
	for (int it = 0; it < 64; it++)
#pragma unroll
		for (int i = 0; i < 96; i++)
			r[i] = r[i] * r[(i + 1) % 96] + 1e-3f;
	float s = 0.f;
#pragma unroll
	for (int i = 0; i < 96; i++)
		s += r[i];
	place_body(out);
	if (s == 12345.f)
		out[0] = -2;
	SMTOP_BLOCK_END();
}

struct place_k {
	const char *name;
	const void *fn;
	int threads, blocks;
	size_t smem;
	int *d_out;
	cudaStream_t s;
};

static void place_launch(struct place_k *k)
{
	void *args1[] = {&k->d_out};
	float seed = 1.0001f;
	void *args2[] = {&k->d_out, &seed};
	CK(cudaLaunchKernel(k->fn, k->blocks, k->threads, k->fn == (const void *)place_regs ? args2 : args1, k->smem,
			    k->s));
}

static void place_report(struct place_k *k, const char *phase, int sms)
{
	int *h = (int *)calloc(k->blocks, sizeof(int));
	int *per = (int *)calloc(sms, sizeof(int));
	if (!h || !per) {
		fprintf(stderr, "smtop-demo: out of host memory\n");
		exit(1);
	}
	CK(cudaMemcpy(h, k->d_out, k->blocks * sizeof(int), cudaMemcpyDeviceToHost));
	int distinct = 0, most = 0;
	for (int i = 0; i < k->blocks; i++)
		if (h[i] >= 0 && h[i] < sms)
			per[h[i]]++;
	for (int i = 0; i < sms; i++) {
		distinct += per[i] > 0;
		most = per[i] > most ? per[i] : most;
	}
	cudaFuncAttributes fa;
	CK(cudaFuncGetAttributes(&fa, k->fn));
	int occ = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k->fn, k->threads, k->smem));
	printf("placement phase=%s kernel=%s threads=%d regs=%d smem=%zu occupancy_blocks_per_sm=%d blocks=%d "
	       "distinct_sms=%d max_blocks_one_sm=%d\n",
	       phase, k->name, k->threads, fa.numRegs, k->smem + fa.sharedSizeBytes, occ, k->blocks, distinct, most);
	free(h);
	free(per);
}

static int sc_placement(struct demo_opts *o)
{
	int sms, dev;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	struct place_k ks[4] = {
		{"tiny-32t", (const void *)place_tiny, 32, 4 * sms, 0, NULL, NULL},
		{"wide-1024t", (const void *)place_wide, 1024, sms, 0, NULL, NULL},
		{"smem-96KiB", (const void *)place_smem, 128, sms, 96 * 1024, NULL, NULL},
		{"regs-256t", (const void *)place_regs, 256, 2 * sms, 0, NULL, NULL},
	};
	CK(cudaFuncSetAttribute((const void *)place_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
	for (int i = 0; i < 4; i++) {
		CK(cudaMalloc(&ks[i].d_out, ks[i].blocks * sizeof(int)));
		CK(cudaStreamCreateWithFlags(&ks[i].s, cudaStreamNonBlocking));
	}
	for (int i = 0; i < 4; i++) {
		CK(cudaMemset(ks[i].d_out, 0xff, ks[i].blocks * sizeof(int)));
		place_launch(&ks[i]);
		CK(cudaDeviceSynchronize());
		place_report(&ks[i], "alone", sms);
	}
	int rounds = (int)(o->seconds / 0.02);
	if (rounds < 1)
		rounds = 1;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 4; i++)
			place_launch(&ks[i]);
		CK(cudaDeviceSynchronize());
	}
	for (int i = 0; i < 4; i++)
		place_report(&ks[i], "together", sms);
	printf("summary scenario=placement kernels=4 together_rounds=%d block_hold_ms=%.1f\n", rounds, PLACE_NS / 1e6);
	for (int i = 0; i < 4; i++) {
		CK(cudaFree(ks[i].d_out));
		CK(cudaStreamDestroy(ks[i].s));
	}
	return 0;
}

/* ---- timeslice / mps: two processes ---- */

/* Forks before any CUDA call (each child gets its own context) a child
 * that plays role run at priority: it reads pipe in and writes pipe out,
 * and closes their other ends.  The parent gets its pid, or -1. */
static pid_t fork_role(const struct demo_opts *o, int priority, const int in[2],
		       const int out[2], void *(*run)(void *))
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	struct role r;
	memset(&r, 0, sizeof r);
	r.o = o;
	r.priority = priority;
	r.fd_in = in[0];
	r.fd_out = out[1];
	close(in[1]);
	close(out[0]);
	run(&r);
	/* exit, not _exit: the collector in this process finalises its
	 * part of the session at exit (the parent never touched CUDA) */
	exit(r.rc);
}

static int run_pair_processes(struct demo_opts *o, int inf_prio, int tr_prio)
{
	int a[2], b[2];
	if (pipe(a) != 0 || pipe(b) != 0) {
		perror("smtop-demo: pipe");
		return 1;
	}
	fflush(stdout);
	/* the trainer writes a and reads b, the inference the other way round */
	pid_t pt = fork_role(o, tr_prio, b, a, demo_train_role);
	pid_t pi = pt < 0 ? -1 : fork_role(o, inf_prio, a, b, demo_infer_role);
	for (int i = 0; i < 2; i++) {
		close(a[i]);
		close(b[i]);
	}
	if (pt < 0 || pi < 0) {
		perror("smtop-demo: fork");
		return 1;
	}
	int rc = 0, st;
	pid_t kids[2] = {pt, pi};
	for (int i = 0; i < 2; i++) {
		if (waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	}
	return rc;
}

/* The runtime cannot be asked for priorities before fork (it would create a
 * context in the parent): the documented H200 range is 0 .. -5. */
static int sc_timeslice(struct demo_opts *o)
{
	return run_pair_processes(o, -5, 0);
}

static int sc_mps(struct demo_opts *o)
{
	const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
	char path[512];
	snprintf(path, sizeof path, "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
	if (access(path, F_OK) != 0) {
		printf("mps: MPS is not running; smtop never starts it\n");
		return 2;
	}
	return run_pair_processes(o, -5, 0);
}

/* ---- green contexts ---- */
struct green_api {
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*get_resource)(CUdevice, CUdevResource *, CUdevResourceType);
	CUresult (*split)(CUdevResource *, unsigned *, const CUdevResource *, CUdevResource *, unsigned, unsigned);
	CUresult (*gen_desc)(CUdevResourceDesc *, CUdevResource *, unsigned);
	CUresult (*create)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned);
	CUresult (*to_ctx)(CUcontext *, CUgreenCtx);
	CUresult (*stream_create)(CUstream *, CUgreenCtx, unsigned, int);
	CUresult (*destroy)(CUgreenCtx);
};

static struct green_api g_api;

static int green_sym(const char *name, void **fn, unsigned version)
{
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, version, cudaEnableDefault, &q);
	return e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn ? 0 : -1;
}

static cudaStream_t green_stream(void *green, int priority)
{
	CUstream s;
	CUresult r = g_api.stream_create(&s, (CUgreenCtx)green, CU_STREAM_NON_BLOCKING, priority);
	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "smtop-demo: cuGreenCtxStreamCreate failed (CUresult %d)\n", (int)r);
		exit(1);
	}
	return (cudaStream_t)s;
}

#define GREEN_INFER_SMS 16

static int sc_green(struct demo_opts *o)
{
	if (green_sym("cuDeviceGet", (void **)&g_api.device_get, 12000) ||
	    green_sym("cuDeviceGetDevResource", (void **)&g_api.get_resource, 12040) ||
	    green_sym("cuDevSmResourceSplitByCount", (void **)&g_api.split, 12040) ||
	    green_sym("cuDevResourceGenerateDesc", (void **)&g_api.gen_desc, 12040) ||
	    green_sym("cuGreenCtxCreate", (void **)&g_api.create, 12040) ||
	    green_sym("cuCtxFromGreenCtx", (void **)&g_api.to_ctx, 12040) ||
	    green_sym("cuGreenCtxStreamCreate", (void **)&g_api.stream_create, 12050) ||
	    green_sym("cuGreenCtxDestroy", (void **)&g_api.destroy, 12040)) {
		printf("green-contexts: the driver has no green-context API (needs CUDA 12.5+ driver)\n");
		return 2;
	}
	int dev_ord, least, greatest;
	CK(cudaGetDevice(&dev_ord));
	CK(cudaFree(0)); /* the primary context first, as the green-context docs advise */
	prio_range(&least, &greatest);
	CUdevice dev;
	CUdevResource all, grp, rest;
	unsigned groups = 1;
	CUdevResourceDesc d_inf, d_tr;
	CUgreenCtx g_inf, g_tr;
	CUcontext c_inf, c_tr;
	CUresult r = g_api.device_get(&dev, dev_ord);
	if (r == CUDA_SUCCESS)
		r = g_api.get_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
	if (r == CUDA_SUCCESS)
		r = g_api.split(&grp, &groups, &all, &rest, 0, GREEN_INFER_SMS);
	if (r == CUDA_SUCCESS && groups < 1)
		r = CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_SUCCESS)
		r = g_api.gen_desc(&d_inf, &grp, 1);
	if (r == CUDA_SUCCESS)
		r = g_api.gen_desc(&d_tr, &rest, 1);
	if (r == CUDA_SUCCESS)
		r = g_api.create(&g_inf, d_inf, dev, CU_GREEN_CTX_DEFAULT_STREAM);
	if (r == CUDA_SUCCESS)
		r = g_api.create(&g_tr, d_tr, dev, CU_GREEN_CTX_DEFAULT_STREAM);
	if (r == CUDA_SUCCESS)
		r = g_api.to_ctx(&c_inf, g_inf);
	if (r == CUDA_SUCCESS)
		r = g_api.to_ctx(&c_tr, g_tr);
	if (r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION) {
		printf("green-contexts: not supported on this device or configuration (CUresult %d)\n", (int)r);
		return 2;
	}
	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "smtop-demo: green context setup failed (CUresult %d)\n", (int)r);
		return 1;
	}
	printf("green-contexts: inference_sms=%u training_sms=%u of %u\n", grp.sm.smCount, rest.sm.smCount,
	       all.sm.smCount);
	struct role inf, tr;
	memset(&inf, 0, sizeof inf);
	memset(&tr, 0, sizeof tr);
	inf.priority = greatest;
	tr.priority = least;
	inf.green = g_inf;
	inf.green_ctx = c_inf;
	tr.green = g_tr;
	tr.green_ctx = c_tr;
	inf.make_stream = tr.make_stream = green_stream;
	int rc = run_pair_threads(o, &inf, &tr);
	g_api.destroy(g_inf);
	g_api.destroy(g_tr);
	return rc;
}

static const struct scenario scenarios[] = {
	{"priority-vs-training", sc_priority,
	 "Batch-1 inference requests on a priority -5 stream while a training loop runs on a priority 0\n"
	 "  stream in the same process. Priority only reorders pending blocks: look for inference kernels\n"
	 "  waiting behind resident training blocks (resident inversions) and compare p99 with solo."},
	{"equal-priority", sc_equal,
	 "The same pair with both streams at priority 0. Inference blocks now also queue behind pending\n"
	 "  training blocks (dispatch order), so turnaround grows well past priority-vs-training's."},
	{"head-of-line", sc_head_of_line,
	 "One long kernel (2 x 1024-thread blocks per SM, 20 ms each) fills every SM; a short high-priority\n"
	 "  kernel launched 2 ms later cannot start until the long blocks retire: no preemption. The\n"
	 "  summary gives the short kernel's event-timed wait."},
	{"placement", sc_placement,
	 "Kernels with 32 or 1024 threads, 96 KiB shared memory or many registers per block, first alone,\n"
	 "  then together. Look at how blocks spread over SMs: the block scheduler places by free resources,\n"
	 "  not by contention, so some SMs stack many blocks while others hold few."},
	{"timeslice", sc_timeslice,
	 "Inference and training in two processes (two contexts, no MPS). The GPU time-slices between the\n"
	 "  contexts: look for whole-GPU gaps in one process's lanes while the other runs; priorities do\n"
	 "  not cross processes."},
	{"green-contexts", sc_green,
	 "Inference and training in green contexts with disjoint SM sets (16 SMs for inference). Blocks\n"
	 "  of each stay on their own SMs: inference no longer waits behind training, at the price of\n"
	 "  training throughput. Needs a CUDA 12.5+ driver; exits 2 otherwise."},
	{"mps", sc_mps,
	 "Inference and training as two MPS clients: blocks of both processes share SMs at once, as in\n"
	 "  one process. Runs only when an MPS daemon is already running; smtop never starts it (exit 2)."},
};

#define NSCEN (sizeof scenarios / sizeof scenarios[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: smtop-demo --list\n"
		   "       smtop-demo --kernels\n"
		   "       smtop-demo NAME [--seconds S] [--arrival back-to-back|poisson] [--rate R]\n"
		   "                       [--model resnet|vgg|densenet] [--batch N] [--fusion on|off]\n");
}

/* Kernels per batch-1 inference request of each model, with and without the
 * inference fusion, from the host-side plan: runs without a GPU. */
static void list_kernels(void)
{
	static const enum model_kind kinds[] = {MODEL_RESNET, MODEL_VGG, MODEL_DENSENET};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		printf("kernels model=%s unfused=%d fused=%d\n", model_kind_name(kinds[i]),
		       model_inference_kernels(kinds[i], 0), model_inference_kernels(kinds[i], 1));
}

static void list(void)
{
	for (size_t i = 0; i < NSCEN; i++)
		printf("%s\n  %s\n\n", scenarios[i].name, scenarios[i].help);
}

static int parse_double(const char *s, double lo, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (*s == 0 || *end != 0 || !(v >= lo))
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	struct demo_opts o = {NULL, 4.0, 0, 50.0, MODEL_RESNET, 32};
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--list") == 0) {
		list();
		return 0;
	}
	if (strcmp(argv[1], "--kernels") == 0) {
		list_kernels();
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	const struct scenario *sc = NULL;
	for (size_t i = 0; i < NSCEN; i++)
		if (strcmp(argv[1], scenarios[i].name) == 0)
			sc = &scenarios[i];
	if (!sc) {
		fprintf(stderr, "smtop-demo: unknown scenario '%s' (see --list)\n", argv[1]);
		return 2;
	}
	o.scenario = sc->name;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double d;
		int bad = v == NULL;
		if (!bad && strcmp(a, "--seconds") == 0)
			bad = parse_double(v, 0.1, &o.seconds);
		else if (!bad && strcmp(a, "--rate") == 0)
			bad = parse_double(v, 0.001, &o.rate);
		else if (!bad && strcmp(a, "--batch") == 0) {
			bad = parse_double(v, 1, &d) || d > 1024;
			o.batch = (int)d;
		} else if (!bad && strcmp(a, "--model") == 0)
			bad = model_kind_parse(v, &o.model);
		else if (!bad && strcmp(a, "--fusion") == 0) {
			o.unfused = strcmp(v, "off") == 0;
			bad = !o.unfused && strcmp(v, "on") != 0;
		} else if (!bad && strcmp(a, "--arrival") == 0) {
			o.poisson = strcmp(v, "poisson") == 0;
			bad = !o.poisson && strcmp(v, "back-to-back") != 0;
		} else
			bad = 1;
		if (bad) {
			fprintf(stderr, "smtop-demo: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
		i++;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("scenario %s seconds=%g model=%s batch=%d arrival=%s fusion=%s\n", o.scenario, o.seconds,
	       model_kind_name(o.model), o.batch, o.poisson ? "poisson" : "back-to-back", o.unfused ? "off" : "on");
	return sc->run(&o);
}
