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

/* The summary `smtop ls` shows, computed once by the analysis and kept in the
 * session by `smtop record`, or in smtop's cache of it (db/cache.h) by `smtop
 * ls` (docs/session-format.md).  One row, id 1.  kernelRows, chunkRows,
 * streamRows, ended and thresholdNs are its key: the session's length and the
 * analysis threshold when it was computed.  Older readers ignore the table, so
 * it needs no new schema version; db/summary.c creates it in older files. */
#define SCHEMA_SUMMARY_SQL \
	"CREATE TABLE IF NOT EXISTS smtop_summary(" \
	" id INTEGER PRIMARY KEY CHECK(id = 1)," \
	" kernelRows INTEGER NOT NULL, chunkRows INTEGER NOT NULL," \
	" streamRows INTEGER NOT NULL, ended INTEGER NOT NULL, thresholdNs INTEGER NOT NULL," \
	" computedNs INTEGER NOT NULL, start INTEGER, end INTEGER," \
	" kernels INTEGER NOT NULL, blocks INTEGER NOT NULL, blocking INTEGER NOT NULL," \
	" inversionsResident INTEGER NOT NULL, inversionsDispatch INTEGER NOT NULL," \
	" timeslice INTEGER NOT NULL);"

/* The whole session's occupancy per GPU, for a first frame at once
 * (src/core/occupancy.h packs data); keyed like smtop_summary. */
#define SCHEMA_OCCUPANCY_SQL \
	"CREATE TABLE IF NOT EXISTS smtop_occupancy(" \
	" deviceId INTEGER PRIMARY KEY, version INTEGER NOT NULL," \
	" kernelRows INTEGER NOT NULL, chunkRows INTEGER NOT NULL," \
	" streamRows INTEGER NOT NULL, computedNs INTEGER NOT NULL, data BLOB NOT NULL);"

/* What `smtop report` prints of a finished session (src/core/findings.h
 * packs data): one row, keyed like smtop_summary and by the analysis
 * version and threshold that found it. */
#define SCHEMA_REPORT_SQL \
	"CREATE TABLE IF NOT EXISTS smtop_report(" \
	" id INTEGER PRIMARY KEY CHECK(id = 1), version INTEGER NOT NULL," \
	" analysis INTEGER NOT NULL, thresholdNs INTEGER NOT NULL," \
	" kernelRows INTEGER NOT NULL, chunkRows INTEGER NOT NULL," \
	" streamRows INTEGER NOT NULL, computedNs INTEGER NOT NULL, data BLOB NOT NULL);"

enum schema_kind {
	SCHEMA_SMTOP,      /* a smtop session of a version we read */
	SCHEMA_NSYS,       /* an Nsight Systems SQLite export */
	SCHEMA_EMPTY,      /* a new, empty database */
};

/* Creates every table, index and view of the current version. */
int schema_create(sqlite3 *db, char *err, size_t errlen);

/* Adds to an older file's tables the columns added since version 1 (a
 * process of this version joining a session an older smtop created); does
 * nothing when none is missing.  -1 with err set on failure. */
int schema_upgrade(sqlite3 *db, char *err, size_t errlen);

/* Tells what db holds; refuses newer smtop versions and foreign files with one
 * line naming path and the problem.  Returns -1 on refusal. */
int schema_check(sqlite3 *db, const char *path, enum schema_kind *kind,
		 char *err, size_t errlen);

#endif
