/* The analysis' verdicts: each kernel's ready time, its wait, the culprits
 * resident meanwhile, and the episode it makes (blocking, resident or
 * dispatch priority inversion, time-slicing), once everything it depends on
 * is in; provisional episodes for the kernels still undecided. */
#ifndef SMTOP_ANALYSIS_VERDICTS_H
#define SMTOP_ANALYSIS_VERDICTS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis_state.h"

/* Sorts what ready times read (copies, memsets, waits) and the streams by
 * priority, the order verdicts are made in. */
void analysis_verdicts_prepare(struct analysis *a);
/* Makes the verdicts of every kernel whose inputs are complete, and the
 * provisional ones of the rest; rc: -1 when the device index could not be
 * built (no new verdict then).  Returns 0, or -1 when out of memory. */
int analysis_verdicts_decide(struct analysis *a, int rc);

#endif
