#include "tests/fuzz/support.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/blockcodec.h"
#include "db/events.h"
#include "db/reader.h"
#include "db/summary.h"
#include "src/core/analysis.h"
#include "src/core/findings.h"
#include "ui/app/info.h"
#include "src/core/model.h"
#include "src/core/report.h"
#include "db/session/export.h"
#include "db/session/session.h"
#include "db/session/replay_feed.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"
#include "ui/ui.h"

/* Records a walk stops at when it tries the early-stop path of a reader. */
#define STOP_AFTER 3

static char session_path[256];

const char *fuzz_session_path(void)
{
	if (!session_path[0]) {
		const char *dir = getenv("TMPDIR");

		if (!dir || !*dir)
			dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(session_path, sizeof session_path, "%s/smtop-fuzz-%ld.smtop", dir,
			 (long)getpid());
	}
	return session_path;
}

void fuzz_remove_session(void)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[300];

	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(p, sizeof p, "%s%s", fuzz_session_path(), suffix[i]);
		unlink(p);
	}
}

const char *fuzz_write_session(const uint8_t *data, size_t size)
{
	const char *path = fuzz_session_path();
	FILE *f;

	fuzz_remove_session();
	if (!(f = fopen(path, "wb")))
		return NULL;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return NULL;
	}
	return fclose(f) == 0 ? path : NULL;
}

FILE *fuzz_null_out(void)
{
	static FILE *null_out;

	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	return null_out;
}

void fuzz_check(int ok, const char *msg)
{
	if (!ok) {
		fprintf(stderr, "fuzz property failed: %s\n", msg);
		abort();
	}
}

/* GPU properties of every architecture smtop may meet in a file, cc 3.5 to
 * 12.x (what cudaGetDeviceProperties reports on one GPU of each; the CUDA
 * C++ Programming Guide's table for the per-SM limits), then values no GPU
 * has: zeros, ones, the 32-bit and 64-bit edges, negatives.  Each row:
 * cc major, minor, SMs, warp size, threads an SM, blocks an SM, registers
 * an SM, shared memory an SM, threads a block. */
static const int64_t fuzz_gpus[][9] = {
	{ 3, 5, 15, 32, 2048, 16, 65536, 49152, 1024 },         /* K40 */
	{ 3, 7, 13, 32, 2048, 16, 131072, 114688, 1024 },       /* K80 */
	{ 5, 0, 5, 32, 2048, 32, 65536, 65536, 1024 },          /* GTX 750 Ti */
	{ 5, 2, 24, 32, 2048, 32, 65536, 98304, 1024 },         /* M40 */
	{ 5, 3, 2, 32, 2048, 32, 65536, 65536, 1024 },          /* Jetson TX1 */
	{ 6, 0, 56, 32, 2048, 32, 65536, 65536, 1024 },         /* P100 */
	{ 6, 1, 20, 32, 2048, 32, 65536, 98304, 1024 },         /* GTX 1080 */
	{ 6, 2, 2, 32, 2048, 32, 65536, 65536, 1024 },          /* Jetson TX2 */
	{ 7, 0, 80, 32, 2048, 32, 65536, 98304, 1024 },         /* V100 */
	{ 7, 2, 8, 32, 2048, 32, 65536, 98304, 1024 },          /* Xavier */
	{ 7, 5, 40, 32, 1024, 16, 65536, 65536, 1024 },         /* T4 */
	{ 8, 0, 108, 32, 2048, 32, 65536, 167936, 1024 },       /* A100 */
	{ 8, 6, 82, 32, 1536, 16, 65536, 102400, 1024 },        /* RTX 3090 */
	{ 8, 7, 16, 32, 1536, 16, 65536, 167936, 1024 },        /* Orin */
	{ 8, 9, 128, 32, 1536, 24, 65536, 102400, 1024 },       /* RTX 4090 */
	{ 9, 0, 132, 32, 2048, 32, 65536, 233472, 1024 },       /* H100, H200 */
	{ 10, 0, 148, 32, 2048, 32, 65536, 233472, 1024 },      /* B200 */
	{ 10, 3, 148, 32, 2048, 32, 65536, 233472, 1024 },      /* B300 */
	{ 12, 0, 170, 32, 1536, 24, 65536, 102400, 1024 },      /* RTX 5090 */
	{ 12, 1, 48, 32, 1536, 24, 65536, 102400, 1024 },       /* GB10 */
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ 1, 0, 1, 1, 1, 1, 1, 1, 1 },
	{ 7, 5, 0, 32, 1024, 16, 65536, 0, 1024 },
	{ 6, 0, 56, 0, 2048, 0, 65536, 65536, 0 },
	{ 255, 255, 65535, 4294967295, 4294967295, 4294967295, 4294967295, 4294967295, 4294967295 },
	{ 8, 0, 4294967296, 4294967296, 4294967296, 4294967296, 4294967296, 4294967296, 4294967296 },
	{ -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	{ INT64_MAX, INT64_MIN, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,
	  INT64_MAX },
};
#define FUZZ_GPUS (sizeof fuzz_gpus / sizeof fuzz_gpus[0])

/* The columns each GPU table names the fields of fuzz_gpus in (smtop
 * sessions and nsys 2021.3 on; nsys before 2021.3). */
static const char *const gpu_columns[][9] = {
	{ "computeMajor", "computeMinor", "smCount", "threadsPerWarp", "maxThreadsPerSm",
	  "maxBlocksPerSm", "maxRegistersPerSm", "maxShmemPerSm", "maxThreadsPerBlock" },
	{ "computeCapabilityMajor", "computeCapabilityMinor", "numMultiprocessors",
	  "numThreadsPerWarp", "maxWarpsPerMultiprocessor", "maxBlocksPerMultiprocessor",
	  "maxRegistersPerMultiprocessor", "maxSharedMemoryPerMultiprocessor", "maxThreadsPerBlock" },
};
static const char *const gpu_tables[] = { "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU" };

/* FNV-1a of the input: the same input always meets the same GPU. */
static uint64_t input_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	return h;
}

void fuzz_vary_gpus(const char *path, const uint8_t *data, size_t size)
{
	uint64_t h = input_hash(data, size);
	/* one input in FUZZ_GPUS + 1 keeps the GPUs it has */
	size_t pick = (size_t)(h % (FUZZ_GPUS + 1));
	sqlite3 *db;
	char sql[200];
	if (pick == FUZZ_GPUS)
		return;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return;
	}
	/* statements on a missing table or column fail: fine */
	for (size_t t = 0; t < 2; t++)
		for (size_t c = 0; c < 9; c++) {
			int64_t v = fuzz_gpus[pick][c];
			/* nsys before 2021.3 counts warps an SM, not threads */
			if (t == 1 && c == 4 && fuzz_gpus[pick][3] > 0)
				v /= fuzz_gpus[pick][3];
			snprintf(sql, sizeof sql, "UPDATE %s SET %s = %lld", gpu_tables[t],
				 gpu_columns[t][c], (long long)v);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
	/* nsys 2021.3 on counts warps an SM where smtop counts threads */
	snprintf(sql, sizeof sql, "UPDATE TARGET_INFO_GPU SET maxWarpsPerSm = %lld",
		 (long long)(fuzz_gpus[pick][3] > 0 ? fuzz_gpus[pick][4] / fuzz_gpus[pick][3]
						    : fuzz_gpus[pick][4]));
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	/* one input in eight of those loses its GPU rows (exports without any) */
	if ((h >> 32) % 8 == 0)
		for (size_t t = 0; t < 2; t++) {
			snprintf(sql, sizeof sql, "DELETE FROM %s", gpu_tables[t]);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
	sqlite3_close(db);
}

/* A refusal is one line naming the file: no newline inside, not empty. */
static void check_one_line(const char *err, const char *path)
{
	fuzz_check(err[0] != 0, "an error without a message");
	fuzz_check(strchr(err, '\n') == NULL, "an error message of more than one line");
	fuzz_check(strstr(err, path) != NULL, "an error message that does not name the file");
}

/* Reading every byte of handed-out strings lets the sanitizers see dangling
 * or unterminated ones. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

/* ---- reader walks ---- */

struct walk {
	struct db_reader *r;
	uint64_t t0, t1;
	size_t n, stop_after;
	size_t chars;
};

static int stop_here(struct walk *w)
{
	return w->stop_after && ++w->n >= w->stop_after;
}

static int on_kernel(void *ud, const struct smtop_kernel *k)
{
	struct walk *w = ud;

	w->chars += touch(k->name) + touch(db_reader_short_name(w->r, k->name));
	fuzz_check(k->name != NULL, "a kernel without a name");
	return stop_here(w);
}

static int on_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct walk *w = ud;

	(void)pid;
	(void)ctx;
	fuzz_check(b->start < w->t1 && b->end > w->t0, "a block outside the window asked for");
	return stop_here(w);
}

static int on_stream(void *ud, const struct smtop_stream *s)
{
	(void)s;
	return stop_here(ud);
}

static int on_nvtx(void *ud, const struct smtop_nvtx *n)
{
	struct walk *w = ud;

	w->chars += touch(n->text) + touch(n->domain);
	return stop_here(w);
}

static int on_request(void *ud, const struct smtop_request *q)
{
	struct walk *w = ud;

	w->chars += touch(q->label);
	return stop_here(w);
}

static void span_of(struct db_reader *r, uint64_t *t0, uint64_t *t1)
{
	struct db_session_info info;

	*t0 = 0;
	*t1 = INT64_MAX;
	if (db_reader_info(r, &info) == 0 && info.t_first && info.t_last > info.t_first) {
		*t0 = info.t_first;
		*t1 = info.t_last;
	}
}

static void walk_info(struct db_reader *r)
{
	struct db_session_info info;
	size_t chars = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (db_reader_info(r, &info) != 0)
			return;
		chars += touch(info.path) + touch(info.command) + touch(info.end_reason);
		for (size_t i = 0; i < info.n_devices; i++)
			chars += touch(info.devices[i].name) + touch(info.devices[i].uuid);
		for (size_t i = 0; i < info.n_processes; i++)
			chars += touch(info.processes[i].command) + touch(info.processes[i].status) +
				 touch(info.processes[i].reason);
		db_reader_sync_types(r, &info);
		info_print(fuzz_null_out(), &info);
	}
	(void)chars;
}

/* The whole span, its first half, and an early stop. */
static void walk_kernels(struct db_reader *r)
{
	uint64_t t0, t1;
	struct walk w = { .r = r };

	span_of(r, &t0, &t1);
	db_reader_kernels(r, t0, t1 + 1, on_kernel, &w);
	db_reader_kernels(r, t0, t0 + (t1 - t0) / 2, on_kernel, &w);
	w.stop_after = STOP_AFTER;
	db_reader_kernels(r, 0, INT64_MAX, on_kernel, &w);
}

/* A saved file does not change: the second poll finds nothing new. */
static void walk_new_kernels(struct db_reader *r)
{
	struct walk w = { .r = r };
	int64_t mark = 0;

	if (db_reader_new_kernels(r, &mark, on_kernel, &w) != 0)
		return;
	w.n = 0;
	db_reader_new_kernels(r, &mark, on_kernel, &w);
	fuzz_check(w.n == 0, "kernels found again past the watermark");
	mark = 0;
	w.stop_after = STOP_AFTER;
	db_reader_new_kernels(r, &mark, on_kernel, &w);
}

static void walk_blocks(struct db_reader *r)
{
	struct walk w = { .r = r };

	span_of(r, &w.t0, &w.t1);
	db_reader_blocks(r, w.t0, w.t1 + 1, on_block, &w);
	w.t1 = w.t0 + (w.t1 - w.t0) / 3 + 1;
	db_reader_blocks(r, w.t0, w.t1, on_block, &w);
	w.stop_after = STOP_AFTER;
	w.t0 = 0;
	w.t1 = INT64_MAX;
	db_reader_blocks(r, w.t0, w.t1, on_block, &w);
}

static void walk_new_blocks(struct db_reader *r)
{
	struct walk w = { .r = r, .t0 = 0, .t1 = UINT64_MAX };
	int64_t mark = 0;

	if (db_reader_new_blocks(r, &mark, on_block, &w) != 0)
		return;
	w.n = 0;
	db_reader_new_blocks(r, &mark, on_block, &w);
	fuzz_check(w.n == 0, "blocks found again past the watermark");
}

static void walk_streams(struct db_reader *r)
{
	struct walk w = { .r = r };

	db_reader_streams(r, on_stream, &w);
	w.stop_after = 1;
	db_reader_streams(r, on_stream, &w);
}

static void walk_nvtx(struct db_reader *r)
{
	struct walk w = { .r = r };
	uint64_t t0, t1;

	span_of(r, &t0, &t1);
	db_reader_nvtx(r, 0, INT64_MAX, on_nvtx, &w);
	db_reader_nvtx(r, t0, t1, on_nvtx, &w);
	w.stop_after = 1;
	db_reader_nvtx(r, 0, INT64_MAX, on_nvtx, &w);
}

static void walk_requests(struct db_reader *r)
{
	struct walk w = { .r = r };

	db_reader_requests(r, on_request, &w);
	w.stop_after = 1;
	db_reader_requests(r, on_request, &w);
}

/* The encoded chunks as smtop export and the replay read them; a chunk's
 * header must decode to the count the reader hands out. */
static int on_chunk(void *ud, const struct db_chunk *c)
{
	uint32_t count;
	uint64_t base;

	fuzz_check(db_blockcodec_header(c->data, c->len, &count, &base) != 0 || count == c->count,
		   "chunk count differs from its header");
	return ++*(size_t *)ud > 100000;
}

static void walk_new_chunks(struct db_reader *r)
{
	int64_t mark = 0;
	size_t n = 0;

	db_reader_new_chunks(r, &mark, on_chunk, &n);
}

const struct fuzz_reader_walk fuzz_reader_walks[] = {
	{ "info", walk_info },
	{ "kernels", walk_kernels },
	{ "new kernels", walk_new_kernels },
	{ "blocks", walk_blocks },
	{ "new blocks", walk_new_blocks },
	{ "streams", walk_streams },
	{ "nvtx", walk_nvtx },
	{ "requests", walk_requests },
	{ "new chunks", walk_new_chunks },
};
const size_t fuzz_reader_walk_count = sizeof fuzz_reader_walks / sizeof fuzz_reader_walks[0];

/* The events a report stored (smtop_events, smtop_event_culprits). */
static void walk_stored_events(const char *path)
{
	struct smtop_event *ev;
	char params[128], err[512];
	size_t n, chars = 0;

	if (db_events_load(path, &ev, &n, params, sizeof params, err, sizeof err) != 0) {
		check_one_line(err, path);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		chars += touch(ev[i].name);
		fuzz_check(ev[i].n_culprits == 0 || ev[i].culprits != NULL, "culprits lost");
		for (size_t c = 0; c < ev[i].n_culprits; c++)
			chars += touch(ev[i].culprits[c].name);
	}
	chars += touch(params);
	db_events_free(ev, n);
	(void)chars;
}

/* What the session library lists: the path check, the head and the stored
 * summary (read-only). */
static void walk_summary(const char *path)
{
	struct db_summary_head h;
	char err[512];

	if (db_check_session_path(path, err, sizeof err) != 0)
		check_one_line(err, path);
	if (db_summary_read(path, &h, err, sizeof err) != 0) {
		check_one_line(err, path);
		return;
	}
	if (h.has_stored)
		db_summary_matches(&h.stored, &h.key);
	touch(h.command);
	touch(h.gpu);
}

const struct fuzz_file_walk fuzz_file_walks[] = {
	{ "stored events", walk_stored_events },
	{ "library summary", walk_summary },
};
const size_t fuzz_file_walk_count = sizeof fuzz_file_walks / sizeof fuzz_file_walks[0];

void fuzz_walk_reader(const char *path)
{
	struct db_reader *r;
	char err[512];

	for (size_t i = 0; i < fuzz_file_walk_count; i++)
		fuzz_file_walks[i].walk(path);
	if (db_reader_open(&r, path, err, sizeof err) != 0) {
		check_one_line(err, path);
		return;
	}
	for (size_t i = 0; i < fuzz_reader_walk_count; i++)
		fuzz_reader_walks[i].walk(r);
	db_reader_close(r);
}

/* ---- the loader, the report and the viewer's model ---- */

struct view {
	struct session s;
	struct model m;
};

static int view_poll(void *ud, struct model *m)
{
	struct view *v = ud;
	char err[512];

	(void)m;
	return session_poll(&v->s, err, sizeof err) < 0 ? -1 : 0;
}

static int view_detail(void *ud, struct model *m, uint64_t t0, uint64_t t1, int start)
{
	struct view *v = ud;

	(void)m;
	if (start)
		session_detail_start(&v->s, t0, t1);
	return session_detail_more(&v->s, SESSION_DETAIL_CHUNKS);
}

/* The keys of tests/e2e/test_tui.sh: a frame of every SM first, then one
 * 80x24 frame every few keys (drawing is most of a run's time). */
static void drive_viewer(struct view *v)
{
	static const int keys[] = {
		'w', '+', '+', '+', '-', 'n', 'N', APP_KEY_RIGHT, APP_KEY_LEFT, APP_KEY_TAB, 'j',
		APP_KEY_ENTER, 'k', APP_KEY_ESC, APP_KEY_TAB, 'j', APP_KEY_END, APP_KEY_HOME, 'm',
		'/', 'g', 'e', 'm', 'm', APP_KEY_ENTER, 'f', 'a', APP_KEY_ESC, '?', 'q',
	};
	struct ui_source src = { .ud = v, .poll = view_poll, .detail = view_detail };
	struct canvas c;
	struct app a;

	if (canvas_init(&c, 132, 50) != 0)
		return;
	app_init(&a, &v->m);
	screen_layout(&a, &v->m, c.w, c.h);
	app_fit(&a);
	ui_step(&a, &v->m, &src, 0);
	screen_draw(&c, &a, &v->m);
	canvas_resize(&c, 80, 24);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		app_handle_key(&a, keys[i]);
		ui_step(&a, &v->m, &src, 50000000ull);
		if (i % 4 == 3)
			screen_draw(&c, &a, &v->m);
	}
	app_handle_mouse(&a, 40, 10);
	screen_draw(&c, &a, &v->m);
	canvas_free(&c);
}

static void report_session(struct session *s, const char *path)
{
	struct report_options ro = { .source = path, .max_episodes = 20 };
	struct analysis_stream_summary sum;

	struct findings f;
	if (findings_from_analysis(s->analysis, &f) == 0) {
		report_text(fuzz_null_out(), &f, &ro);
		report_json(fuzz_null_out(), &f, &ro);
		findings_free(&f);
	}
	for (size_t i = 0; i < analysis_stream_count(s->analysis); i++)
		analysis_stream_summary(s->analysis, i, &sum);
}

/* smtop export's Perfetto trace of the whole session, to /dev/null. */
static void export_session(struct session *s, const char *path)
{
	struct export_window w;
	char err[512];

	if (export_window(s, 0, 0, 0, &w, err, sizeof err) != 0) {
		check_one_line(err, path);
		return;
	}
	if (export_perfetto(s, fuzz_null_out(), &w, err, sizeof err) != 0)
		check_one_line(err, path);
}

/* smtop replay: a fresh model fed by the replay feed at a few clocks from
 * the first kernel to past the last, with a detail window at each. */
static void replay_session(struct session *s, const char *path)
{
	struct replay_feed feed;
	struct model m;
	char err[512];

	if (model_init(&m) != 0)
		return;
	if (replay_feed_open(&feed, s, &m, 0, err, sizeof err) != 0) {
		check_one_line(err, path);
		model_free(&m);
		return;
	}
	uint64_t t0 = feed.t_first, span = feed.t_last - feed.t_first;
	for (int i = 0; i <= 4; i++) {
		uint64_t clock = i < 4 ? t0 + span / 4 * (uint64_t)i : UINT64_MAX;
		if (replay_feed_to(&feed, clock, err, sizeof err) < 0) {
			check_one_line(err, path);
			break;
		}
		uint64_t d1 = clock < t0 + span / 8 ? t0 + span / 8 : clock;
		replay_feed_detail(&feed, d1 - span / 8, d1 + 1);
	}
	replay_feed_close(&feed);
	model_free(&m);
}

/* The loader, report, viewer, export, replay and stored events over the
 * sessions of paths[0..n) shown as one. */
static void load_sessions(const char *const *paths, size_t n)
{
	struct analysis_params p;
	struct view v;
	char err[512];

	memset(&v, 0, sizeof v);
	analysis_params_default(&p);
	if (session_open_many(&v.s, paths, n, &p, err, sizeof err) != 0) {
		check_one_line(err, paths[0]);
		return;
	}
	if (model_init(&v.m) != 0) {
		session_close(&v.s);
		return;
	}
	v.s.model = &v.m;
	v.m.session_label = paths[0];
	if (session_poll(&v.s, err, sizeof err) >= 0) {
		if (!v.s.ended)
			analysis_update(v.s.analysis, ANALYSIS_WATERMARK_ALL);
		session_model_meta(&v.s, &v.m);
		report_session(&v.s, paths[0]);
		drive_viewer(&v);
		export_session(&v.s, paths[0]);
		if (n == 1)
			replay_session(&v.s, paths[0]);
		if (session_store_events(&v.s, paths[0], err, sizeof err) < 0)
			check_one_line(err, paths[0]);
	} else {
		check_one_line(err, paths[0]);
	}
	model_free(&v.m);
	session_close(&v.s);
}

void fuzz_load_session(const char *path)
{
	const char *const two[] = { path, path };

	load_sessions(two, 1);
	/* the same file twice: several files as one view */
	load_sessions(two, 2);
}
