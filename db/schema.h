/* Session file schema: Nsight Systems export names where nsys has the data,
 * smtop_* tables for the rest.  Versioned with PRAGMA user_version and marked
 * with PRAGMA application_id so a foreign file is told apart. */
#ifndef SMTOP_DB_SCHEMA_H
#define SMTOP_DB_SCHEMA_H

#include <sqlite3.h>
#include <stddef.h>

#define SCHEMA_VERSION 1
#define SCHEMA_APPLICATION_ID 0x736d7470 /* "smtp" */
/* smtop_process.reason of a process whose records stop at a full disk */
#define SCHEMA_DISK_FULL_REASON "disk full, recording stopped"

enum schema_kind {
	SCHEMA_SMTOP,      /* a smtop session of a version we read */
	SCHEMA_NSYS,       /* an Nsight Systems SQLite export */
	SCHEMA_EMPTY,      /* a new, empty database */
};

/* Creates every table, index and view of the current version. */
int schema_create(sqlite3 *db, char *err, size_t errlen);

/* Tells what db holds; refuses newer smtop versions and foreign files with one
 * line naming path and the problem.  Returns -1 on refusal. */
int schema_check(sqlite3 *db, const char *path, enum schema_kind *kind,
		 char *err, size_t errlen);

#endif
