/* The session loader: polls one or more session files through read-only
 * readers (by rowid watermarks, so a live session is read as it grows) and
 * feeds what is new to one analysis and, when one is attached, the viewer's
 * model.
 *
 * Several files (`smtop open A B ...`) make one view: each file keeps its own
 * reader, watermarks and clock offset, and everything lands in the same
 * analysis and model.  Records keep their process id, so the streams of
 * different processes stay apart; device ids are taken as recorded, so the
 * same id in two files is taken to be the same GPU (true for the processes of
 * one machine; see docs/session-format.md, "Opening several files").
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
#include "db/session/results.h"
#include "src/core/progress.h"

/* A live view's poll budget: frames keep coming while the loader catches up. */
#define SESSION_LIVE_BUDGET_NS 30000000ull

struct analysis;
struct analysis_params;
struct model;
struct session_loader;
struct session_focus;

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

#define SESSION_MAX_SOURCES 16

/* One file of the session and how far it has been read. */
struct session_source {
	struct db_reader *reader;
	const char *path;
	struct db_session_info info;
	int64_t kernel_mark, block_mark;
	uint64_t streams_seen, devices_seen, requests_seen, contexts_seen;
	uint64_t nvtx_seen, nvtx_mark;
	/* copies, memsets, waits and launch calls, for ready times */
	int64_t memcpy_mark, memset_mark, sync_mark, cuda_event_mark, graph_dep_mark, api_mark;
	uint64_t memcpys_seen, memsets_seen, apis_seen, syncs_seen;
	uint64_t blocks_end;            /* latest block end read from this file */
	int drained;                    /* the last poll read all of this file's blocks */
};

struct session {
	struct db_reader *reader;       /* the first file's reader */
	struct analysis *analysis;
	struct model *model;            /* may be NULL */
	const char *path;               /* the first file */
	struct db_session_info info;    /* over every file: counts summed, span joined */
	struct session_source src[SESSION_MAX_SOURCES];
	size_t n_src;
	struct smtop_device *devices;   /* info.devices: every file's, first of each id */
	struct db_process_info *processes;
	uint64_t latest_end;            /* latest kernel or block end fed: the live edge */
	size_t events_fed;              /* analysis events handed to the model */
	int model_device_set;
	const char *read_error;         /* the last failed walk's reader message, or NULL */
	int view_device;                /* the GPU the model draws, by device id; -1: the
					 * first recorded */
	int ended;                      /* every file was finalised: nothing more comes */
	uint64_t budget_ns;             /* 0: a poll reads all that is new; else it stops
					 * reading blocks after about this long */
	int behind;                     /* the last poll stopped with blocks left to read
					 * (kernels then wait for the blocks to reach them) */
	struct session_loader *loader;  /* threads and batches */
	struct session_focus *focus;    /* session_focus_more's place; NULL none */
	struct {                        /* session_detail_more's place */
		size_t src;
		struct db_block_walk w;
	} detail;
	struct session_stats stats;
	/* reading a finished session's blocks: reported to progress (set by
	 * session_open from session_set_default_progress; the caller may change
	 * it) and shown by the model's status line */
	struct progress_sink progress;
	struct progress load;
	char load_what[96];
	/* the viewer: a finished session's stored occupancy and episodes go to
	 * the model before its blocks (db/session/results.h), and its kernels
	 * as they are read */
	int show_stored;
	int stored_shown;               /* RESULTS_* */
	/* the stored episodes stand for the analysis (a finished session shown
	 * with them): nothing is fed to it, so that the viewer's memory does
	 * not grow with every kernel of the session (docs/performance.md) */
	int analysis_off;
	struct findings *findings;      /* the stored episodes, as the report keeps them */
	struct smtop_event *episodes;   /* else as smtop_events keeps them */
	size_t n_episodes;
	int episodes_read;
	struct results_feed stored;     /* the stored episodes on their way to the model,
					 * from the file itself or smtop's cache */
};

/* The sink every session opened from now on reports its reading to (the
 * command line's progress line); NULL: none. */
void session_set_default_progress(const struct progress_sink *sink);

/* Opens path and creates the analysis, with pool_default_threads() loader
 * threads.  Returns 0, or -1 with one line in err. */
int session_open(struct session *s, const char *path, const struct analysis_params *p,
		 char *err, size_t errlen);

/* The same for n files (1 <= n <= SESSION_MAX_SOURCES) shown as one session. */
int session_open_many(struct session *s, const char *const *paths, size_t n,
		      const struct analysis_params *p, char *err, size_t errlen);

/* The GPU the model draws: the device whose id is view_device (set it before
 * the first poll), or the first recorded when view_device is -1; NULL while
 * the session lists no such device. */
const struct smtop_device *session_view_device(const struct session *s);

/* Sets m to draw that GPU, and (in smtop sessions, whose device ids agree
 * everywhere) no other GPU's blocks and episodes.  1 once set, 0 while the
 * session lists no such device, -1 on error. */
int session_model_gpu(const struct session *s, struct model *m);

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

/* Blocks of every file overlapping [t0, t1), on CUPTI time (db_reader_blocks). */
int session_blocks(struct session *s, uint64_t t0, uint64_t t1, db_block_fn fn, void *ud);

/* Kernels of every file overlapping [t0, t1), file by file (db_reader_kernels). */
int session_kernels(struct session *s, uint64_t t0, uint64_t t1, db_kernel_fn fn, void *ud);
/* Kernels of every file that never started (db_reader_unstarted_kernels). */
int session_unstarted_kernels(struct session *s, db_kernel_fn fn, void *ud);
/* The NVTX ranges and marks of every source that overlap [t0, t1). */
int session_nvtx(struct session *s, uint64_t t0, uint64_t t1, db_nvtx_fn fn, void *ud);
/* Why the last of those walks failed, naming the file (the reader's
 * message); "PATH: cannot read WHAT" when the reader gave none. */
const char *session_walk_error(struct session *s, const char *what, char *buf, size_t len);

/* Reads into m->focus the SMs that kernel k (m's kernel index) ran blocks
 * on (its grid's blocks from its first block to its last as the model has
 * them, a replay's cut at the clock included) and its correlation id.  0, or
 * -1 on a read error (the focus then says none). */
int session_focus_kernel(struct session *s, struct model *m, long k);
/* The same a few chunks at a time, for a caller that must stay responsive
 * (a kernel of seconds has millions of blocks): session_focus_start for
 * kernel k, then session_focus_more reads up to max_chunks more chunks; 1
 * while chunks remain, 0 once m->focus is set, -1 on error. */
int session_focus_start(struct session *s, struct model *m, long k);
int session_focus_more(struct session *s, size_t max_chunks);
/* Reads into m->focus the culprits of m's episode e that m left in the
 * file (model culprits_stored).  0, or -1 on a read error. */
int session_focus_event(struct session *s, struct model *m, long e);

/* The short name of a kernel name handed out by any of the readers. */
const char *session_short_name(struct session *s, const char *name);

void session_close(struct session *s);

/* What the status line shows about the session (drops, threshold), and the
 * loader's threads for m's binning. */
void session_model_meta(const struct session *s, struct model *m);

/* Fills s->model's detail level for [t0, t1) with the blocks of that window
 * (the viewer's ui_source detail callback).  Returns 0 or -1 (read error). */
int session_fill_detail(struct session *s, uint64_t t0, uint64_t t1);
/* The same a few chunks at a time, for a caller that must stay responsive
 * (it begins and ends the model's detail level): session_detail_start for
 * [t0, t1), then session_detail_more adds the blocks of up to max_chunks
 * more chunks; 1 while chunks remain, 0 when all are in, -1 on error. */
#define SESSION_DETAIL_CHUNKS 64     /* a call's worth for the viewer: <= 256 K blocks */
void session_detail_start(struct session *s, uint64_t t0, uint64_t t1);
int session_detail_more(struct session *s, size_t max_chunks);

/* Before the first poll: when the file stores current findings
 * (results_report_load), the analysis is left off and they stand for it:
 * a poll then reads no kernel or block unless a model takes them.  Returns 1 when
 * so, 0 when not (the analysis reads everything), -1 with err. */
int session_use_stored(struct session *s, char *err, size_t errlen);

/* The session's final episodes, by ready time (analysis_event's order):
 * the analysis' own, or the stored ones while the analysis is off (the
 * report's findings, else smtop_events, read from the file on the first
 * call; none if that read fails). */
size_t session_event_count(struct session *s);
const struct smtop_event *session_event(struct session *s, size_t i);

/* Stores the analysis' events into to: the session file itself (smtop
 * record finalising it) or its cache file (db/cache.h), keyed by the
 * session's length (a separate, short-lived write connection).  Only a
 * single smtop session takes them: returns 1 without writing for Nsight
 * Systems exports and for several files.  Returns 0 or -1 with err set. */
int session_store_events(struct session *s, const char *to, char *err, size_t errlen);

/* The file the stored episodes were found in (smtop's cache, else the
 * session). */
const char *session_results_path(const struct session *s);

/* What the stored results of s are looked up by (db/session/results.h). */
struct results_source session_results_source(const struct session *s);

#endif
