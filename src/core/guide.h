/* Guided replay: the key moments of a session, where a guided replay pauses
 * with a caption.  Derived from the analysis' events (src/core/analysis.c), never
 * from hard-coded times: the first priority inversion, the first of the other
 * inversion kind, the first blocking episode when there is no inversion, the
 * first time slice, the longest wait and the moment its victim finally
 * starts, the worst plain blocking episode, and the end. */
#ifndef SMTOP_GUIDE_H
#define SMTOP_GUIDE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

#define GUIDE_MAX_STOPS 8

struct analysis;

enum guide_kind {
	GUIDE_FIRST_INVERSION,          /* the first priority inversion begins */
	GUIDE_OTHER_INVERSION,          /* the first inversion of the other kind */
	GUIDE_FIRST_BLOCKING,           /* no inversion at all: the first blocking episode */
	GUIDE_FIRST_TIMESLICE,          /* another process held the GPU */
	GUIDE_WORST,                    /* the longest wait begins */
	GUIDE_VICTIM_STARTS,            /* ... and ends: the victim's first block */
	GUIDE_WORST_BLOCKING,           /* the longest plain blocking episode, beside inversions */
	GUIDE_END,                      /* the session is over */
	GUIDE_KIND_COUNT,
};

/* One stop, with what its caption says about the episode (names short). */
struct guide_stop {
	uint64_t t;                     /* where the replay clock pauses */
	enum guide_kind kind;
	long event;                     /* analysis event index, -1 (GUIDE_END) */
	enum smtop_event_kind ev_kind;
	uint64_t ready, start, wait_ns;
	const char *victim;
	uint32_t stream;
	int32_t priority;
	const char *culprit;            /* heaviest culprit, NULL if none */
	uint32_t culprit_stream;
	int32_t culprit_priority;
	uint32_t culprit_blocks;        /* 0 = unknown */
};

struct guide {
	struct guide_stop stops[GUIDE_MAX_STOPS]; /* by time */
	size_t n;
	size_t events[SMTOP_EV_TIMESLICE + 1]; /* the session's episodes by kind */
	uint64_t delay_ns[SMTOP_EV_TIMESLICE + 1];
};

/* short_name(ud, name) gives the name to show (NULL: names as given). */
typedef const char *(*guide_name_fn)(void *ud, const char *name);

/* Fills g from the analysis' final events; t_end is the end stop's time.
 * Returns the number of stops. */
size_t guide_build(struct guide *g, const struct analysis *a, uint64_t t_end,
		   guide_name_fn short_name, void *ud);
/* The same from n final episodes by ready time (a session's stored ones). */
size_t guide_build_events(struct guide *g, const struct smtop_event *ev, size_t n,
			  uint64_t t_end, guide_name_fn short_name, void *ud);

/* The stops' times, for replay_clock_set_stops. */
size_t guide_times(const struct guide *g, uint64_t *out, size_t max);

int guide_is_inversion(enum smtop_event_kind k);

#endif
