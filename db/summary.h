/* The session summary behind `smtop ls`: what a library row shows.  The
 * cheap part (date, command, GPU, the session's length) is read from the file
 * each time; the costly part (counts over every block, the analysis' episodes)
 * is kept in an smtop_summary table, keyed by the session's length and the
 * analysis threshold, so a session that grew is summarised again: the
 * session's own when smtop record finalised it, else that of smtop's cache
 * of it (db/cache.h).  The functions here take either file as path. */
#ifndef SMTOP_DB_SUMMARY_H
#define SMTOP_DB_SUMMARY_H

#include <stddef.h>
#include <stdint.h>


/* Rows are only ever appended to a session, so these grow with it. */
struct db_summary_key {
	int64_t kernel_rows;         /* max(rowid) of CUPTI_ACTIVITY_KIND_KERNEL */
	int64_t chunk_rows;          /* max(id) of smtop_block_chunk */
	int64_t stream_rows;         /* rows of TARGET_INFO_CUDA_STREAM */
	int ended;                   /* smtop_meta ended */
	uint64_t threshold_ns;       /* the analysis' blocking threshold */
};

struct db_summary {
	struct db_summary_key key;
	uint64_t computed_ns;        /* wall clock when it was computed */
	uint64_t t_first, t_last;    /* GPU span on CUPTI time, 0 unknown */
	uint64_t kernels, blocks;
	uint64_t blocking, inversions_resident, inversions_dispatch, timeslice;
};

/* The cheap part of a session, and the stored summary if there is one. */
struct db_summary_head {
	int is_nsys;                 /* an Nsight Systems export (never written to) */
	uint64_t created_ns;         /* 0 unknown */
	int ended, ended_clean;
	char command[256];           /* "" unknown */
	char gpu[96];                /* the first GPU's name, "" unknown */
	int n_gpus;
	struct db_summary_key key;   /* the session's length now; threshold_ns 0 */
	int has_stored;
	struct db_summary stored;
};

/* Reads path's head through a short read-only connection.  A file that is
 * not a session gives -1 and one line in err naming it and the problem. */
int db_summary_read(const char *path, struct db_summary_head *h, char *err, size_t errlen);

/* The summary stored in path (a session, or smtop's cache of one), read
 * only: 1 with s filled, 0 when there is none (or path cannot be read). */
int db_summary_stored(const char *path, struct db_summary *s);

/* 1 if s was computed for a session of length key (with key's threshold). */
int db_summary_matches(const struct db_summary *s, const struct db_summary_key *key);

/* Replaces the stored summary (smtop sessions only; the table is created in
 * files that predate it).  Returns 0, or -1 with one line in err. */
int db_summary_store(const char *path, const struct db_summary *s, char *err, size_t errlen);

/* The current key of path (threshold_ns 0) with a short read-only
 * connection.  0, or -1 with err. */
int db_summary_key_of(const char *path, struct db_summary_key *key, int *is_nsys, char *err,
		      size_t errlen);

/* The occupancy summary of GPU device_id (bytes of occupancy_encode),
 * of any version from 1 to `version` (the decoder reads them all), stored for a session of length key (threshold and
 * ended aside): *data malloc'd.  1 when there is none for this key and
 * version (or the file is an nsys export), 0 when found, -1 on error. */
int db_occupancy_load(const char *path, uint32_t device_id, int version,
		      const struct db_summary_key *key, uint8_t **data, size_t *len, char *err,
		      size_t errlen);
/* The stored findings (bytes of findings_encode) of version `version`,
 * found under analysis version `analysis` with key->threshold_ns for a
 * session of length key (ended aside): *data malloc'd.  1 when there are
 * none for this key (or the file is an nsys export), 0 when found, -1 on
 * error. */
int db_report_load(const char *path, int version, int analysis, const struct db_summary_key *key,
		   uint8_t **data, size_t *len, char *err, size_t errlen);

/* Replaces them (smtop sessions only; the table is created when missing). */
int db_report_store(const char *path, int version, int analysis, const struct db_summary_key *key,
		    const uint8_t *data, size_t len, char *err, size_t errlen);

/* Sets smtop_meta key to value (smtop sessions only).  0, or -1 with err. */
int db_meta_store(const char *path, const char *key, const char *value, char *err,
		  size_t errlen);

/* Replaces it (smtop sessions only; the table is created when missing). */
int db_occupancy_store(const char *path, uint32_t device_id, int version,
		       const struct db_summary_key *key, const uint8_t *data, size_t len,
		       char *err, size_t errlen);

#endif
