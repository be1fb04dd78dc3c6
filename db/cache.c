#include "db/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/schema.h"
#include "src/core/analysis.h"
#include "src/core/xdg.h"

int db_cache_dir(char *buf, size_t len)
{
	return xdg_dir("XDG_CACHE_HOME", ".cache", "smtop", buf, len) == 0 ? 0 : -1;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 1099511628211ull;
	return h;
}

/* The program reading: a cache made by another build of smtop is not
 * believed, since a change to what it computes need not have raised
 * ANALYSIS_VERSION.  Zeros when it cannot be stat'ed. */
static void program_identity(uint64_t id[3])
{
	struct stat sb;

	id[0] = id[1] = id[2] = 0;
	if (stat("/proc/self/exe", &sb) != 0)
		return;
	id[0] = (uint64_t)sb.st_size;
	id[1] = (uint64_t)sb.st_mtim.tv_sec;
	id[2] = (uint64_t)sb.st_mtim.tv_nsec;
}

int db_cache_path(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX];
	struct stat sb;
	uint64_t prog[3];
	if (db_cache_dir(dir, sizeof dir) != 0 || stat(path, &sb) != 0)
		return -1;
	program_identity(prog);
	uint64_t h = 1469598103934665603ull;
	const uint64_t id[] = { (uint64_t)sb.st_dev, (uint64_t)sb.st_ino, (uint64_t)sb.st_size,
				(uint64_t)sb.st_mtim.tv_sec, (uint64_t)sb.st_mtim.tv_nsec,
				(uint64_t)ANALYSIS_VERSION, prog[0], prog[1], prog[2] };
	for (size_t i = 0; i < sizeof id / sizeof id[0]; i++)
		h = fnv(h, id[i]);
	int n = snprintf(out, len, "%s/%016llx.smtop-cache", dir, (unsigned long long)h);
	if (n < 0 || (size_t)n >= len)
		return -1;
	if (access(out, F_OK) != 0)
		return 1;
	/* in use: its age counts from now (db_cache_prune) */
	utimensat(AT_FDCWD, out, NULL, 0);
	return 0;
}

/* Whether name is one of the cache's own files: HASH.smtop-cache, or one
 * half made (HASH.smtop-cache.PID.tmp). */
static int cache_file_name(const char *name)
{
	const char *dot = strstr(name, ".smtop-cache");

	return dot && dot != name && (!dot[12] || (dot[12] == '.' && strstr(dot + 13, ".tmp")));
}

void db_cache_prune(const char *dir, uint64_t keep_s)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat sb;

		if (!cache_file_name(e->d_name) || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (sb.st_mtime < now && (uint64_t)(now - sb.st_mtime) > keep_s)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* mkdir -p, owner only. */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	struct stat sb;
	snprintf(tmp, sizeof tmp, "%s", dir);
	for (char *p = tmp + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(tmp, 0700) != 0 && !(errno == EEXIST && stat(tmp, &sb) == 0 &&
						S_ISDIR(sb.st_mode))) {
			snprintf(err, errlen, "cannot create the cache folder %s: %s", tmp,
				 errno == EEXIST ? "a file of that name is in the way" : strerror(errno));
			return -1;
		}
		if (!(*p = c))
			return 0;
	}
}

/* An empty cache under a name of its own, then linked into place: a
 * reader never sees one half made, and two smtops making it at once keep
 * the first. */
static int create_file(const char *out, const char *path, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 32];
	sqlite3 *db = NULL;
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", out, (long)getpid());
	unlink(tmp);
	int rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK && schema_create(db, err, errlen) == 0) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_meta(key, value)"
				       " VALUES('cache_of', ?1)", -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
			sqlite3_step(st);
			sqlite3_finalize(st);
		}
	} else {
		if (rc != SQLITE_OK)
			snprintf(err, errlen, "%s: cannot create: %s", tmp, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_close(db);
	if (rc == 0 && link(tmp, out) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create: %s", out, strerror(errno));
		rc = -1;
	}
	unlink(tmp);
	return rc == 0 ? 0 : -1;
}

int db_cache_prepare(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int rc = db_cache_path(path, out, len);
	if (rc < 0) {
		snprintf(err, errlen, "%s: no cache folder (neither XDG_CACHE_HOME nor HOME is set)",
			 path);
		return -1;
	}
	if (rc == 0)
		return 0;
	if (db_cache_dir(dir, sizeof dir) != 0 || make_dirs(dir, err, errlen) != 0)
		return -1;
	/* a new cache is when old ones are let go: the folder would grow with
	 * every session changed and every build of smtop */
	db_cache_prune(dir, DB_CACHE_KEEP_S);
	return create_file(out, path, err, errlen);
}
