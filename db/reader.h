/* The session reader: a read-only connection that answers "what happened
 * between t0 and t1" and "what is new since watermark" without loading the
 * whole session.  Reads smtop sessions and Nsight Systems exports.
 *
 * Strings in records handed to callbacks stay valid until db_reader_close;
 * those in struct db_session_info until the next db_reader_info call.
 * Block times are moved onto CUPTI's timebase with the session clock (below). */
#ifndef SMTOP_DB_READER_H
#define SMTOP_DB_READER_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/gpu_clock.h"
#include "src/core/records.h"

struct db_reader;

/* Each GPU has a %globaltimer of its own (docs/session-format.md), so each
 * device with blocks has its own clock. */
struct db_device_clock {
	uint16_t device_id;
	int stored;                  /* 1: read from the session, 0: estimated */
	struct gpu_clock clock;
};

struct db_process_info {
	uint32_t pid;
	const char *command;
	const char *status;          /* running, exited, crashed, untraced */
	const char *reason;          /* may be NULL */
	uint64_t drops_cupti, drops_ring, drops_blocks;
};

/* CUpti_ActivitySynchronizationType: 1 event synchronize, 2 stream wait
 * event, 3 stream synchronize, 4 context synchronize. */
#define DB_SYNC_TYPES 5

struct db_session_info {
	int is_nsys;                 /* opened an Nsight Systems export */
	int schema_version;          /* smtop schema; 0 for an Nsight Systems export */
	const char *nsys_schema;     /* nsys EXPORT_SCHEMA_VERSION ("3.16.1"), NULL if none */
	const char *nsys_product;    /* nsys EXPORT_PRODUCT_VERSION, NULL if none */
	int nsys_before_3;           /* an export with no metadata table: written by
				      * Nsight Systems before schema 3.0 (2022.4) */
	const char *path;
	const char *command;         /* recorded command line, may be NULL */
	const char *collector;       /* meta collector_backend ("sanitizer"), NULL: CUPTI's */
	const char *block_ends;      /* meta block_ends ("bound": --sm entry), NULL: exact */
	const char *sm_mode;         /* meta sm_mode (entry, exact, all), NULL: not recorded */
	const char *exact_windows;   /* meta exact_windows: how many ran, NULL: none */
	const char *entry_marks;     /* meta entry_marks: "on" when marked kernels timed their blocks */
	const char *end_error;       /* meta inferred_end_error_ns: "n= p50= p90= p99= under=" */
	const char *residency;       /* meta inferred_residency: "sms= ratio= min= max=" */
	const char *trimmed;         /* meta trimmed: what a trim kept, NULL if whole */
	const char *smtop_version;   /* meta smtop_version: the smtop that recorded it, NULL: older */
	uint64_t created_ns;         /* wall clock when recording began, 0 unknown */
	uint64_t t_first, t_last;    /* earliest start, latest end over kernels and blocks */
	int ended;                   /* 1 if the session was finalised, or abandoned */
	int abandoned;               /* not finalised, and its recorder and every process
				      * still marked running are gone: nothing more comes */
	int ended_clean;             /* 1 if the workload exited normally */
	const char *end_reason;      /* may be NULL */
	struct gpu_clock clock;       /* CUPTI time from globaltimer: the first device's
				      * with blocks (the only one on one GPU) */
	int clock_known;
	size_t n_clocks;             /* devices with blocks and a known clock (none in a
				      * view merged from several files) */
	const struct db_device_clock *clocks;
	uint64_t kernels, blocks, memcpys, memsets, api_calls, nvtx, streams, requests;
	uint64_t kernels_unstarted;     /* of them, with no start: their launches' blocks all
					 * dropped (--sm entry); 0 in Nsight Systems exports */
	uint64_t kernels_unstarted_blocks; /* their grids' blocks, to set against the drops */
	uint64_t syncs;                 /* synchronisation, CUDA event and graph edge records */
	/* synchronisation records by CUpti_ActivitySynchronizationType (0:
	 * another); filled by db_reader_sync_types alone */
	uint64_t sync_types[DB_SYNC_TYPES];
	int sync_types_known;
	uint64_t contexts;              /* TARGET_INFO_CUDA_CONTEXT_INFO rows */
	uint64_t drops_cupti, drops_ring, drops_blocks;
	size_t n_devices;
	const struct smtop_device *devices;
	size_t n_processes;
	const struct db_process_info *processes;
};

typedef int (*db_kernel_fn)(void *ud, const struct smtop_kernel *k);
typedef int (*db_stream_fn)(void *ud, const struct smtop_stream *s);
typedef int (*db_context_fn)(void *ud, const struct smtop_context *c);
typedef int (*db_block_fn)(void *ud, const struct smtop_block *b, uint32_t pid,
			   uint32_t context_id);
typedef int (*db_nvtx_fn)(void *ud, const struct smtop_nvtx *n);
typedef int (*db_request_fn)(void *ud, const struct smtop_request *r);
typedef int (*db_memcpy_fn)(void *ud, const struct smtop_memcpy *m);
typedef int (*db_memset_fn)(void *ud, const struct smtop_memset *m);
typedef int (*db_sync_fn)(void *ud, const struct smtop_sync *y);
typedef int (*db_cuda_event_fn)(void *ud, const struct smtop_cuda_event *e);
typedef int (*db_graph_dep_fn)(void *ud, const struct smtop_graph_dep *d);
typedef int (*db_api_fn)(void *ud, const struct smtop_api *c);

/* Opens path read-only (WAL readers do not block the writer).  On failure
 * returns -1 and writes one line naming the file and the problem. */
int db_reader_open(struct db_reader **out, const char *path, char *err, size_t errlen);

/* 0 if path is a readable regular file, else -1 with one line in err naming
 * it and the problem (missing, a directory, not a regular file, unreadable). */
int db_check_session_path(const char *path, char *err, size_t errlen);
void db_reader_close(struct db_reader *r);

/* Fills info (re-reads counts and status; cheap enough to call per second). */
int db_reader_info(struct db_reader *r, struct db_session_info *info);

/* Counts the session's synchronisation records by type into
 * info->sync_types (a scan of the table: for smtop info, not per frame);
 * sync_types_known stays 0 when the session has no such table. */
void db_reader_sync_types(struct db_reader *r, struct db_session_info *info);

/* The chunk table's counts and spans as one line for smtop_meta key
 * chunk_stats, which later readers of the same rows take instead of
 * reading every chunk row.  0, or -1 (no chunks, an export, too long). */
int db_reader_chunk_stats(struct db_reader *r, char *buf, size_t len);

/* How often the clock offset was estimated from the data (a session that
 * does not store it yet): a growing file's cost. */
unsigned db_reader_offset_estimates(const struct db_reader *r);

/* Kernels overlapping [t0, t1), ordered by start.  A callback returning
 * non-zero stops the walk.  Returns -1 on error, else 0. */
int db_reader_kernels(struct db_reader *r, uint64_t t0, uint64_t t1, db_kernel_fn fn, void *ud);

/* Kernels that never started (start 0: under --sm entry, launches whose
 * blocks were all dropped), which no window holds; in the order stored. */
int db_reader_unstarted_kernels(struct db_reader *r, db_kernel_fn fn, void *ud);

/* Kernels stored after *watermark (a rowid); advances it.  For live sessions. */
int db_reader_new_kernels(struct db_reader *r, int64_t *watermark, db_kernel_fn fn, void *ud);
/* The same, at most max of them (negative: all). */
int db_reader_new_kernels_max(struct db_reader *r, int64_t *watermark, int64_t max,
			      db_kernel_fn fn, void *ud);

int db_reader_streams(struct db_reader *r, db_stream_fn fn, void *ud);

/* Every context of TARGET_INFO_CUDA_CONTEXT_INFO, with whether it is a green
 * context (isGreenContext; NULL or a file without the column: not green)
 * and its parent; ordered by process and context. */
int db_reader_contexts(struct db_reader *r, db_context_fn fn, void *ud);

/* Blocks whose chunk overlaps [t0, t1) on CUPTI time, chunk by chunk. */
int db_reader_blocks(struct db_reader *r, uint64_t t0, uint64_t t1, db_block_fn fn, void *ud);

/* The same blocks a few chunks at a time, each chunk read once: a walk
 * begun for [t0, t1) hands out the blocks of up to max_chunks more chunks
 * per call.  Returns 1 while chunks remain, 0 at the end, -1 on error. */
struct db_block_walk {
	uint64_t t0, t1;
	int64_t device;              /* the device being walked, -1 before the first */
	int64_t start, id;           /* the last chunk handed out on it (start, rowid) */
	int64_t lo, g0, g1;          /* the device's chunk start and end bounds */
	int done;
};
void db_reader_walk_begin(struct db_block_walk *w, uint64_t t0, uint64_t t1);
int db_reader_walk_blocks(struct db_reader *r, struct db_block_walk *w, size_t max_chunks,
			  db_block_fn fn, void *ud);
int db_reader_new_blocks(struct db_reader *r, int64_t *watermark, db_block_fn fn, void *ud);

/* One stored chunk of blocks, still encoded (db/blockcodec.h), for callers
 * that decode on several threads.  data is valid during the callback only. */
struct db_chunk {
	int64_t id;                  /* rowid */
	uint32_t pid, context_id;
	uint16_t device_id, sm;
	uint32_t count;              /* blocks, from the chunk's header */
	struct gpu_clock clock;       /* decoded times to CUPTI time: gpu_clock_cupti */
	const void *data;
	size_t len;
};
typedef int (*db_chunk_fn)(void *ud, const struct db_chunk *c);

/* Chunks stored after *watermark in rowid order, undecoded; advances it past
 * each one handed out.  A callback returning non-zero has still taken its
 * chunk, and stops the walk.  -1 on error (a damaged header included). */
int db_reader_new_chunks(struct db_reader *r, int64_t *watermark, db_chunk_fn fn, void *ud);

int db_reader_nvtx(struct db_reader *r, uint64_t t0, uint64_t t1, db_nvtx_fn fn, void *ud);
int db_reader_requests(struct db_reader *r, db_request_fn fn, void *ud);

/* Copies, memsets, synchronisations, CUDA event records, graph edges and runtime/driver API calls stored
 * after *watermark (a rowid), in rowid order; each advances it.  A table
 * the file lacks, or one without the columns that place its rows (process,
 * context, stream; nvprof's), gives none.  API names come from StringIds.
 * A callback returning non-zero stops the walk.  -1 on error, else 0. */
int db_reader_new_memcpys(struct db_reader *r, int64_t *watermark, db_memcpy_fn fn, void *ud);
int db_reader_new_memsets(struct db_reader *r, int64_t *watermark, db_memset_fn fn, void *ud);
int db_reader_new_syncs(struct db_reader *r, int64_t *watermark, db_sync_fn fn, void *ud);
int db_reader_new_cuda_events(struct db_reader *r, int64_t *watermark, db_cuda_event_fn fn, void *ud);
int db_reader_new_graph_deps(struct db_reader *r, int64_t *watermark, db_graph_dep_fn fn, void *ud);
int db_reader_new_apis(struct db_reader *r, int64_t *watermark, db_api_fn fn, void *ud);

/* The short name ("conv2d_fwd") of a kernel name handed out by this reader
 * (smtop_kernel.name is the mangled name), or of a copy of one; other names
 * come back as given. */
const char *db_reader_short_name(struct db_reader *r, const char *name);

const char *db_reader_error(const struct db_reader *r);

#endif
