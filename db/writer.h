/* The session writer: the only write connection of one process to a session
 * file.  Synchronous and single-threaded by contract: the collector's writer
 * thread (or smtop itself) is its only caller.  Prepared statements, batched
 * transactions, WAL. */
#ifndef SMTOP_DB_WRITER_H
#define SMTOP_DB_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

struct db_writer;

struct db_writer_options {
	const char *path;
	uint32_t pid;           /* process whose records this writer stores; 0 for a
				 * session-only connection (smtop record itself) */
	uint32_t ppid;
	const char *command;    /* this process's command line, for smtop_process */
	int create;             /* 1: create the session (smtop record); 0: join it */
	const char *session_command; /* with create: the recorded command line */
	int background_checkpoint; /* 1: WAL checkpoints on a thread of their own
				    * (db/checkpoint.h), for the collector's writer */
};

/* Opens (and with create, creates) the session.  On failure returns -1 and
 * writes one line naming the file and the problem into err. */
int db_writer_open(struct db_writer **out, const struct db_writer_options *opt,
		   char *err, size_t errlen);

/* Stores n records in one transaction and frees what they own (see
 * records_free_owned), also on failure.  Returns 0, or -1 with db_writer_error
 * set (a full disk sets db_writer_disk_full). */
int db_writer_write(struct db_writer *w, struct smtop_record *recs, size_t n);

/* Adds to this process's drop counters: source is "cupti", "ring" or "blocks". */
int db_writer_add_drops(struct db_writer *w, const char *source, uint64_t n);

/* Session-level key/value (smtop_meta), e.g. "clock_offset_ns". */
int db_writer_set_meta(struct db_writer *w, const char *key, const char *value);

/* Per-process status: "running", "exited", "crashed", "untraced"; reason may be NULL.
 * Also tried after a full disk stopped the writer (a small row may fit); the
 * reason then defaults to "disk full, recording stopped". */
int db_writer_set_process_status(struct db_writer *w, const char *status,
				 const char *reason);

/* Marks the whole session ended (smtop record only): clean 1 or 0 with reason.
 * Checkpoints the WAL first, so a WAL that filled the disk does not keep
 * these rows out. */
int db_writer_finish_session(struct db_writer *w, int clean, const char *reason);

const char *db_writer_error(const struct db_writer *w);
int db_writer_disk_full(const struct db_writer *w);

void db_writer_close(struct db_writer *w);

#endif
