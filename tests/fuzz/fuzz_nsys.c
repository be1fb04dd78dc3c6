/* The Nsight Systems import path: the input is SQL that builds a database
 * (an nsys export, or something close to one: any tables, columns, types
 * and values), which smtop then opens as `smtop info`, `smtop report` and
 * `smtop open` would.  Going through SQL rather than raw file bytes lets
 * the fuzzer vary what matters to the importer (which tables and columns
 * exist, NULLs, huge or negative numbers, text where numbers belong)
 * instead of mostly breaking SQLite's page format.  The reader entry points
 * it runs are the rows of fuzz_reader_walks (tests/fuzz/support.c).  The
 * GPUs the SQL makes are given the properties of one architecture from cc
 * 3.5 to 12.x, or edge values (fuzz_vary_gpus). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Virtual machine steps one input's SQL may take (a recursive CTE could
 * otherwise run for ever). */
#define SQL_STEP_BUDGET 2000000
#define SQL_MAX_LENGTH 100000

static int progress(void *ud)
{
	return ++*(int *)ud > SQL_STEP_BUDGET / 1000;
}

/* Only what shapes a database file: no other files (ATTACH, VACUUM INTO),
 * no extensions, no huge blobs. */
static int authorize(void *ud, int action, const char *a, const char *b, const char *db,
		     const char *trigger)
{
	static const char *const pragmas[] = { "user_version", "application_id", "page_size",
					       "journal_mode", "auto_vacuum", "encoding" };

	(void)ud;
	(void)b;
	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		return SQLITE_DENY;
	case SQLITE_FUNCTION:
		return a && (!strcmp(a, "load_extension") || !strcmp(a, "zeroblob") ||
			     !strcmp(a, "randomblob")) ? SQLITE_DENY : SQLITE_OK;
	case SQLITE_PRAGMA:
		for (size_t i = 0; i < sizeof pragmas / sizeof pragmas[0]; i++)
			if (a && !strcmp(a, pragmas[i]))
				return SQLITE_OK;
		return SQLITE_DENY;
	default:
		return SQLITE_OK;
	}
}

/* Runs sql into a new database at path; errors in the SQL are fine (the
 * statements before them stay). */
static int build_database(const char *path, const char *sql)
{
	sqlite3 *db;
	int steps = 0;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SQL_MAX_LENGTH);
	sqlite3_set_authorizer(db, authorize, NULL);
	sqlite3_progress_handler(db, 1000, progress, &steps);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	return sqlite3_close(db) == SQLITE_OK ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sql = malloc(size + 1);
	const char *path = fuzz_session_path();

	if (!sql)
		return 0;
	memcpy(sql, data, size);
	sql[size] = 0;
	fuzz_remove_session();
	if (build_database(path, sql) == 0) {
		fuzz_vary_gpus(path, data, size);
		fuzz_walk_reader(path);
		fuzz_load_session(path);
	}
	fuzz_remove_session();
	free(sql);
	return 0;
}
