/* Frame and model-build costs on a large synthetic session: 132 SMs, 8
 * streams, N thread blocks (default 100 M; first argument overrides).
 * Prints the model build rate (40 us blocks, and 20 us-1 ms ones as real
 * demo blocks run; one thread and the pool), the time of one full 132x50
 * frame at each zoom from the whole session down to 1 us per column
 * (mid-session and at the live end), and the peak RSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <math.h>
#include <time.h>

#include "src/core/model.h"
#include "src/core/pool.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"

#define SMS 132
#define STREAMS 8
#define GRID 1056                       /* 8 blocks per SM */
#define BLOCK_NS 40000ULL
#define ROUND_NS 50000ULL
#define T0 1764460800000000000ULL

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of the whole process: on a shared machine a truer cost than
 * the wall clock (builds on one thread are all this thread's). */
static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_kernel(struct model *m, uint64_t i)
{
	uint32_t s = (uint32_t)(i % STREAMS);
	uint64_t start = T0 + (i / STREAMS) * ROUND_NS + s * 1000;
	struct smtop_kernel k = {
		.start = start, .end = start + BLOCK_NS + 2000, .submitted = start - 3000,
		.grid_id = i + 1, .pid = 1, .context_id = 1, .stream_id = s + 10,
		.grid = { GRID, 1, 1 }, .block = { 256, 1, 1 }, .registers = 32,
		.name = (s & 1) ? "_Z10conv2d_fwdPKfPfi" : "relu",
	};
	model_add_kernel(m, &k);
	if (i % 97 == 0) {
		struct smtop_culprit c = { .pid = 1, .context_id = 1, .stream_id = 17, .grid_id = i,
					   .blocks = 132, .name = "x" };
		struct smtop_event e = { .kind = SMTOP_EV_INVERSION_RESIDENT, .pid = 1,
					 .context_id = 1, .stream_id = s + 10, .grid_id = i + 1,
					 .ready = start - 3000, .start = start, .wait_ns = 3000,
					 .name = "relu", .n_culprits = 1, .culprits = &c };
		model_add_event(m, &e);
	}
}

/* Durations: 40 us, or (realistic) log-uniform 20 us-1 ms as real demo
 * blocks run. */
static int realistic;

static uint64_t block_ns(uint64_t i, uint32_t b)
{
	if (!realistic)
		return BLOCK_NS;
	uint64_t h = (i * GRID + b + 1) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (uint64_t)(20000.0 * pow(50.0, (double)(h >> 11) / 9007199254740992.0));
}

static void add_blocks(struct model *m, uint64_t i, uint64_t *left)
{
	uint64_t start = m->kernels[i].start;
	for (uint32_t b = 0; b < GRID && *left; b++, (*left)--) {
		struct smtop_block blk = { .grid_id = i + 1, .block = b, .sm = (uint16_t)(b % SMS),
					   .start = start + (b / SMS) * 100,
					   .end = start + (b / SMS) * 100 + block_ns(i, b) };
		model_add_block(m, &blk, 1, 1);
	}
}

/* What the loader does for a fine window: the blocks of [t0, t1) into the
 * detail level (here regenerated, as a reader would decode them). */
static double fill_detail_ms(struct model *m, uint64_t t0, uint64_t t1, uint64_t *nblocks)
{
	double t = now();
	model_detail_begin(m, t0, t1);
	uint64_t r0 = t0 > T0 + BLOCK_NS + ROUND_NS ? (t0 - T0 - BLOCK_NS - ROUND_NS) / ROUND_NS : 0;
	uint64_t r1 = (t1 - T0) / ROUND_NS + 1;
	*nblocks = 0;
	for (uint64_t r = r0; r <= r1; r++)
		for (uint64_t s = 0; s < STREAMS; s++) {
			uint64_t i = r * STREAMS + s;
			if (i >= m->n_kernels)
				break;
			uint64_t start = m->kernels[i].start;
			for (uint32_t b = 0; b < GRID; b++) {
				struct smtop_block blk = { .grid_id = i + 1, .block = b,
							   .sm = (uint16_t)(b % SMS),
							   .start = start + (b / SMS) * 100,
							   .end = start + (b / SMS) * 100 + BLOCK_NS };
				if (blk.end <= t0 || blk.start >= t1)
					continue;
				model_detail_add_block(m, &blk, 1);
				(*nblocks)++;
			}
		}
	model_detail_end(m);
	return (now() - t) * 1e3;
}

static double frame_ms(struct canvas *c, struct app *a, const struct model *m, int reps)
{
	double t = now();
	for (int r = 0; r < reps; r++)
		screen_draw(c, a, m);
	return (now() - t) * 1e3 / reps;
}

static void zooms(struct canvas *c, struct app *a, struct model *m, uint64_t centre,
		  const char *where)
{
	app_fit(a);
	for (;;) {
		uint64_t half = a->col_ns * (uint64_t)app_cols(a) / 2;
		a->t0 = centre > half ? centre - half : 0;
		if (a->t0 + 2 * half > m->t_last && centre == m->t_last)
			a->t0 = m->t_last - 2 * half;
		uint64_t res = model_resolution(m, a->t0, app_t1(a), a->col_ns);
		printf("  %-6s %10.1f us/col  bins %10.1f us  frame %7.3f ms%s\n", where,
		       a->col_ns / 1e3, res / 1e3, frame_ms(c, a, m, 5),
		       model_wants_detail(m, a->t0, app_t1(a), a->col_ns) ? "  (wants detail)" : "");
		if (model_wants_detail(m, a->t0, app_t1(a), a->col_ns) && app_t1(a) - a->t0 < 20000000) {
			/* three windows, as ui_run asks */
			uint64_t span = app_t1(a) - a->t0, n;
			double fill = fill_detail_ms(m, a->t0 - span, app_t1(a) + span, &n);
			res = model_resolution(m, a->t0, app_t1(a), a->col_ns);
			printf("  %-6s %10.1f us/col  bins %10.3f us  frame %7.3f ms  "
			       "(detail: %llu blocks in %.1f ms)\n", "", a->col_ns / 1e3, res / 1e3,
			       frame_ms(c, a, m, 5), (unsigned long long)n, fill);
		}
		if (a->col_ns <= 1000)
			break;
		app_handle_key(a, '+');
	}
}

static void model_start(struct model *m, struct pool *p)
{
	model_init(m);
	model_set_pool(m, p);
	struct smtop_device d = { .sm_count = SMS, .max_threads_per_sm = 2048, .name = "NVIDIA H200" };
	model_set_device(m, &d);
	for (uint32_t s = 0; s < STREAMS; s++) {
		struct smtop_stream st = { .pid = 1, .context_id = 1, .stream_id = s + 10,
					   .priority = -(int32_t)(s % 6) };
		model_add_stream(m, &st);
	}
}

/* Feeds n blocks (kernel records first, as the loader does); wall seconds,
 * and CPU seconds in *cs. */
static double build(struct model *m, uint64_t n, double *cs)
{
	double t = now(), c = cpu();
	uint64_t left = n, kernels = 0;
	while (left) {
		add_kernel(m, kernels);
		add_blocks(m, kernels, &left);
		kernels++;
		if (kernels % 1000 == 0)
			model_flush(m);
	}
	model_flush(m);
	*cs = cpu() - c;
	return now() - t;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ULL;
	int threads = pool_default_threads();
	struct pool *pool = pool_new(threads);
	struct model m;
	/* the build alone on shorter sessions: both block lengths, 1 and N threads */
	uint64_t nb = n / 5 ? n / 5 : n;
	for (realistic = 0; realistic < 2; realistic++)
		for (int th = 1; th <= threads; th = th == 1 && threads > 1 ? threads : th + threads) {
			struct pool *p = th == 1 ? NULL : pool;
			model_start(&m, p);
			double cs, b = build(&m, nb, &cs);
			printf("build, %s blocks, %d thread%s: %.2f M blocks/s (%.2f per CPU-second; "
			       "%llu blocks)\n", realistic ? "20 us-1 ms" : "40 us", th,
			       th > 1 ? "s" : "", m.blocks / b / 1e6, m.blocks / cs / 1e6,
			       (unsigned long long)m.blocks);
			model_free(&m);
		}
	realistic = 0;
	model_start(&m, pool);
	double cs, b = build(&m, n, &cs);
	printf("model: %llu blocks, %zu kernels, %zu events, session %.3f s\n",
	       (unsigned long long)m.blocks, m.n_kernels, m.n_events,
	       (m.t_last - m.t_first) / 1e9);
	printf("build: %.2f s, %.2f M blocks/s (%d threads; %.2f per CPU-second)\n", b,
	       m.blocks / b / 1e6, threads, m.blocks / cs / 1e6);

	struct canvas c;
	canvas_init(&c, 132, 50);
	struct app a;
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	printf("frames (132x50, mean of 5):\n");
	zooms(&c, &a, &m, m.t_first + (m.t_last - m.t_first) / 2, "middle");
	zooms(&c, &a, &m, m.t_last, "end");
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %.1f MB\n", ru.ru_maxrss / 1024.0);
	/* the bins want transparent huge pages; say whether they got them */
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "AnonHugePages:", 14) == 0)
			printf("huge pages: %s", line + 14);
	if (f)
		fclose(f);
	canvas_free(&c);
	model_free(&m);
	pool_free(pool);
	return 0;
}
