#include "db/summary.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/files.h"
#include "db/reader.h"
#include "src/core/analysis_version.h"
#include "src/core/clock.h"
#include "db/schema.h"

/* A writer between batches holds the lock for milliseconds; ls should not
 * hang behind a stuck one. */
#define SUMMARY_BUSY_MS 2000

/* Opens path and tells what it holds; SCHEMA_EMPTY is refused. */
static int summary_open(const char *path, int writable, sqlite3 **db, enum schema_kind *kind,
			char *err, size_t errlen)
{
	*db = NULL;
	if (db_check_session_path(path, err, errlen) != 0)
		return -1;
	if ((writable ? sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL)
		      : db_files_open_readonly(path, db, 0)) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, sqlite3_errmsg(*db));
		return -1;
	}
	sqlite3_busy_timeout(*db, SUMMARY_BUSY_MS);
	if (schema_check(*db, path, kind, err, errlen) != 0)
		return -1;
	if (*kind == SCHEMA_EMPTY) {
		snprintf(err, errlen, "%s: empty database, not a smtop session", path);
		return -1;
	}
	return 0;
}

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int has = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		has = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return has;
}

/* A one-value query on a table that may be missing; 0 when absent. */
static int64_t int_of(sqlite3 *db, const char *table, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	if (!has_table(db, table) || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void text_of(sqlite3 *db, const char *sql, char *out, size_t len)
{
	sqlite3_stmt *st;

	out[0] = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static void read_meta(sqlite3 *db, struct db_summary_head *h)
{
	char v[32];

	text_of(db, "SELECT value FROM smtop_meta WHERE key='command'", h->command, sizeof h->command);
	text_of(db, "SELECT value FROM smtop_meta WHERE key='created_ns'", v, sizeof v);
	h->created_ns = strtoull(v, NULL, 10);
	text_of(db, "SELECT value FROM smtop_meta WHERE key='ended'", v, sizeof v);
	h->ended = atoi(v);
	text_of(db, "SELECT value FROM smtop_meta WHERE key='ended_clean'", v, sizeof v);
	h->ended_clean = atoi(v);
}

static void read_key(sqlite3 *db, struct db_summary_key *k, int ended)
{
	memset(k, 0, sizeof *k);
	k->kernel_rows = int_of(db, "CUPTI_ACTIVITY_KIND_KERNEL",
				"SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL");
	k->chunk_rows = int_of(db, "smtop_block_chunk", "SELECT max(id) FROM smtop_block_chunk");
	k->stream_rows = int_of(db, "TARGET_INFO_CUDA_STREAM",
				"SELECT count(*) FROM TARGET_INFO_CUDA_STREAM");
	k->ended = ended;
}

static int read_stored(sqlite3 *db, struct db_summary *s)
{
	sqlite3_stmt *st;
	int found = 0;

	if (!has_table(db, "smtop_summary") ||
	    int_of(db, "smtop_meta", "SELECT value FROM smtop_meta WHERE key = 'summary_analysis'") !=
		    ANALYSIS_VERSION ||
	    sqlite3_prepare_v2(db, "SELECT kernelRows, chunkRows, streamRows, ended, thresholdNs,"
			       " computedNs, start, end, kernels, blocks, blocking, inversionsResident,"
			       " inversionsDispatch, timeslice FROM smtop_summary WHERE id = 1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t v[14];

		for (int i = 0; i < 14; i++)
			v[i] = (uint64_t)sqlite3_column_int64(st, i);
		*s = (struct db_summary){
			.key = { (int64_t)v[0], (int64_t)v[1], (int64_t)v[2], (int)v[3], v[4] },
			.computed_ns = v[5], .t_first = v[6], .t_last = v[7],
			.kernels = v[8], .blocks = v[9], .blocking = v[10],
			.inversions_resident = v[11], .inversions_dispatch = v[12], .timeslice = v[13],
		};
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

int db_summary_read(const char *path, struct db_summary_head *h, char *err, size_t errlen)
{
	sqlite3 *db;
	enum schema_kind kind;
	int rc = -1;

	memset(h, 0, sizeof *h);
	if (summary_open(path, 0, &db, &kind, err, errlen) != 0)
		goto out;
	/* one read transaction: the key and the stored row agree */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	h->is_nsys = kind == SCHEMA_NSYS;
	if (!h->is_nsys)
		read_meta(db, h);
	if (has_table(db, "TARGET_INFO_GPU")) {
		text_of(db, "SELECT name FROM TARGET_INFO_GPU ORDER BY id LIMIT 1", h->gpu, sizeof h->gpu);
		h->n_gpus = (int)int_of(db, "TARGET_INFO_GPU", "SELECT count(*) FROM TARGET_INFO_GPU");
	}
	/* nsys before 2021.3 names its GPUs in CUPTI's device table, one row
	 * per process and device; its TARGET_INFO_GPU has no id column */
	if (!h->gpu[0] && has_table(db, "TARGET_INFO_CUDA_GPU")) {
		text_of(db, "SELECT name FROM TARGET_INFO_CUDA_GPU ORDER BY deviceId LIMIT 1",
			h->gpu, sizeof h->gpu);
		h->n_gpus = (int)int_of(db, "TARGET_INFO_CUDA_GPU",
					"SELECT count(DISTINCT deviceId) FROM TARGET_INFO_CUDA_GPU");
	}
	read_key(db, &h->key, h->ended);
	h->has_stored = !h->is_nsys && read_stored(db, &h->stored);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}

int db_summary_stored(const char *path, struct db_summary *s)
{
	sqlite3 *db;
	enum schema_kind kind;
	char err[512];
	int found = 0;
	if (summary_open(path, 0, &db, &kind, err, sizeof err) == 0 && kind == SCHEMA_SMTOP)
		found = read_stored(db, s);
	sqlite3_close(db);
	return found;
}

int db_summary_matches(const struct db_summary *s, const struct db_summary_key *key)
{
	return s->key.kernel_rows == key->kernel_rows && s->key.chunk_rows == key->chunk_rows &&
	       s->key.stream_rows == key->stream_rows && s->key.ended == key->ended &&
	       s->key.threshold_ns == key->threshold_ns;
}

static int store_row(sqlite3 *db, const struct db_summary *s)
{
	sqlite3_stmt *st;
	int rc;
	const int64_t v[] = {
		s->key.kernel_rows, s->key.chunk_rows, s->key.stream_rows, s->key.ended,
		(int64_t)s->key.threshold_ns, (int64_t)s->computed_ns, (int64_t)s->t_first,
		(int64_t)s->t_last, (int64_t)s->kernels, (int64_t)s->blocks, (int64_t)s->blocking,
		(int64_t)s->inversions_resident, (int64_t)s->inversions_dispatch,
		(int64_t)s->timeslice,
	};

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_summary(id, kernelRows, chunkRows,"
			       " streamRows, ended, thresholdNs, computedNs, start, end, kernels, blocks,"
			       " blocking, inversionsResident, inversionsDispatch, timeslice)"
			       " VALUES(1,?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int i = 0; i < (int)(sizeof v / sizeof *v); i++) {
		/* an unknown span stays NULL, as elsewhere in the file */
		if ((i == 6 || i == 7) && !v[i])
			sqlite3_bind_null(st, i + 1);
		else
			sqlite3_bind_int64(st, i + 1, v[i]);
	}
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	if (rc == 0 && sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_meta(key, value)"
					  " VALUES('summary_analysis', ?1)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, ANALYSIS_VERSION);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	return rc;
}

/* Creates schema_sql's table when missing and runs put(db, arg) in one
 * write transaction of path, which must be a smtop session.  what names
 * the row in the errors ("summary"), whats its plural ("summaries"). */
static int summary_write(const char *path, const char *what, const char *whats,
			 const char *schema_sql, int (*put)(sqlite3 *, const void *),
			 const void *arg, char *err, size_t errlen)
{
	sqlite3 *db;
	enum schema_kind kind;
	int rc = -1;

	if (summary_open(path, 1, &db, &kind, err, errlen) != 0)
		goto out;
	if (kind != SCHEMA_SMTOP) {
		snprintf(err, errlen, "%s: %s are stored only in smtop sessions", path, whats);
		goto out;
	}
	rc = db_files_write(db, path, what, schema_sql, put, arg, err, errlen);
out:
	sqlite3_close(db);
	return rc;
}

static int summary_put(sqlite3 *db, const void *arg)
{
	return store_row(db, arg);
}

int db_summary_store(const char *path, const struct db_summary *s, char *err, size_t errlen)
{
	return summary_write(path, "summary", "summaries", SCHEMA_SUMMARY_SQL, summary_put, s, err,
			     errlen);
}

int db_summary_key_of(const char *path, struct db_summary_key *key, int *is_nsys, char *err,
		      size_t errlen)
{
	struct db_summary_head h;
	if (db_summary_read(path, &h, err, errlen) != 0)
		return -1;
	*key = h.key;
	*is_nsys = h.is_nsys;
	return 0;
}

/* A copy of column 0 of st's row: 0, or -1 when out of memory. */
static int blob_copy(sqlite3_stmt *st, uint8_t **data, size_t *len)
{
	int n = sqlite3_column_bytes(st, 0);
	const void *b = sqlite3_column_blob(st, 0);
	*data = malloc(n > 0 ? (size_t)n : 1);
	if (!*data)
		return -1;
	if (n > 0)
		memcpy(*data, b, (size_t)n);
	*len = n > 0 ? (size_t)n : 0;
	return 0;
}

static int occupancy_row(sqlite3 *db, uint32_t device_id, int version,
			 const struct db_summary_key *key, uint8_t **data, size_t *len)
{
	sqlite3_stmt *st;
	int rc = 1;
	if (!has_table(db, "smtop_occupancy") ||
	    sqlite3_prepare_v2(db, "SELECT data FROM smtop_occupancy WHERE deviceId = ?1 AND"
			       " version BETWEEN 1 AND ?2 AND kernelRows = ?3 AND chunkRows = ?4 AND streamRows = ?5",
			       -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int64(st, 1, device_id);
	sqlite3_bind_int(st, 2, version);
	sqlite3_bind_int64(st, 3, key->kernel_rows);
	sqlite3_bind_int64(st, 4, key->chunk_rows);
	sqlite3_bind_int64(st, 5, key->stream_rows);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = blob_copy(st, data, len);
	sqlite3_finalize(st);
	return rc;
}

int db_occupancy_load(const char *path, uint32_t device_id, int version,
		      const struct db_summary_key *key, uint8_t **data, size_t *len, char *err,
		      size_t errlen)
{
	sqlite3 *db;
	enum schema_kind kind;
	int rc = -1;
	*data = NULL;
	*len = 0;
	if (summary_open(path, 0, &db, &kind, err, errlen) != 0)
		goto out;
	rc = kind == SCHEMA_SMTOP ? occupancy_row(db, device_id, version, key, data, len) : 1;
	if (rc < 0)
		snprintf(err, errlen, "%s: out of memory", path);
out:
	sqlite3_close(db);
	return rc;
}

struct occupancy_row {
	uint32_t device_id;
	int version;
	const struct db_summary_key *key;
	const uint8_t *data;
	size_t len;
};

static int occupancy_put(sqlite3 *db, const void *arg)
{
	const struct occupancy_row *r = arg;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_occupancy(deviceId, version,"
			       " kernelRows, chunkRows, streamRows, computedNs, data)"
			       " VALUES(?1,?2,?3,?4,?5,?6,?7)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, r->device_id);
	sqlite3_bind_int(st, 2, r->version);
	sqlite3_bind_int64(st, 3, r->key->kernel_rows);
	sqlite3_bind_int64(st, 4, r->key->chunk_rows);
	sqlite3_bind_int64(st, 5, r->key->stream_rows);
	sqlite3_bind_int64(st, 6, (int64_t)clock_real_ns());
	sqlite3_bind_blob(st, 7, r->data, (int)r->len, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int db_occupancy_store(const char *path, uint32_t device_id, int version,
		       const struct db_summary_key *key, const uint8_t *data, size_t len,
		       char *err, size_t errlen)
{
	const struct occupancy_row r = { device_id, version, key, data, len };
	if (len > INT32_MAX) {
		snprintf(err, errlen, "%s: occupancy summaries are stored only in smtop sessions", path);
		return -1;
	}
	return summary_write(path, "occupancy summary", "occupancy summaries", SCHEMA_OCCUPANCY_SQL,
			     occupancy_put, &r, err, errlen);
}

static int report_row(sqlite3 *db, int version, int analysis, const struct db_summary_key *key,
		      uint8_t **data, size_t *len)
{
	sqlite3_stmt *st;
	int rc = 1;
	if (!has_table(db, "smtop_report") ||
	    sqlite3_prepare_v2(db, "SELECT data FROM smtop_report WHERE id = 1 AND version = ?1 AND"
			       " analysis = ?2 AND thresholdNs = ?3 AND kernelRows = ?4 AND"
			       " chunkRows = ?5 AND streamRows = ?6", -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int(st, 1, version);
	sqlite3_bind_int(st, 2, analysis);
	sqlite3_bind_int64(st, 3, (int64_t)key->threshold_ns);
	sqlite3_bind_int64(st, 4, key->kernel_rows);
	sqlite3_bind_int64(st, 5, key->chunk_rows);
	sqlite3_bind_int64(st, 6, key->stream_rows);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = blob_copy(st, data, len);
	sqlite3_finalize(st);
	return rc;
}

int db_report_load(const char *path, int version, int analysis, const struct db_summary_key *key,
		   uint8_t **data, size_t *len, char *err, size_t errlen)
{
	sqlite3 *db;
	enum schema_kind kind;
	int rc = -1;
	*data = NULL;
	*len = 0;
	if (summary_open(path, 0, &db, &kind, err, errlen) != 0)
		goto out;
	rc = kind == SCHEMA_SMTOP ? report_row(db, version, analysis, key, data, len) : 1;
	if (rc < 0)
		snprintf(err, errlen, "%s: out of memory", path);
out:
	sqlite3_close(db);
	return rc;
}

struct report_put_row {
	int version, analysis;
	const struct db_summary_key *key;
	const uint8_t *data;
	size_t len;
};

static int report_put(sqlite3 *db, const void *arg)
{
	const struct report_put_row *r = arg;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_report(id, version, analysis,"
			       " thresholdNs, kernelRows, chunkRows, streamRows, computedNs, data)"
			       " VALUES(1,?1,?2,?3,?4,?5,?6,?7,?8)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 1, r->version);
	sqlite3_bind_int(st, 2, r->analysis);
	sqlite3_bind_int64(st, 3, (int64_t)r->key->threshold_ns);
	sqlite3_bind_int64(st, 4, r->key->kernel_rows);
	sqlite3_bind_int64(st, 5, r->key->chunk_rows);
	sqlite3_bind_int64(st, 6, r->key->stream_rows);
	sqlite3_bind_int64(st, 7, (int64_t)clock_real_ns());
	sqlite3_bind_blob(st, 8, r->data, (int)r->len, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int db_report_store(const char *path, int version, int analysis, const struct db_summary_key *key,
		    const uint8_t *data, size_t len, char *err, size_t errlen)
{
	const struct report_put_row r = { version, analysis, key, data, len };
	if (len > INT32_MAX) {
		snprintf(err, errlen, "%s: the report's findings are too large to store", path);
		return -1;
	}
	return summary_write(path, "report's findings", "reports", SCHEMA_REPORT_SQL, report_put,
			     &r, err, errlen);
}

int db_meta_store(const char *path, const char *key, const char *value, char *err,
		  size_t errlen)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	enum schema_kind kind;
	int rc = -1;
	if (summary_open(path, 1, &db, &kind, err, errlen) != 0)
		goto out;
	if (kind != SCHEMA_SMTOP) {
		snprintf(err, errlen, "%s: not a smtop session", path);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_meta(key, value) VALUES(?1, ?2)",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot write: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		snprintf(err, errlen, "%s: cannot write: %s", path, sqlite3_errmsg(db));
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
