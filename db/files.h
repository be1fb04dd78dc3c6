/* A session on disk is a file and its companions: SQLite's -wal, -shm and
 * -journal, and the workload log (FILE.log) that `smtop run` writes beside
 * it.  Renaming or removing a session moves or removes them together. */
#ifndef SMTOP_DB_FILES_H
#define SMTOP_DB_FILES_H

#include <sqlite3.h>
#include <stddef.h>

/* The companion suffixes, NULL-terminated: "-wal", "-shm", "-journal", ".log". */
extern const char *const db_files_companions[];

/* 1 if name ends in one of the companion suffixes. */
int db_files_is_companion(const char *name);

/* 1 if another process has the session open: a recording collector, a
 * viewer (SQLite's WAL-index DMS lock, see the WAL file format), or any
 * connection in the middle of a transaction.  Must not be called on a file
 * this process has open through SQLite: closing the probe's descriptor would
 * drop this process's own locks on it. */
int db_files_in_use(const char *path);

/* Opens path for reading without writing anything beside it (flags are
 * added to SQLITE_OPEN_READONLY).  A read-only connection to a WAL database
 * creates its -wal and -shm files and, unable to checkpoint, leaves them;
 * so a WAL session that nobody writes (no -wal file) and that is finished
 * (smtop_meta ended) is opened immutable=1: no companion, no lock.  One
 * still being recorded, or with a -wal left over, is opened as before, so
 * that a live view sees what the writer commits.  Returns SQLite's code
 * (*db set even on failure, as sqlite3_open_v2 does). */
int db_files_open_readonly(const char *path, sqlite3 **db, int flags);

/* In one write transaction of db (path's): schema_sql when not NULL, then
 * put(db, arg).  On a failure it is rolled back and err says "PATH: cannot
 * store the WHAT: ...".  Returns 0, or -1. */
int db_files_write(sqlite3 *db, const char *path, const char *what, const char *schema_sql,
		   int (*put)(sqlite3 *, const void *), const void *arg, char *err, size_t errlen);

/* Renames path and its companions to new_path, never replacing an existing
 * file.  Returns 0, or -1 with one line in err. */
int db_files_rename(const char *path, const char *new_path, char *err, size_t errlen);

/* Removes path and its companions.  Returns 0, or -1 with one line in err. */
int db_files_remove(const char *path, char *err, size_t errlen);

#endif
