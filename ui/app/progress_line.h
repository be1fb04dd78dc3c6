/* The command line's progress line: one line on stderr, rewritten in place,
 * for any step that runs longer than half a second (reading a session,
 * writing an export, summarising a recording).  Only when stderr is a
 * terminal and -q was not given: pipes and logs never see it. */
#ifndef SMTOP_APP_PROGRESS_LINE_H
#define SMTOP_APP_PROGRESS_LINE_H

#include "src/core/progress.h"

/* A step shows nothing before this, so quick commands print no line. */
#define PROGRESS_LINE_AFTER_NS 500000000ull
/* Redraws at most this often. */
#define PROGRESS_LINE_EVERY_NS 100000000ull

/* Turns the line on when stderr is a terminal and quiet is 0, and makes it
 * the sink of every session opened afterwards.  Returns 1 when on. */
int progress_line_setup(int quiet);
/* The sink (its fn is NULL when the line is off). */
const struct progress_sink *progress_line_sink(void);
/* Erases the line if one is shown (before other output on stderr). */
void progress_line_clear(void);

#endif
