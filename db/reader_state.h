/* The reader's state and the helpers its files share: db/reader.c (opening,
 * kernels, blocks), db/reader_clock.c (the clock between %globaltimer and
 * CUPTI time, stored or estimated), db/reader_rows.c (streams, NVTX,
 * requests, copies, memsets, synchronisations, API calls) and
 * db/reader_info.c (the running figures and db_reader_info).  Private to
 * them: everything else goes through db/reader.h. */
#ifndef SMTOP_DB_READER_STATE_H
#define SMTOP_DB_READER_STATE_H

#include <sqlite3.h>
#include <stdint.h>

#include "db/reader.h"
#include "src/core/gpu_clock.h"
#include "src/core/strmap.h"
#include "src/core/u64map.h"

/* Devices with a clock of their own (each GPU has its own %globaltimer);
 * blocks of a device past these use the session's clock. */
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
static inline const void *reader_ptr_get(const struct u64map *m, uint64_t key)
{
	const uint64_t *v = u64map_get(m, key);

	return v ? (const void *)(uintptr_t)*v : NULL;
}

static inline int reader_ptr_put(struct u64map *m, uint64_t key, const void *p)
{
	return u64map_put(m, key, (uintptr_t)p);
}

static inline uint32_t reader_pid_of(int64_t global)
{
	return (uint32_t)((uint64_t)global >> 24 & 0xffffff);
}

static inline int64_t reader_sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? (int64_t)(a - b) : 0;
}

/* A time bound as SQLite's signed integer: UINT64_MAX ("to the end") must
 * not wrap to -1. */
static inline int64_t reader_bind_time(uint64_t t)
{
	return t > INT64_MAX ? INT64_MAX : (int64_t)t;
}

/* db/reader.c: errors, one-value queries, the tables and columns a file has */
int reader_fail(struct db_reader *r, const char *what);
int64_t reader_int(struct db_reader *r, const char *sql, int64_t arg);
int reader_has_column(struct db_reader *r, const char *table, const char *col);
const char *reader_text(struct db_reader *r, const unsigned char *s);
const char *reader_meta(struct db_reader *r, const char *key);
const char *reader_export_meta(struct db_reader *r, const char *name,
				      struct strmap *strings);
const char *reader_col_or(struct db_reader *r, const char *table, const char *col,
			  const char *fallback);
int reader_next_device(struct db_reader *r, int64_t after, int64_t *dev);

/* db/reader_clock.c */
void reader_clock_read_meta(struct db_reader *r);
const struct gpu_clock *reader_clock_of(const struct db_reader *r, int64_t dev);
void reader_clock_update(struct db_reader *r);

/* db/reader_info.c */
void reader_info_free(struct db_reader *r);
void reader_info_update_stats(struct db_reader *r);
void reader_info_load_chunk_stats(struct db_reader *r);

#endif
