#include "db/reader.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/blockcodec.h"
#include "db/files.h"
#include "db/procid.h"
#include "db/reader_state.h"
#include "db/schema.h"
#include "src/core/gpu_clock.h"
#include "src/core/strmap.h"
#include "src/core/u64map.h"

int reader_fail(struct db_reader *r, const char *what)
{
	snprintf(r->err, sizeof r->err, "%s: %s: %s", r->path, what, sqlite3_errmsg(r->db));
	return -1;
}

static int reader_prepare(struct db_reader *r, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot prepare a query");
	return 0;
}

/* A one-row integer query; 0 when the row or value is absent. */
int64_t reader_int(struct db_reader *r, const char *sql, int64_t arg)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, arg);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int reader_has_table(struct db_reader *r, const char *name)
{
	char sql[160];

	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND name='%s'", name);
	return reader_int(r, sql, 0) > 0;
}

int reader_has_column(struct db_reader *r, const char *table, const char *col)
{
	char sql[200];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name='%s'",
		 table, col);
	return reader_int(r, sql, 0) > 0;
}

const char *reader_text(struct db_reader *r, const unsigned char *s)
{
	return s ? strmap_intern(&r->text, (const char *)s) : NULL;
}

/* Meta value as text, interned; NULL if absent. */
/* Prepared once: a session without a stored clock is asked for it at
 * every walk of blocks. */
const char *reader_meta(struct db_reader *r, const char *key)
{
	sqlite3_stmt *st = r->st_meta;
	const char *v = NULL;

	if (!r->has_meta)
		return NULL;
	if (!st && sqlite3_prepare_v3(r->db, "SELECT value FROM smtop_meta WHERE key=?1", -1,
				      SQLITE_PREPARE_PERSISTENT, &r->st_meta, NULL) != SQLITE_OK) {
		sqlite3_finalize(r->st_meta);
		r->st_meta = NULL;
		return NULL;
	}
	st = r->st_meta;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = reader_text(r, sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return v;
}

/* ---- opening ---- */

int db_check_session_path(const char *path, char *err, size_t errlen)
{
	struct stat sb;

	if (stat(path, &sb) != 0) {
		snprintf(err, errlen, "%s: %s", path,
			 errno == ENOENT ? "no such session file" : strerror(errno));
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: is a directory, not a session file", path);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (sb.st_size == 0) {
		snprintf(err, errlen, "%s: empty file, not a smtop session", path);
		return -1;
	}
	return 0;
}

/* A file cut short is caught here rather than as a damaged page mid-session.
 * With a live WAL the main file may lag the page count, so only a file
 * without one is measured. */
static int reader_check_truncated(struct db_reader *r, char *err, size_t errlen)
{
	char wal[4096];
	struct stat sb, wsb;
	int64_t pages, page_size;

	snprintf(wal, sizeof wal, "%s-wal", r->path);
	if (stat(r->path, &sb) != 0 || (stat(wal, &wsb) == 0 && wsb.st_size > 0))
		return 0;
	pages = reader_int(r, "PRAGMA page_count", 0);
	page_size = reader_int(r, "PRAGMA page_size", 0);
	if (page_size > 0 && (sb.st_size % page_size != 0 || sb.st_size < pages * page_size)) {
		snprintf(err, errlen, "%s: truncated session file (%lld of %lld bytes)", r->path,
			 (long long)sb.st_size, (long long)(pages * page_size));
		return -1;
	}
	return 0;
}

/* The first of a table's columns that exists; NULL if none does. */
static const char *reader_first_column(struct db_reader *r, const char *table,
				       const char *const *cols)
{
	for (; *cols; cols++)
		if (reader_has_column(r, table, *cols))
			return *cols;
	return NULL;
}

/* A GPU activity table whose rows name their process, context and stream. */
static int reader_places_rows(struct db_reader *r, const char *table)
{
	static const char *const cols[] = { "start", "end", "contextId", "streamId",
					    "correlationId", "globalPid" };
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		if (!reader_has_column(r, table, cols[i]))
			return 0;
	return 1;
}

static void reader_find_tables(struct db_reader *r)
{
	r->has_kernel = reader_has_table(r, "CUPTI_ACTIVITY_KIND_KERNEL") &&
			reader_has_table(r, "StringIds");
	r->has_chunk = reader_has_table(r, "smtop_block_chunk");
	/* streams and NVTX need their key columns; without them they stay
	 * unknown rather than failing the whole file */
	r->has_stream = reader_has_column(r, "TARGET_INFO_CUDA_STREAM", "streamId") &&
			reader_has_column(r, "TARGET_INFO_CUDA_STREAM", "processId") &&
			reader_has_column(r, "TARGET_INFO_CUDA_STREAM", "contextId");
	r->has_nvtx = reader_has_column(r, "NVTX_EVENTS", "start") &&
		      reader_has_column(r, "NVTX_EVENTS", "eventType");
	r->has_request = reader_has_table(r, "smtop_request");
	r->has_gpu = reader_has_table(r, "TARGET_INFO_GPU");
	r->has_ctx = reader_has_column(r, "TARGET_INFO_CUDA_CONTEXT_INFO", "deviceId") &&
		     reader_has_column(r, "TARGET_INFO_CUDA_CONTEXT_INFO", "contextId") &&
		     reader_has_column(r, "TARGET_INFO_CUDA_CONTEXT_INFO", "processId");
	r->has_process = reader_has_table(r, "smtop_process");
	r->has_nsys_processes = reader_has_table(r, "PROCESSES");
	r->has_meta = reader_has_table(r, "smtop_meta");
	r->has_memcpy = reader_has_table(r, "CUPTI_ACTIVITY_KIND_MEMCPY");
	r->has_memset = reader_has_table(r, "CUPTI_ACTIVITY_KIND_MEMSET");
	r->has_runtime = reader_has_table(r, "CUPTI_ACTIVITY_KIND_RUNTIME");
	r->ops_memcpy = reader_places_rows(r, "CUPTI_ACTIVITY_KIND_MEMCPY");
	r->ops_memset = reader_places_rows(r, "CUPTI_ACTIVITY_KIND_MEMSET");
	r->ops_sync = reader_places_rows(r, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") &&
		      reader_has_column(r, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "syncType");
	r->ops_graph_dep = reader_has_column(r, "smtop_graph_dep", "dependsOnType");
	r->ops_cuda_event = reader_has_column(r, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "eventId") &&
			    reader_has_column(r, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "streamId") &&
			    reader_has_column(r, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "correlationId") &&
			    reader_has_column(r, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "globalPid");
	r->ops_api = reader_has_column(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid") &&
		     reader_has_column(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "correlationId") &&
		     reader_has_column(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId") &&
		     reader_has_table(r, "StringIds");
	/* only GPUs a process could see appear there; an empty table says nothing */
	r->has_cuda_device = reader_has_table(r, "TARGET_INFO_CUDA_DEVICE") &&
			     reader_int(r, "SELECT count(*) FROM TARGET_INFO_CUDA_DEVICE", 0) > 0;
	/* exports before 2021.3 list GPUs per process with CUPTI's device
	 * attributes; later ones map a context to its device only here */
	r->has_cuda_gpu = reader_has_table(r, "TARGET_INFO_CUDA_GPU") &&
			  reader_int(r, "SELECT count(*) FROM TARGET_INFO_CUDA_GPU", 0) > 0;
	r->has_null_stream = reader_has_column(r, "TARGET_INFO_CUDA_NULL_STREAM", "deviceId") &&
			     reader_has_column(r, "TARGET_INFO_CUDA_NULL_STREAM", "contextId") &&
			     reader_has_column(r, "TARGET_INFO_CUDA_NULL_STREAM", "processId");
	r->export_meta = reader_has_table(r, "META_DATA_EXPORT") ? "META_DATA_EXPORT"
		: reader_has_table(r, "EXPORT_META_DATA") ? "EXPORT_META_DATA" : NULL;
}

/* A value of the export's metadata table (nsys writes the export's schema
 * and product versions there), interned in strings; NULL if absent. */
const char *reader_export_meta(struct db_reader *r, const char *name,
				      struct strmap *strings)
{
	char sql[128];
	sqlite3_stmt *st;
	const char *v = NULL;

	if (!r->export_meta)
		return NULL;
	snprintf(sql, sizeof sql, "SELECT value FROM %s WHERE name=?1", r->export_meta);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = strmap_intern(strings, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* The columns every reading of an nsys export needs.  A file without them
 * is refused in one line naming the file, its schema and what is missing,
 * rather than read as empty. */
static int reader_check_nsys(struct db_reader *r, char *err, size_t errlen)
{
	static const char *const kernel_cols[] = { "start", "end", "streamId", NULL };
	static const char *const name_cols[] = { "demangledName", "shortName", "mangledName", NULL };
	const char *t = "CUPTI_ACTIVITY_KIND_KERNEL", *missing = NULL, *table = t;
	const char *schema = reader_export_meta(r, "EXPORT_SCHEMA_VERSION", &r->text);
	char version[96], what[160];

	if (!reader_has_column(r, "StringIds", "id") || !reader_has_column(r, "StringIds", "value")) {
		table = "StringIds";
		missing = "id and value columns";
	}
	for (const char *const *c = kernel_cols; !missing && *c; c++)
		if (!reader_has_column(r, t, *c))
			missing = *c;
	if (!missing && !reader_first_column(r, t, name_cols))
		missing = "kernel name column (demangledName, shortName)";
	if (!missing)
		return 0;
	if (schema)
		snprintf(version, sizeof version, "schema %s", schema);
	else
		snprintf(version, sizeof version, "schema version not recorded");
	if (table != t && !reader_has_table(r, table))
		snprintf(what, sizeof what, "no %s table", table);
	else
		snprintf(what, sizeof what, "%s has no %s", table, missing);
	snprintf(err, errlen, "%s: Nsight Systems export (%s) that smtop cannot read: %s",
		 r->path, version, what);
	return -1;
}

/* An NVTX eventType id by its ENUM_NSYS_EVENT_TYPE name when the export has
 * the enum (lazy exports list only the types present), else nsys' value. */
static int reader_event_type(struct db_reader *r, const char *name, int fallback)
{
	sqlite3_stmt *st;
	int v = fallback;

	if (!reader_has_table(r, "ENUM_NSYS_EVENT_TYPE") ||
	    sqlite3_prepare_v2(r->db, "SELECT id FROM ENUM_NSYS_EVENT_TYPE WHERE name=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return fallback;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void reader_find_event_types(struct db_reader *r)
{
	r->nvtx_mark = reader_event_type(r, "NvtxMark", 34);
	r->nvtx_push_pop = reader_event_type(r, "NvtxPushPopRange", 59);
	r->nvtx_start_end = reader_event_type(r, "NvtxStartEndRange", 60);
	r->nvtx_domain = reader_event_type(r, "NvtxDomainCreate", 75);
}

/* Column expression: col if the table has it, else fallback. */
const char *reader_col_or(struct db_reader *r, const char *table, const char *col,
			  const char *fallback)
{
	return reader_has_column(r, table, col) ? col : fallback;
}

/* Column expression: col if the table has it, else fallback. */
static const char *kcol(struct db_reader *r, const char *col, const char *fallback)
{
	return reader_col_or(r, "CUPTI_ACTIVITY_KIND_KERNEL", col, fallback);
}

/* COALESCE over the kernel name columns the table has, in the order given
 * (reader_check_nsys made sure one exists). */
static void kernel_name_expr(struct db_reader *r, const char *const *cols, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "COALESCE(");

	for (; *cols; cols++)
		if (n < len && reader_has_column(r, "CUPTI_ACTIVITY_KIND_KERNEL", *cols))
			n += (size_t)snprintf(buf + n, len - n, "%s, ", *cols);
	if (n < len)
		snprintf(buf + n, len - n, "NULL)");
}

/* nsys exports differ by version: every column past start, end, streamId
 * and a name is optional, and a missing one reads as unknown (0 or NULL). */
static int reader_build_kernel_cols(struct db_reader *r)
{
	static const char *const mangled[] = { "mangledName", "demangledName", "shortName", NULL };
	static const char *const demangled[] = { "demangledName", "shortName", "mangledName", NULL };
	static const char *const short_name[] = { "shortName", "demangledName", "mangledName", NULL };
	const char *t = "CUPTI_ACTIVITY_KIND_KERNEL";
	const char *graph = reader_has_column(r, t, "isGraph") ? "isGraph"
		: reader_has_column(r, t, "graphNodeId") ? "(graphNodeId IS NOT NULL)" : "0";
	char names[3][96], buf[1400];
	int n;

	kernel_name_expr(r, mangled, names[0], sizeof names[0]);
	kernel_name_expr(r, demangled, names[1], sizeof names[1]);
	kernel_name_expr(r, short_name, names[2], sizeof names[2]);
	n = snprintf(buf, sizeof buf,
		"rowid, start, end, COALESCE(%s,0), COALESCE(%s,0), streamId, COALESCE(%s,0),"
		" COALESCE(%s,0), %s, %s, %s, COALESCE(%s,0),"
		" COALESCE(%s,0), %s, %s, %s, %s, %s, %s,"
		" COALESCE(%s,0), COALESCE(%s,0),"
		" COALESCE(%s,0), COALESCE(%s,0), %s, %s, %s, COALESCE(%s,0)",
		kcol(r, "deviceId", "0"), kcol(r, "contextId", "0"), kcol(r, "correlationId", "0"),
		kcol(r, "globalPid", "0"), names[0], names[1], names[2], kcol(r, "launchType", "0"),
		kcol(r, "registersPerThread", "0"), kcol(r, "gridX", "0"), kcol(r, "gridY", "0"),
		kcol(r, "gridZ", "0"), kcol(r, "blockX", "0"), kcol(r, "blockY", "0"),
		kcol(r, "blockZ", "0"), kcol(r, "staticSharedMemory", "0"),
		kcol(r, "dynamicSharedMemory", "0"), kcol(r, "localMemoryPerThread", "0"),
		kcol(r, "gridId", "0"), kcol(r, "queued", "NULL"), kcol(r, "submitted", "NULL"), graph,
		kcol(r, "graphNodeId", "0"));

	if (n < 0 || (size_t)n >= sizeof buf || !(r->kernel_cols = strdup(buf)))
		return -1;
	return 0;
}

static int reader_prepare_queries(struct db_reader *r)
{
	char sql[1600];

	if (r->has_kernel) {
		if (reader_build_kernel_cols(r) != 0)
			return reader_fail(r, "out of memory");
		snprintf(sql, sizeof sql, "SELECT %s FROM CUPTI_ACTIVITY_KIND_KERNEL"
			 " WHERE start >= ?3 AND start < ?2 AND end > ?1 ORDER BY start", r->kernel_cols);
		if (reader_prepare(r, sql, &r->st_kernel_window) != 0)
			return -1;
		snprintf(sql, sizeof sql, "SELECT %s FROM CUPTI_ACTIVITY_KIND_KERNEL"
			 " WHERE rowid > ?1 ORDER BY rowid LIMIT ?2", r->kernel_cols);
		if (reader_prepare(r, sql, &r->st_kernel_new) != 0)
			return -1;
	}
	if (r->has_chunk &&
	    (reader_prepare(r, "SELECT id, globalPid, deviceId, contextId, sm, data"
			    " FROM smtop_block_chunk WHERE id > ?1 ORDER BY id", &r->st_chunk_new) != 0 ||
	     reader_prepare(r, "SELECT min(deviceId) FROM smtop_block_chunk WHERE deviceId > ?1",
			    &r->st_next_device) != 0 ||
	     reader_prepare(r, "SELECT id, globalPid, deviceId, contextId, sm, data, start"
			    " FROM smtop_block_chunk WHERE deviceId = ?1 AND start >= ?2 AND start < ?3"
			    " AND end > ?4 AND (start > ?5 OR (start = ?5 AND id > ?6))"
			    " ORDER BY start, id LIMIT ?7", &r->st_chunk_walk) != 0))
		return -1;
	return 0;
}

/* A session trimmed to a window (tests/gpu/trim_session.py) says where it
 * starts: host times before it (a kernel submitted while an earlier one,
 * cut away, still ran on its stream) belong to what was cut, and are read
 * as unknown, so no wait is counted from them. */
static void reader_read_trim(struct db_reader *r)
{
	const char *v = reader_meta(r, "trimmed_from_ns");

	r->trimmed_from = v ? strtoull(v, NULL, 10) : 0;
}

int db_reader_open(struct db_reader **out, const char *path, char *err, size_t errlen)
{
	struct db_reader *r;
	enum schema_kind kind;

	*out = NULL;
	if (db_check_session_path(path, err, errlen) != 0)
		return -1;
	if (!(r = calloc(1, sizeof *r)) || !(r->path = strdup(path)) ||
	    !(r->blocks = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof *r->blocks))) {
		snprintf(err, errlen, "%s: out of memory", path);
		db_reader_close(r);
		return -1;
	}
	if (db_files_open_readonly(path, &r->db, SQLITE_OPEN_NOMUTEX) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, sqlite3_errmsg(r->db));
		goto fail;
	}
	sqlite3_busy_timeout(r->db, 2000);
	/* block chunks are read once, in order, or a window at a time: 1 MB of
	 * page cache (16 of the writer's 64 KiB pages) serves them as well as
	 * SQLite's default 2 MB, and the viewer keeps one per file */
	sqlite3_exec(r->db, "PRAGMA cache_size=-1024", NULL, NULL, NULL);
	if (schema_check(r->db, path, &kind, err, errlen) != 0)
		goto fail;
	if (kind == SCHEMA_EMPTY) {
		snprintf(err, errlen, "%s: not a smtop session or Nsight Systems export", path);
		goto fail;
	}
	if (reader_check_truncated(r, err, errlen) != 0)
		goto fail;
	r->is_nsys = kind == SCHEMA_NSYS;
	r->schema_version = r->is_nsys ? 0 : (int)reader_int(r, "PRAGMA user_version", 0);
	reader_find_tables(r);
	if (r->is_nsys && reader_check_nsys(r, err, errlen) != 0)
		goto fail;
	reader_find_event_types(r);
	if (reader_prepare_queries(r) != 0) {
		snprintf(err, errlen, "%s", r->err);
		goto fail;
	}
	reader_clock_read_meta(r);
	reader_read_trim(r);
	reader_info_load_chunk_stats(r);
	*out = r;
	return 0;
fail:
	db_reader_close(r);
	return -1;
}

void db_reader_close(struct db_reader *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->st_kernel_window);
	sqlite3_finalize(r->st_kernel_new);
	sqlite3_finalize(r->st_chunk_new);
	sqlite3_finalize(r->st_next_device);
	sqlite3_finalize(r->st_chunk_walk);
	sqlite3_finalize(r->st_kernel_stats);
	sqlite3_finalize(r->st_chunk_stats);
	sqlite3_finalize(r->st_meta);
	sqlite3_close(r->db);
	for (size_t i = 0; i < r->names_by_id.cap; i++)
		if (r->names_by_id.e[i].val != U64MAP_NONE)
			free((void *)(uintptr_t)r->names_by_id.e[i].val);
	u64map_free(&r->names_by_id);
	u64map_free(&r->short_by_ptr);
	strmap_free(&r->text);
	reader_info_free(r);
	free(r->blocks);
	free(r->kernel_cols);
	free(r->path);
	free(r);
}

const char *db_reader_error(const struct db_reader *r)
{
	return r->err;
}

/* ---- kernels ---- */

static const char *reader_string_id(struct db_reader *r, int64_t id)
{
	sqlite3_stmt *st;
	const char *v = NULL;

	if (sqlite3_prepare_v2(r->db, "SELECT value FROM StringIds WHERE id=?1", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = reader_text(r, sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static const struct kernel_names *reader_kernel_names(struct db_reader *r, int64_t mangled,
							int64_t demangled, int64_t short_id)
{
	const struct kernel_names *hit = reader_ptr_get(&r->names_by_id, (uint64_t)mangled);
	struct kernel_names *n;

	if (hit)
		return hit;
	if (!(n = calloc(1, sizeof *n)))
		return NULL;
	n->mangled = reader_string_id(r, mangled);
	n->demangled = reader_string_id(r, demangled);
	n->short_name = reader_string_id(r, short_id);
	if (!n->mangled)
		n->mangled = n->demangled ? n->demangled : "<unknown>";
	if (!n->short_name)
		n->short_name = n->demangled ? n->demangled : n->mangled;
	if (reader_ptr_put(&r->names_by_id, (uint64_t)mangled, n) != 0 ||
	    reader_ptr_put(&r->short_by_ptr, (uintptr_t)n->mangled, n->short_name) != 0) {
		free(n);
		return NULL;
	}
	return n;
}

const char *db_reader_short_name(struct db_reader *r, const char *name)
{
	const char *s = reader_ptr_get(&r->short_by_ptr, (uintptr_t)name);
	const char *own;

	/* a copy of one of ours (stored episodes own their names): found by its text */
	if (!s && name && (own = strmap_find(&r->text, name)) && own != name)
		s = reader_ptr_get(&r->short_by_ptr, (uintptr_t)own);
	return s ? s : name;
}

/* Fills k from a row of kernel_cols; -1 on ENOMEM. */
static int reader_kernel_row(struct db_reader *r, sqlite3_stmt *st, struct smtop_kernel *k)
{
	const struct kernel_names *names = reader_kernel_names(r, sqlite3_column_int64(st, 8),
		sqlite3_column_int64(st, 9), sqlite3_column_int64(st, 10));

	if (!names)
		return -1;
	memset(k, 0, sizeof *k);
	k->start = (uint64_t)sqlite3_column_int64(st, 1);
	k->end = (uint64_t)sqlite3_column_int64(st, 2);
	k->device_id = (uint32_t)sqlite3_column_int64(st, 3);
	k->context_id = (uint32_t)sqlite3_column_int64(st, 4);
	k->stream_id = (uint32_t)sqlite3_column_int64(st, 5);
	k->correlation_id = (uint32_t)sqlite3_column_int64(st, 6);
	k->pid = reader_pid_of(sqlite3_column_int64(st, 7));
	k->name = names->mangled;
	k->launch_type = sqlite3_column_int(st, 11);
	k->registers = (uint32_t)sqlite3_column_int64(st, 12);
	for (int i = 0; i < 3; i++) {
		k->grid[i] = sqlite3_column_int(st, 13 + i);
		k->block[i] = sqlite3_column_int(st, 16 + i);
	}
	k->static_smem = (uint32_t)sqlite3_column_int64(st, 19);
	k->dynamic_smem = (uint32_t)sqlite3_column_int64(st, 20);
	k->local_mem = (uint32_t)sqlite3_column_int64(st, 21);
	k->grid_id = (uint64_t)sqlite3_column_int64(st, 22);
	k->queued = (uint64_t)sqlite3_column_int64(st, 23);
	k->submitted = (uint64_t)sqlite3_column_int64(st, 24);
	if (k->queued < r->trimmed_from)
		k->queued = 0;
	if (k->submitted < r->trimmed_from)
		k->submitted = 0;
	k->is_graph = sqlite3_column_int(st, 25) != 0;
	k->graph_node_id = (uint64_t)sqlite3_column_int64(st, 26);
	return 0;
}

/* Steps st, handing rows to fn; tracks the last rowid in *wm when given. */
static int reader_walk_kernels(struct db_reader *r, sqlite3_stmt *st, int64_t *wm,
			       db_kernel_fn fn, void *ud)
{
	struct smtop_kernel k;
	int rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (reader_kernel_row(r, st, &k) != 0) {
			snprintf(r->err, sizeof r->err, "%s: out of memory", r->path);
			ret = -1;
			break;
		}
		if (wm)
			*wm = sqlite3_column_int64(st, 0);
		if (fn(ud, &k) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = reader_fail(r, "cannot read kernels");
	sqlite3_reset(st);
	return ret;
}

int db_reader_kernels(struct db_reader *r, uint64_t t0, uint64_t t1, db_kernel_fn fn, void *ud)
{
	sqlite3_stmt *st = r->st_kernel_window;

	if (!r->has_kernel || t1 <= t0)
		return 0;
	reader_info_update_stats(r);
	sqlite3_bind_int64(st, 1, reader_bind_time(t0));
	sqlite3_bind_int64(st, 2, reader_bind_time(t1));
	sqlite3_bind_int64(st, 3, reader_sat_sub(t0, r->kernel_max_dur));
	return reader_walk_kernels(r, st, NULL, fn, ud);
}

int db_reader_unstarted_kernels(struct db_reader *r, db_kernel_fn fn, void *ud)
{
	char sql[1600];
	sqlite3_stmt *st = NULL;
	int rc;

	if (!r->has_kernel)
		return 0;
	snprintf(sql, sizeof sql, "SELECT %s FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start = 0 ORDER BY rowid",
		 r->kernel_cols);
	if (reader_prepare(r, sql, &st) != 0)
		return -1;
	rc = reader_walk_kernels(r, st, NULL, fn, ud);
	sqlite3_finalize(st);
	return rc;
}

int db_reader_new_kernels(struct db_reader *r, int64_t *watermark, db_kernel_fn fn, void *ud)
{
	return db_reader_new_kernels_max(r, watermark, -1, fn, ud);
}

int db_reader_new_kernels_max(struct db_reader *r, int64_t *watermark, int64_t max,
			      db_kernel_fn fn, void *ud)
{
	if (!r->has_kernel)
		return 0;
	sqlite3_bind_int64(r->st_kernel_new, 1, *watermark);
	sqlite3_bind_int64(r->st_kernel_new, 2, max); /* negative: no limit */
	return reader_walk_kernels(r, r->st_kernel_new, watermark, fn, ud);
}

/* ---- blocks ---- */

/* Decodes one chunk row and hands its blocks overlapping [t0, t1) on CUPTI
 * time to fn.  Returns 1 when fn asked to stop, -1 on damage. */
static int reader_emit_chunk(struct db_reader *r, sqlite3_stmt *st, uint64_t t0, uint64_t t1,
			     db_block_fn fn, void *ud)
{
	long n = db_blockcodec_decode(sqlite3_column_blob(st, 5), (size_t)sqlite3_column_bytes(st, 5),
		(uint16_t)sqlite3_column_int(st, 4), (uint16_t)sqlite3_column_int(st, 2),
		r->blocks, DB_BLOCKCODEC_MAX_BLOCKS);
	uint32_t pid = reader_pid_of(sqlite3_column_int64(st, 1));
	uint32_t ctx = (uint32_t)sqlite3_column_int64(st, 3);
	const struct gpu_clock *clock = reader_clock_of(r, sqlite3_column_int64(st, 2));

	if (n < 0) {
		snprintf(r->err, sizeof r->err, "%s: block chunk %lld is damaged", r->path,
			 (long long)sqlite3_column_int64(st, 0));
		return -1;
	}
	for (long i = 0; i < n; i++) {
		struct smtop_block *b = &r->blocks[i];

		b->start = gpu_clock_cupti(clock, b->start);
		b->end = gpu_clock_cupti(clock, b->end);
		if (b->start < t1 && b->end > t0 && fn(ud, b, pid, ctx) != 0)
			return 1;
	}
	return 0;
}

static int reader_walk_chunks(struct db_reader *r, sqlite3_stmt *st, int64_t *wm, uint64_t t0,
			      uint64_t t1, db_block_fn fn, void *ud)
{
	int rc, stop = 0;

	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((stop = reader_emit_chunk(r, st, t0, t1, fn, ud)) < 0)
			break;
		if (wm)
			*wm = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	if (stop < 0)
		return -1;
	if (!stop && rc != SQLITE_DONE)
		return reader_fail(r, "cannot read blocks");
	return stop;
}

/* CUPTI time t on the %globaltimer clock, clamped to int64 (a window may
 * reach UINT64_MAX and a damaged file may hold any offset).  The drift is
 * read at t - offset: off by drift squared times the distance, nothing. */
static int64_t globaltimer_of(uint64_t t, const struct gpu_clock *c)
{
	int64_t offset = c->offset_ns, g;

	if (c->drift_ppb) {
		double d = ((double)reader_bind_time(t) - (double)c->offset_ns - (double)c->ref_ns) *
			   (double)c->drift_ppb * 1e-9;

		if (__builtin_add_overflow(offset, (int64_t)d, &offset))
			offset = d > 0 ? INT64_MAX : INT64_MIN;
	}
	if (__builtin_sub_overflow(reader_bind_time(t), offset, &g))
		return offset > 0 ? INT64_MIN : INT64_MAX;
	return g;
}

/* The chunks of device dev that can hold blocks of [t0, t1) on CUPTI time
 * start in [*lo, *g1) on its globaltimer clock and end after *g0. */
static void reader_chunk_range(struct db_reader *r, int64_t dev, uint64_t t0, uint64_t t1,
			       int64_t *lo, int64_t *g0, int64_t *g1)
{
	int64_t span = r->chunk_max_span > INT64_MAX ? INT64_MAX : (int64_t)r->chunk_max_span;

	*g0 = globaltimer_of(t0, reader_clock_of(r, dev));
	*g1 = globaltimer_of(t1, reader_clock_of(r, dev));
	if (__builtin_sub_overflow(*g0, span, lo))
		*lo = INT64_MIN;
}

/* The lowest device id above `after` that has chunks: 1 and *dev, or 0. */
int reader_next_device(struct db_reader *r, int64_t after, int64_t *dev)
{
	sqlite3_stmt *nd = r->st_next_device;
	int found;

	sqlite3_bind_int64(nd, 1, after);
	found = sqlite3_step(nd) == SQLITE_ROW && sqlite3_column_type(nd, 0) != SQLITE_NULL;
	if (found)
		*dev = sqlite3_column_int64(nd, 0);
	sqlite3_reset(nd);
	return found;
}

/* One walk with no bound on the chunks a call: one index range per device. */
int db_reader_blocks(struct db_reader *r, uint64_t t0, uint64_t t1, db_block_fn fn, void *ud)
{
	struct db_block_walk w;
	int rc;

	db_reader_walk_begin(&w, t0, t1);
	while ((rc = db_reader_walk_blocks(r, &w, SIZE_MAX, fn, ud)) > 0)
		;
	return rc;
}

void db_reader_walk_begin(struct db_block_walk *w, uint64_t t0, uint64_t t1)
{
	memset(w, 0, sizeof *w);
	w->t0 = t0;
	w->t1 = t1;
	w->device = -1;
	w->start = w->id = INT64_MIN;
	w->done = t1 <= t0;
}

/* Up to n chunks of the walk's device after its last one; the count read. */
static long reader_walk_page(struct db_reader *r, struct db_block_walk *w, int64_t lo, int64_t g0,
			     int64_t g1, size_t n, db_block_fn fn, void *ud)
{
	sqlite3_stmt *st = r->st_chunk_walk;
	long got = 0;
	int rc, stop = 0;

	sqlite3_bind_int64(st, 1, w->device);
	/* from the last chunk on: the index seeks there, not to lo again */
	sqlite3_bind_int64(st, 2, w->start > lo ? w->start : lo);
	sqlite3_bind_int64(st, 3, g1);
	sqlite3_bind_int64(st, 4, g0);
	sqlite3_bind_int64(st, 5, w->start);
	sqlite3_bind_int64(st, 6, w->id);
	sqlite3_bind_int64(st, 7, (int64_t)n);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((stop = reader_emit_chunk(r, st, w->t0, w->t1, fn, ud)) < 0)
			break;
		w->id = sqlite3_column_int64(st, 0);
		w->start = sqlite3_column_int64(st, 6);
		got++;
	}
	sqlite3_reset(st);
	if (stop < 0)
		return -1;
	if (!stop && rc != SQLITE_DONE)
		return reader_fail(r, "cannot read blocks");
	if (stop)
		w->done = 1;
	return got;
}

int db_reader_walk_blocks(struct db_reader *r, struct db_block_walk *w, size_t max_chunks,
			  db_block_fn fn, void *ud)
{
	size_t left = max_chunks ? max_chunks : 1;

	if (w->done || !r->has_chunk)
		return 0;
	if (w->device < 0) { /* the first call: the clock, once */
		reader_clock_update(r);
		reader_info_update_stats(r);
		if (!reader_next_device(r, -1, &w->device)) {
			w->done = 1;
			return 0;
		}
		reader_chunk_range(r, w->device, w->t0, w->t1, &w->lo, &w->g0, &w->g1);
	}
	while (left > 0 && !w->done) {
		long got = reader_walk_page(r, w, w->lo, w->g0, w->g1, left, fn, ud);

		if (got < 0)
			return -1;
		left -= (size_t)got;
		if (left > 0 && !w->done) { /* this device is through: the next one */
			w->start = w->id = INT64_MIN;
			if (!reader_next_device(r, w->device, &w->device))
				w->done = 1;
			else
				reader_chunk_range(r, w->device, w->t0, w->t1, &w->lo, &w->g0, &w->g1);
		}
	}
	return !w->done;
}

int db_reader_new_blocks(struct db_reader *r, int64_t *watermark, db_block_fn fn, void *ud)
{
	if (!r->has_chunk)
		return 0;
	reader_clock_update(r);
	sqlite3_bind_int64(r->st_chunk_new, 1, *watermark);
	return reader_walk_chunks(r, r->st_chunk_new, watermark, 0, UINT64_MAX, fn, ud) < 0 ? -1 : 0;
}

int db_reader_new_chunks(struct db_reader *r, int64_t *watermark, db_chunk_fn fn, void *ud)
{
	sqlite3_stmt *st = r->st_chunk_new;
	int rc, stop = 0;

	if (!r->has_chunk)
		return 0;
	reader_clock_update(r);
	sqlite3_bind_int64(st, 1, *watermark);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_chunk c = {
			.id = sqlite3_column_int64(st, 0),
			.pid = reader_pid_of(sqlite3_column_int64(st, 1)),
			.device_id = (uint16_t)sqlite3_column_int(st, 2),
			.context_id = (uint32_t)sqlite3_column_int64(st, 3),
			.sm = (uint16_t)sqlite3_column_int(st, 4),
			.clock = *reader_clock_of(r, sqlite3_column_int(st, 2)),
			.data = sqlite3_column_blob(st, 5),
			.len = (size_t)sqlite3_column_bytes(st, 5),
		};
		uint64_t base;

		if (!c.data || db_blockcodec_header(c.data, c.len, &c.count, &base) != 0) {
			snprintf(r->err, sizeof r->err, "%s: block chunk %lld is damaged", r->path,
				 (long long)c.id);
			sqlite3_reset(st);
			return -1;
		}
		stop = fn(ud, &c);
		*watermark = c.id;
	}
	sqlite3_reset(st);
	if (!stop && rc != SQLITE_DONE)
		return reader_fail(r, "cannot read blocks");
	return 0;
}
