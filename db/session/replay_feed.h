/* The replay feed: makes the viewer's model hold a saved session as it was
 * at the replay clock (src/core/replay_clock.c), as if it were arriving
 * live.  Kernels, blocks, events and NVTX ranges go to the model in time
 * order; a kernel or block still running at the clock is cut there and
 * grows as the clock moves on, and a victim still waiting shows its wait so
 * far.  Going back rebuilds the model from the session's start.
 *
 * The session must have been polled once (session_poll, with or without a
 * model): its analysis, over the whole session, gives the events.  Blocks
 * are read ahead in time slices (db_reader_blocks), never all at once; blocks
 * whose kernel record is missing (a trimmed session keeps whole chunks) are
 * left out, as they cannot be drawn.  A session of several files
 * (session_open_many) replays as one: its files' records merge in time order. */
#ifndef SMTOP_SESSION_REPLAY_FEED_H
#define SMTOP_SESSION_REPLAY_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"
#include "src/core/replay_clock.h"

struct model;
struct session;

struct replay_feed_block {
	struct smtop_block b;
	uint32_t pid, context_id;
	uint64_t fed_to;                /* blocks in flight: shown up to here */
};

/* A kernel or event fed cut at the clock, and where the model keeps it. */
struct replay_feed_cut {
	size_t item;                    /* index in kernels, or analysis event index */
	size_t model;                   /* index in the model's kernels or events */
};

struct replay_feed {
	struct session *s;
	struct model *m;
	struct smtop_kernel *kernels;   /* the whole session by start; names in the reader */
	size_t n_kernels, cap_kernels;
	size_t *by_grid;                /* kernel indices by (pid, context, grid id) */
	unsigned char *kernel_fed;      /* per kernel: in the model */
	size_t next_kernel;             /* by start: the first not fed yet */
	struct replay_feed_cut *open_kernels, *open_events;
	size_t n_open_kernels, cap_open_kernels, n_open_events, cap_open_events;
	size_t events_fed;
	struct smtop_nvtx *nvtx;        /* by end */
	size_t n_nvtx, cap_nvtx, nvtx_fed;
	struct replay_feed_block *buf; /* read ahead, not fed yet, by start */
	size_t n_buf, cap_buf, next_buf;
	struct replay_feed_block *active; /* fed in part: still running */
	size_t n_active, cap_active;
	uint64_t read_from, read_to, read_end; /* blocks starting before read_to were read */
	uint64_t slice_ns;
	uint64_t t_first, t_last;       /* what can be replayed: the kernels' span */
	uint64_t fed;                   /* the model holds the session up to here */
	int whole;                      /* the model holds everything (loaded elsewhere) */
};

/* Reads the session's kernels and NVTX ranges.  model_whole: m already
 * holds the whole session (session_poll fed it).  Returns 0, or -1 with one
 * line in err. */
int replay_feed_open(struct replay_feed *p, struct session *s, struct model *m,
		     int model_whole, char *err, size_t errlen);
void replay_feed_close(struct replay_feed *p);

/* Makes the model hold the session up to clock (everything when clock >=
 * t_last).  Returns 1 if the model changed, 0 if not, -1 on a read error
 * (err set). */
int replay_feed_to(struct replay_feed *p, uint64_t clock, char *err, size_t errlen);

/* Fills the model's detail level for [t0, t1) with the blocks shown now (cut
 * at the fed clock); later feeds keep it up to date.  Returns 0 or -1. */
int replay_feed_detail(struct replay_feed *p, uint64_t t0, uint64_t t1);
/* The blocks of it alone: the caller begins and ends the detail level. */
int replay_feed_add_detail(struct replay_feed *p, uint64_t t0, uint64_t t1);

/* struct replay_clock_marks' find, on this feed (ud is the replay_feed). */
int replay_feed_find(void *ud, enum replay_clock_mark kind, int dir, uint64_t t, uint32_t sm0,
		     uint32_t sm1, uint64_t *out);

#endif
