/* Time-slicing detection: a wait where the culprits' process and the
 * victim's took turns on the whole device (time-sliced contexts) rather
 * than sharing it, told from their block events. */
#ifndef SMTOP_ANALYSIS_TIMESLICE_H
#define SMTOP_ANALYSIS_TIMESLICE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis_state.h"

/* Time-sliced contexts take turns on the whole device: block events (starts
 * and ends) of one process never come within a context switch of the
 * other's, though a preempted block's recorded interval stays open across
 * the other's slice.  docs/analysis.md states the rule and its limits. */
int analysis_timeslice_looks(const struct analysis *a, const struct kern *v, uint64_t ready,
			     uint64_t first, const struct cands *c);

/* Every block event before the window's end is in: blocks that ended before
 * the watermark are, and a block still running belongs to a kernel still
 * running.  So wait while a kernel of v's or a culprit's process that began
 * before the window's end (plus a gap for clock slack) still runs. */
int analysis_timeslice_data_complete(const struct analysis *a, const struct kern *v,
				     const struct cands *c);

#endif
