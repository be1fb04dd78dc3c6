/* Faults, in process: session files recorded on the H200, damaged and cut
 * short, go through everything `smtop open` does with a file (reader,
 * loader, analysis, model, a frame, a detail fetch); writers die in the middle
 * of a transaction or run into a file-size limit; recordings lose their
 * recorder.  Nothing may crash, every error is one line naming the file, and
 * whatever was committed before a fault is still there after it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/procid.h"
#include "db/reader.h"
#include "db/writer.h"
#include "src/core/analysis.h"
#include "src/core/model.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"

#define T0 1764480000000000000ull
#define FX "tests/fixtures/"

static void assert_one_line(const char *err, const char *path)
{
	const char *at = strstr(err, path);

	cr_assert(err[0] != '\0', "an error says what went wrong");
	cr_assert_null(strchr(err, '\n'), "one line: %s", err);
	cr_assert_not_null(at, "names the file: %s", err);
	cr_assert_null(strstr(at + strlen(path), path), "names it once: %s", err);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	cr_assert(in && out, "copy %s", from);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

static long file_size(const char *path)
{
	struct stat sb;

	cr_assert_eq(stat(path, &sb), 0, "%s", path);
	return (long)sb.st_size;
}

static void overwrite(const char *path, long off, const void *bytes, size_t n)
{
	FILE *f = fopen(path, "r+b");

	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, off, SEEK_SET), 0);
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static int detail_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	(void)ctx;
	return model_detail_add_block(ud, b, pid) == 0 ? 0 : 1;
}

/* Everything `smtop open` does with a file, without a terminal: open, load
 * into the analysis and the model, a first frame at the whole session, then
 * a zoomed-in frame with its detail fetched from the file.  Returns 0 when
 * the file loaded, -1 with one line in err when it was refused. */
static int load_like_the_viewer(const char *path, char *err, size_t errlen)
{
	struct analysis_params p;
	struct session s;
	struct model m;
	struct canvas c;
	struct app a;
	int rc = -1;

	analysis_params_default(&p);
	if (session_open(&s, path, &p, err, errlen) != 0)
		return -1;
	cr_assert_eq(model_init(&m), 0);
	s.model = &m;
	if (session_poll(&s, err, errlen) < 0)
		goto out;
	cr_assert_eq(canvas_init(&c, 160, 50), 0);
	app_init(&a, &m);
	screen_layout(&a, &m, c.w, c.h);
	app_fit(&a);
	screen_draw(&c, &a, &m);
	for (int i = 0; i < 12; i++)
		app_handle_key(&a, '+');
	if (model_wants_detail(&m, a.t0, app_t1(&a), a.col_ns)) {
		model_detail_begin(&m, a.t0, app_t1(&a));
		/* a damaged chunk fails the fetch; the viewer says so in its status line */
		if (db_reader_blocks(s.reader, a.t0, app_t1(&a), detail_block, &m) != 0)
			assert_one_line(db_reader_error(s.reader), path);
		model_detail_end(&m);
	}
	screen_draw(&c, &a, &m);
	canvas_free(&c);
	rc = 0;
out:
	model_free(&m);
	session_close(&s);
	return rc;
}

/* `smtop info` and `smtop report` read the same way; a refusal is one line. */
static void expect_no_crash(const char *path)
{
	char err[512] = "";
	struct db_reader *r;
	struct db_session_info info;

	if (db_reader_open(&r, path, err, sizeof err) != 0) {
		assert_one_line(err, path);
	} else {
		if (db_reader_info(r, &info) != 0)
			assert_one_line(db_reader_error(r), path);
		db_reader_close(r);
	}
	err[0] = '\0';
	if (load_like_the_viewer(path, err, sizeof err) != 0)
		assert_one_line(err, path);
}

/* ---- damaged copies of real sessions ---- */

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static const char *const damage_fixtures[] = { FX "smoke.smtop", FX "head-of-line.smtop",
						FX "equal-priority.smtop" };

/* Seeds of random damage: 1 to 8 spots of 1 to 64 random bytes, a quarter of
 * them in the first page (the schema), the rest anywhere. */
ParameterizedTestParameters(faults, random_damage)
{
	static int seeds[48];

	for (int i = 0; i < 48; i++)
		seeds[i] = i + 1;
	return cr_make_param_array(int, seeds, 48);
}

ParameterizedTest(int *seed, faults, random_damage, .timeout = 60)
{
	char path[256];
	uint64_t s = (uint64_t)*seed;
	const char *fx = damage_fixtures[*seed % 3];
	long size;
	int spots;

	db_support_temp_path(path, sizeof path, "damaged.smtop");
	copy_file(fx, path);
	size = file_size(path);
	spots = 1 + (int)(rnd(&s) % 8);
	for (int i = 0; i < spots; i++) {
		unsigned char noise[64];
		size_t n = 1 + rnd(&s) % sizeof noise;
		long off = (long)(rnd(&s) % (uint64_t)(rnd(&s) % 4 ? size : 65536)) - (long)n;

		for (size_t j = 0; j < n; j++)
			noise[j] = (unsigned char)rnd(&s);
		overwrite(path, off < 0 ? 0 : off, noise, n);
	}
	cr_log_info("seed %d: %d spots in a copy of %s", *seed, spots, fx);
	expect_no_crash(path);
}

/* Criterion copies parameters into another process: no pointers in them. */
struct header_case {
	long off;
	unsigned char bytes[4];
	size_t n;
	char says[48];              /* part of the expected error, "": may load */
};

/* The SQLite header (https://sqlite.org/fileformat.html) and smtop's marks in it. */
ParameterizedTestParameters(faults, damaged_header)
{
	static struct header_case cases[] = {
		{ 0, { 'X', 'Q', 'L', 'x' }, 4, "not a SQLite database" },     /* magic */
		{ 16, { 0x00, 0x03 }, 2, "not a SQLite database" },              /* page size 3 */
		{ 18, { 9, 9 }, 2, "" },                                         /* file format versions */
		{ 28, { 0x7f, 0xff, 0xff, 0xff }, 4, "" },                       /* page count */
		{ 44, { 0, 0, 0, 9 }, 4, "" },                                   /* schema format 9 */
		{ 56, { 0, 0, 0, 7 }, 4, "" },                                   /* text encoding 7 */
		{ 60, { 0, 0, 0, 2 }, 4, "newer than this smtop" },              /* user_version 2 */
		{ 68, { 'n', 'o', 'p', 'e' }, 4, "not a smtop session" },        /* application_id */
		{ 100, { 0x0d, 0xff, 0xff, 0xff }, 4, "" },                      /* first page's b-tree */
	};
	return cr_make_param_array(struct header_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct header_case *c, faults, damaged_header)
{
	char path[256], err[512] = "";
	struct db_reader *r;

	db_support_temp_path(path, sizeof path, "header.smtop");
	copy_file(FX "smoke.smtop", path);
	overwrite(path, c->off, c->bytes, c->n);
	expect_no_crash(path);
	if (c->says[0]) {
		cr_assert_neq(db_reader_open(&r, path, err, sizeof err), 0, "refused");
		assert_one_line(err, path);
		cr_assert_not_null(strstr(err, c->says), "%s", err);
	}
}

/* ---- cut short ---- */

ParameterizedTestParameters(faults, truncated)
{
	/* bytes kept: inside the header, around the first page (64 KiB pages),
	 * and fractions of the file (negative: per mille of its size) */
	static long keep[] = { 1, 50, 99, 100, 101, 4096, 65535, 65536, 65537, 131072,
			       -100, -333, -500, -900, -999 };
	return cr_make_param_array(long, keep, sizeof keep / sizeof keep[0]);
}

ParameterizedTest(long *keep, faults, truncated, .timeout = 60)
{
	char path[256], err[512] = "";
	struct db_reader *r;
	long size, cut;

	db_support_temp_path(path, sizeof path, "cut.smtop");
	copy_file(FX "head-of-line.smtop", path);
	size = file_size(path);
	cut = *keep > 0 ? *keep : size * -*keep / 1000;
	cr_assert_eq(truncate(path, cut), 0);
	expect_no_crash(path);
	/* a cut file is refused at open, whatever page it ends in */
	cr_assert_neq(db_reader_open(&r, path, err, sizeof err), 0, "cut at %ld of %ld", cut, size);
	assert_one_line(err, path);
}

/* ---- foreign files ---- */

struct foreign_case {
	char name[24];
	int is_text;                /* 1: content is written as is; 0: run as SQL */
	char content[160];
	char says[48];
};

ParameterizedTestParameters(faults, foreign)
{
	static struct foreign_case cases[] = {
		{ "empty.smtop", 1, "", "empty file" },
		{ "notes.txt", 1, "kernel,start,end\nconv,1,2\n", "not a SQLite database" },
		{ "short.smtop", 1, "SQLite format 3", "not a SQLite database" },
		{ "places.sqlite", 0, "CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT);"
		  "INSERT INTO moz_places(url) VALUES('https://example.org');", "not a smtop session" },
		{ "wal.db", 0, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1);",
		  "not a smtop session" },
		{ "empty.db", 0, "PRAGMA user_version=0;", "not a smtop session" },
		{ "marked.smtop", 0, "PRAGMA application_id=1936553072; CREATE TABLE other(x);",
		  "not a smtop session" },
	};
	return cr_make_param_array(struct foreign_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct foreign_case *c, faults, foreign)
{
	char path[256], err[512] = "";
	struct db_reader *r;
	struct db_writer *w;
	struct db_writer_options o = { .pid = 9 };

	db_support_temp_path(path, sizeof path, c->name);
	if (c->is_text) {
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f);
		fputs(c->content, f);
		fclose(f);
	} else {
		sqlite3 *db;

		cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
		cr_assert_eq(sqlite3_exec(db, c->content, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
	}
	expect_no_crash(path);
	cr_assert_neq(db_reader_open(&r, path, err, sizeof err), 0);
	assert_one_line(err, path);
	cr_assert_not_null(strstr(err, c->says), "%s", err);
	/* a collector told to join it refuses too, and leaves it as it was */
	long before = file_size(path);
	o.path = path;
	err[0] = '\0';
	cr_assert_neq(db_writer_open(&w, &o, err, sizeof err), 0);
	assert_one_line(err, path);
	cr_assert_eq(file_size(path), before);
}

/* ---- a writer killed in the middle of its work ---- */

static struct smtop_record batch_kernel(uint32_t pid, uint64_t i)
{
	return db_support_kernel(pid, 13 + (uint32_t)(i % 2), T0 + i * 100000,
				 T0 + i * 100000 + 90000, i + 1, "_Z9victim_kPf");
}

/* Commits batches of 50 kernels and 13,200 blocks and writes the running
 * kernel count to fd after each commit, until killed. */
static void write_until_killed(const char *path, int fd)
{
	struct db_writer *w = db_support_writer(path, 77, 0);
	static struct smtop_block b[13200];
	uint64_t seed = 5, done = 0;

	for (;;) {
		struct smtop_record recs[51];

		for (int i = 0; i < 50; i++)
			recs[i] = batch_kernel(77, done + (uint64_t)i);
		db_support_synthetic_blocks(b, 13200, T0 + done * 100000, 132, &seed);
		recs[50] = db_support_blocks(77, 1, b, 13200);
		if (db_writer_write(w, recs, 51) != 0)
			_exit(3);
		done += 50;
		if (write(fd, &done, sizeof done) != sizeof done)
			_exit(4);
	}
}

ParameterizedTestParameters(faults, writer_killed)
{
	static int delay_ms[] = { 5, 30, 120, 400 };
	return cr_make_param_array(int, delay_ms, 4);
}

ParameterizedTest(int *delay_ms, faults, writer_killed, .timeout = 60)
{
	char path[256], err[512] = "";
	struct db_reader *r;
	struct db_session_info info;
	struct db_writer *w;
	uint64_t committed = 0, v;
	int fds[2], status;
	pid_t pid;

	db_support_temp_path(path, sizeof path, "killed.smtop");
	db_writer_close(db_support_writer(path, 1, 1));
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		write_until_killed(path, fds[1]);
	}
	close(fds[1]);
	usleep((useconds_t)*delay_ms * 1000);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "killed, status %d", status);
	while (read(fds[0], &v, sizeof v) == sizeof v)
		committed = v;
	close(fds[0]);
	/* the file opens, with every commit the writer saw succeed */
	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_geq(info.kernels, committed, "%llu kernels, %llu committed",
		      (unsigned long long)info.kernels, (unsigned long long)committed);
	cr_assert_eq(info.kernels % 50, 0, "no half batch: %llu", (unsigned long long)info.kernels);
	db_reader_close(r);
	/* and smtop record can still finalise it */
	struct db_writer_options o = { .path = path };
	cr_assert_eq(db_writer_open(&w, &o, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_writer_finish_session(w, 0, "killed by signal 9 (Killed)"), 0, "%s",
		     db_writer_error(w));
	db_writer_close(w);
	expect_no_crash(path);
}

/* ---- the disk fills up ---- */

#define FILL_LIMIT (3 << 20)

/* Child: the collector's ring and writer thread under a file-size limit, its
 * stderr into fd.  Pushes batches until the writer thread reports a full
 * disk; writes the kernel count read back before the fault to count_fd.
 * With die_after, it is killed (nothing checkpoints) once the disk is full. */
static void fill_through_the_collector(const char *path, int count_fd, int die_after)
{
	struct rlimit rl = { FILL_LIMIT, FILL_LIMIT };
	struct db_writer *w = db_support_writer(path, 88, 0);
	struct ring *q = ring_create(1024);
	struct writer_thread_options o = { .writer = w, .ring = q, .path = path, .period_ms = 5 };
	static struct smtop_block b[20000];
	uint64_t seed = 9, pushed = 0, before = 0;

	setrlimit(RLIMIT_FSIZE, &rl);
	if (writer_thread_start(&o) != 0)
		_exit(5);
	while (!writer_thread_disk_full() && pushed < 100000) {
		struct smtop_record recs[21];
		struct db_reader *r;
		struct db_session_info info;
		char err[512];

		for (int i = 0; i < 20; i++)
			recs[i] = batch_kernel(88, pushed + (uint64_t)i);
		db_support_synthetic_blocks(b, 20000, T0 + pushed * 100000, 132, &seed);
		for (int j = 0; j < 20000; j++)
			b[j].grid_id = db_support_rand(&seed); /* defeat packing */
		recs[20] = db_support_blocks(88, 1, b, 20000);
		ring_push_many(q, recs, 21);
		pushed += 20;
		while (ring_count(q))
			usleep(1000);
		usleep(30000);
		if (writer_thread_disk_full() || db_reader_open(&r, path, err, sizeof err) != 0)
			continue;
		if (db_reader_info(r, &info) == 0)
			before = info.kernels;
		db_reader_close(r);
	}
	if (write(count_fd, &before, sizeof before) != sizeof before)
		_exit(6);
	if (die_after)
		raise(SIGKILL);
	writer_thread_finish(w);
	_exit(writer_thread_disk_full() ? 0 : 7);
}

struct fill_result {
	uint64_t before;
	char err[1024];
	int status;
};

static void run_fill(const char *path, int die_after, struct fill_result *res)
{
	int cfd[2], efd[2];
	pid_t pid;
	ssize_t n;
	size_t got = 0;

	cr_assert_eq(pipe(cfd), 0);
	cr_assert_eq(pipe(efd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(cfd[0]);
		close(efd[0]);
		dup2(efd[1], STDERR_FILENO);
		fill_through_the_collector(path, cfd[1], die_after);
	}
	close(cfd[1]);
	close(efd[1]);
	memset(res, 0, sizeof *res);
	while ((n = read(efd[0], res->err + got, sizeof res->err - 1 - got)) > 0)
		got += (size_t)n;
	cr_assert_eq(read(cfd[0], &res->before, sizeof res->before), (ssize_t)sizeof res->before);
	close(cfd[0]);
	close(efd[0]);
	cr_assert_eq(waitpid(pid, &res->status, 0), pid);
}

static void check_after_fill(const char *path, const struct fill_result *res, const char *reason)
{
	char err[512];
	struct db_reader *r;
	struct db_session_info info;

	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(r, &info), 0);
	cr_assert_geq(info.kernels, res->before, "nothing stored before the fault is lost");
	cr_assert_gt(res->before, 0, "some batches fitted");
	for (size_t i = 0; i < info.n_processes; i++)
		if (info.processes[i].pid == 88)
			cr_assert_str_eq(info.processes[i].reason ? info.processes[i].reason : "", reason);
	db_reader_close(r);
}

Test(faults, disk_full_in_the_collector, .timeout = 60)
{
	char path[256], line[600];
	struct fill_result res;

	db_support_temp_path(path, sizeof path, "full.smtop");
	db_writer_close(db_support_writer(path, 1, 1));
	run_fill(path, 0, &res);
	cr_assert(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0,
		  "the workload lives on: status %d, stderr %s", res.status, res.err);
	snprintf(line, sizeof line, "smtop: %s: disk full, recording stopped\n", path);
	cr_assert_str_eq(res.err, line, "exactly one line naming the file");
	check_after_fill(path, &res, "disk full, recording stopped");
}

/* The workload died with the WAL at the limit: smtop record's finalisation
 * must still fit (it checkpoints first) and must not be killed by SIGXFSZ. */
Test(faults, finalise_after_the_disk_filled, .timeout = 60)
{
	char path[256], err[512];
	struct fill_result res;
	struct rlimit rl = { FILL_LIMIT, FILL_LIMIT };
	struct db_reader *r;
	struct db_session_info info;
	int status;
	pid_t pid;

	db_support_temp_path(path, sizeof path, "full.smtop");
	db_writer_close(db_support_writer(path, 1, 1));
	run_fill(path, 1, &res);
	cr_assert(WIFSIGNALED(res.status), "status %d", res.status);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct db_writer *w;
		struct db_writer_options o = { .path = path };

		signal(SIGXFSZ, SIG_IGN); /* as smtop does */
		setrlimit(RLIMIT_FSIZE, &rl);
		if (db_writer_open(&w, &o, err, sizeof err) != 0)
			_exit(2);
		_exit(db_writer_finish_session(w, 0, "killed by signal 9 (Killed)") == 0 ? 0 : 3);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	/* Whether the end still fits depends on where the fill stopped: when
	 * both the file and its WAL sit at the limit, nothing more can be
	 * written, and the finaliser must say so instead of dying. */
	cr_assert(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3),
		  "finalised or refused cleanly: status %d", status);
	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(r, &info), 0);
	if (WEXITSTATUS(status) == 0) {
		cr_assert_eq(info.ended, 1);
		cr_assert_str_eq(info.end_reason, "killed by signal 9 (Killed)");
	}
	cr_assert_geq(info.kernels, res.before, "nothing stored before the fault is lost");
	db_reader_close(r);
}

/* ---- a recording whose recorder died ---- */

/* The child creates the session as smtop record does (so it is the
 * recorder), says so on ready, then waits on hold before it exits without
 * finalising. */
static pid_t start_recorder(const char *path, int *hold)
{
	int ready[2], wait_fds[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(wait_fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		db_writer_close(db_support_writer(path, 0, 1));
		if (write(ready[1], "r", 1) != 1 || read(wait_fds[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(wait_fds[0]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the recorder created the session");
	close(ready[0]);
	*hold = wait_fds[1];
	return pid;
}

static struct db_session_info read_info(const char *path, struct db_reader **r)
{
	char err[512];
	struct db_session_info info;

	cr_assert_eq(db_reader_open(r, path, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(*r, &info), 0);
	return info;
}

Test(faults, recorder_killed)
{
	char path[256];
	struct db_reader *r;
	struct db_session_info info;
	struct db_writer *w;
	int hold;
	pid_t pid;

	db_support_temp_path(path, sizeof path, "orphan.smtop");
	pid = start_recorder(path, &hold);
	w = db_support_writer(path, (uint32_t)getpid(), 0);
	struct smtop_record k = batch_kernel((uint32_t)getpid(), 0);
	cr_assert_eq(db_writer_write(w, &k, 1), 0);
	info = read_info(path, &r);
	cr_assert_eq(info.ended, 0, "recording");
	cr_assert_eq(info.abandoned, 0);
	db_reader_close(r);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(hold);
	/* a process of the session still runs (this one, marked running) */
	info = read_info(path, &r);
	cr_assert_eq(info.ended, 0, "its workload still writes");
	db_reader_close(r);

	/* once no process of it runs, nothing more comes: ended, incomplete */
	cr_assert_eq(db_writer_set_process_status(w, "exited", NULL), 0);
	db_writer_close(w);
	info = read_info(path, &r);
	cr_assert_eq(info.abandoned, 1);
	cr_assert_eq(info.ended, 1);
	cr_assert_eq(info.ended_clean, 0);
	cr_assert_str_eq(info.end_reason, "the recorder stopped before finalising the session");
	cr_assert_eq(info.kernels, 1, "its records are kept");
	db_reader_close(r);
}

Test(faults, procid_tells_processes_apart)
{
	struct db_procid self, back, other;
	char text[128];

	cr_assert_eq(db_procid_self(&self), 0);
	cr_assert_eq(db_procid_alive(&self), 1);
	db_procid_format(&self, text, sizeof text);
	cr_assert_eq(db_procid_parse(text, &back), 0);
	cr_assert_eq(back.pid, self.pid);
	cr_assert_eq(back.start, self.start);
	cr_assert_str_eq(back.boot, self.boot);
	other = self;
	other.start++;
	cr_assert_eq(db_procid_alive(&other), 0, "same pid, started later: another process");
	other = self;
	other.boot[0] = other.boot[0] == 'x' ? 'y' : 'x';
	cr_assert_eq(db_procid_alive(&other), 0, "another boot");
	cr_assert_neq(db_procid_parse("12 x", &back), 0);
	cr_assert_neq(db_procid_parse(NULL, &back), 0);
}
