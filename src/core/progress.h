/* Progress of a long step (reading a session, writing an export): the share
 * done and an estimate of the time left, told to whoever shows it (the
 * command line's progress line on stderr, the viewer's status line).  No
 * I/O here: the step reports, a sink shows. */
#ifndef SMTOP_CORE_PROGRESS_H
#define SMTOP_CORE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* The estimate waits for this much of the step, so the first batches (the
 * file's cache warming, threads starting) do not promise a wrong time. */
#define PROGRESS_ESTIMATE_AFTER_NS 200000000ull

struct progress {
	const char *what;               /* "reading s.smtop", not owned */
	uint64_t begun_ns;              /* monotonic; when the step began */
	uint64_t now_ns;                /* monotonic; of this report */
	uint64_t done, total;           /* in the step's own units; total 0: unknown */
	int finished;                   /* the last report of the step */
};

/* Where a step reports; fn NULL: nobody listens. */
struct progress_sink {
	void (*fn)(void *ud, const struct progress *p);
	void *ud;
};

void progress_begin(struct progress *p, const char *what, uint64_t total, uint64_t now_ns);
/* Sets done and the time, then tells the sink (when it has a listener). */
void progress_report(struct progress *p, const struct progress_sink *sink, uint64_t done,
		     uint64_t now_ns);
/* The last report: done = total. */
void progress_finish(struct progress *p, const struct progress_sink *sink, uint64_t now_ns);

/* 0..100; 0 while the total is unknown. */
int progress_percent(const struct progress *p);
/* Time left at the rate so far, in ns; -1 while too early to tell. */
int64_t progress_left_ns(const struct progress *p);
/* "42%" sep "8 s left" ("42%" alone while the time left is unknown). */
char *progress_format(const struct progress *p, const char *sep, char *buf, size_t len);

#endif
