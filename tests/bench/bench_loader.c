/* Loader throughput and live lag.
 *
 * 1. Replays sessions through the loader as fast as it goes: the H200
 *    fixture tests/fixtures/priority-vs-training.smtop, and a synthetic
 *    session of N blocks (default 20 M; first argument overrides) of a
 *    DNN-like workload with 20 us-1 ms blocks (tests/support/workload_support).
 *    For each: blocks/s of each step alone on one thread (decode, analysis,
 *    model) and of the model on the pool, then the whole loader with 1, 2,
 *    4, 8 threads (up to the machine's), each in a fresh process so that its
 *    peak RSS is its own.
 * 2. Live lag: a writer thread appends chunks (pre-encoded, collector-like:
 *    one transaction per 50 ms of GPU time) to a growing session at R blocks
 *    per second of wall time, while the loader follows it as the viewer does
 *    (30 ms poll budget, a 132x50 frame per poll, 50 ms ticks when caught
 *    up); prints the distribution of now - newest block end, as the status
 *    line shows it.  SMTOP_BENCH_RATES (M blocks/s, comma-separated; default
 *    "20,5") and SMTOP_BENCH_LIVE_S (seconds; default 6) override.
 *
 * Parts alone: --write PATH RATE SECONDS runs the live writer alone (R M
 * blocks/s for SECONDS), for the real viewer to follow; --write-blocks PATH
 * N writes the synthetic session of N blocks at once; --replay PATH THREADS
 * REPS loads it (the whole loader, peak RSS); --steps PATH times the steps
 * alone; --live RATE SECONDS. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/blockcodec.h"
#include "db/reader.h"
#include "src/core/varint.h"
#include "db/writer.h"
#include "src/core/analysis.h"
#include "src/core/model.h"
#include "src/core/pool.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"
#include "tests/support/workload_support.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"
#include "tests/bench/bench_util.h"

#define FIXTURE "tests/fixtures/priority-vs-training.smtop"
#define LIVE_BUDGET_NS 30000000ull     /* as ui/app/open.c gives the live view */
#define TICK_NS 50000000ull            /* UI_TICK_MS */
#define PERIOD_NS 50000000ull          /* the collector's writer period */

/* CPU seconds of this thread, or of the whole process: on a shared machine
 * a truer cost than the wall clock. */
static double cpu_s(clockid_t which)
{
	struct timespec ts;
	clock_gettime(which, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

/* ---- the steps alone ----------------------------------------------------------- */

struct raw {
	struct db_chunk *c;             /* data points into bytes */
	size_t n, cap;
	uint8_t *bytes;
	size_t len, bcap;
	uint64_t blocks;
};

static int raw_take(void *ud, const struct db_chunk *c)
{
	struct raw *r = ud;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->c = realloc(r->c, r->cap * sizeof *r->c);
	}
	if (r->len + c->len > r->bcap) {
		r->bcap = (r->len + c->len) * 2;
		r->bytes = realloc(r->bytes, r->bcap);
	}
	if (!r->c || !r->bytes)
		abort();
	memcpy(r->bytes + r->len, c->data, c->len);
	r->c[r->n] = *c;
	r->c[r->n++].data = (void *)(uintptr_t)r->len;
	r->len += c->len;
	r->blocks += c->count;
	return 0;
}

struct kerns {
	struct smtop_kernel *v;
	size_t n, cap;
};

static int kern_take(void *ud, const struct smtop_kernel *k)
{
	struct kerns *ks = ud;
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 1024;
		ks->v = realloc(ks->v, ks->cap * sizeof *ks->v);
		if (!ks->v)
			abort();
	}
	ks->v[ks->n++] = *k;
	return 0;
}

static void steps_alone(const char *path, int threads)
{
	struct db_reader *r;
	char err[512];
	if (db_reader_open(&r, path, err, sizeof err)) {
		fprintf(stderr, "bench_loader: %s\n", err);
		exit(1);
	}
	struct db_session_info info;
	db_reader_info(r, &info);
	struct raw raw = { 0 };
	struct kerns ks = { 0 };
	int64_t km = 0, bm = 0;
	double t = now_s();
	db_reader_new_kernels(r, &km, kern_take, &ks);
	db_reader_new_chunks(r, &bm, raw_take, &raw);
	double read = now_s() - t;
	for (size_t i = 0; i < raw.n; i++)
		raw.c[i].data = raw.bytes + (uintptr_t)raw.c[i].data;
	struct smtop_block *blocks = malloc(raw.blocks * sizeof *blocks);
	size_t *first = malloc(raw.n * sizeof *first);
	t = cpu_s(CLOCK_THREAD_CPUTIME_ID);
	uint64_t at = 0;
	for (size_t i = 0; i < raw.n; i++) {
		first[i] = at;
		long n = db_blockcodec_decode(raw.c[i].data, raw.c[i].len, raw.c[i].sm,
					      raw.c[i].device_id, blocks + at, raw.c[i].count);
		for (long k = 0; k < n; k++) {
			blocks[at + k].start = gpu_clock_cupti(&raw.c[i].clock, blocks[at + k].start);
			blocks[at + k].end = gpu_clock_cupti(&raw.c[i].clock, blocks[at + k].end);
		}
		at += raw.c[i].count;
	}
	double decode = cpu_s(CLOCK_THREAD_CPUTIME_ID) - t;
	struct analysis *a = analysis_new(NULL);
	t = cpu_s(CLOCK_THREAD_CPUTIME_ID);
	analysis_add_device(a, &info.devices[0]);
	for (size_t i = 0; i < ks.n; i++)
		analysis_add_kernel(a, &ks.v[i]);
	for (size_t i = 0; i < raw.n; i++)
		analysis_add_blocks(a, raw.c[i].pid, raw.c[i].context_id, blocks + first[i],
				    raw.c[i].count);
	analysis_update(a, ANALYSIS_WATERMARK_ALL);
	double anal = cpu_s(CLOCK_THREAD_CPUTIME_ID) - t;
	analysis_free(a);
	printf("  steps alone, M blocks per CPU-second: read %.1f (wall), decode %.1f, analysis %.1f",
	       raw.blocks / read / 1e6, raw.blocks / decode / 1e6, raw.blocks / anal / 1e6);
	int counts[2] = { 1, threads };
	for (int c = 0; c < (threads > 1 ? 2 : 1); c++) {
		struct pool *p = pool_new(counts[c]);
		struct model m;
		model_init(&m);
		model_set_pool(&m, p);
		model_set_device(&m, &info.devices[0]);
		t = now_s();
		double c0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
		for (size_t i = 0; i < ks.n; i++)
			model_add_kernel(&m, &ks.v[i]);
		for (size_t i = 0; i < raw.n; i++)
			model_add_blocks(&m, blocks + first[i], raw.c[i].count, raw.c[i].pid,
					 raw.c[i].context_id);
		model_flush(&m);
		double model = now_s() - t, mc = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (counts[c] == 1)
			printf(", model %.1f", raw.blocks / mc / 1e6);
		else
			printf(", model on %d threads %.1f (%.1f M blocks/s wall)", counts[c],
			       raw.blocks / mc / 1e6, raw.blocks / model / 1e6);
		model_free(&m);
		pool_free(p);
	}
	printf("\n");
	free(blocks);
	free(first);
	free(ks.v);
	free(raw.c);
	free(raw.bytes);
	db_reader_close(r);
}

/* ---- the whole loader ------------------------------------------------------------ */

/* In a process of its own (bench_loader --replay PATH THREADS REPS). */
static int replay(const char *path, int threads, int reps)
{
	double best = 0, best_cpu = 0;
	struct session_stats st = { 0 };
	uint64_t placed = 0;
	for (int i = 0; i < reps; i++) {
		struct session s;
		struct model m;
		struct analysis_params p;
		char err[512];
		analysis_params_default(&p);
		double t = now_s(), c = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
		if (session_open(&s, path, &p, err, sizeof err) || model_init(&m) ||
		    session_set_threads(&s, threads)) {
			fprintf(stderr, "bench_loader: %s\n", err);
			return 1;
		}
		s.model = &m;
		if (session_poll(&s, err, sizeof err) < 0) {
			fprintf(stderr, "bench_loader: %s\n", err);
			return 1;
		}
		t = now_s() - t;
		c = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - c;
		if (!best || t < best) {
			best = t;
			best_cpu = c;
			st = s.stats;
			placed = m.blocks;
		}
		model_free(&m);
		session_close(&s);
	}
	printf("  loader, %d thread%s: %5.1f M blocks/s wall, %5.1f per CPU-second (%llu blocks, "
	       "%.3f s, best of %d; %llu binned); main thread: read %.0f ms, decode %.0f ms, "
	       "model %.0f ms, waiting for the analysis %.0f ms; analysis %.0f ms CPU; "
	       "peak RSS %.0f MB\n",
	       threads, threads > 1 ? "s" : " ", st.blocks / best / 1e6, st.blocks / best_cpu / 1e6,
	       (unsigned long long)st.blocks, best, reps, (unsigned long long)placed,
	       st.read_s * 1e3, st.decode_s * 1e3, st.model_s * 1e3, st.wait_s * 1e3,
	       st.analysis_s * 1e3, peak_rss_mb());
	return 0;
}

static void replay_in_child(const char *path, int threads, int reps)
{
	char t[16], r[16];
	snprintf(t, sizeof t, "%d", threads);
	snprintf(r, sizeof r, "%d", reps);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "bench_loader", "--replay", path, t, r, (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
}

static void thread_counts(const char *path, int reps)
{
	int max = pool_default_threads();
	if (max < 2)
		max = 2;
	for (int n = 1; n <= 8 && n <= max; n *= 2)
		replay_in_child(path, n, reps);
}

/* ---- live lag ------------------------------------------------------------------ */

struct tchunk {
	int period;                     /* of the template */
	uint16_t sm;
	uint32_t count;
	uint64_t start, end;
	uint8_t *data;
	size_t len;
};

struct live {
	char path[256];
	struct workload w;
	double rate;
	uint64_t t_base;                /* template's first period, workload time */
	int periods;
	struct tchunk *chunks;
	size_t n_chunks;
	struct smtop_kernel *kernels;   /* template's, by end */
	size_t n_kernels;
	uint64_t grid_shift;
	uint64_t w0;                    /* wall time of the template's start in cycle 0 */
	double seconds;
	volatile int stop;
	uint64_t written;               /* blocks appended */
	double writer_cpu;              /* seconds */
	int created;
	pthread_mutex_t lock;
	pthread_cond_t cv;
};

/* The chunk moved by dt in time and dg in grid ids: its header holds the
 * first start and its first block the first grid id; the rest are deltas.
 * (dg keeps grid ids in the same codec slots: a multiple of 8.) */
static size_t shift_chunk(const struct tchunk *c, uint64_t dt, uint64_t dg, uint8_t *out)
{
	const uint8_t *p = c->data;
	uint64_t n, base, d_start, dur, d_grid;
	uint8_t *o = out;
	*o++ = p[0];
	*o++ = p[1];
	p = varint_get_fast(p + 2, &n);
	p = varint_get_fast(p, &base);
	p = varint_get_fast(p, &d_start);
	p = varint_get_fast(p, &dur);
	p = varint_get_fast(p, &d_grid);
	o = varint_put(o, n);
	o = varint_put(o, base + dt);
	o = varint_put(o, d_start);
	o = varint_put(o, dur);
	o = varint_put(o, d_grid + 2 * dg); /* zigzag of a positive grid id */
	size_t rest = c->len - (size_t)(p - c->data);
	memcpy(o, p, rest);
	return (size_t)(o - out) + rest;
}

static int cmp_block_sm_start(const void *a, const void *b)
{
	const struct smtop_block *x = a, *y = b;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* 200 ms of the workload's steady state, as the collector would store it:
 * per 50 ms period, the blocks that ended in it, per SM, in chunks. */
static void live_template(struct live *L)
{
	workload_default(&L->w, L->rate, 1000000000ull);
	L->periods = 4;
	L->t_base = L->w.t0 + 100000000ull;
	uint64_t n = (uint64_t)(L->rate * 0.5);
	struct smtop_block *b = NULL;
	size_t cap = 0, ccap = 0;
	uint64_t gmin = UINT64_MAX, gmax = 0;
	uint8_t *buf = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS));
	for (int p = 0; p < L->periods; p++) {
		uint64_t t0 = L->t_base + (uint64_t)p * PERIOD_NS;
		size_t m = workload_blocks_ending(&L->w, n, t0, t0 + PERIOD_NS, &b, &cap);
		qsort(b, m, sizeof *b, cmp_block_sm_start);
		for (size_t i = 0; i < m;) {
			size_t j = i;
			while (j < m && b[j].sm == b[i].sm && j - i < DB_BLOCKCODEC_MAX_BLOCKS)
				j++;
			uint64_t end = 0;
			for (size_t k = i; k < j; k++) {
				end = b[k].end > end ? b[k].end : end;
				gmin = b[k].grid_id < gmin ? b[k].grid_id : gmin;
				gmax = b[k].grid_id > gmax ? b[k].grid_id : gmax;
			}
			size_t len = db_blockcodec_encode(b + i, j - i, buf);
			if (L->n_chunks == ccap) {
				ccap = ccap ? ccap * 2 : 1024;
				L->chunks = realloc(L->chunks, ccap * sizeof *L->chunks);
			}
			struct tchunk *c = &L->chunks[L->n_chunks++];
			*c = (struct tchunk){ p, b[i].sm, (uint32_t)(j - i), b[i].start, end,
					      malloc(len), len };
			memcpy(c->data, buf, len);
			i = j;
		}
	}
	L->grid_shift = (gmax + 8) / 8 * 8;
	L->n_kernels = gmax - gmin + 1;
	L->kernels = malloc(L->n_kernels * sizeof *L->kernels);
	for (uint64_t g = gmin; g <= gmax; g++)
		workload_kernel(&L->w, g - 1, &L->kernels[g - gmin]);
	free(b);
	free(buf);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench_loader: %s: %s\n", sql, sqlite3_errmsg(db));
		exit(1);
	}
}

static void sleep_until_wall(uint64_t t)
{
	uint64_t now = wall_ns();
	if (t > now) {
		struct timespec ts = { (time_t)((t - now) / 1000000000ull), (long)((t - now) % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
}

static void *live_writer(void *arg)
{
	struct live *L = arg;
	struct db_writer *dw = db_support_writer(L->path, 1, 1);
	struct smtop_record r[8];
	size_t nr = 0;
	r[nr++] = db_support_device(1, 0, L->w.n_sm);
	for (uint32_t s = 0; s < L->w.streams; s++)
		r[nr++] = db_support_stream(1, workload_stream_id(&L->w, s), workload_priority(&L->w, s));
	db_writer_write(dw, r, nr);
	db_writer_set_meta(dw, "clock_offset_ns", "0");
	sqlite3 *db;
	sqlite3_stmt *st;
	if (sqlite3_open(L->path, &db) != SQLITE_OK)
		exit(1);
	sqlite3_busy_timeout(db, 5000);
	exec_sql(db, "PRAGMA synchronous=OFF");
	sqlite3_prepare_v2(db, "INSERT INTO smtop_block_chunk(globalPid,deviceId,contextId,sm,start,"
			   "end,count,data) VALUES(?1,0,1,?2,?3,?4,?5,?6)", -1, &st, NULL);
	uint8_t *buf = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS) + 32);
	struct smtop_record *kr = malloc(L->n_kernels * sizeof *kr);
	L->w0 = wall_ns() + 100000000ull;
	pthread_mutex_lock(&L->lock);
	L->created = 1;
	pthread_cond_signal(&L->cv);
	pthread_mutex_unlock(&L->lock);
	uint64_t tpl_span = (uint64_t)L->periods * PERIOD_NS;
	for (uint64_t p = 0; !L->stop; p++) {
		uint64_t cycle = p / (uint64_t)L->periods;
		int tp = (int)(p % (uint64_t)L->periods);
		uint64_t dt = L->w0 + cycle * tpl_span - L->t_base, dg = cycle * L->grid_shift;
		uint64_t period_end = L->w0 + (p + 1) * PERIOD_NS;
		sleep_until_wall(period_end);
		/* kernels that ended in the period, then its chunks, one transaction each */
		size_t nk = 0;
		for (size_t k = 0; k < L->n_kernels; k++) {
			uint64_t e = L->kernels[k].end + dt;
			if (e >= period_end - PERIOD_NS && e < period_end) {
				kr[nk] = (struct smtop_record){ .kind = SMTOP_REC_KERNEL, .u.kernel = L->kernels[k] };
				struct smtop_kernel *x = &kr[nk++].u.kernel;
				x->start += dt;
				x->end += dt;
				x->queued += dt;
				x->submitted += dt;
				x->grid_id += dg;
				x->correlation_id += (uint32_t)dg;
				x->name = strdup(x->name);
			}
		}
		if (nk)
			db_writer_write(dw, kr, nk);
		exec_sql(db, "BEGIN IMMEDIATE");
		uint64_t blocks = 0;
		for (size_t i = 0; i < L->n_chunks; i++) {
			const struct tchunk *c = &L->chunks[i];
			if (c->period != tp)
				continue;
			size_t len = shift_chunk(c, dt, dg, buf);
			sqlite3_bind_int64(st, 1, (int64_t)1 << 24);
			sqlite3_bind_int(st, 2, c->sm);
			sqlite3_bind_int64(st, 3, (int64_t)(c->start + dt));
			sqlite3_bind_int64(st, 4, (int64_t)(c->end + dt));
			sqlite3_bind_int(st, 5, (int)c->count);
			sqlite3_bind_blob(st, 6, buf, (int)len, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE) {
				fprintf(stderr, "bench_loader: %s\n", sqlite3_errmsg(db));
				exit(1);
			}
			sqlite3_reset(st);
			blocks += c->count;
		}
		exec_sql(db, "COMMIT");
		__atomic_add_fetch(&L->written, blocks, __ATOMIC_RELAXED);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	db_writer_close(dw);
	free(buf);
	free(kr);
	L->writer_cpu = cpu_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void live_run(double rate, double seconds)
{
	struct live L = { .rate = rate, .seconds = seconds };
	pthread_mutex_init(&L.lock, NULL);
	pthread_cond_init(&L.cv, NULL);
	db_support_temp_path(L.path, sizeof L.path, "live.smtop");
	live_template(&L);
	pthread_t wt;
	pthread_create(&wt, NULL, live_writer, &L);
	pthread_mutex_lock(&L.lock);
	while (!L.created)
		pthread_cond_wait(&L.cv, &L.lock);
	pthread_mutex_unlock(&L.lock);

	struct session s;
	struct model m;
	struct analysis_params p;
	char err[512];
	analysis_params_default(&p);
	if (session_open(&s, L.path, &p, err, sizeof err) || model_init(&m)) {
		fprintf(stderr, "bench_loader: %s\n", err);
		exit(1);
	}
	s.model = &m;
	s.budget_ns = LIVE_BUDGET_NS;
	struct canvas c;
	canvas_init(&c, 132, 50);
	struct app a;
	int app_ready = 0;
	size_t n_lag = 0, cap_lag = 4096, behind_polls = 0, polls = 0;
	uint64_t *lag = malloc(cap_lag * sizeof *lag);
	double frame_max = 0;
	uint64_t warm = L.w0 + 1000000000ull;
	double wall0 = now_s(), cpu0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t until = L.w0 + (uint64_t)(seconds * 1e9);
	while (wall_ns() < until) {
		uint64_t t = wall_ns();
		if (session_poll(&s, err, sizeof err) < 0) {
			fprintf(stderr, "bench_loader: %s\n", err);
			exit(1);
		}
		polls++;
		behind_polls += s.behind;
		uint64_t now = wall_ns();
		if (s.latest_end && now >= warm) {
			if (n_lag == cap_lag)
				lag = realloc(lag, (cap_lag *= 2) * sizeof *lag);
			lag[n_lag++] = now > s.latest_end ? now - s.latest_end : 0;
		}
		if (m.has_device && !app_ready) {
			app_init(&a, &m);
			screen_layout(&a, &m, 132, 50);
			app_ready = 1;
		}
		if (app_ready) {
			double f = now_s();
			app_tick(&a, 0);
			screen_draw(&c, &a, &m);
			f = now_s() - f;
			frame_max = f > frame_max ? f : frame_max;
		}
		/* as ui_run: a full tick when caught up, at once when behind */
		if (!s.behind)
			sleep_until_wall(t + TICK_NS);
	}
	L.stop = 1;
	pthread_join(wt, NULL);
	double wall = now_s() - wall0, cpu = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	double lag_ms[3];
	bench_p50_p99_max(lag, n_lag, 1e6, lag_ms);
	uint64_t written = L.written, read = s.stats.blocks;
	printf("  live at %.0f M blocks/s, %.0f s, %d loader threads: lag p50 %.0f ms, p99 %.0f ms, "
	       "max %.0f ms (%zu polls, %zu behind); read %llu of %llu blocks written; "
	       "slowest frame %.1f ms; CPU: writer %.1f s, loader %.1f s in %.1f s\n",
	       rate / 1e6, seconds, pool_default_threads(),
	       lag_ms[0], lag_ms[1], lag_ms[2], polls, behind_polls,
	       (unsigned long long)read, (unsigned long long)written, frame_max * 1e3,
	       L.writer_cpu, cpu - L.writer_cpu, wall);
	free(lag);
	canvas_free(&c);
	model_free(&m);
	session_close(&s);
	for (size_t i = 0; i < L.n_chunks; i++)
		free(L.chunks[i].data);
	free(L.chunks);
	free(L.kernels);
	unlink(L.path);
}

/* Only the writer, into path: a growing session for the real viewer to
 * follow (`smtop open PATH` beside it). */
static void write_only(const char *path, double rate, double seconds)
{
	struct live L = { .rate = rate, .seconds = seconds };
	pthread_mutex_init(&L.lock, NULL);
	pthread_cond_init(&L.cv, NULL);
	snprintf(L.path, sizeof L.path, "%s", path);
	live_template(&L);
	pthread_t wt;
	pthread_create(&wt, NULL, live_writer, &L);
	sleep_until_wall(wall_ns() + (uint64_t)(seconds * 1e9));
	L.stop = 1;
	pthread_join(wt, NULL);
	printf("wrote %llu blocks to %s in %.1f s\n", (unsigned long long)L.written, path, seconds);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--write") == 0) {
		write_only(argv[2], atof(argv[3]) * 1e6, atof(argv[4]));
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "--replay") == 0)
		return replay(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "--live") == 0) {
		live_run(atof(argv[2]) * 1e6, atof(argv[3]));
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "--write-blocks") == 0) {
		struct workload w;
		workload_default(&w, 20e6, 1764460800000000000ull);
		workload_write(&w, argv[2], strtoull(argv[3], NULL, 10), 1);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--steps") == 0) {
		steps_alone(argv[2], pool_default_threads());
		return 0;
	}
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
	int threads = pool_default_threads();

	printf("fixture %s (H200, 126,680 blocks):\n", FIXTURE);
	steps_alone(FIXTURE, threads);
	thread_counts(FIXTURE, 5);

	char path[256];
	db_support_temp_path(path, sizeof path, "synthetic.smtop");
	struct workload w;
	workload_default(&w, 20e6, 1764460800000000000ull);
	double t = now_s();
	workload_write(&w, path, n, 1);
	printf("synthetic: %llu blocks (132 SMs, 4 streams, 20 us-1 ms blocks, 20 M blocks/s of GPU "
	       "time), written in %.1f s\n", (unsigned long long)n, now_s() - t);
	steps_alone(path, threads);
	thread_counts(path, 1);
	unlink(path);

	const char *rates = getenv("SMTOP_BENCH_RATES");
	const char *secs = getenv("SMTOP_BENCH_LIVE_S");
	double seconds = secs ? atof(secs) : 6;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", rates ? rates : "20,5");
	for (char *r = strtok(buf, ","); r; r = strtok(NULL, ","))
		live_run(atof(r) * 1e6, seconds);
	return 0;
}
