/* Lessons: for each demo scenario (kernels/smtop-demo_main.cu), a short
 * explanation the viewer shows beside the view: what the block scheduler
 * did, which finding of Gilman & Walls (2021) it shows, what to look for on
 * the screen and what to try next; and the explanations of a guided
 * replay's stops (src/core/guide.h).  All texts live in src/core/lessons.c. */
#ifndef SMTOP_LESSONS_H
#define SMTOP_LESSONS_H

#include <stddef.h>

#include "src/core/guide.h"

struct lesson {
	const char *scenario;           /* smtop-demo NAME */
	const char *title;
	const char *did;                /* what the scheduler did */
	const char *finding;            /* the paper's finding it shows */
	const char *look;               /* what to look for on the screen */
	const char *next;               /* what to try next */
};

size_t lessons_count(void);
const struct lesson *lessons_at(size_t i);
/* The lesson of a scenario name, or NULL. */
const struct lesson *lessons_find(const char *scenario);
/* The lesson of a session recorded from `smtop-demo NAME ...` (its
 * recorded command line, as smtop info shows it), or NULL. */
const struct lesson *lessons_for_command(const char *command);

/* What a guided stop of this kind means; ev_kind tells resident from
 * dispatch inversions.  One paragraph, no trailing newline. */
const char *lessons_stop_text(enum guide_kind kind, enum smtop_event_kind ev_kind);
/* A short title for the stop ("First priority inversion"). */
const char *lessons_stop_title(enum guide_kind kind, enum smtop_event_kind ev_kind);

#endif
