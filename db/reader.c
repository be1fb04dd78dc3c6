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
#include "db/schema.h"
#include "src/core/gpu_clock.h"
#include "src/core/strmap.h"
#include "src/core/u64map.h"

/* Estimating the clock when the session has none stored: chunks per sample,
 * samples spread over the session, the shortest base a drift is read over,
 * the fastest drift believed (1000 ppm; the H200 showed 2-13) and the room
 * left around the predicted kernel starts. */
#define OFFSET_SAMPLE_CHUNKS 64
#define CLOCK_WINDOWS GPU_CLOCK_MAX_SAMPLES
#define CLOCK_MIN_BASE_NS GPU_CLOCK_MIN_BASE_NS
#define CLOCK_MAX_DRIFT GPU_CLOCK_MAX_DRIFT
#define CLOCK_MARGIN_NS 10000000ull
#define NS_PER_S 1000000000ll
/* Devices with a clock of their own (each GPU has its own %globaltimer: two
 * H200s of one host were 79 us apart); blocks of a device past these use
 * the session's clock. */
#define READER_CLOCK_DEVICES 64
enum { CLOCK_NONE, CLOCK_ESTIMATED, CLOCK_STORED };

/* Names of one kernel, by the StringIds id of its mangled name. */
struct kernel_names {
	const char *mangled, *demangled, *short_name;
};

/* Strings handed out by db_reader_info, replaced at each call. */
struct info_arena {
	struct strmap strings;
	struct smtop_device *devices;
	struct db_process_info *processes;
	struct db_device_clock clocks[READER_CLOCK_DEVICES];
};

struct db_reader {
	sqlite3 *db;
	char *path;
	int is_nsys, schema_version;
	int has_kernel, has_chunk, has_stream, has_nvtx, has_request, has_gpu, has_ctx;
	int has_process, has_nsys_processes, has_meta, has_memcpy, has_memset, has_runtime;
	int has_cuda_device, has_cuda_gpu, has_null_stream;
	int ops_memcpy, ops_memset, ops_sync, ops_api, ops_cuda_event, ops_graph_dep; /* readable for db_reader_new_* */
	const char *export_meta;     /* META_DATA_EXPORT, or EXPORT_META_DATA (3.0); NULL before 3.0 */
	int nvtx_mark, nvtx_push_pop, nvtx_start_end, nvtx_domain; /* NVTX eventType ids */
	char *kernel_cols;           /* SELECT list for kernels, per file kind */
	sqlite3_stmt *st_kernel_window, *st_kernel_new, *st_chunk_new;
	sqlite3_stmt *st_next_device, *st_chunk_walk;
	/* the running figures (reader_update_stats), prepared once: a walk of
	 * blocks asks for them, and an export walks thousands of windows */
	sqlite3_stmt *st_kernel_stats, *st_chunk_stats, *st_meta;
	struct gpu_clock clock;       /* the first device's with blocks, and the fallback */
	int clock_known, clock_from_meta;
	uint64_t trimmed_from;       /* a trimmed session holds what happened from here on */
	struct gpu_clock dev_clock[READER_CLOCK_DEVICES];
	unsigned char dev_clock_kind[READER_CLOCK_DEVICES]; /* CLOCK_NONE, _ESTIMATED, _STORED */
	uint64_t dev_min_start[READER_CLOCK_DEVICES], dev_max_end[READER_CLOCK_DEVICES];
	int64_t offset_tried_at;     /* chunk rowid of the last estimate attempt */
	unsigned offset_estimates;   /* attempts so far */
	/* Running maxima over rows up to a rowid, so info and window queries stay cheap. */
	int64_t kernel_wm, chunk_wm;
	uint64_t kernel_max_dur, kernel_max_end;
	uint64_t chunk_blocks, chunk_min_start, chunk_max_end, chunk_max_span;
	struct smtop_block *blocks;
	struct strmap text;        /* every string handed out */
	struct u64map names_by_id;    /* mangled-name id -> struct kernel_names */
	struct u64map short_by_ptr;   /* mangled pointer -> short name */
	struct info_arena info;
	char err[512];
};

/* A map's value as the pointer it was stored as, or NULL. */
static const void *ptr_get(const struct u64map *m, uint64_t key)
{
	const uint64_t *v = u64map_get(m, key);

	return v ? (const void *)(uintptr_t)*v : NULL;
}

static int ptr_put(struct u64map *m, uint64_t key, const void *p)
{
	return u64map_put(m, key, (uintptr_t)p);
}

static int reader_fail(struct db_reader *r, const char *what)
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
static int64_t reader_int(struct db_reader *r, const char *sql, int64_t arg)
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

static int reader_has_column(struct db_reader *r, const char *table, const char *col)
{
	char sql[200];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name='%s'",
		 table, col);
	return reader_int(r, sql, 0) > 0;
}

static const char *reader_text(struct db_reader *r, const unsigned char *s)
{
	return s ? strmap_intern(&r->text, (const char *)s) : NULL;
}

/* Meta value as text, interned; NULL if absent. */
/* Prepared once: a session without a stored clock is asked for it at
 * every walk of blocks. */
static const char *reader_meta(struct db_reader *r, const char *key)
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
static const char *reader_export_meta(struct db_reader *r, const char *name,
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
static const char *col_or(struct db_reader *r, const char *table, const char *col,
			  const char *fallback)
{
	return reader_has_column(r, table, col) ? col : fallback;
}

/* Column expression: col if the table has it, else fallback. */
static const char *kcol(struct db_reader *r, const char *col, const char *fallback)
{
	return col_or(r, "CUPTI_ACTIVITY_KIND_KERNEL", col, fallback);
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

/* The clock stored under the keys clock_offset_ns, clock_ref_ns and
 * clock_drift_ppb plus suffix (".D" for device D); 0 if there is none.
 * clock_ref_ns and clock_drift_ppb came with the drift; sessions from before
 * hold clock_offset_ns alone. */
static int reader_meta_clock(struct db_reader *r, const char *suffix, struct gpu_clock *c)
{
	char key[48];
	const char *v;

	snprintf(key, sizeof key, "clock_offset_ns%s", suffix);
	if (!(v = reader_meta(r, key)) || !*v)
		return 0;
	c->offset_ns = strtoll(v, NULL, 10);
	snprintf(key, sizeof key, "clock_ref_ns%s", suffix);
	c->ref_ns = (v = reader_meta(r, key)) ? strtoull(v, NULL, 10) : 0;
	snprintf(key, sizeof key, "clock_drift_ppb%s", suffix);
	c->drift_ppb = (v = reader_meta(r, key)) ? strtoll(v, NULL, 10) : 0;
	if (c->drift_ppb > CLOCK_MAX_DRIFT * 1e9 || c->drift_ppb < -CLOCK_MAX_DRIFT * 1e9)
		c->drift_ppb = 0;
	return 1;
}

static int reader_next_device(struct db_reader *r, int64_t after, int64_t *dev);

/* The stored clocks: the plain keys are the first device's with blocks (and
 * every device's in a session of one GPU, or one written before devices had
 * clocks of their own), ".D" keys the other devices'.  Settled once every
 * device with blocks has its own; a device without is estimated. */
static void reader_read_meta_offset(struct db_reader *r)
{
	char suffix[24];
	int64_t dev = -1;
	int first = 1, missing = 0;

	if (!reader_meta_clock(r, "", &r->clock))
		return;
	r->clock_known = 1;
	while (r->has_chunk && reader_next_device(r, dev, &dev)) {
		int own;

		if (dev >= READER_CLOCK_DEVICES)
			break;
		snprintf(suffix, sizeof suffix, ".%lld", (long long)dev);
		own = reader_meta_clock(r, suffix, &r->dev_clock[dev]);
		if (!own && first)
			r->dev_clock[dev] = r->clock;
		if (own || first)
			r->dev_clock_kind[dev] = CLOCK_STORED;
		else
			missing = 1;
		first = 0;
	}
	r->clock_from_meta = !missing;
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

static void reader_load_chunk_stats(struct db_reader *r);

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
	reader_read_meta_offset(r);
	reader_read_trim(r);
	reader_load_chunk_stats(r);
	*out = r;
	return 0;
fail:
	db_reader_close(r);
	return -1;
}

static void reader_free_info(struct db_reader *r)
{
	strmap_free(&r->info.strings);
	free(r->info.devices);
	free(r->info.processes);
	memset(&r->info, 0, sizeof r->info);
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
	reader_free_info(r);
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
	const struct kernel_names *hit = ptr_get(&r->names_by_id, (uint64_t)mangled);
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
	if (ptr_put(&r->names_by_id, (uint64_t)mangled, n) != 0 ||
	    ptr_put(&r->short_by_ptr, (uintptr_t)n->mangled, n->short_name) != 0) {
		free(n);
		return NULL;
	}
	return n;
}

const char *db_reader_short_name(struct db_reader *r, const char *name)
{
	const char *s = ptr_get(&r->short_by_ptr, (uintptr_t)name);
	const char *own;

	/* a copy of one of ours (stored episodes own their names): found by its text */
	if (!s && name && (own = strmap_find(&r->text, name)) && own != name)
		s = ptr_get(&r->short_by_ptr, (uintptr_t)own);
	return s ? s : name;
}

static uint32_t pid_of(int64_t global)
{
	return (uint32_t)((uint64_t)global >> 24 & 0xffffff);
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
	k->pid = pid_of(sqlite3_column_int64(st, 7));
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

/* Folds rows stored since the last call into the running maxima. */
/* [*lo, *hi) grown to hold [lo, hi); *lo 0 means empty. */
static void reader_widen(uint64_t *lo_io, uint64_t *hi_io, uint64_t lo, uint64_t hi)
{
	if (!*lo_io || lo < *lo_io)
		*lo_io = lo;
	*hi_io = hi > *hi_io ? hi : *hi_io;
}

/* *st prepared once (sql on r's connection); NULL when it cannot be. */
static sqlite3_stmt *reader_stats_stmt(struct db_reader *r, sqlite3_stmt **st, const char *sql)
{
	if (!*st && sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return *st;
}

static void reader_update_stats(struct db_reader *r)
{
	sqlite3_stmt *st;

	if (r->has_kernel && (st = reader_stats_stmt(r, &r->st_kernel_stats,
	    "SELECT max(rowid), max(end - start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL"
	    " WHERE rowid > ?1"))) {
		sqlite3_bind_int64(st, 1, r->kernel_wm);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			uint64_t dur = (uint64_t)sqlite3_column_int64(st, 1);
			uint64_t end = (uint64_t)sqlite3_column_int64(st, 2);

			r->kernel_wm = sqlite3_column_int64(st, 0);
			r->kernel_max_dur = dur > r->kernel_max_dur ? dur : r->kernel_max_dur;
			r->kernel_max_end = end > r->kernel_max_end ? end : r->kernel_max_end;
		}
		sqlite3_reset(st);
	}
	if (r->has_chunk && (st = reader_stats_stmt(r, &r->st_chunk_stats,
	    "SELECT max(id), sum(count), min(start), max(end), max(end - start), deviceId"
	    " FROM smtop_block_chunk WHERE id > ?1 GROUP BY deviceId"))) {
		int64_t wm = r->chunk_wm;

		sqlite3_bind_int64(st, 1, r->chunk_wm);
		while (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			int64_t id = sqlite3_column_int64(st, 0), dev = sqlite3_column_int64(st, 5);
			uint64_t lo = (uint64_t)sqlite3_column_int64(st, 2);
			uint64_t hi = (uint64_t)sqlite3_column_int64(st, 3);
			uint64_t span = (uint64_t)sqlite3_column_int64(st, 4);

			wm = id > wm ? id : wm;
			r->chunk_blocks += (uint64_t)sqlite3_column_int64(st, 1);
			reader_widen(&r->chunk_min_start, &r->chunk_max_end, lo, hi);
			if (dev >= 0 && dev < READER_CLOCK_DEVICES)
				reader_widen(&r->dev_min_start[dev], &r->dev_max_end[dev], lo, hi);
			r->chunk_max_span = span > r->chunk_max_span ? span : r->chunk_max_span;
		}
		r->chunk_wm = wm;
		sqlite3_reset(st);
	}
}

/* The chunk and kernel tables' running figures as text, for smtop_meta key
 * chunk_stats: "2 WM ROWS BLOCKS MIN MAX SPAN KWM KROWS KDUR KEND" then
 * "DEV LO HI" per device. */
int db_reader_chunk_stats(struct db_reader *r, char *buf, size_t len)
{
	if (!r->has_chunk || r->is_nsys)
		return -1;
	reader_update_stats(r);
	int64_t rows = reader_int(r, "SELECT count(*) FROM smtop_block_chunk", 0);
	int64_t krows = r->has_kernel ? reader_int(r, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0) : 0;
	int n = snprintf(buf, len, "2 %lld %lld %llu %llu %llu %llu %lld %lld %llu %llu",
			 (long long)r->chunk_wm, (long long)rows, (unsigned long long)r->chunk_blocks,
			 (unsigned long long)r->chunk_min_start, (unsigned long long)r->chunk_max_end,
			 (unsigned long long)r->chunk_max_span, (long long)r->kernel_wm,
			 (long long)krows, (unsigned long long)r->kernel_max_dur,
			 (unsigned long long)r->kernel_max_end);
	for (int d = 0; d < READER_CLOCK_DEVICES && n > 0 && (size_t)n < len; d++)
		if (r->dev_min_start[d])
			n += snprintf(buf + n, len - (size_t)n, " %d %llu %llu", d,
				      (unsigned long long)r->dev_min_start[d],
				      (unsigned long long)r->dev_max_end[d]);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static int reader_parse_devices(struct db_reader *r, const char *p)
{
	int d, used;
	unsigned long long lo, hi;
	while (sscanf(p, " %d %llu %llu%n", &d, &lo, &hi, &used) == 3) {
		if (d < 0 || d >= READER_CLOCK_DEVICES || !lo || hi < lo)
			return -1;
		r->dev_min_start[d] = lo;
		r->dev_max_end[d] = hi;
		p += used;
	}
	return *p ? -1 : 0;
}

/* A finished session's figures need every chunk row (a page each) and
 * every kernel row: the stored ones serve while the tables hold exactly
 * the rows they counted (max(id) and count(*), both read from an index).  Anything else, and
 * the rows are counted as before. */
static void reader_load_chunk_stats(struct db_reader *r)
{
	sqlite3_stmt *st;
	char v[4096] = "";
	if (!r->has_chunk || r->is_nsys ||
	    sqlite3_prepare_v2(r->db, "SELECT value FROM smtop_meta WHERE key = 'chunk_stats'", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(v, sizeof v, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	long long wm, rows, kwm, krows;
	unsigned long long blocks, lo, hi, span, kdur, kend;
	int used;
	if (sscanf(v, "2 %lld %lld %llu %llu %llu %llu %lld %lld %llu %llu%n", &wm, &rows, &blocks,
		   &lo, &hi, &span, &kwm, &krows, &kdur, &kend, &used) != 10 ||
	    wm != reader_int(r, "SELECT max(id) FROM smtop_block_chunk", 0) ||
	    rows != reader_int(r, "SELECT count(*) FROM smtop_block_chunk", 0) ||
	    (r->has_kernel &&
	     (kwm != reader_int(r, "SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0) ||
	      krows != reader_int(r, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0))))
		return;
	uint64_t dlo[READER_CLOCK_DEVICES], dhi[READER_CLOCK_DEVICES];
	memcpy(dlo, r->dev_min_start, sizeof dlo);
	memcpy(dhi, r->dev_max_end, sizeof dhi);
	if (reader_parse_devices(r, v + used) != 0) {
		memcpy(r->dev_min_start, dlo, sizeof dlo);
		memcpy(r->dev_max_end, dhi, sizeof dhi);
		return;
	}
	r->chunk_wm = wm;
	if (r->has_kernel) {
		r->kernel_wm = kwm;
		r->kernel_max_dur = kdur;
		r->kernel_max_end = kend;
	}
	r->chunk_blocks = blocks;
	r->chunk_min_start = lo;
	r->chunk_max_end = hi;
	r->chunk_max_span = span;
}

static int64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? (int64_t)(a - b) : 0;
}

/* A time bound as SQLite's signed integer: UINT64_MAX ("to the end") must
 * not wrap to -1. */
static int64_t bind_time(uint64_t t)
{
	return t > INT64_MAX ? INT64_MAX : (int64_t)t;
}

int db_reader_kernels(struct db_reader *r, uint64_t t0, uint64_t t1, db_kernel_fn fn, void *ud)
{
	sqlite3_stmt *st = r->st_kernel_window;

	if (!r->has_kernel || t1 <= t0)
		return 0;
	reader_update_stats(r);
	sqlite3_bind_int64(st, 1, bind_time(t0));
	sqlite3_bind_int64(st, 2, bind_time(t1));
	sqlite3_bind_int64(st, 3, sat_sub(t0, r->kernel_max_dur));
	return reader_walk_kernels(r, st, NULL, fn, ud);
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

/* ---- clock ---- */

struct grid_first {
	int64_t global_pid;
	uint64_t grid, start;
};

static int grid_first_cmp(const void *pa, const void *pb)
{
	const struct grid_first *a = pa, *b = pb;

	if (a->global_pid != b->global_pid)
		return a->global_pid < b->global_pid ? -1 : 1;
	if (a->grid != b->grid)
		return a->grid < b->grid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int int64_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The start of block 0 of each (process, grid) among the OFFSET_SAMPLE_CHUNKS
 * chunks of device dev that start at globaltimer time `from` or later, sorted.  Block 0 is
 * dispatched first, so it stands for the grid's first block; a grid whose
 * block 0 lies outside the sample is left out, not taken for one that
 * started late (a window in mid-session cuts through running grids). */
static size_t offset_block0s(struct db_reader *r, int64_t dev, uint64_t from,
			     struct grid_first **out)
{
	sqlite3_stmt *st;
	struct grid_first *all = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	/* the ids from the (deviceId, start) index first: sorting whole rows
	 * would read every chunk's blob */
	if (sqlite3_prepare_v2(r->db, "SELECT globalPid, deviceId, sm, data FROM smtop_block_chunk"
			       " WHERE id IN (SELECT id FROM smtop_block_chunk WHERE deviceId = ?3"
			       " AND start >= ?2 ORDER BY start LIMIT ?1)", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int(st, 1, OFFSET_SAMPLE_CHUNKS);
	sqlite3_bind_int64(st, 2, bind_time(from));
	sqlite3_bind_int64(st, 3, dev);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long got = db_blockcodec_decode(sqlite3_column_blob(st, 3),
			(size_t)sqlite3_column_bytes(st, 3), (uint16_t)sqlite3_column_int(st, 2),
			(uint16_t)sqlite3_column_int(st, 1), r->blocks, DB_BLOCKCODEC_MAX_BLOCKS);

		for (long i = 0; i < got; i++) {
			if (r->blocks[i].block != 0)
				continue;
			if (n == cap) {
				struct grid_first *p = realloc(all, (cap = cap ? cap * 2 : 1024) * sizeof *p);

				if (!p)
					goto done;
				all = p;
			}
			all[n++] = (struct grid_first){ sqlite3_column_int64(st, 0),
							r->blocks[i].grid_id, r->blocks[i].start };
		}
	}
done:
	sqlite3_finalize(st);
	if (n)
		qsort(all, n, sizeof *all, grid_first_cmp);
	*out = all;
	return n;
}

/* The entry of (pid, grid) in firsts, sorted by grid_first_cmp; NULL if absent. */
static const struct grid_first *find_grid(const struct grid_first *firsts, size_t n,
					  int64_t global_pid, uint64_t grid)
{
	struct grid_first key = { global_pid, grid, 0 };
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (grid_first_cmp(&firsts[m], &key) < 0)
			a = m + 1;
		else
			b = m;
	}
	if (a < n && firsts[a].global_pid == global_pid && firsts[a].grid == grid)
		return &firsts[a];
	return NULL;
}

/* The sample from device dev's chunks starting at `from`: its kernels are
 * looked up within `margin` of where `guess` puts them on CUPTI's clock. */
static int offset_window(struct db_reader *r, int64_t dev, uint64_t from, const struct gpu_clock *guess,
			 uint64_t margin, struct gpu_clock_sample *pt)
{
	struct grid_first *firsts;
	size_t n = offset_block0s(r, dev, from, &firsts), nd = 0;
	int64_t *diffs = n ? malloc(n * sizeof *diffs) : NULL;
	double gsum = 0;
	sqlite3_stmt *st;

	if (!diffs) {
		free(firsts);
		return 0;
	}
	uint64_t lo = gpu_clock_cupti(guess, firsts[0].start), hi = lo;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = gpu_clock_cupti(guess, firsts[i].start);

		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	if (sqlite3_prepare_v2(r->db, "SELECT globalPid, gridId, start FROM CUPTI_ACTIVITY_KIND_KERNEL"
			       " WHERE start >= ?1 AND start < ?2 AND deviceId = ?3", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, sat_sub(lo, margin));
		sqlite3_bind_int64(st, 2, bind_time(hi + margin));
		sqlite3_bind_int64(st, 3, dev);
		while (sqlite3_step(st) == SQLITE_ROW && nd < n) {
			const struct grid_first *hit = find_grid(firsts, n, sqlite3_column_int64(st, 0),
				(uint64_t)sqlite3_column_int64(st, 1));

			if (hit && !__builtin_sub_overflow(sqlite3_column_int64(st, 2), (int64_t)hit->start,
							   &diffs[nd])) {
				nd++;
				gsum += (double)hit->start;
			}
		}
		sqlite3_finalize(st);
	}
	if (nd) {
		qsort(diffs, nd, sizeof *diffs, int64_cmp);
		pt->diff = diffs[nd / 2];
		pt->g = gsum / (double)nd;
	}
	free(diffs);
	free(firsts);
	return nd > 0;
}

/* Samples device dev's clock in CLOCK_WINDOWS windows spread over the
 * blocks' span and fits offset and drift through them.  Until one window has
 * found its kernels (within a second of the blocks), the rest look near where
 * it puts them.  A window may find none: a trimmed session's first chunks can
 * hold only grids whose block 0 was cut away.  0 if no window found any. */
static int reader_estimate_device(struct db_reader *r, int64_t dev, struct gpu_clock *out)
{
	struct gpu_clock_sample pts[CLOCK_WINDOWS];
	struct gpu_clock guess = { 0 };
	uint64_t lo = r->chunk_min_start, span = r->chunk_max_end - r->chunk_min_start;
	int windows = span >= CLOCK_MIN_BASE_NS ? CLOCK_WINDOWS : 1;
	size_t n = 0;

	for (int w = 0; w < windows; w++) {
		uint64_t from = lo + span / (uint64_t)windows * (uint64_t)w;
		uint64_t margin = n ? CLOCK_MARGIN_NS + (uint64_t)((double)(from - lo) * CLOCK_MAX_DRIFT)
				    : (uint64_t)NS_PER_S;

		if (!offset_window(r, dev, from, &guess, margin, &pts[n]))
			continue;
		if (!n)
			guess.offset_ns = pts[0].diff;
		n++;
	}
	if (n)
		gpu_clock_fit(pts, n, out);
	return n > 0;
}

/* Estimates the clock of each device with blocks that has none stored; the
 * session's clock is the first device's found. */
static void reader_estimate_offset(struct db_reader *r)
{
	int64_t dev = -1;
	int session_set = reader_meta(r, "clock_offset_ns") != NULL; /* read with the stored ones */

	while (reader_next_device(r, dev, &dev) && dev < READER_CLOCK_DEVICES) {
		if (r->dev_clock_kind[dev] == CLOCK_STORED ||
		    !reader_estimate_device(r, dev, &r->dev_clock[dev]))
			continue;
		r->dev_clock_kind[dev] = CLOCK_ESTIMATED;
		if (!session_set) {
			r->clock = r->dev_clock[dev];
			r->clock_known = session_set = 1;
		}
	}
}

/* The clock that takes device dev's %globaltimer to CUPTI time. */
static const struct gpu_clock *reader_clock(const struct db_reader *r, int64_t dev)
{
	if (dev >= 0 && dev < READER_CLOCK_DEVICES && r->dev_clock_kind[dev] != CLOCK_NONE)
		return &r->dev_clock[dev];
	return &r->clock;
}

/* Prefers the stored clock (written when the recording ends), else
 * estimates: once per batch of new chunks until an estimate is found, then
 * each time the chunks doubled.  A live file grows by thousands of chunks a
 * second: estimating on every poll kept a live view seconds behind. */
static void reader_update_offset(struct db_reader *r)
{
	if (r->clock_from_meta)
		return;
	reader_read_meta_offset(r);
	if (r->clock_from_meta || !r->has_chunk || !r->has_kernel)
		return;
	reader_update_stats(r);
	if (r->chunk_wm == r->offset_tried_at ||
	    (r->clock_known && r->chunk_wm < 2 * r->offset_tried_at))
		return;
	r->offset_tried_at = r->chunk_wm;
	r->offset_estimates++;
	reader_estimate_offset(r);
}

unsigned db_reader_offset_estimates(const struct db_reader *r)
{
	return r->offset_estimates;
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
	uint32_t pid = pid_of(sqlite3_column_int64(st, 1));
	uint32_t ctx = (uint32_t)sqlite3_column_int64(st, 3);
	const struct gpu_clock *clock = reader_clock(r, sqlite3_column_int64(st, 2));

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
		double d = ((double)bind_time(t) - (double)c->offset_ns - (double)c->ref_ns) *
			   (double)c->drift_ppb * 1e-9;

		if (__builtin_add_overflow(offset, (int64_t)d, &offset))
			offset = d > 0 ? INT64_MAX : INT64_MIN;
	}
	if (__builtin_sub_overflow(bind_time(t), offset, &g))
		return offset > 0 ? INT64_MIN : INT64_MAX;
	return g;
}

/* The chunks of device dev that can hold blocks of [t0, t1) on CUPTI time
 * start in [*lo, *g1) on its globaltimer clock and end after *g0. */
static void reader_chunk_range(struct db_reader *r, int64_t dev, uint64_t t0, uint64_t t1,
			       int64_t *lo, int64_t *g0, int64_t *g1)
{
	int64_t span = r->chunk_max_span > INT64_MAX ? INT64_MAX : (int64_t)r->chunk_max_span;

	*g0 = globaltimer_of(t0, reader_clock(r, dev));
	*g1 = globaltimer_of(t1, reader_clock(r, dev));
	if (__builtin_sub_overflow(*g0, span, lo))
		*lo = INT64_MIN;
}

/* The lowest device id above `after` that has chunks: 1 and *dev, or 0. */
static int reader_next_device(struct db_reader *r, int64_t after, int64_t *dev)
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
		reader_update_offset(r);
		reader_update_stats(r);
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
	reader_update_offset(r);
	sqlite3_bind_int64(r->st_chunk_new, 1, *watermark);
	return reader_walk_chunks(r, r->st_chunk_new, watermark, 0, UINT64_MAX, fn, ud) < 0 ? -1 : 0;
}

int db_reader_new_chunks(struct db_reader *r, int64_t *watermark, db_chunk_fn fn, void *ud)
{
	sqlite3_stmt *st = r->st_chunk_new;
	int rc, stop = 0;

	if (!r->has_chunk)
		return 0;
	reader_update_offset(r);
	sqlite3_bind_int64(st, 1, *watermark);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_chunk c = {
			.id = sqlite3_column_int64(st, 0),
			.pid = pid_of(sqlite3_column_int64(st, 1)),
			.device_id = (uint16_t)sqlite3_column_int(st, 2),
			.context_id = (uint32_t)sqlite3_column_int64(st, 3),
			.sm = (uint16_t)sqlite3_column_int(st, 4),
			.clock = *reader_clock(r, sqlite3_column_int(st, 2)),
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

/* ---- streams, NVTX, requests ---- */

/* The device of a stream: its own column (smtop sessions), else its
 * context's device from the context table (3.x) or from the null-stream
 * table (2020-2022 exports, which have no context table). */
static const char *stream_device(struct db_reader *r)
{
	if (reader_has_column(r, "TARGET_INFO_CUDA_STREAM", "deviceId"))
		return "COALESCE(s.deviceId,0)";
	if (r->has_ctx)
		return "COALESCE((SELECT c.deviceId FROM TARGET_INFO_CUDA_CONTEXT_INFO c"
		       " WHERE c.contextId=s.contextId AND c.processId=s.processId LIMIT 1),0)";
	if (r->has_null_stream)
		return "COALESCE((SELECT n.deviceId FROM TARGET_INFO_CUDA_NULL_STREAM n"
		       " WHERE n.contextId=s.contextId AND n.processId=s.processId LIMIT 1),0)";
	return "0";
}

int db_reader_streams(struct db_reader *r, db_stream_fn fn, void *ud)
{
	const char *t = "TARGET_INFO_CUDA_STREAM";
	char sql[700];
	sqlite3_stmt *st;
	int rc;

	if (!r->has_stream)
		return 0;
	/* no priority column: priorities are unknown, not 0 */
	snprintf(sql, sizeof sql, "SELECT s.processId, %s, s.contextId, s.streamId, %s,"
		 " COALESCE(%s,0), %s FROM TARGET_INFO_CUDA_STREAM s"
		 " ORDER BY s.processId, s.contextId, s.streamId", stream_device(r),
		 col_or(r, t, "priority", "NULL"), col_or(r, t, "flag", "0"),
		 col_or(r, t, "correlationId", "0"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read streams");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct smtop_stream s = {
			.pid = (uint32_t)sqlite3_column_int64(st, 0),
			.device_id = (uint32_t)sqlite3_column_int64(st, 1),
			.context_id = (uint32_t)sqlite3_column_int64(st, 2),
			.stream_id = (uint32_t)sqlite3_column_int64(st, 3),
			/* stored unsigned 32-bit, as nsys does: -5 is 4294967291 */
			.priority = sqlite3_column_type(st, 4) == SQLITE_NULL ? SMTOP_PRIORITY_UNKNOWN
				: (int32_t)(uint32_t)sqlite3_column_int64(st, 4),
			.flags = (uint32_t)sqlite3_column_int64(st, 5),
			.correlation_id = (uint32_t)sqlite3_column_int64(st, 6),
		};
		if (fn(ud, &s) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read streams");
}

int db_reader_contexts(struct db_reader *r, db_context_fn fn, void *ud)
{
	const char *t = "TARGET_INFO_CUDA_CONTEXT_INFO";
	char sql[400];
	sqlite3_stmt *st;
	int rc;

	if (!r->has_ctx)
		return 0;
	snprintf(sql, sizeof sql, "SELECT processId, deviceId, contextId, COALESCE(%s,0), COALESCE(%s,0),"
		 " COALESCE(%s,0) FROM TARGET_INFO_CUDA_CONTEXT_INFO ORDER BY processId, contextId",
		 col_or(r, t, "nullStreamId", "0"), col_or(r, t, "parentContextId", "0"),
		 col_or(r, t, "isGreenContext", "0"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read contexts");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct smtop_context c = {
			.pid = (uint32_t)sqlite3_column_int64(st, 0),
			.device_id = (uint32_t)sqlite3_column_int64(st, 1),
			.context_id = (uint32_t)sqlite3_column_int64(st, 2),
			.null_stream_id = (uint32_t)sqlite3_column_int64(st, 3),
			.parent_context_id = (uint32_t)sqlite3_column_int64(st, 4),
			.is_green = sqlite3_column_int64(st, 5) != 0,
		};
		if (fn(ud, &c) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read contexts");
}

/* An NVTX_EVENTS column qualified as e.col, or fallback where the export
 * lacks it. */
static const char *nvtx_col(struct db_reader *r, const char *col, const char *fallback)
{
	static const char *const known[] = { "end", "globalTid", "color", "text", "domainId", "textId" };
	static const char *const qualified[] = { "e.end", "e.globalTid", "e.color", "e.text",
						 "e.domainId", "e.textId" };

	if (!reader_has_column(r, "NVTX_EVENTS", col))
		return fallback;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(col, known[i]))
			return qualified[i];
	return fallback;
}

/* domainId -> name, from the domain-creation rows (NvtxDomainCreate: the
 * name is in text, or in StringIds through textId). */
static int reader_nvtx_domains(struct db_reader *r, struct u64map *domains)
{
	char sql[400];
	sqlite3_stmt *st;

	snprintf(sql, sizeof sql, "SELECT %s, COALESCE(%s, s.value) FROM NVTX_EVENTS e"
		 " LEFT JOIN StringIds s ON s.id = %s WHERE e.eventType=?1",
		 nvtx_col(r, "domainId", "0"), nvtx_col(r, "text", "NULL"),
		 nvtx_col(r, "textId", "NULL"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read NVTX domains");
	sqlite3_bind_int(st, 1, r->nvtx_domain);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			ptr_put(domains, (uint64_t)sqlite3_column_int64(st, 0),
				   reader_text(r, sqlite3_column_text(st, 1)));
	sqlite3_finalize(st);
	return 0;
}

int db_reader_nvtx(struct db_reader *r, uint64_t t0, uint64_t t1, db_nvtx_fn fn, void *ud)
{
	struct u64map domains = { 0 };
	char sql[700];
	sqlite3_stmt *st;
	int rc;

	if (!r->has_nvtx || t1 <= t0)
		return 0;
	if (reader_nvtx_domains(r, &domains) != 0)
		return -1;
	/* registered strings come through textId; exports without the
	 * column keep every text inline */
	snprintf(sql, sizeof sql, "SELECT e.start, COALESCE(%s,0), COALESCE(%s,0),"
		 " COALESCE(%s,0), COALESCE(%s, s.value), COALESCE(%s,0)"
		 " FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = %s"
		 " WHERE e.eventType IN (%d,%d,%d) AND e.start < ?2 AND COALESCE(%s, e.start + 1) > ?1"
		 " ORDER BY e.start", nvtx_col(r, "end", "NULL"), nvtx_col(r, "globalTid", "NULL"),
		 nvtx_col(r, "color", "NULL"), nvtx_col(r, "text", "NULL"), nvtx_col(r, "domainId", "NULL"),
		 nvtx_col(r, "textId", "NULL"), r->nvtx_mark, r->nvtx_push_pop, r->nvtx_start_end,
		 nvtx_col(r, "end", "NULL"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		u64map_free(&domains);
		return reader_fail(r, "cannot read NVTX events");
	}
	sqlite3_bind_int64(st, 1, bind_time(t0));
	sqlite3_bind_int64(st, 2, bind_time(t1));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 2);
		struct smtop_nvtx n = {
			.start = (uint64_t)sqlite3_column_int64(st, 0),
			.end = (uint64_t)sqlite3_column_int64(st, 1),
			.pid = pid_of(tid),
			.tid = (uint32_t)(tid & 0xffffff),
			.color = sqlite3_column_int(st, 3),
			.text = reader_text(r, sqlite3_column_text(st, 4)),
			.domain = ptr_get(&domains, (uint64_t)sqlite3_column_int64(st, 5)),
		};
		if (fn(ud, &n) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	u64map_free(&domains);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read NVTX events");
}

int db_reader_requests(struct db_reader *r, db_request_fn fn, void *ud)
{
	sqlite3_stmt *st;
	int rc;

	if (!r->has_request)
		return 0;
	if (sqlite3_prepare_v2(r->db, "SELECT globalPid, streamId, start, end, label"
			       " FROM smtop_request ORDER BY start", -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read requests");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct smtop_request q = {
			.pid = pid_of(sqlite3_column_int64(st, 0)),
			.stream_id = (uint32_t)sqlite3_column_int64(st, 1),
			.start = (uint64_t)sqlite3_column_int64(st, 2),
			.end = (uint64_t)sqlite3_column_int64(st, 3),
			.label = reader_text(r, sqlite3_column_text(st, 4)),
		};
		if (fn(ud, &q) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read requests");
}

/* ---- copies, memsets, synchronisations, API calls ---- */

/* Where the rows of one walk go: the member for its table. */
struct row_sink {
	db_memcpy_fn memcpy;
	db_memset_fn memset;
	db_sync_fn sync;
	db_cuda_event_fn cuda_event;
	db_graph_dep_fn graph_dep;
	db_api_fn api;
	void *ud;
};

typedef int (*row_emit_fn)(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k);

/* The columns copies and memsets share (reader_new_ops' order), as the
 * initialisers of either record: only the last column differs. */
#define READER_OP_COLUMNS(st)                                                  \
	.start = (uint64_t)sqlite3_column_int64(st, 1),                        \
	.end = (uint64_t)sqlite3_column_int64(st, 2),                          \
	.device_id = (uint32_t)sqlite3_column_int64(st, 3),                    \
	.context_id = (uint32_t)sqlite3_column_int64(st, 4),                   \
	.stream_id = (uint32_t)sqlite3_column_int64(st, 5),                    \
	.correlation_id = (uint32_t)sqlite3_column_int64(st, 6),               \
	.pid = pid_of(sqlite3_column_int64(st, 7)),                            \
	.bytes = (uint64_t)sqlite3_column_int64(st, 8)

static int emit_memcpy(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_memcpy m = { READER_OP_COLUMNS(st), .copy_kind = sqlite3_column_int(st, 9),
				  .graph_node_id = (uint64_t)sqlite3_column_int64(st, 10) };
	return k->memcpy(k->ud, &m);
}

static int emit_memset(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_memset m = { READER_OP_COLUMNS(st), .value = (uint32_t)sqlite3_column_int64(st, 9),
				  .graph_node_id = (uint64_t)sqlite3_column_int64(st, 10) };
	return k->memset(k->ud, &m);
}

static int emit_sync(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_sync y = {
		.start = (uint64_t)sqlite3_column_int64(st, 1),
		.end = (uint64_t)sqlite3_column_int64(st, 2),
		.context_id = (uint32_t)sqlite3_column_int64(st, 3),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 4),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 5),
		.pid = pid_of(sqlite3_column_int64(st, 6)),
		.type = sqlite3_column_int(st, 7),
		.event_id = (uint32_t)sqlite3_column_int64(st, 8),
		.sync_id = (uint64_t)sqlite3_column_int64(st, 9),
	};
	return k->sync(k->ud, &y);
}

static int emit_cuda_event(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_cuda_event e = {
		.device_id = (uint32_t)sqlite3_column_int64(st, 1),
		.context_id = (uint32_t)sqlite3_column_int64(st, 2),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 3),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 4),
		.pid = pid_of(sqlite3_column_int64(st, 5)),
		.event_id = (uint32_t)sqlite3_column_int64(st, 6),
		.sync_id = (uint64_t)sqlite3_column_int64(st, 7),
		.device_ts = (uint64_t)sqlite3_column_int64(st, 8),
	};
	return k->cuda_event(k->ud, &e);
}

static int emit_graph_dep(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_graph_dep d = {
		.pid = pid_of(sqlite3_column_int64(st, 1)),
		.node_id = (uint64_t)sqlite3_column_int64(st, 2),
		.node_type = sqlite3_column_int(st, 3),
		.depends_on = (uint64_t)sqlite3_column_int64(st, 4),
		.dep_type = sqlite3_column_int(st, 5),
	};
	return k->graph_dep(k->ud, &d);
}

static int emit_api(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	int64_t tid = sqlite3_column_int64(st, 3);
	struct smtop_api c = {
		.start = (uint64_t)sqlite3_column_int64(st, 1),
		.end = (uint64_t)sqlite3_column_int64(st, 2),
		.pid = pid_of(tid),
		.tid = (uint32_t)(tid & 0xffffff),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 4),
		.name = reader_text(r, sqlite3_column_text(st, 5)),
		.return_value = sqlite3_column_int(st, 6),
		.is_driver = sqlite3_column_int(st, 7) != 0,
		.cbid = (uint32_t)sqlite3_column_int64(st, 8),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 9),
		.has_stream = sqlite3_column_type(st, 9) != SQLITE_NULL,
	};
	return k->api(k->ud, &c);
}

/* Hands out the rows of sql (rowid first, rowid > ?1) past *wm. */
static int reader_new_rows(struct db_reader *r, const char *sql, const char *what, int64_t *wm,
			   row_emit_fn emit, const struct row_sink *k)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, what);
	sqlite3_bind_int64(st, 1, *wm);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*wm = sqlite3_column_int64(st, 0);
		if (emit(r, st, k) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, what);
}

/* Copies and memsets share their first columns: rowid, start, end,
 * device, context, stream, correlation, process, then bytes, `last` and
 * the graph node
 * (READER_OP_COLUMNS reads them). */
static int reader_new_ops(struct db_reader *r, int64_t *watermark, const char *table, const char *last,
			  const char *what, row_emit_fn emit, const struct row_sink *sink)
{
	char sql[400];

	snprintf(sql, sizeof sql, "SELECT rowid, start, end, %s, contextId, streamId, correlationId,"
		 " globalPid, %s, %s, coalesce(%s, 0) FROM %s WHERE rowid > ?1 ORDER BY rowid",
		 col_or(r, table, "deviceId", "0"), col_or(r, table, "bytes", "0"), col_or(r, table, last, "0"),
		 col_or(r, table, "graphNodeId", "NULL"), table);
	return reader_new_rows(r, sql, what, watermark, emit, sink);
}

int db_reader_new_memcpys(struct db_reader *r, int64_t *watermark, db_memcpy_fn fn, void *ud)
{
	if (!r->ops_memcpy)
		return 0;
	return reader_new_ops(r, watermark, "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", "cannot read copies",
			      emit_memcpy, &(struct row_sink){ .memcpy = fn, .ud = ud });
}

int db_reader_new_memsets(struct db_reader *r, int64_t *watermark, db_memset_fn fn, void *ud)
{
	if (!r->ops_memset)
		return 0;
	return reader_new_ops(r, watermark, "CUPTI_ACTIVITY_KIND_MEMSET", "value", "cannot read memsets",
			      emit_memset, &(struct row_sink){ .memset = fn, .ud = ud });
}

int db_reader_new_syncs(struct db_reader *r, int64_t *watermark, db_sync_fn fn, void *ud)
{
	const char *t = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
	char sql[400];

	if (!r->ops_sync)
		return 0;
	/* sessions before event records and old exports lack the event's ids */
	snprintf(sql, sizeof sql, "SELECT rowid, start, end, contextId, streamId, correlationId,"
		 " globalPid, syncType, coalesce(%s, 4294967295), coalesce(%s, 4294967295) FROM %s"
		 " WHERE rowid > ?1 ORDER BY rowid", col_or(r, t, "eventId", "NULL"),
		 col_or(r, t, "eventSyncId", "NULL"), t);
	return reader_new_rows(r, sql, "cannot read synchronisations", watermark, emit_sync,
			       &(struct row_sink){ .sync = fn, .ud = ud });
}

int db_reader_new_cuda_events(struct db_reader *r, int64_t *watermark, db_cuda_event_fn fn, void *ud)
{
	const char *t = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
	char sql[400];

	if (!r->ops_cuda_event)
		return 0;
	snprintf(sql, sizeof sql, "SELECT rowid, %s, contextId, streamId, correlationId, globalPid,"
		 " eventId, coalesce(%s, 4294967295), coalesce(%s, 0) FROM %s WHERE rowid > ?1"
		 " ORDER BY rowid", col_or(r, t, "deviceId", "0"), col_or(r, t, "eventSyncId", "NULL"),
		 col_or(r, t, "deviceTimestamp", "NULL"), t);
	return reader_new_rows(r, sql, "cannot read CUDA event records", watermark, emit_cuda_event,
			       &(struct row_sink){ .cuda_event = fn, .ud = ud });
}

int db_reader_new_graph_deps(struct db_reader *r, int64_t *watermark, db_graph_dep_fn fn, void *ud)
{
	if (!r->ops_graph_dep)
		return 0;
	return reader_new_rows(r, "SELECT rowid, globalPid, nodeId, coalesce(nodeType, -1), dependsOn,"
			       " coalesce(dependsOnType, -1) FROM smtop_graph_dep WHERE rowid > ?1 ORDER BY rowid",
			       "cannot read graph edges", watermark, emit_graph_dep,
			       &(struct row_sink){ .graph_dep = fn, .ud = ud });
}

int db_reader_new_apis(struct db_reader *r, int64_t *watermark, db_api_fn fn, void *ud)
{
	char sql[500];

	if (!r->ops_api)
		return 0;
	/* eventClass follows nsys in both kinds of file: 1 is the driver API */
	snprintf(sql, sizeof sql, "SELECT a.rowid, a.start, a.end, a.globalTid, a.correlationId,"
		 " s.value, %s, %s, %s, %s FROM CUPTI_ACTIVITY_KIND_RUNTIME a"
		 " LEFT JOIN StringIds s ON s.id = a.nameId WHERE a.rowid > ?1 ORDER BY a.rowid",
		 col_or(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "returnValue", "0"),
		 reader_has_column(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "eventClass")
			 ? "a.eventClass = 1" : "0",
		 col_or(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "cbid", "0"),
		 col_or(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "streamId", "NULL"));
	return reader_new_rows(r, sql, "cannot read API calls", watermark, emit_api,
			       &(struct row_sink){ .api = fn, .ud = ud });
}

/* ---- session info ---- */

static const char *info_text(struct db_reader *r, const unsigned char *s)
{
	return s ? strmap_intern(&r->info.strings, (const char *)s) : NULL;
}

static const char *info_meta(struct db_reader *r, const char *key)
{
	const char *v = reader_meta(r, key);

	return v ? info_text(r, (const unsigned char *)v) : NULL;
}

/* While recording, tables only grow, so the largest rowid is the row count
 * without a scan (info is polled live).  A finished session may have been
 * trimmed and an nsys export may have gaps: count those exactly. */
static uint64_t reader_rows(struct db_reader *r, int has, const char *table, int exact)
{
	char sql[160];

	if (!has)
		return 0;
	snprintf(sql, sizeof sql, exact ? "SELECT count(*) FROM %s" : "SELECT max(rowid) FROM %s", table);
	return (uint64_t)reader_int(r, sql, 0);
}

static void info_counts(struct db_reader *r, struct db_session_info *info)
{
	int exact = info->ended || info->is_nsys;

	info->kernels = reader_rows(r, r->has_kernel, "CUPTI_ACTIVITY_KIND_KERNEL", exact);
	info->memcpys = reader_rows(r, r->has_memcpy, "CUPTI_ACTIVITY_KIND_MEMCPY", exact);
	info->memsets = reader_rows(r, r->has_memset, "CUPTI_ACTIVITY_KIND_MEMSET", exact);
	info->api_calls = reader_rows(r, r->has_runtime, "CUPTI_ACTIVITY_KIND_RUNTIME", exact);
	info->syncs = reader_rows(r, r->ops_sync, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", exact) +
		      reader_rows(r, r->ops_cuda_event, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", exact) +
		      reader_rows(r, r->ops_graph_dep, "smtop_graph_dep", exact);
	info->requests = reader_rows(r, r->has_request, "smtop_request", exact);
	if (r->has_nvtx) {
		char sql[160];

		snprintf(sql, sizeof sql, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (%d,%d,%d)",
			 r->nvtx_mark, r->nvtx_push_pop, r->nvtx_start_end);
		info->nvtx = (uint64_t)reader_int(r, sql, 0);
	}
	info->streams = r->has_stream ? (uint64_t)reader_int(r,
		"SELECT count(*) FROM TARGET_INFO_CUDA_STREAM", 0) : 0;
	info->contexts = r->has_ctx ? (uint64_t)reader_int(r,
		"SELECT count(*) FROM TARGET_INFO_CUDA_CONTEXT_INFO", 0) : 0;
	info->blocks = r->chunk_blocks;
}

/* The blocks' first start and last end on CUPTI time, each device's by its
 * own clock (devices past READER_CLOCK_DEVICES are not tracked one by one). */
static void reader_clock_span(struct db_reader *r, uint64_t *b0, uint64_t *b1)
{
	uint64_t lo = 0, hi = 0, seen = 0;

	for (size_t d = 0; d < READER_CLOCK_DEVICES; d++) {
		if (!r->dev_min_start[d])
			continue;
		reader_widen(&lo, &hi, gpu_clock_cupti(reader_clock(r, (int64_t)d), r->dev_min_start[d]),
			     gpu_clock_cupti(reader_clock(r, (int64_t)d), r->dev_max_end[d]));
		seen++;
	}
	if (!seen) { /* only devices past the table: not tracked one by one */
		lo = gpu_clock_cupti(&r->clock, r->chunk_min_start);
		hi = gpu_clock_cupti(&r->clock, r->chunk_max_end);
	}
	*b0 = lo;
	*b1 = hi;
}

/* Each device's clock, in the info arena. */
static void info_clocks(struct db_reader *r, struct db_session_info *info)
{
	size_t n = 0;

	for (size_t d = 0; d < READER_CLOCK_DEVICES; d++)
		if (r->dev_clock_kind[d] != CLOCK_NONE)
			r->info.clocks[n++] = (struct db_device_clock){
				(uint16_t)d, r->dev_clock_kind[d] == CLOCK_STORED, r->dev_clock[d] };
	info->n_clocks = n;
	info->clocks = r->info.clocks;
}

static void info_times(struct db_reader *r, struct db_session_info *info)
{
	uint64_t first = r->has_kernel ? (uint64_t)reader_int(r,
		"SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0) : 0;
	uint64_t last = r->kernel_max_end;

	if (r->chunk_min_start) {
		uint64_t b0, b1;

		reader_clock_span(r, &b0, &b1);

		first = !first || b0 < first ? b0 : first;
		last = b1 > last ? b1 : last;
	}
	info->t_first = first;
	info->t_last = last;
}

/* Where an export keeps its GPUs, by the columns each table names a field.
 * TARGET_INFO_GPU (smtop, nsys 2021.3 on) numbers GPUs nsys' way and gives the
 * CUDA device in cuDevice; TARGET_INFO_CUDA_GPU (nsys before 2021.3) holds
 * CUPTI's device attributes per process, keyed by the CUDA device id. */
struct gpu_source {
	const char *table;
	const char *ids[4];          /* CUDA device id: the first present wins */
	const char *name, *uuid, *memory, *sms, *cc_major, *cc_minor, *threads_per_block;
	const char *blocks_per_sm, *regs_per_sm, *warp, *smem_per_sm, *threads_per_sm;
	const char *warps_per_sm;
	const char *pid;             /* globalPid, or a plain pid where pid_plain */
	int pid_plain;
};

static const struct gpu_source gpu_info = {
	"TARGET_INFO_GPU", { "cuDevice", "id", "deviceId", NULL }, "name", "uuid", "totalMemory",
	"smCount", "computeMajor", "computeMinor", "maxThreadsPerBlock", "maxBlocksPerSm",
	"maxRegistersPerSm", "threadsPerWarp", "maxShmemPerSm", "maxThreadsPerSm", "maxWarpsPerSm",
	"globalPid", 0,
};

static const struct gpu_source gpu_cupti = {
	"TARGET_INFO_CUDA_GPU", { "deviceId", NULL }, "name", NULL, "globalMemorySize",
	"numMultiprocessors", "computeCapabilityMajor", "computeCapabilityMinor", "maxThreadsPerBlock",
	"maxBlocksPerMultiprocessor", "maxRegistersPerMultiprocessor", "numThreadsPerWarp",
	"maxSharedMemoryPerMultiprocessor", NULL, "maxWarpsPerMultiprocessor", "pid", 1,
};

/* Column expression "g.col" if the source table has it, else fallback. */
static const char *gpu_col(struct db_reader *r, const struct gpu_source *g, const char *col,
			   const char *fallback, char *buf, size_t len)
{
	if (!col || !reader_has_column(r, g->table, col))
		return fallback;
	snprintf(buf, len, "g.%s", col);
	return buf;
}

/* The CUDA device id expression: TARGET_INFO_CUDA_DEVICE's mapping where it
 * has rows, else the first id column present. */
static const char *gpu_id(struct db_reader *r, const struct gpu_source *g, char *buf, size_t len)
{
	const char *first = NULL, *second = NULL;

	if (g == &gpu_info && r->has_cuda_device)
		return "COALESCE(d.cudaId, g.id)";
	for (const char *const *c = g->ids; *c; c++)
		if (reader_has_column(r, g->table, *c)) {
			if (!first)
				first = *c;
			else if (!second)
				second = *c;
		}
	if (!first)
		return "0";
	if (second)
		snprintf(buf, len, "COALESCE(g.%s, g.%s)", first, second);
	else
		snprintf(buf, len, "g.%s", first);
	return buf;
}

/* Devices by the CUDA device id kernels carry.  nsys numbers GPUs its own way
 * (TARGET_INFO_GPU.id): newer exports map them per process in
 * TARGET_INFO_CUDA_DEVICE (gpuId -> cudaId), older ones give cuDevice, the
 * oldest list CUPTI's devices in TARGET_INFO_CUDA_GPU. */
static int info_devices(struct db_reader *r, struct db_session_info *info)
{
	const struct gpu_source *g = r->has_cuda_gpu ? &gpu_cupti : &gpu_info;
	char sql[1800], c[15][80], order[200];
	const char *id, *sms, *pid, *threads, *used = "";
	sqlite3_stmt *st;
	size_t cap = 0;

	if (!r->has_gpu && !r->has_cuda_gpu)
		return 0;
	/* the device map carries an SM count in some schemas (3.28.1), not in
	 * others (3.20.3 has gpuId, cudaId and pid only) */
	sms = g == &gpu_info && r->has_cuda_device &&
	      reader_has_column(r, "TARGET_INFO_CUDA_DEVICE", "numMultiprocessors")
		? "COALESCE(NULLIF(g.smCount, 0), d.numMultiprocessors, 0)"
		: gpu_col(r, g, g->sms, "0", c[1], sizeof c[1]);
	pid = g == &gpu_info && r->has_cuda_device ? "(d.pid << 24)"
		: gpu_col(r, g, g->pid, "0", c[2], sizeof c[2]);
	if (g->pid_plain && pid == c[2]) {
		snprintf(c[2], sizeof c[2], "(g.%s << 24)", g->pid);
		pid = c[2];
	}
	threads = gpu_col(r, g, g->threads_per_sm, NULL, c[3], sizeof c[3]);
	if (!threads && g->warps_per_sm && reader_has_column(r, g->table, g->warps_per_sm) &&
	    reader_has_column(r, g->table, g->warp)) {
		snprintf(c[13], sizeof c[13], "(g.%s * g.%s)", g->warps_per_sm, g->warp);
		threads = c[13];
	}
	/* an export that lists every GPU of the machine: the ones a context
	 * ran on come first, so the view draws a GPU that ran kernels */
	id = gpu_id(r, g, c[0], sizeof c[0]);
	if (r->is_nsys && g == &gpu_info && !r->has_cuda_device && (r->has_ctx || r->has_null_stream)) {
		snprintf(order, sizeof order, "(%s) IN (SELECT deviceId FROM %s) DESC, ", id,
			 r->has_ctx ? "TARGET_INFO_CUDA_CONTEXT_INFO" : "TARGET_INFO_CUDA_NULL_STREAM");
		used = order;
	}
	snprintf(sql, sizeof sql, "SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s"
		 " FROM %s g%s ORDER BY %s1",
		 id, gpu_col(r, g, g->name, "NULL", c[14], sizeof c[14]),
		 gpu_col(r, g, g->uuid, "NULL", c[4], sizeof c[4]),
		 gpu_col(r, g, g->memory, "0", c[5], sizeof c[5]), sms,
		 gpu_col(r, g, g->cc_major, "0", c[6], sizeof c[6]),
		 gpu_col(r, g, g->cc_minor, "0", c[7], sizeof c[7]),
		 gpu_col(r, g, g->threads_per_block, "0", c[8], sizeof c[8]),
		 gpu_col(r, g, g->blocks_per_sm, "0", c[9], sizeof c[9]),
		 gpu_col(r, g, g->regs_per_sm, "0", c[10], sizeof c[10]),
		 gpu_col(r, g, g->warp, "0", c[11], sizeof c[11]),
		 gpu_col(r, g, g->smem_per_sm, "0", c[12], sizeof c[12]),
		 threads ? threads : "0", pid, g->table,
		 g == &gpu_info && r->has_cuda_device
			? " JOIN TARGET_INFO_CUDA_DEVICE d ON d.gpuId = g.id" : "", used);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read GPU info");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct smtop_device *d;
		int dup = 0;

		/* several processes may see one GPU: one entry per device id */
		for (size_t i = 0; i < info->n_devices; i++)
			dup |= r->info.devices[i].device_id == (uint32_t)sqlite3_column_int64(st, 0);
		if (dup)
			continue;
		if (info->n_devices == cap) {
			void *p = realloc(r->info.devices, (cap = cap ? cap * 2 : 4) * sizeof *d);

			if (!p)
				break;
			r->info.devices = p;
		}
		d = &r->info.devices[info->n_devices++];
		*d = (struct smtop_device){
			.device_id = (uint32_t)sqlite3_column_int64(st, 0),
			.name = info_text(r, sqlite3_column_text(st, 1)),
			.uuid = info_text(r, sqlite3_column_text(st, 2)),
			.global_memory_bytes = (uint64_t)sqlite3_column_int64(st, 3),
			.sm_count = (uint32_t)sqlite3_column_int64(st, 4),
			.cc_major = (uint32_t)sqlite3_column_int64(st, 5),
			.cc_minor = (uint32_t)sqlite3_column_int64(st, 6),
			.max_threads_per_block = (uint32_t)sqlite3_column_int64(st, 7),
			.max_blocks_per_sm = (uint32_t)sqlite3_column_int64(st, 8),
			.max_regs_per_sm = (uint32_t)sqlite3_column_int64(st, 9),
			.warp_size = (uint32_t)sqlite3_column_int64(st, 10),
			.max_smem_per_sm = (uint32_t)sqlite3_column_int64(st, 11),
			.max_threads_per_sm = (uint32_t)sqlite3_column_int64(st, 12),
			.pid = pid_of(sqlite3_column_int64(st, 13)),
		};
	}
	sqlite3_finalize(st);
	info->devices = r->info.devices;
	return 0;
}

static int info_processes(struct db_reader *r, struct db_session_info *info)
{
	/* exports before 3.0 have no PROCESSES table: the processes are those
	 * whose streams the export lists (a small table, unlike the kernels),
	 * their names unknown */
	/* PROCESSES lists every process of the machine (kernel threads too):
	 * only those with CUDA streams, or else kernels, are the workload's */
	const char *sql = r->has_process
		? "SELECT pid, command, status, reason, drops_cupti, drops_ring, drops_blocks"
		  " FROM smtop_process ORDER BY start, pid"
		: r->has_nsys_processes && r->has_stream
		? "SELECT pid, name, 'exited', NULL, 0, 0, 0 FROM PROCESSES"
		  " WHERE pid IN (SELECT processId FROM TARGET_INFO_CUDA_STREAM) ORDER BY pid"
		: r->has_nsys_processes && r->has_kernel
		? "SELECT pid, name, 'exited', NULL, 0, 0, 0 FROM PROCESSES WHERE pid IN"
		  " (SELECT DISTINCT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL)"
		  " ORDER BY pid"
		: r->has_nsys_processes
		? "SELECT pid, name, 'exited', NULL, 0, 0, 0 FROM PROCESSES ORDER BY pid"
		: "SELECT DISTINCT processId, NULL, 'exited', NULL, 0, 0, 0"
		  " FROM TARGET_INFO_CUDA_STREAM ORDER BY 1";
	sqlite3_stmt *st;
	size_t cap = 0;

	if (!r->has_process && !r->has_nsys_processes && !(r->is_nsys && r->has_stream))
		return 0;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read processes");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_process_info *p;

		if (info->n_processes == cap) {
			void *q = realloc(r->info.processes, (cap = cap ? cap * 2 : 4) * sizeof *p);

			if (!q)
				break;
			r->info.processes = q;
		}
		p = &r->info.processes[info->n_processes++];
		*p = (struct db_process_info){
			.pid = (uint32_t)sqlite3_column_int64(st, 0),
			.command = info_text(r, sqlite3_column_text(st, 1)),
			.status = info_text(r, sqlite3_column_text(st, 2)),
			.reason = info_text(r, sqlite3_column_text(st, 3)),
			.drops_cupti = (uint64_t)sqlite3_column_int64(st, 4),
			.drops_ring = (uint64_t)sqlite3_column_int64(st, 5),
			.drops_blocks = (uint64_t)sqlite3_column_int64(st, 6),
		};
		info->drops_cupti += p->drops_cupti;
		info->drops_ring += p->drops_ring;
		info->drops_blocks += p->drops_blocks;
	}
	sqlite3_finalize(st);
	info->processes = r->info.processes;
	return 0;
}

/* A session nobody will finalise: the smtop that recorded it is gone (killed,
 * or the machine rebooted) and no process still marked running is alive.
 * Sessions that do not name their recorder are never judged.  Returns why,
 * or NULL. */
static const char *reader_abandoned(struct db_reader *r, const struct db_session_info *info)
{
	const char *why = "the recorder stopped before finalising the session";
	struct db_procid id;

	if (info->ended || info->is_nsys || db_procid_parse(reader_meta(r, "recorder"), &id) != 0 ||
	    db_procid_alive(&id) != 0)
		return NULL;
	for (size_t i = 0; i < info->n_processes; i++) {
		const struct db_process_info *p = &info->processes[i];
		struct db_procid w = { .pid = p->pid };

		memcpy(w.boot, id.boot, sizeof w.boot);
		if (p->status && strcmp(p->status, "running") == 0 && db_procid_alive(&w) != 0)
			return NULL;
		/* the disk filled up: not even the end could be written */
		if (p->reason && strcmp(p->reason, SCHEMA_DISK_FULL_REASON) == 0)
			why = SCHEMA_DISK_FULL_REASON;
	}
	return why;
}

void db_reader_sync_types(struct db_reader *r, struct db_session_info *info)
{
	sqlite3_stmt *st;

	memset(info->sync_types, 0, sizeof info->sync_types);
	info->sync_types_known = 0;
	if (!r->ops_sync || sqlite3_prepare_v2(r->db, "SELECT syncType, count(*) FROM "
				  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION GROUP BY syncType", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t type = sqlite3_column_int64(st, 0);

		info->sync_types[type > 0 && type < DB_SYNC_TYPES ? type : 0] += (uint64_t)sqlite3_column_int64(st, 1);
	}
	info->sync_types_known = 1;
	sqlite3_finalize(st);
}

int db_reader_info(struct db_reader *r, struct db_session_info *info)
{
	const char *v;

	reader_free_info(r);
	memset(info, 0, sizeof *info);
	reader_update_offset(r);
	reader_update_stats(r);
	info->is_nsys = r->is_nsys;
	info->schema_version = r->schema_version;
	info->path = r->path;
	info->command = info_meta(r, "command");
	info->collector = info_meta(r, "collector_backend");
	info->block_ends = info_meta(r, "block_ends");
	info->trimmed = info_meta(r, "trimmed");
	info->created_ns = (v = reader_meta(r, "created_ns")) ? strtoull(v, NULL, 10) : 0;
	info->ended = (v = reader_meta(r, "ended")) ? atoi(v) : 0;
	info->ended_clean = (v = reader_meta(r, "ended_clean")) ? atoi(v) : 0;
	info->end_reason = info_meta(r, "end_reason");
	info->nsys_schema = reader_export_meta(r, "EXPORT_SCHEMA_VERSION", &r->info.strings);
	info->nsys_product = reader_export_meta(r, "EXPORT_PRODUCT_VERSION", &r->info.strings);
	/* nsys first wrote its schema version with 3.0 (2022.4) */
	info->nsys_before_3 = r->is_nsys && !r->export_meta;
	info->clock = r->clock;
	info->clock_known = r->clock_known;
	info_clocks(r, info);
	info_counts(r, info);
	info_times(r, info);
	if (info_devices(r, info) != 0 || info_processes(r, info) != 0)
		return -1;
	if ((v = reader_abandoned(r, info))) {
		info->abandoned = 1;
		info->ended = 1;
		info->ended_clean = 0;
		info->end_reason = v;
	}
	return 0;
}
