/* Inference and training roles of the demo scenarios; see demo_run.cuh. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cuda.h>
#include "kernels/cuda_check.cuh"
#include "kernels/demo_run.cuh"
#include "src/core/smtop_trace_abi.h"

#define SOLO_MAX_S 1.0

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t demo_now_real(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t demo_now_mono(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void lat_add(struct lat *l, uint64_t ns)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		uint64_t *v = (uint64_t *)realloc(l->v, cap * sizeof *v);
		if (!v) {
			fprintf(stderr, "%s: out of host memory\n", program_invocation_short_name);
			exit(1);
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

double lat_pct_ms(struct lat *l, double pct)
{
	if (l->n == 0)
		return 0;
	qsort(l->v, l->n, sizeof l->v[0], cmp_u64);
	size_t i = (size_t)ceil(pct / 100.0 * l->n);
	if (i > 0)
		i--;
	if (i >= l->n)
		i = l->n - 1;
	return l->v[i] / 1e6;
}

void lat_free(struct lat *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* Looked up once: present only when smtop's collector is loaded. */
void demo_note_request(void *stream, uint64_t start, uint64_t end, const char *label)
{
	static int looked;
	static smtop_note_request_fn fn;
	if (!looked) {
		fn = (smtop_note_request_fn)dlsym(RTLD_DEFAULT, SMTOP_NOTE_REQUEST_SYMBOL);
		looked = 1;
	}
	if (fn)
		fn(stream, start, end, label);
}

static void pipe_write(int fd, const void *p, size_t n)
{
	if (fd >= 0 && write(fd, p, n) != (ssize_t)n) {
		fprintf(stderr, "%s: pipe write failed\n", program_invocation_short_name);
		exit(1);
	}
}

static int pipe_read(int fd, void *p, size_t n)
{
	return fd >= 0 && read(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static void sleep_until_mono(uint64_t t)
{
	struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

static void role_enter(struct role *r)
{
	if (r->green_ctx) {
		CUresult (*set_current)(CUcontext) = NULL;
		cudaDriverEntryPointQueryResult q;
		CK(cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", (void **)&set_current, 12000,
						    cudaEnableDefault, &q));
		if (!set_current || set_current((CUcontext)r->green_ctx) != CUDA_SUCCESS) {
			fprintf(stderr, "%s: cannot make the green context current\n", program_invocation_short_name);
			exit(1);
		}
	}
}

static cudaStream_t role_stream(struct role *r)
{
	if (r->make_stream)
		return r->make_stream(r->green, r->priority);
	cudaStream_t s;
	CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, r->priority));
	return s;
}

static double expo_s(double rate, uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	double u = ((*state >> 11) + 0.5) / 9007199254740992.0;
	return -log(u) / rate;
}

/* Turnaround = host submit to host-observed completion, CLOCK_REALTIME.
 * Launch = the host's time to enqueue the request: near the turnaround, the
 * GPU waits on the host (tracing's per-launch cost then adds to every
 * request); far below it, the GPU is the bottleneck. */
static void run_requests(struct role *r, struct model *m, cudaStream_t s, double dur_s, struct lat *l,
			 struct lat *launch, const char *label, int *late)
{
	uint64_t end = demo_now_mono() + (uint64_t)(dur_s * 1e9);
	uint64_t next = demo_now_mono(), rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	while (demo_now_mono() < end) {
		if (r->o->poisson) {
			next += (uint64_t)(expo_s(r->o->rate, &rng) * 1e9);
			if (next >= end)
				break;
			if (demo_now_mono() > next)
				(*late)++;
			else
				sleep_until_mono(next);
		}
		uint64_t t0 = demo_now_real();
		model_forward(m, s);
		uint64_t enqueued = demo_now_real();
		CK(cudaStreamSynchronize(s));
		uint64_t t1 = demo_now_real();
		demo_note_request((void *)s, t0, t1, label);
		lat_add(l, t1 - t0);
		if (launch)
			lat_add(launch, enqueued - t0);
	}
}

void *demo_infer_role(void *arg)
{
	struct role *r = (struct role *)arg;
	const struct demo_opts *o = r->o;
	role_enter(r);
	cudaStream_t s = role_stream(r);
	struct model *m = model_create(o->model, 1, 0, 1);
	model_set_fusion(m, !o->unfused);
	for (int i = 0; i < 3; i++)
		model_forward(m, s);
	if (model_verify(m, s) != 0) {
		uint64_t now = 0; /* a deadline in the past: the trainer stops at once */
		pipe_write(r->fd_out, &now, sizeof now);
		r->rc = 1;
		return NULL;
	}
	struct lat solo = {0}, cont = {0}, solo_launch = {0};
	int late = 0;
	int has_trainer = r->fd_in >= 0;
	if (has_trainer) {
		char ready;
		if (pipe_read(r->fd_in, &ready, 1) != 0 || ready != 'r') {
			fprintf(stderr, "%s: training side failed before starting\n", program_invocation_short_name);
			r->rc = 1;
			return NULL;
		}
		double solo_s = o->seconds / 4 < SOLO_MAX_S ? o->seconds / 4 : SOLO_MAX_S;
		run_requests(r, m, s, solo_s, &solo, &solo_launch, "inference-solo", &late);
		uint64_t deadline = demo_now_mono() + (uint64_t)(o->seconds * 1e9);
		pipe_write(r->fd_out, &deadline, sizeof deadline);
	}
	late = 0;
	run_requests(r, m, s, o->seconds, &cont, NULL, has_trainer ? "inference" : "inference-solo", &late);
	int ok = model_verify(m, s) == 0;
	printf("summary scenario=%s model=%s arrival=%s rate=%g priority=%d requests=%zu median_ms=%.3f p99_ms=%.3f "
	       "max_ms=%.3f late=%d solo_requests=%zu solo_median_ms=%.3f solo_p99_ms=%.3f solo_launch_ms=%.3f "
	       "verified=%s fusion=%s "
	       "kernels_per_request=%d\n",
	       o->scenario, model_kind_name(o->model), o->poisson ? "poisson" : "back-to-back",
	       o->poisson ? o->rate : 0.0, r->priority, cont.n, lat_pct_ms(&cont, 50), lat_pct_ms(&cont, 99),
	       lat_pct_ms(&cont, 100), late, solo.n, lat_pct_ms(&solo, 50), lat_pct_ms(&solo, 99),
	       lat_pct_ms(&solo_launch, 50), ok ? "yes" : "no",
	       model_fused(m) ? "on" : "off", model_last_forward_kernels(m));
	fflush(stdout);
	if (cont.n == 0 || !ok)
		r->rc = 1;
	lat_free(&solo);
	lat_free(&solo_launch);
	lat_free(&cont);
	model_destroy(m);
	CK(cudaStreamDestroy(s));
	return NULL;
}

void *demo_train_role(void *arg)
{
	struct role *r = (struct role *)arg;
	const struct demo_opts *o = r->o;
	role_enter(r);
	cudaStream_t s = role_stream(r);
	struct model *m = model_create(o->model, o->batch, 1, 2);
	model_train_step(m, s, 1e-4f); /* warm-up, and proves the step runs */
	if (model_verify(m, s) != 0) {
		r->rc = 1;
		pipe_write(r->fd_out, "x", 1); /* unblocks the other side, which then sees no deadline */
		return NULL;
	}
	pipe_write(r->fd_out, "r", 1);
	uint64_t deadline;
	if (pipe_read(r->fd_in, &deadline, sizeof deadline) != 0) {
		r->rc = 1;
		return NULL;
	}
	struct lat steps = {0};
	while (demo_now_mono() < deadline) {
		uint64_t t0 = demo_now_real();
		model_train_step(m, s, 1e-4f);
		CK(cudaStreamSynchronize(s));
		lat_add(&steps, demo_now_real() - t0);
	}
	printf("train scenario=%s model=%s batch=%d priority=%d steps=%zu step_median_ms=%.3f step_max_ms=%.3f "
	       "images_per_s=%.1f\n",
	       o->scenario, model_kind_name(o->model), o->batch, r->priority, steps.n, lat_pct_ms(&steps, 50),
	       lat_pct_ms(&steps, 100), steps.n ? o->batch * 1e3 / lat_pct_ms(&steps, 50) : 0.0);
	fflush(stdout);
	lat_free(&steps);
	model_destroy(m);
	CK(cudaStreamDestroy(s));
	return NULL;
}
