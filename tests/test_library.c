/* The session library: names of new sessions, listing, the summary cached in
 * session files (and computed again when a session grew), rename and delete,
 * bad directories and stray files; and the list view drawn as golden screens
 * and driven by keys.  Real sessions come from tests/fixtures (copied: the
 * library writes summaries into the files it lists). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/cache.h"
#include "db/files.h"
#include "db/reader.h"
#include "db/summary.h"
#include "src/core/analysis.h"
#include "db/session/library.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"
#include "tests/support/ui_support.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/sessions.h"

#define FX "tests/fixtures/"
#define T0 1764480000000000000ull
#define US 1000ull

static void utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}

TestSuite(library, .init = utc);

/* A new empty directory; returns it in dir. */
static void temp_dir(char *dir, size_t len)
{
	char p[256];

	db_support_temp_path(p, sizeof p, "x");
	*strrchr(p, '/') = 0;
	snprintf(dir, len, "%s", p);
}

static void copy_file(const char *from, const char *dir, const char *name)
{
	char to[512], buf[65536];
	size_t n;
	FILE *in = fopen(from, "rb"), *out;

	cr_assert_not_null(in, "fixture %s missing", from);
	snprintf(to, sizeof to, "%s/%s", dir, name);
	out = fopen(to, "wb");
	cr_assert_not_null(out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static int exists(const char *dir, const char *name)
{
	char p[512];
	struct stat sb;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &sb) == 0;
}

/* ---- names ---- */

/* Arrays, not pointers: Criterion copies parameters into the test process. */
struct name_case {
	char argv[5][72];
	char expect[96];
};

ParameterizedTestParameters(library, session_names)
{
	static struct name_case cases[] = {
		{ { "python3", "train.py" }, "2026-11-30T06-47-57-python3-train.smtop" },
		{ { "/usr/bin/python3", "-u", "/home/me/train.py", "--epochs", "2" },
		  "2026-11-30T06-47-57-python3-train.smtop" },
		{ { "build/smtop-demo", "priority-vs-training", "--seconds", "3" },
		  "2026-11-30T06-47-57-smtop-demo-priority-vs-training.smtop" },
		{ { "sh", "-c", "exit 3" }, "2026-11-30T06-47-57-sh-exit_3.smtop" },
		{ { "./my app!" }, "2026-11-30T06-47-57-my_app.smtop" },
		{ { "a;b$(rm -rf x)" }, "2026-11-30T06-47-57-a_b_rm_-rf_x.smtop" },
		{ { "..." }, "2026-11-30T06-47-57-session.smtop" },
		{ { "prog", "--x" }, "2026-11-30T06-47-57-prog.smtop" },
		{ { "x", "0123456789012345678901234567890123456789012345678901234567890123" },
		  "2026-11-30T06-47-57-x-0123456789012345678901234567890123456789012345.smtop" },
	};
	return cr_make_param_array(struct name_case, cases, sizeof cases / sizeof *cases);
}

ParameterizedTest(struct name_case *c, library, session_names, .init = utc)
{
	char name[512];
	char *argv[6] = { 0 };

	/* the first empty slot ends the list, as NULL would */
	for (int i = 0; i < 5 && c->argv[i][0]; i++)
		argv[i] = c->argv[i];
	/* 2026-11-30 06:47:57 UTC */
	library_session_name(argv, (time_t)1796021277, name, sizeof name);
	cr_assert_str_eq(name, c->expect);
}

Test(library, new_paths_are_unique)
{
	char dir[256], p1[512], p2[512], p3[512], err[256];
	char *argv[] = { "python3", "train.py", NULL };
	time_t t = 1796021277;

	temp_dir(dir, sizeof dir);
	cr_assert_eq(library_new_path(dir, argv, t, p1, sizeof p1, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(strrchr(p1, '/') + 1, "2026-11-30T06-47-57-python3-train.smtop");
	write_text(dir, "2026-11-30T06-47-57-python3-train.smtop", "x");
	cr_assert_eq(library_new_path(dir, argv, t, p2, sizeof p2, err, sizeof err), 0);
	cr_assert_str_eq(strrchr(p2, '/') + 1, "2026-11-30T06-47-57-python3-train-2.smtop");
	/* a companion left behind also takes the name */
	write_text(dir, "2026-11-30T06-47-57-python3-train-2.smtop.log", "x");
	cr_assert_eq(library_new_path(dir, argv, t, p3, sizeof p3, err, sizeof err), 0);
	cr_assert_str_eq(strrchr(p3, '/') + 1, "2026-11-30T06-47-57-python3-train-3.smtop");
}

Test(library, default_dir_follows_xdg)
{
	char buf[512], err[256];

	setenv("XDG_DATA_HOME", "/data/me", 1);
	setenv("HOME", "/home/me", 1);
	cr_assert_eq(library_default_dir(buf, sizeof buf, err, sizeof err), 0);
	cr_assert_str_eq(buf, "/data/me/smtop/sessions");
	setenv("XDG_DATA_HOME", "relative/dir", 1);
	cr_assert_eq(library_default_dir(buf, sizeof buf, err, sizeof err), 0);
	cr_assert_str_eq(buf, "/home/me/.local/share/smtop/sessions", "relative XDG_DATA_HOME is ignored");
	unsetenv("XDG_DATA_HOME");
	cr_assert_eq(library_default_dir(buf, sizeof buf, err, sizeof err), 0);
	cr_assert_str_eq(buf, "/home/me/.local/share/smtop/sessions");
	unsetenv("HOME");
	cr_assert_eq(library_default_dir(buf, sizeof buf, err, sizeof err), -1);
	cr_assert(strstr(err, "neither XDG_DATA_HOME nor HOME"), "%s", err);
}

Test(library, make_dir_mode_and_failure)
{
	char dir[256], lib[512], blocked[512], err[600];
	struct stat sb;

	temp_dir(dir, sizeof dir);
	snprintf(lib, sizeof lib, "%s/data/smtop/sessions", dir);
	umask(022);
	cr_assert_eq(library_make_dir(lib, err, sizeof err), 0, "%s", err);
	cr_assert_eq(stat(lib, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0700);
	cr_assert_eq(library_make_dir(lib, err, sizeof err), 0, "an existing library is fine");

	write_text(dir, "file", "x");
	snprintf(blocked, sizeof blocked, "%s/file/smtop/sessions", dir);
	cr_assert_eq(library_make_dir(blocked, err, sizeof err), -1);
	cr_assert(strstr(err, blocked), "the line names the library: %s", err);
	cr_assert(strstr(err, "cannot create the session library"), "%s", err);
	cr_assert_null(strchr(err, '\n'));
}

/* ---- listing and summaries ---- */

/* What the analysis finds in path, independently of the library. */
static void analyse(const char *path, uint64_t threshold_ns, struct analysis_totals *t,
		    struct db_session_info *info)
{
	struct session s;
	struct analysis_params p;
	char err[512];

	analysis_params_default(&p);
	p.blocking_threshold_ns = threshold_ns;
	cr_assert_eq(session_open(&s, path, &p, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&s, err, sizeof err), 0, "%s", err);
	if (!s.ended)
		analysis_update(s.analysis, ANALYSIS_WATERMARK_ALL);
	analysis_totals(s.analysis, t);
	*info = s.info;
	info->devices = NULL;
	info->processes = NULL;
	info->command = info->end_reason = info->path = NULL;
	session_close(&s);
}

static void expect_like_analysis(const struct library_entry *e, uint64_t threshold_ns)
{
	struct analysis_totals t;
	struct db_session_info info;

	analyse(e->path, threshold_ns, &t, &info);
	cr_expect_eq(e->sum.kernels, info.kernels, "%s kernels", e->name);
	cr_expect_eq(e->sum.blocks, info.blocks, "%s blocks", e->name);
	cr_expect_eq(e->sum.t_first, info.t_first, "%s start", e->name);
	cr_expect_eq(e->sum.t_last, info.t_last, "%s end", e->name);
	cr_expect_eq(e->sum.blocking, t.events[SMTOP_EV_BLOCKING], "%s blocking", e->name);
	cr_expect_eq(e->sum.inversions_resident, t.events[SMTOP_EV_INVERSION_RESIDENT], "%s", e->name);
	cr_expect_eq(e->sum.inversions_dispatch, t.events[SMTOP_EV_INVERSION_DISPATCH], "%s", e->name);
}

/* smoke.smtop holding the summary its recording stored, as of this
 * analysis version: a listing computes the fixture's own again whenever
 * ANALYSIS_VERSION is newer than the one that stored it. */
static int same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int same = fa && fb, ca, cb;
	while (same && ((ca = getc(fa)) != EOF) | ((cb = getc(fb)) != EOF))
		same = ca == cb;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static void copy_smoke(const char *dir, const char *name)
{
	char pre[256], from[512], err[512];

	temp_dir(pre, sizeof pre);
	copy_file(FX "smoke.smtop", pre, "smoke.smtop");
	snprintf(from, sizeof from, "%s/smoke.smtop", pre);
	/* the summary in the file, as smtop record stores it */
	cr_assert_eq(library_summarize(from, NULL, err, sizeof err), 0, "%s", err);
	copy_file(from, dir, name);
}

static void fill_library(char *dir, size_t len)
{
	temp_dir(dir, len);
	copy_file(FX "priority-vs-training.smtop", dir, "priority-vs-training.smtop");
	copy_file(FX "head-of-line.smtop", dir, "head-of-line.smtop");
	copy_smoke(dir, "smoke.smtop");
	write_text(dir, "notes.txt", "not a session, just notes\n");
}

Test(library, scan_lists_sessions_and_strays)
{
	char dir[256], err[512], sub[512];
	struct library lib;

	fill_library(dir, sizeof dir);
	write_text(dir, "smoke.smtop.log", "workload output\n");    /* a companion */
	write_text(dir, ".hidden.smtop", "x");
	write_text(dir, "gone.smtop-wal", "stray");                  /* its session is gone */
	snprintf(sub, sizeof sub, "%s/subdir", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(lib.n, 5);
	/* sessions newest first by recording time, then the rest */
	for (size_t i = 0; i + 1 < 3; i++)
		cr_expect_geq(lib.e[i].created_ns, lib.e[i + 1].created_ns);
	for (size_t i = 0; i < 3; i++) {
		cr_expect_null(lib.e[i].error, "%s: %s", lib.e[i].name, lib.e[i].error);
		cr_expect_eq(lib.e[i].state, LIBRARY_COMPLETE);
		cr_expect_str_eq(lib.e[i].gpu, "NVIDIA H200");
		cr_expect_not_null(lib.e[i].command);
		expect_like_analysis(&lib.e[i], lib.threshold_ns);
	}
	cr_expect_str_eq(lib.e[3].name, "gone.smtop-wal");
	cr_expect_str_eq(lib.e[4].name, "notes.txt");
	cr_expect_str_eq(lib.e[4].error, "not a SQLite database");
	cr_expect_eq(library_find(&lib, "smoke.smtop.log"), -1, "companions are not listed");
	cr_expect_eq(library_find(&lib, ".hidden.smtop"), -1);
	cr_expect_eq(library_find(&lib, "subdir"), -1);
	/* the priority demo holds inversions; the smoke run has none */
	long pv = library_find(&lib, "priority-vs-training.smtop");
	cr_assert_geq(pv, 0);
	cr_expect_gt(lib.e[pv].sum.inversions_resident + lib.e[pv].sum.inversions_dispatch, 0);
	library_free(&lib);
}

/* Summaries computed on reading go to smtop's cache, never into the file
 * read; one a recording stored in the file is read from there. */
Test(library, summary_cached_beside_the_file)
{
	char dir[256], err[512], path[512];
	struct library lib;
	sqlite3 *db;
	sqlite3_stmt *st;

	fill_library(dir, sizeof dir);
	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	for (size_t i = 0; i < 3; i++) {
		/* smoke.smtop holds the summary its recording stored (the trimmed
		 * sessions lost theirs with the trim) */
		if (strcmp(lib.e[i].name, "smoke.smtop") == 0)
			cr_expect(lib.e[i].cached && !lib.e[i].stored, "%s read from its file",
				  lib.e[i].name);
		else
			cr_expect(lib.e[i].stored && !lib.e[i].cached, "%s computed and cached",
				  lib.e[i].name);
	}
	library_free(&lib);

	/* the row is plain SQL, keyed by the session's length, in the cache */
	char cache[PATH_MAX];
	snprintf(path, sizeof path, "%s/head-of-line.smtop", dir);
	cr_expect(same_bytes(path, FX "head-of-line.smtop"), "nothing written into the file");
	cr_assert_eq(db_cache_path(path, cache, sizeof cache), 0);
	cr_assert_eq(sqlite3_open_v2(cache, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT kernelRows, chunkRows, thresholdNs, kernels,"
					" inversionsResident + inversionsDispatch FROM smtop_summary",
					-1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_gt(sqlite3_column_int64(st, 0), 0);
	cr_expect_gt(sqlite3_column_int64(st, 1), 0);
	cr_expect_eq(sqlite3_column_int64(st, 2), ANALYSIS_DEFAULT_THRESHOLD_NS);
	int64_t kernels = sqlite3_column_int64(st, 3), inversions = sqlite3_column_int64(st, 4);
	cr_expect_eq(sqlite3_step(st), SQLITE_DONE, "one row");
	sqlite3_finalize(st);
	sqlite3_close(db);

	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	long h = library_find(&lib, "head-of-line.smtop");
	cr_assert_geq(h, 0);
	cr_expect(lib.e[h].cached && !lib.e[h].stored, "the second listing reads the cache");
	cr_expect_eq((int64_t)lib.e[h].sum.kernels, kernels);
	cr_expect_eq((int64_t)(lib.e[h].sum.inversions_resident + lib.e[h].sum.inversions_dispatch),
		     inversions);
	library_free(&lib);

	/* another threshold is another summary */
	struct analysis_params p;
	analysis_params_default(&p);
	p.blocking_threshold_ns = 5 * US;
	cr_assert_eq(library_scan(&lib, dir, &p, err, sizeof err), 0, "%s", err);
	for (size_t i = 0; i < 3; i++) {
		cr_expect(!lib.e[i].cached, "%s recomputed for 5 us", lib.e[i].name);
		expect_like_analysis(&lib.e[i], 5 * US);
	}
	library_free(&lib);
}

/* A session on two streams of priority -5 and 0, written in rounds: in each
 * round a long low-priority kernel holds the GPU while a high-priority one
 * becomes ready and waits. */
static void write_round(struct db_writer *w, int round)
{
	uint64_t t = T0 + (uint64_t)round * 10000 * US;
	struct smtop_record r[2];

	r[0] = db_support_kernel(7, 13, t, t + 3000 * US, 100 + 2 * (uint64_t)round, "_Z4longv");
	r[1] = db_support_kernel(7, 14, t + 2000 * US, t + 2100 * US, 101 + 2 * (uint64_t)round,
				 "_Z5shortv");
	r[1].u.kernel.submitted = t + 200 * US;
	r[1].u.kernel.queued = t + 150 * US;
	cr_assert_eq(db_writer_write(w, r, 2), 0, "%s", db_writer_error(w));
}

static struct db_writer *growing_session(char *path, size_t len)
{
	struct smtop_record r[3];
	struct db_writer *w;

	db_support_temp_path(path, len, "growing.smtop");
	w = db_support_writer(path, 7, 1);
	r[0] = db_support_device(7, 0, 132);
	r[1] = db_support_stream(7, 13, 0);
	r[2] = db_support_stream(7, 14, -5);
	cr_assert_eq(db_writer_write(w, r, 3), 0, "%s", db_writer_error(w));
	write_round(w, 0);
	return w;
}

static void read_entry(struct library_entry *e, const char *path)
{
	char dir[512];

	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	library_read_entry(e, dir, strrchr(path, '/') + 1, NULL);
	cr_assert_null(e->error, "%s", e->error);
}

/* Changes the summary kept for path: in the file when a recording stored
 * it there, else in smtop's cache of it. */
static void tamper(const char *path, int inversions)
{
	sqlite3 *db;
	char sql[128], cache[PATH_MAX], err[512];
	struct db_summary_head h;
	const char *where = path;

	cr_assert_eq(db_summary_read(path, &h, err, sizeof err), 0, "%s", err);
	if (!h.has_stored) {
		cr_assert_eq(db_cache_path(path, cache, sizeof cache), 0, "%s: cached", path);
		where = cache;
	}
	snprintf(sql, sizeof sql, "UPDATE smtop_summary SET inversionsDispatch = %d, inversionsResident = 0",
		 inversions);
	cr_assert_eq(sqlite3_open(where, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

Test(library, grown_session_is_summarised_again)
{
	char path[256];
	struct library_entry e;
	struct db_writer *w = growing_session(path, sizeof path);

	read_entry(&e, path);
	cr_expect_eq(e.state, LIBRARY_OPEN, "still recording");
	cr_expect(e.stored && !e.cached);
	cr_expect_eq(e.sum.kernels, 2);
	expect_like_analysis(&e, ANALYSIS_DEFAULT_THRESHOLD_NS);
	uint64_t first = e.sum.inversions_resident + e.sum.inversions_dispatch;
	cr_expect_gt(first, 0, "the short kernel waited behind the long one");
	library_entry_free(&e);

	/* proof that the cache is what ls shows while the session stays the same */
	tamper(path, 1000);
	read_entry(&e, path);
	cr_expect(e.cached);
	cr_expect_eq(e.sum.inversions_dispatch, 1000);
	library_entry_free(&e);

	/* the session grows: the stale row is not used */
	write_round(w, 1);
	write_round(w, 2);
	read_entry(&e, path);
	cr_expect(!e.cached && e.stored, "recomputed after growing");
	cr_expect_eq(e.sum.kernels, 6);
	expect_like_analysis(&e, ANALYSIS_DEFAULT_THRESHOLD_NS);
	cr_expect_gt(e.sum.inversions_resident + e.sum.inversions_dispatch, first);
	library_entry_free(&e);

	/* finalising changes the key too */
	tamper(path, 1000);
	cr_assert_eq(db_writer_finish_session(w, 1, "exited with status 0"), 0);
	db_writer_close(w);
	read_entry(&e, path);
	cr_expect_eq(e.state, LIBRARY_COMPLETE);
	cr_expect(!e.cached);
	cr_expect_neq(e.sum.inversions_dispatch, 1000);
	library_entry_free(&e);
}

/* A row that an older analysis stored (no summary_analysis in smtop_meta)
 * is computed again, though the session did not change. */
Test(library, a_summary_of_an_older_analysis_is_computed_again)
{
	char path[256];
	struct library_entry e;
	struct db_writer *w = growing_session(path, sizeof path);
	sqlite3 *db;

	cr_assert_eq(db_writer_finish_session(w, 1, "exited with status 0"), 0);
	db_writer_close(w);
	read_entry(&e, path);
	uint64_t right = e.sum.inversions_resident + e.sum.inversions_dispatch;
	library_entry_free(&e);
	tamper(path, 1000);
	char cache[PATH_MAX];
	cr_assert_eq(db_cache_path(path, cache, sizeof cache), 0);
	cr_assert_eq(sqlite3_open(cache, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "DELETE FROM smtop_meta WHERE key = 'summary_analysis'", NULL, NULL, NULL),
		     SQLITE_OK);
	sqlite3_close(db);

	read_entry(&e, path);
	cr_expect(!e.cached && e.stored, "recomputed");
	cr_expect_eq(e.sum.inversions_resident + e.sum.inversions_dispatch, right);
	library_entry_free(&e);
	cr_expect_eq(db_support_sql_int(cache, "SELECT count(*) FROM smtop_summary"), 1, "the old row replaced");
	cr_expect_eq(db_support_sql_int(cache, "SELECT count(*) FROM smtop_summary WHERE inversionsDispatch = 1000"),
		     0);
}

/* A session of several GPUs names the first and how many more, and the
 * count stays in the column (the two-GPU H200 session had lost its "+1"). */
Test(library, several_gpus_keep_their_count_in_the_column)
{
	struct library_entry e = { .gpu = "NVIDIA H200", .n_gpus = 2, .state = LIBRARY_COMPLETE };
	struct library_row r;

	library_row(&e, &r);
	cr_expect_str_eq(r.gpu, "H200 +1");
	cr_expect_leq(strlen(r.gpu), LIBRARY_W_GPU);
	e.gpu = "A100";
	e.n_gpus = 8;
	library_row(&e, &r);
	cr_expect_str_eq(r.gpu, "A100 +7", "a name that fits stays whole");
	e.gpu = "NVIDIA H200";
	e.n_gpus = 1;
	library_row(&e, &r);
	cr_expect_str_eq(r.gpu, "NVIDIA H200");
}

Test(library, summarize_at_finalisation_and_from_a_loaded_session)
{
	char path[256], err[512];
	struct db_summary_head h;
	struct db_writer *w = growing_session(path, sizeof path);
	struct session s;

	cr_assert_eq(db_writer_finish_session(w, 0, "killed by signal 9"), 0);
	db_writer_close(w);
	cr_assert_eq(library_summarize(path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_summary_read(path, &h, err, sizeof err), 0, "%s", err);
	cr_assert(h.has_stored);
	h.key.threshold_ns = ANALYSIS_DEFAULT_THRESHOLD_NS;
	cr_expect(db_summary_matches(&h.stored, &h.key), "stored for the finished session");
	cr_expect_eq(h.stored.kernels, 2);
	uint64_t inv = h.stored.inversions_resident + h.stored.inversions_dispatch;

	/* the live viewer stores its own analysis: the same summary */
	tamper(path, 1000);
	cr_assert_eq(session_open(&s, path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&s, err, sizeof err), 0);
	cr_assert_eq(library_store_session(&s, err, sizeof err), 0, "%s", err);
	session_close(&s);
	cr_assert_eq(db_summary_read(path, &h, err, sizeof err), 0);
	cr_expect_eq(h.stored.inversions_resident + h.stored.inversions_dispatch, inv);
	cr_expect_eq(h.ended, 1);
	cr_expect_eq(h.ended_clean, 0);
}

Test(library, nsys_exports_are_listed_but_never_written)
{
	char dir[256], path[512], err[512];
	sqlite3 *db;
	struct library lib;
	struct stat before, after;

	temp_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/export.sqlite", dir);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db,
		"CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO StringIds VALUES(1,'void k<1>(int)'),(2,'k');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT,"
		" streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT,"
		" launchType INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT,"
		" blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT,"
		" localMemoryPerThread INT, gridId INT, graphNodeId INT);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(100,200,0,1,7,1,(55<<24),1,2,0,32,1,1,1,"
		" 32,1,1,0,0,0,9,NULL);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	cr_assert_eq(stat(path, &before), 0);
	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(lib.n, 1);
	cr_expect_null(lib.e[0].error, "%s", lib.e[0].error);
	cr_expect_eq(lib.e[0].state, LIBRARY_NSYS);
	cr_expect_eq(lib.e[0].sum.kernels, 1);
	cr_expect(!lib.e[0].stored);
	library_free(&lib);
	cr_assert_eq(stat(path, &after), 0);
	cr_expect_eq(before.st_size, after.st_size);
	cr_expect_eq(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	cr_expect_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

/* Runs fn(dir) in a child as nobody when we are root (root writes anything);
 * returns the child's exit status. */
static int as_other_user(int (*fn)(const char *), const char *dir)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(100);
		_exit(fn(dir));
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

static int scan_read_only(const char *dir)
{
	struct library lib;
	char err[512];

	if (library_scan(&lib, dir, NULL, err, sizeof err) != 0 || lib.n != 4)
		return 1;
	for (size_t i = 0; i < 3; i++) {
		/* c.smtop (smoke.smtop) holds the summary its recording stored */
		int cached = strcmp(lib.e[i].name, "c.smtop") == 0;
		if (lib.e[i].error || lib.e[i].stored || lib.e[i].cached != cached ||
		    !lib.e[i].sum.kernels)
			return 2;
	}
	library_free(&lib);
	return 0;
}

Test(library, read_only_sessions_are_listed_without_a_cache)
{
	char dir[256], sub[512];

	temp_dir(dir, sizeof dir);
	snprintf(sub, sizeof sub, "%s/lib", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	copy_file(FX "priority-vs-training.smtop", sub, "a.smtop");
	copy_file(FX "head-of-line.smtop", sub, "b.smtop");
	copy_smoke(sub, "c.smtop");
	write_text(sub, "notes.txt", "notes\n");
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(chmod(sub, 0555), 0);
	if (geteuid() != 0)
		for (const char *n = "abc"; *n; n++) {
			char p[600];
			snprintf(p, sizeof p, "%s/%c.smtop", sub, *n);
			cr_assert_eq(chmod(p, 0444), 0);
		}
	cr_expect_eq(as_other_user(scan_read_only, sub), 0,
		     "read-only sessions list with computed summaries, nothing stored");
	chmod(sub, 0755);
}

/* ---- bad directories ---- */

Test(library, unreadable_directory)
{
	char dir[256], sub[512], err[600];
	struct library lib;
	int status;

	temp_dir(dir, sizeof dir);
	snprintf(sub, sizeof sub, "%s/locked", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(chmod(sub, 0000), 0);
	/* root reads anything: the scan runs as nobody */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		if (library_scan(&lib, sub, NULL, err, sizeof err) != -1)
			_exit(1);
		_exit(strstr(err, sub) && strstr(err, "Permission denied") && !strchr(err, '\n') ? 0 : 2);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	chmod(sub, 0700);

	snprintf(sub, sizeof sub, "%s/missing", dir);
	cr_expect_eq(library_scan(&lib, sub, NULL, err, sizeof err), -1);
	cr_expect(strstr(err, "No such file or directory"), "%s", err);
	write_text(dir, "plain", "x");
	snprintf(sub, sizeof sub, "%s/plain", dir);
	cr_expect_eq(library_scan(&lib, sub, NULL, err, sizeof err), -1);
	cr_expect(strstr(err, "Not a directory"), "%s", err);
}

Test(library, damaged_and_empty_files_have_their_error)
{
	char dir[256], err[512];
	struct library lib;
	char path[512];
	struct stat sb;

	temp_dir(dir, sizeof dir);
	write_text(dir, "empty.smtop", "");
	copy_file(FX "head-of-line.smtop", dir, "cut.smtop");
	snprintf(path, sizeof path, "%s/cut.smtop", dir);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(truncate(path, sb.st_size / 3), 0);
	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(lib.n, 2);
	long e = library_find(&lib, "empty.smtop"), c = library_find(&lib, "cut.smtop");
	cr_assert(e >= 0 && c >= 0);
	cr_expect_str_eq(lib.e[e].error, "empty file, not a smtop session");
	cr_expect_not_null(lib.e[c].error);
	cr_expect(strstr(lib.e[c].error, "truncated") || strstr(lib.e[c].error, "damaged"),
		  "%s", lib.e[c].error);
	library_free(&lib);
}

/* ---- rename and delete ---- */

Test(library, rename_moves_companions_and_refuses_clashes)
{
	char dir[256], err[600], np[512], path[512];
	struct library lib;

	fill_library(dir, sizeof dir);
	write_text(dir, "smoke.smtop.log", "workload output\n");
	snprintf(path, sizeof path, "%s/smoke.smtop", dir);
	cr_assert_eq(library_rename_path(path, "first-run", np, sizeof np, err, sizeof err), 0, "%s", err);
	cr_expect(strstr(np, "/first-run.smtop"), "%s", np);
	cr_expect(exists(dir, "first-run.smtop") && exists(dir, "first-run.smtop.log"));
	cr_expect(!exists(dir, "smoke.smtop") && !exists(dir, "smoke.smtop.log"));

	snprintf(path, sizeof path, "%s/first-run.smtop", dir);
	cr_expect_eq(library_rename_path(path, "head-of-line.smtop", np, sizeof np, err, sizeof err), -1);
	cr_expect(strstr(err, "already exists"), "%s", err);
	cr_expect(exists(dir, "head-of-line.smtop") && exists(dir, "first-run.smtop"));
	cr_expect_eq(library_rename_path(path, "../escape", np, sizeof np, err, sizeof err), -1);
	cr_expect(strstr(err, "'/'"), "%s", err);
	cr_expect_eq(library_rename_path(path, ".hidden", np, sizeof np, err, sizeof err), -1);
	cr_expect_eq(library_rename_path(path, "", np, sizeof np, err, sizeof err), -1);
	snprintf(path, sizeof path, "%s/notes.txt", dir);
	cr_expect_eq(library_rename_path(path, "notes2", np, sizeof np, err, sizeof err), -1);
	cr_expect(strstr(err, "not a smtop session"), "%s", err);

	/* through the list: the entry keeps its place and its summary */
	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	long i = library_find(&lib, "head-of-line.smtop");
	uint64_t kernels = lib.e[i].sum.kernels;
	cr_assert_eq(library_rename(&lib, (size_t)i, "hol", err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(lib.e[i].name, "hol.smtop");
	cr_expect_eq(lib.e[i].sum.kernels, kernels);
	cr_expect(exists(dir, "hol.smtop"));
	library_free(&lib);
}

Test(library, remove_takes_companions_and_spares_other_files)
{
	char dir[256], err[600], path[512];
	struct library lib;

	fill_library(dir, sizeof dir);
	write_text(dir, "smoke.smtop.log", "workload output\n");
	snprintf(path, sizeof path, "%s/smoke.smtop", dir);
	cr_assert_eq(library_remove_path(path, err, sizeof err), 0, "%s", err);
	cr_expect(!exists(dir, "smoke.smtop") && !exists(dir, "smoke.smtop.log"));
	cr_expect_eq(library_remove_path(path, err, sizeof err), -1);
	cr_expect(strstr(err, "no such session file"), "%s", err);
	snprintf(path, sizeof path, "%s/notes.txt", dir);
	cr_expect_eq(library_remove_path(path, err, sizeof err), -1);
	cr_expect(exists(dir, "notes.txt"));

	cr_assert_eq(library_scan(&lib, dir, NULL, err, sizeof err), 0, "%s", err);
	size_t n = lib.n;
	long i = library_find(&lib, "head-of-line.smtop");
	cr_assert_eq(library_remove(&lib, (size_t)i, err, sizeof err), 0, "%s", err);
	cr_expect_eq(lib.n, n - 1);
	cr_expect_eq(library_find(&lib, "head-of-line.smtop"), -1);
	cr_expect(!exists(dir, "head-of-line.smtop"));
	library_free(&lib);
}

Test(library, sessions_in_use_are_left_alone)
{
	char path[256], err[600], np[512];
	int ready[2], status;
	struct db_writer *w;

	db_support_temp_path(path, sizeof path, "busy.smtop");
	w = db_support_writer(path, 7, 1);
	db_writer_close(w);
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sqlite3 *db;
		sqlite3_stmt *st;

		/* a viewer: an open read connection to the WAL session */
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(db, "SELECT count(*) FROM smtop_meta", -1, &st, NULL) != SQLITE_OK)
			_exit(1);
		sqlite3_step(st);
		sqlite3_finalize(st);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char x;
	cr_assert_eq(read(ready[0], &x, 1), 1);
	cr_expect_eq(db_files_in_use(path), 1);
	cr_expect_eq(library_remove_path(path, err, sizeof err), -1);
	cr_expect(strstr(err, "in use by another process"), "%s", err);
	cr_expect_eq(library_rename_path(path, "other", np, sizeof np, err, sizeof err), -1);
	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect_eq(db_files_in_use(path), 0);
	cr_expect_eq(library_remove_path(path, err, sizeof err), 0, "%s", err);
}

/* ---- the list view ---- */

static struct library golden_lib;

static void golden_library(void)
{
	char dir[256], err[512];

	utc();
	fill_library(dir, sizeof dir);
	cr_assert_eq(library_scan(&golden_lib, dir, NULL, err, sizeof err), 0, "%s", err);
	/* the header names the directory: a fixed one keeps the screen stable */
	free(golden_lib.dir);
	golden_lib.dir = strdup("/home/me/.local/share/smtop/sessions");
}

static void draw_check(struct sessions_view *v, const char *name, int w, int h)
{
	struct canvas c;

	cr_assert_eq(canvas_init(&c, w, h), 0);
	sessions_draw(&c, v);
	char *text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	cr_expect(ui_support_golden(name, text), "screen %s differs from its golden file", name);
	free(text);
	canvas_free(&c);
}

Test(library, list_golden_wide, .init = golden_library)
{
	struct sessions_view v;

	sessions_init(&v, &golden_lib, NULL);
	sessions_handle_key(&v, 'j');
	draw_check(&v, "sessions_160x16", 160, 16);
	library_free(&golden_lib);
}

Test(library, list_golden_narrow, .init = golden_library)
{
	struct sessions_view v;

	sessions_init(&v, &golden_lib, NULL);
	v.ascii = 1;
	sessions_handle_key(&v, 'r');
	for (const char *k = "baseline"; *k; k++)
		sessions_handle_key(&v, *k);
	draw_check(&v, "sessions_rename_80x24", 80, 24);
	library_free(&golden_lib);
}

Test(library, list_keys_open_rename_delete_back, .init = golden_library)
{
	struct sessions_view v;
	char first[256];

	sessions_init(&v, &golden_lib, NULL);
	v.rows = 10;
	cr_assert_eq(v.sel, 0);
	snprintf(first, sizeof first, "%s", sessions_selected(&v)->path);

	/* rename: typed in the status line, Backspace edits, Enter renames */
	sessions_handle_key(&v, 'r');
	cr_expect_eq(v.input, SESSIONS_INPUT_RENAME);
	for (const char *k = "tuesdayy"; *k; k++)
		sessions_handle_key(&v, *k);
	sessions_handle_key(&v, APP_KEY_BACKSPACE);
	sessions_handle_key(&v, APP_KEY_ENTER);
	cr_expect_eq(v.input, SESSIONS_INPUT_NONE);
	cr_expect_str_eq(sessions_selected(&v)->name, "tuesday.smtop");
	cr_expect(strstr(v.msg, "renamed"), "%s", v.msg);
	cr_expect(access(first, F_OK) != 0 && access(sessions_selected(&v)->path, F_OK) == 0);

	/* Esc cancels a rename */
	sessions_handle_key(&v, 'r');
	sessions_handle_key(&v, 'x');
	sessions_handle_key(&v, APP_KEY_ESC);
	cr_expect_str_eq(sessions_selected(&v)->name, "tuesday.smtop");

	/* delete asks first; anything but y keeps the file */
	size_t n = golden_lib.n;
	sessions_handle_key(&v, 'd');
	cr_expect_eq(v.input, SESSIONS_INPUT_DELETE);
	sessions_handle_key(&v, 'n');
	cr_expect_eq(golden_lib.n, n);
	cr_expect_str_eq(v.msg, "not deleted");
	char path[512];
	snprintf(path, sizeof path, "%s", sessions_selected(&v)->path);
	sessions_handle_key(&v, 'd');
	sessions_handle_key(&v, 'y');
	cr_expect_eq(golden_lib.n, n - 1);
	cr_expect(access(path, F_OK) != 0, "deleted from disk");

	/* a file that is not a session does not open */
	sessions_handle_key(&v, APP_KEY_END);
	cr_expect_str_eq(sessions_selected(&v)->name, "notes.txt");
	sessions_handle_key(&v, APP_KEY_ENTER);
	cr_expect_eq(v.result, SESSIONS_STAY);
	cr_expect(strstr(v.msg, "not a SQLite database"), "%s", v.msg);

	/* a click selects the row under it */
	struct canvas c;
	cr_assert_eq(canvas_init(&c, 160, 20), 0);
	sessions_draw(&c, &v);
	canvas_free(&c);
	cr_expect_eq(sessions_handle_mouse(&v, 10, v.list_y + 1), 1);
	cr_expect_eq(v.sel, 1);
	cr_expect_eq(sessions_handle_mouse(&v, 10, v.list_y + 15), 0, "below the last row");
	cr_expect_eq(v.sel, 1);

	/* Enter opens, q goes back */
	sessions_handle_key(&v, 'k');
	sessions_handle_key(&v, APP_KEY_ENTER);
	cr_expect_eq(v.result, SESSIONS_OPEN);
	v.result = SESSIONS_STAY;
	sessions_handle_key(&v, 'q');
	cr_expect_eq(v.result, SESSIONS_BACK);
	library_free(&golden_lib);
}

Test(library, list_over_a_viewer_protects_its_session, .init = golden_library)
{
	struct sessions_view v;
	long i = library_find(&golden_lib, "smoke.smtop");

	cr_assert_geq(i, 0);
	sessions_init(&v, &golden_lib, golden_lib.e[i].path);
	cr_expect_eq(v.sel, i, "the list starts on the session being viewed");
	sessions_handle_key(&v, 'd');
	cr_expect_eq(v.input, SESSIONS_INPUT_NONE);
	cr_expect(strstr(v.msg, "open in the viewer"), "%s", v.msg);
	sessions_handle_key(&v, 'r');
	cr_expect_eq(v.input, SESSIONS_INPUT_NONE);
	sessions_handle_key(&v, APP_KEY_ENTER);
	cr_expect_eq(v.result, SESSIONS_BACK, "Enter on it goes back to it");
	library_free(&golden_lib);
}

Test(library, empty_library_screen)
{
	struct library lib = { .dir = "/home/me/.local/share/smtop/sessions", .threshold_ns = 20000 };
	struct sessions_view v;

	sessions_init(&v, &lib, NULL);
	cr_expect_null(sessions_selected(&v));
	cr_expect_eq(sessions_handle_key(&v, 'j'), 1);
	sessions_handle_key(&v, APP_KEY_ENTER);
	cr_expect_eq(v.result, SESSIONS_STAY);
	sessions_handle_key(&v, 'd');
	cr_expect_eq(v.input, SESSIONS_INPUT_NONE);
	draw_check(&v, "sessions_empty", 80, 24);
}
