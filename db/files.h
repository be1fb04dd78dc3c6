/* A session on disk is a file and its companions: SQLite's -wal, -shm and
 * -journal, and the workload log (FILE.log) that `smtop run` writes beside
 * it.  Renaming or removing a session moves or removes them together. */
#ifndef SMTOP_DB_FILES_H
#define SMTOP_DB_FILES_H

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

/* Renames path and its companions to new_path, never replacing an existing
 * file.  Returns 0, or -1 with one line in err. */
int db_files_rename(const char *path, const char *new_path, char *err, size_t errlen);

/* Removes path and its companions.  Returns 0, or -1 with one line in err. */
int db_files_remove(const char *path, char *err, size_t errlen);

#endif
