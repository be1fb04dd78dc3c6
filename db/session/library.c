#include "db/session/library.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/cache.h"
#include "db/files.h"
#include "src/core/analysis.h"
#include "src/core/array.h"
#include "src/core/fmt.h"
#include "src/core/model.h"
#include "src/core/xdg.h"
#include "db/session/results_store.h"
#include "db/session/session.h"

#define LIBRARY_NAME_CMD_MAX 48

int library_dir(const char *given, char *buf, size_t len, int *missing_ok, char *err, size_t errlen)
{
	*missing_ok = !given;
	if (given) {
		snprintf(buf, len, "%s", given);
		return 0;
	}
	return library_default_dir(buf, len, err, errlen);
}

int library_default_dir(char *buf, size_t len, char *err, size_t errlen)
{
	int rc = xdg_dir("XDG_DATA_HOME", ".local/share", "smtop/sessions", buf, len);

	if (rc == -1)
		snprintf(err, errlen, "no session library: neither XDG_DATA_HOME nor HOME is set (use -o FILE)");
	else if (rc)
		snprintf(err, errlen, "the session library path is too long");
	return rc ? -1 : 0;
}

static int make_one(const char *dir, char *err, size_t errlen)
{
	struct stat sb;

	if (mkdir(dir, 0700) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	snprintf(err, errlen, "cannot create the session library %s: %s", dir,
		 errno == EEXIST ? "a file of that name is in the way" : strerror(errno));
	return -1;
}

int library_make_dir(const char *dir, char *err, size_t errlen)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
		snprintf(err, errlen, "cannot create the session library %s: path too long", dir);
		return -1;
	}
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (make_one(tmp, err, errlen) != 0) {
			/* name the library, the part that failed is in the reason */
			snprintf(err, errlen, "cannot create the session library %s: %s", dir,
				 strerror(errno == EEXIST ? ENOTDIR : errno));
			return -1;
		}
		*p = '/';
	}
	return make_one(tmp, err, errlen);
}

/* ---- names of new sessions ---- */

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

/* Appends s to out as letters, digits, '-' and '_' (runs of anything else
 * become one '_'); keep_ext 0 drops a trailing ".ext". */
static void append_safe(char *out, size_t cap, const char *s, int keep_ext)
{
	size_t n = strlen(out), end = strlen(s);
	const char *dot = strrchr(s, '.');

	if (!keep_ext && dot && dot != s)
		end = (size_t)(dot - s);
	for (size_t i = 0; i < end && n + 1 < cap; i++) {
		char ch = s[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			 (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';

		if (!ok) {
			if (n && out[n - 1] == '_')
				continue;
			ch = '_';
		}
		out[n++] = ch;
	}
	out[n] = '\0';
}

static void trim_separators(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && (s[n - 1] == '_' || s[n - 1] == '-'))
		s[--n] = '\0';
	while (s[i] == '_' || s[i] == '-')
		i++;
	memmove(s, s + i, n - i + 1);
}

void library_session_name(char *const *argv, time_t t, char *buf, size_t len)
{
	char cmd[LIBRARY_NAME_CMD_MAX + 1] = "", stamp[32];
	struct tm tm;

	if (argv && argv[0]) {
		append_safe(cmd, sizeof cmd, base_name(argv[0]), 1);
		for (char *const *a = argv + 1; *a; a++) {
			if ((*a)[0] == '-' || !(*a)[0])
				continue;
			if (cmd[0])
				append_safe(cmd, sizeof cmd, "-", 1);
			append_safe(cmd, sizeof cmd, base_name(*a), 0);
			break;
		}
	}
	trim_separators(cmd);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H-%M-%S", &tm);
	snprintf(buf, len, "%s-%s%s", stamp, cmd[0] ? cmd : "session", LIBRARY_EXT);
}

/* 1 if dir/name or one of its companions exists. */
static int name_taken(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat sb;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (lstat(p, &sb) == 0)
		return 1;
	for (const char *const *c = db_files_companions; *c; c++) {
		snprintf(p, sizeof p, "%s/%s%s", dir, name, *c);
		if (lstat(p, &sb) == 0)
			return 1;
	}
	return 0;
}

int library_new_path(const char *dir, char *const *argv, time_t t, char *buf, size_t len,
		     char *err, size_t errlen)
{
	char name[NAME_MAX + 32], base[NAME_MAX + 1];

	library_session_name(argv, t, name, sizeof name);
	snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - strlen(LIBRARY_EXT)), name);
	for (int i = 2; name_taken(dir, name); i++) {
		if (i > 9999) {
			snprintf(err, errlen, "%s: no free name for %s", dir, base);
			return -1;
		}
		snprintf(name, sizeof name, "%s-%d%s", base, i, LIBRARY_EXT);
	}
	int n = snprintf(buf, len, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -1;
	}
	return 0;
}

/* ---- summaries ---- */

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void library_summary_of(struct session *s, const struct db_summary_key *key,
			struct db_summary *out)
{
	struct analysis_totals t;

	analysis_totals(s->analysis, &t);
	memset(out, 0, sizeof *out);
	out->key = *key;
	out->key.threshold_ns = analysis_get_params(s->analysis)->blocking_threshold_ns;
	out->computed_ns = wall_ns();
	out->t_first = s->info.t_first;
	out->t_last = s->info.t_last;
	out->kernels = s->info.kernels;
	out->blocks = s->info.blocks;
	out->blocking = t.events[SMTOP_EV_BLOCKING];
	out->inversions_resident = t.events[SMTOP_EV_INVERSION_RESIDENT];
	out->inversions_dispatch = t.events[SMTOP_EV_INVERSION_DISPATCH];
	out->timeslice = t.events[SMTOP_EV_TIMESLICE];
}

/* Reads the whole file into the analysis and a model (the costly path):
 * the model is for the occupancy summary the next open draws at once. */
static int read_whole(const char *path, const struct analysis_params *p, struct session *s,
		      struct model *m, char *err, size_t errlen)
{
	if (model_init(m) != 0) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (session_open(s, path, p, err, errlen) != 0) {
		model_free(m);
		return -1;
	}
	s->model = m;
	if (session_poll(s, err, errlen) < 0) {
		session_close(s);
		model_free(m);
		return -1;
	}
	/* a session still being recorded is judged on what it holds now */
	if (!s->ended)
		analysis_update(s->analysis, ANALYSIS_WATERMARK_ALL);
	return 0;
}

static void close_whole(struct session *s, struct model *m)
{
	session_close(s);
	model_free(m);
}

/* The summary, and the results a finished session keeps, in smtop's cache
 * (never in the file read; without a cache folder the next open only
 * takes its time again). */
static int compute(const char *path, const struct analysis_params *p,
		   const struct db_summary_key *key, struct db_summary *out, char *err, size_t errlen)
{
	struct session s;
	struct model m;
	char serr[512];

	if (read_whole(path, p, &s, &m, err, errlen) != 0)
		return -1;
	library_summary_of(&s, key, out);
	results_store(&s, RESULTS_TO_CACHE, serr, sizeof serr);
	close_whole(&s, &m);
	return 0;
}

static uint64_t threshold_of(const struct analysis_params *p)
{
	struct analysis_params d;

	if (p)
		return p->blocking_threshold_ns;
	analysis_params_default(&d);
	return d.blocking_threshold_ns;
}

/* The summary kept in smtop's cache of path, when it is current for key. */
static int summary_from_cache(const char *path, const struct db_summary_key *key,
			      struct db_summary *out)
{
	char cache[PATH_MAX];
	struct db_summary c;
	if (db_cache_path(path, cache, sizeof cache) != 0 || db_summary_stored(cache, &c) != 1 ||
	    !db_summary_matches(&c, key))
		return 0;
	*out = c;
	return 1;
}

/* The summary of path given its head: the one the file or smtop's cache
 * keeps when it is current, else computed and (in smtop sessions) kept in
 * the cache, never in the file.  *cached / *stored say which. */
static int summarize_head(const char *path, const struct db_summary_head *h,
			  const struct analysis_params *p, struct db_summary *out, int *cached,
			  int *stored, char *err, size_t errlen)
{
	struct db_summary_key key = h->key;
	char cache[PATH_MAX], serr[512];

	key.threshold_ns = threshold_of(p);
	*cached = *stored = 0;
	if (h->has_stored && db_summary_matches(&h->stored, &key)) {
		*out = h->stored;
		*cached = 1;
		return 0;
	}
	if (!h->is_nsys && summary_from_cache(path, &key, out)) {
		*cached = 1;
		return 0;
	}
	if (compute(path, p, &key, out, err, errlen) != 0)
		return -1;
	/* without a cache folder the next ls only does the same work */
	if (!h->is_nsys)
		*stored = db_cache_prepare(path, cache, sizeof cache, serr, sizeof serr) == 0 &&
			  db_summary_store(cache, out, serr, sizeof serr) == 0;
	return 0;
}

int library_summarize(const char *path, const struct analysis_params *p, char *err,
		      size_t errlen)
{
	struct db_summary_head h;
	struct db_summary sum;
	int cached, stored;

	if (db_summary_read(path, &h, err, errlen) != 0 ||
	    summarize_head(path, &h, p, &sum, &cached, &stored, err, errlen) != 0)
		return -1;
	/* a finalised recording keeps its summary in the file */
	if (h.is_nsys || (h.has_stored && db_summary_matches(&h.stored, &sum.key)))
		return 0;
	return db_summary_store(path, &sum, err, errlen);
}

int library_store_session(struct session *s, char *err, size_t errlen)
{
	struct db_summary_head h;
	struct db_summary sum;

	if (db_summary_read(s->path, &h, err, errlen) != 0)
		return -1;
	if (h.is_nsys)
		return 0;
	library_summary_of(s, &h.key, &sum);
	return db_summary_store(s->path, &sum, err, errlen);
}

int library_finalize(const char *path, const struct analysis_params *p, char *err,
		     size_t errlen)
{
	struct session s;
	struct model m;

	struct db_summary_head h;
	struct db_summary sum;

	if (db_summary_read(path, &h, err, errlen) != 0 || read_whole(path, p, &s, &m, err, errlen) != 0)
		return -1;
	library_summary_of(&s, &h.key, &sum);
	int rc = results_store(&s, RESULTS_TO_SESSION, err, errlen) < 0 ? -1 : 0;
	close_whole(&s, &m);
	/* written last, once the read-only reader is closed: the last connection
	 * to close checkpoints the WAL and removes it (a reader cannot) */
	if (rc == 0 && !h.is_nsys)
		rc = db_summary_store(path, &sum, err, errlen);
	return rc;
}

/* ---- listing ---- */

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* "PATH: problem" -> "problem": the list names the file in its own column. */
static char *problem_of(const char *err, const char *path)
{
	size_t n = strlen(path);

	if (strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] == ' ')
		err += n + 2;
	return strdup(*err ? err : "unreadable");
}

void library_read_entry(struct library_entry *e, const char *dir, const char *name,
			const struct analysis_params *p)
{
	struct db_summary_head h;
	struct stat sb;
	char path[PATH_MAX], err[512];

	memset(e, 0, sizeof *e);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	e->name = strdup(name);
	e->path = strdup(path);
	if (stat(path, &sb) == 0)
		e->mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull + (uint64_t)sb.st_mtim.tv_nsec;
	if (db_summary_read(path, &h, err, sizeof err) != 0 ||
	    summarize_head(path, &h, p, &e->sum, &e->cached, &e->stored, err, sizeof err) != 0) {
		e->error = problem_of(err, path);
		return;
	}
	e->state = h.is_nsys ? LIBRARY_NSYS : !h.ended ? LIBRARY_OPEN
		 : h.ended_clean ? LIBRARY_COMPLETE : LIBRARY_INCOMPLETE;
	e->created_ns = h.created_ns;
	e->command = dup_or_null(h.command);
	e->gpu = dup_or_null(h.gpu);
	e->n_gpus = h.n_gpus;
}

void library_entry_free(struct library_entry *e)
{
	free(e->name);
	free(e->path);
	free(e->error);
	free(e->command);
	free(e->gpu);
	memset(e, 0, sizeof *e);
}

void library_free(struct library *lib)
{
	for (size_t i = 0; i < lib->n; i++)
		library_entry_free(&lib->e[i]);
	free(lib->e);
	free(lib->dir);
	memset(lib, 0, sizeof *lib);
}

static uint64_t sort_time(const struct library_entry *e)
{
	return e->created_ns ? e->created_ns : e->mtime_ns;
}

/* Sessions newest first, then the files that are not sessions. */
static int newest_first(const void *x, const void *y)
{
	const struct library_entry *a = x, *b = y;
	uint64_t ta = sort_time(a), tb = sort_time(b);

	if (!a->error != !b->error)
		return a->error ? 1 : -1;
	if (ta != tb)
		return ta < tb ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* Companions are listed with their session, not on their own; one whose
 * session is gone is listed (it is a stray file). */
static int is_listed(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat sb;

	if (name[0] == '.')
		return 0;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	if (!db_files_is_companion(name))
		return 1;
	for (const char *const *c = db_files_companions; *c; c++) {
		size_t n = strlen(name), k = strlen(*c);

		if (n > k && strcmp(name + n - k, *c) == 0) {
			snprintf(p, sizeof p, "%s/%.*s", dir, (int)(n - k), name);
			if (stat(p, &sb) == 0)
				return 0;
		}
	}
	return 1;
}

static int add_entry(struct library *lib, size_t *cap, const char *name,
		     const struct analysis_params *p)
{
	if (array_grow((void **)&lib->e, cap, lib->n + 1, sizeof *lib->e))
		return -1;
	library_read_entry(&lib->e[lib->n], lib->dir, name, p);
	if (!lib->e[lib->n].name || !lib->e[lib->n].path) {
		library_entry_free(&lib->e[lib->n]);
		return -1;
	}
	lib->n++;
	return 0;
}

int library_scan(struct library *lib, const char *dir, const struct analysis_params *p,
		 char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	size_t cap = 0;

	memset(lib, 0, sizeof *lib);
	lib->threshold_ns = threshold_of(p);
	if (!(d = opendir(dir))) {
		snprintf(err, errlen, "%s: cannot read the session library: %s", dir, strerror(errno));
		return -1;
	}
	if (!(lib->dir = strdup(dir))) {
		closedir(d);
		snprintf(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!is_listed(dir, de->d_name))
			continue;
		if (add_entry(lib, &cap, de->d_name, p) != 0) {
			closedir(d);
			library_free(lib);
			snprintf(err, errlen, "%s: out of memory", dir);
			return -1;
		}
	}
	closedir(d);
	if (lib->n)
		qsort(lib->e, lib->n, sizeof *lib->e, newest_first);
	return 0;
}

long library_find(const struct library *lib, const char *name)
{
	for (size_t i = 0; i < lib->n; i++)
		if (strcmp(lib->e[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* ---- rename and remove ---- */

int library_resolve(const char *arg, char *buf, size_t len)
{
	char dir[PATH_MAX], err[256], cand[PATH_MAX + NAME_MAX + 8];
	struct stat sb;

	snprintf(buf, len, "%s", arg);
	if (strchr(arg, '/') || library_default_dir(dir, sizeof dir, err, sizeof err) != 0)
		return 0;
	snprintf(cand, sizeof cand, "%s/%s", dir, arg);
	if (lstat(cand, &sb) != 0)
		snprintf(cand, sizeof cand, "%s/%s%s", dir, arg, LIBRARY_EXT);
	if (lstat(cand, &sb) == 0)
		snprintf(buf, len, "%s", cand);
	return 0;
}

static int has_ext(const char *name)
{
	size_t n = strlen(name), k = strlen(LIBRARY_EXT);

	return n > k && strcmp(name + n - k, LIBRARY_EXT) == 0;
}

/* Sessions (and files named like one, damaged or not) may be renamed or
 * removed; anything else in the directory is left to the user's own tools. */
static int check_session(const char *path, char *err, size_t errlen)
{
	struct db_summary_head h;
	struct stat sb;
	char why[512];

	if (lstat(path, &sb) != 0) {
		snprintf(err, errlen, "%s: %s", path,
			 errno == ENOENT ? "no such session file" : strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a session file", path);
		return -1;
	}
	if (!has_ext(base_name(path)) && db_summary_read(path, &h, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: not a smtop session, left alone", path);
		return -1;
	}
	if (db_files_in_use(path)) {
		snprintf(err, errlen, "%s: in use by another process (recording or viewing it)", path);
		return -1;
	}
	return 0;
}

static int check_new_name(const char *name, char *err, size_t errlen)
{
	const char *why = NULL;

	if (!name[0])
		why = "is empty";
	else if (strchr(name, '/'))
		why = "holds a '/' (sessions are renamed within their directory)";
	else if (name[0] == '.')
		why = "starts with '.'";
	else if (strlen(name) + strlen(LIBRARY_EXT) > NAME_MAX)
		why = "is too long";
	for (const char *c = name; !why && *c; c++)
		if ((unsigned char)*c < 32 || *c == 127)
			why = "holds a control character";
	if (why)
		snprintf(err, errlen, "new name \"%s\" %s", name, why);
	return why ? -1 : 0;
}

int library_rename_path(const char *path, const char *new_name, char *new_path, size_t len,
			char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int n;

	if (check_new_name(new_name, err, errlen) != 0 || check_session(path, err, errlen) != 0)
		return -1;
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	n = snprintf(new_path, len, "%s%s%s%s", slash ? dir : "", slash ? "/" : "", new_name,
		     has_ext(new_name) ? "" : LIBRARY_EXT);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "%s: path too long", new_name);
		return -1;
	}
	if (strcmp(new_path, path) == 0)
		return 0;
	return db_files_rename(path, new_path, err, errlen);
}

int library_remove_path(const char *path, char *err, size_t errlen)
{
	if (check_session(path, err, errlen) != 0)
		return -1;
	return db_files_remove(path, err, errlen);
}

int library_rename(struct library *lib, size_t i, const char *new_name, char *err, size_t errlen)
{
	char np[PATH_MAX];
	struct library_entry *e;

	if (i >= lib->n)
		return -1;
	e = &lib->e[i];
	if (library_rename_path(e->path, new_name, np, sizeof np, err, errlen) != 0)
		return -1;
	char *path = strdup(np), *name = strdup(base_name(np));
	if (!path || !name) {
		free(path);
		free(name);
		snprintf(err, errlen, "%s: out of memory", np);
		return -1;
	}
	free(e->path);
	free(e->name);
	e->path = path;
	e->name = name;
	return 0;
}

int library_remove(struct library *lib, size_t i, char *err, size_t errlen)
{
	if (i >= lib->n || library_remove_path(lib->e[i].path, err, errlen) != 0)
		return -1;
	library_entry_free(&lib->e[i]);
	memmove(&lib->e[i], &lib->e[i + 1], (lib->n - i - 1) * sizeof *lib->e);
	lib->n--;
	return 0;
}

/* ---- rows ---- */

static void fmt_span(char *buf, size_t len, uint64_t t0, uint64_t t1)
{
	fmt_duration(buf, len, t1 - t0, t0 && t1 >= t0);
}

/* The command from its program's base name on: the row has little room
 * ("smtop-demo head-of-line", not "/opt/smtop/bin/smtop-demo head-of-line"). */
static const char *program_onward(const char *cmd)
{
	const char *end = strpbrk(cmd, " \t'\""), *slash = NULL;

	for (const char *c = cmd; *c && (!end || c < end); c++)
		if (*c == '/')
			slash = c;
	return slash && slash[1] ? slash + 1 : cmd;
}

/* "NAME +N" for N more GPUs; the "+N" must stay in the column, so a name
 * too long for both loses its vendor ("H200 +1"). */
static void gpu_with_count(char *out, size_t len, const char *name, int n_gpus)
{
	char more[16];
	int n = snprintf(more, sizeof more, " +%d", n_gpus - 1);
	if ((int)strlen(name) + n > LIBRARY_W_GPU && strncmp(name, "NVIDIA ", 7) == 0)
		name += 7;
	snprintf(out, len, "%s%s", name, more);
}

void library_row(const struct library_entry *e, struct library_row *r)
{
	memset(r, 0, sizeof *r);
	r->file = e->name;
	if (e->error) {
		r->stray = 1;
		snprintf(r->date, sizeof r->date, "-");
		snprintf(r->command, sizeof r->command, "(%s)", e->error);
		return;
	}
	if (e->created_ns) {
		time_t s = (time_t)(e->created_ns / 1000000000ull);
		struct tm tm;

		localtime_r(&s, &tm);
		strftime(r->date, sizeof r->date, "%Y-%m-%d %H:%M:%S", &tm);
	} else {
		snprintf(r->date, sizeof r->date, "N/A");
	}
	snprintf(r->command, sizeof r->command, "%s%s", e->command ? program_onward(e->command) : "N/A",
		 e->state == LIBRARY_NSYS ? " (nsys export)" : e->state == LIBRARY_OPEN ?
		 " (recording)" : e->state == LIBRARY_INCOMPLETE ? " (incomplete)" : "");
	if (e->state == LIBRARY_NSYS && !e->command)
		snprintf(r->command, sizeof r->command, "(nsys export)");
	if (e->n_gpus > 1)
		gpu_with_count(r->gpu, sizeof r->gpu, e->gpu ? e->gpu : "N/A", e->n_gpus);
	else
		snprintf(r->gpu, sizeof r->gpu, "%s", e->gpu ? e->gpu : "N/A");
	fmt_span(r->duration, sizeof r->duration, e->sum.t_first, e->sum.t_last);
	fmt_count(r->kernels, sizeof r->kernels, e->sum.kernels);
	fmt_count(r->blocks, sizeof r->blocks, e->sum.blocks);
	fmt_count(r->inversions, sizeof r->inversions,
		  e->sum.inversions_resident + e->sum.inversions_dispatch);
}

/* Bytes of the first w code points of s (UTF-8); *cols gets their count. */
static size_t utf8_prefix(const char *s, int w, int *cols)
{
	size_t i = 0;
	int c = 0;

	while (s[i] && c < w) {
		i++;
		while ((s[i] & 0xc0) == 0x80)
			i++;
		c++;
	}
	*cols = c;
	return i;
}

/* Appends s padded or cut to w columns (right-aligned when right). */
static size_t put_col(char *buf, size_t len, size_t at, const char *s, int w, int right)
{
	int cols;
	size_t n = utf8_prefix(s, w, &cols);
	int pad = w - cols;

	if (at >= len)
		return at;
	int k = snprintf(buf + at, len - at, "%*s%.*s%*s", right ? pad : 0, "", (int)n, s,
			 right ? 0 : pad, "");
	return k < 0 ? at : at + (size_t)k >= len ? len - 1 : at + (size_t)k;
}

int library_line_width(int cmd_w, int file_w, unsigned hide)
{
	int w = LIBRARY_W_DATE + 2 + cmd_w + 2 + LIBRARY_W_DURATION + LIBRARY_W_KERNELS + 1 +
		LIBRARY_W_BLOCKS + 1 + LIBRARY_W_INVERSIONS + 1;

	if (!(hide & LIBRARY_HIDE_GPU))
		w += LIBRARY_GPU_W;
	if (!(hide & LIBRARY_HIDE_FILE))
		w += 2 + file_w;
	return w;
}

char *library_format_line(const struct library_row *r, int cmd_w, int file_w, unsigned hide,
			  char *buf, size_t len)
{
	static const struct library_row title = {
		"DATE", "COMMAND", "GPU", "DURATION", "KERNELS", "BLOCKS", "INVERSIONS", "FILE", 0,
	};
	size_t at = 0;

	if (!r)
		r = &title;
	buf[0] = '\0';
	at = put_col(buf, len, at, r->date, LIBRARY_W_DATE, 0);
	at = put_col(buf, len, at, "", 2, 0);
	if (r->stray) {
		/* the error takes the columns a session's numbers would */
		int span = library_line_width(cmd_w, 0, hide | LIBRARY_HIDE_FILE) - LIBRARY_W_DATE - 2;
		at = put_col(buf, len, at, r->command, span, 0);
		goto file;
	}
	at = put_col(buf, len, at, r->command, cmd_w, 0);
	at = put_col(buf, len, at, "", 2, 0);
	if (!(hide & LIBRARY_HIDE_GPU)) {
		at = put_col(buf, len, at, r->gpu, LIBRARY_W_GPU, 0);
		at = put_col(buf, len, at, "", 2, 0);
	}
	/* numbers right-aligned under their titles */
	at = put_col(buf, len, at, r->duration, LIBRARY_W_DURATION, 1);
	at = put_col(buf, len, at, r->kernels, LIBRARY_W_KERNELS + 1, 1);
	at = put_col(buf, len, at, r->blocks, LIBRARY_W_BLOCKS + 1, 1);
	at = put_col(buf, len, at, r->inversions, LIBRARY_W_INVERSIONS + 1, 1);
file:
	if (!(hide & LIBRARY_HIDE_FILE)) {
		at = put_col(buf, len, at, "", 2, 0);
		at = put_col(buf, len, at, r->file ? r->file : "", file_w, 0);
	}
	while (at && buf[at - 1] == ' ')
		buf[--at] = '\0';
	return buf;
}
