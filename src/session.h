/* The session loader: polls a session through the read-only reader (by rowid
 * watermarks, so a live session is read as it grows) and feeds what is new
 * to the analysis and, when one is attached, the viewer's model.
 *
 * Blocks travel in batches of chunks: read on the caller's thread, decoded
 * on a pool of threads, binned into the model on the same pool, while the
 * analysis takes them in on a thread of its own.  A poll can be given a time
 * budget, so that a live view behind the data still draws frames (see
 * docs/ui.md, "The loader"). */
#ifndef SMTOP_SESSION_H
#define SMTOP_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "db/reader.h"

/* A live view's poll budget: frames keep coming while the loader catches up. */
#define SESSION_LIVE_BUDGET_NS 30000000ull

struct analysis;
struct analysis_params;
struct model;
struct session_loader;

/* Where the loader's time went (seconds; wall time of the polling thread's
 * steps, CPU time of the analysis), for benchmarks and the docs. */
struct session_stats {
	uint64_t chunks, blocks;        /* read so far */
	double read_s;                  /* stepping the chunk table, copying chunks */
	double decode_s;                /* decoding, on the pool */
	double model_s;                 /* placing blocks and binning them */
	double analysis_s;              /* the analysis, CPU time */
	double wait_s;                  /* waiting for the analysis to free a batch */
};

struct session {
	struct db_reader *reader;
	struct analysis *analysis;
	struct model *model;            /* may be NULL */
	const char *path;
	struct db_session_info info;
	int64_t kernel_mark, block_mark;
	uint64_t streams_seen, devices_seen, requests_seen;
	uint64_t latest_end;            /* latest kernel or block end fed: the live edge */
	uint64_t blocks_end;            /* latest block end read */
	size_t events_fed;              /* analysis events handed to the model */
	uint64_t nvtx_seen, nvtx_mark;
	int ended;                      /* the session was finalised: nothing more comes */
	uint64_t budget_ns;             /* 0: a poll reads all that is new; else it stops
					 * reading blocks after about this long */
	int behind;                     /* the last poll stopped with blocks left to read
					 * (kernels then wait for the blocks to reach them) */
	struct session_loader *loader;  /* threads and batches */
	struct session_stats stats;
};

/* Opens path and creates the analysis, with pool_default_threads() loader
 * threads.  Returns 0, or -1 with one line in err. */
int session_open(struct session *s, const char *path, const struct analysis_params *p,
		 char *err, size_t errlen);

/* Loader threads from now on: n in all, the caller's included (1: everything
 * on the caller's thread).  Results do not depend on it.  Returns 0, or -1
 * (the old threads stay). */
int session_set_threads(struct session *s, int n);

/* Feeds whatever is new to the analysis (and model) and updates the analysis.
 * Returns 1 if anything new arrived, 0 if not, -1 on a read error (err set).
 * Without a budget the analysis has taken everything in on return; with one
 * it may still be working (its events reach the model at a later poll). */
int session_poll(struct session *s, char *err, size_t errlen);

/* Waits until the analysis has taken in everything fed so far. */
void session_sync(struct session *s);

void session_close(struct session *s);

/* Stores the analysis' events into the session file (a separate, short-lived
 * write connection).  Returns 0 or -1 with err set. */
int session_store_events(struct session *s, char *err, size_t errlen);

#endif
