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
