#include "db/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SQLite's locks (os_unix.c, documented in walformat.html): every connection
 * to a WAL database holds a shared lock on byte 128 of the -shm file (the
 * DMS lock) for as long as it is open; a transaction on any database holds
 * locks in the 512 bytes from the main file's PENDING_BYTE. */
#define SHM_DMS_OFFSET 128
#define DB_LOCK_OFFSET 0x40000000L
#define DB_LOCK_LEN 512

const char *const db_files_companions[] = { "-wal", "-shm", "-journal", ".log", NULL };

int db_files_is_companion(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *c = db_files_companions; *c; c++) {
		size_t k = strlen(*c);

		if (n > k && strcmp(name + n - k, *c) == 0)
			return 1;
	}
	return 0;
}

static int locked_by_other(const char *path, off_t start, off_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int locked;

	if (fd < 0)
		return 0;
	locked = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	close(fd);
	return locked;
}

int db_files_in_use(const char *path)
{
	char shm[PATH_MAX];

	if (snprintf(shm, sizeof shm, "%s-shm", path) >= (int)sizeof shm)
		return 0;
	return locked_by_other(shm, SHM_DMS_OFFSET, 1) ||
	       locked_by_other(path, DB_LOCK_OFFSET, DB_LOCK_LEN);
}

/* Bytes 18 and 19 of a SQLite header: 2 and 2 in WAL mode. */
static int is_wal_mode(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, h, sizeof h, 0);
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof h && h[18] == 2 && h[19] == 2;
}

/* "file:PATH?immutable=1" with PATH's URI characters escaped, and leading
 * slashes made one (file://x would name a host).  0, or -1 if too long. */
static int immutable_uri(const char *path, char *uri, size_t len)
{
	size_t o = 0;
	const char *p = path;
	if (len < 6)
		return -1;
	memcpy(uri, "file:", 5);
	o = 5;
	while (p[0] == '/' && p[1] == '/')
		p++;
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		int esc = c == '%' || c == '?' || c == '#' || c <= ' ' || c >= 0x7f;
		if (o + (esc ? 3 : 1) >= len)
			return -1;
		if (esc)
			o += (size_t)snprintf(uri + o, len - o, "%%%02X", c);
		else
			uri[o++] = (char)c;
	}
	const char *q = "?immutable=1";
	if (o + strlen(q) >= len)
		return -1;
	memcpy(uri + o, q, strlen(q) + 1);
	return 0;
}

/* 1 when the smtop session in db says it has ended (nothing writes it again). */
static int session_ended(sqlite3 *db)
{
	sqlite3_stmt *st;
	int ended = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM smtop_meta WHERE key = 'ended'", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		ended = sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	return ended;
}

int db_files_open_readonly(const char *path, sqlite3 **db, int flags)
{
	char wal[PATH_MAX], uri[3 * PATH_MAX + 32];
	struct stat sb;
	flags |= SQLITE_OPEN_READONLY;
	if (is_wal_mode(path) && snprintf(wal, sizeof wal, "%s-wal", path) < (int)sizeof wal &&
	    stat(wal, &sb) != 0 && immutable_uri(path, uri, sizeof uri) == 0) {
		if (sqlite3_open_v2(uri, db, flags | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
		    session_ended(*db))
			return SQLITE_OK;
		sqlite3_close(*db);
	}
	return sqlite3_open_v2(path, db, flags, NULL);
}

/* rename() that refuses to replace: link, then unlink the old name. */
static int rename_noreplace(const char *from, const char *to)
{
	struct stat sb;

	if (link(from, to) == 0)
		return unlink(from);
	if (errno == EEXIST)
		return -1;
	/* file systems without hard links: check, then rename */
	if (lstat(to, &sb) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

static int companion_path(char *buf, size_t len, const char *path, const char *suffix)
{
	int n = snprintf(buf, len, "%s%s", path, suffix);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

int db_files_rename(const char *path, const char *new_path, char *err, size_t errlen)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct stat sb;

	for (const char *const *c = db_files_companions; *c; c++) {
		if (companion_path(to, sizeof to, new_path, *c) == 0 && lstat(to, &sb) == 0) {
			snprintf(err, errlen, "%s: already exists", to);
			return -1;
		}
	}
	if (rename_noreplace(path, new_path) != 0) {
		snprintf(err, errlen, "%s: %s", errno == EEXIST ? new_path : path,
			 errno == EEXIST ? "already exists" : strerror(errno));
		return -1;
	}
	for (const char *const *c = db_files_companions; *c; c++) {
		if (companion_path(from, sizeof from, path, *c) != 0 ||
		    companion_path(to, sizeof to, new_path, *c) != 0 || lstat(from, &sb) != 0)
			continue;
		if (rename_noreplace(from, to) != 0) {
			snprintf(err, errlen, "%s: renamed, but not its %s file: %s", new_path, *c,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

int db_files_remove(const char *path, char *err, size_t errlen)
{
	char comp[PATH_MAX];

	if (unlink(path) != 0) {
		snprintf(err, errlen, "%s: cannot remove: %s", path, strerror(errno));
		return -1;
	}
	for (const char *const *c = db_files_companions; *c; c++)
		if (companion_path(comp, sizeof comp, path, *c) == 0)
			unlink(comp);
	return 0;
}

int db_files_write(sqlite3 *db, const char *path, const char *what, const char *schema_sql,
		   int (*put)(sqlite3 *, const void *), const void *arg, char *err, size_t errlen)
{
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
	    (schema_sql && sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK) || put(db, arg) != 0 ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot store the %s: %s", path, what, sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}
