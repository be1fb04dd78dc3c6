/* The report's section "occupancy: observed vs limit": each kernel launch
 * configuration's most blocks resident on one SM at once against the
 * occupancy limit of its launch (docs/analysis.md).  Part of
 * src/core/report.c's output; pure like it. */
#ifndef SMTOP_REPORT_OCCUPANCY_H
#define SMTOP_REPORT_OCCUPANCY_H

#include <stdio.h>

struct analysis;
struct report_options;

/* Each returns 0, or -1 when out of memory. */
int report_occupancy_text(FILE *out, const struct analysis *a, const struct report_options *o);
/* The "occupancy" key and its object, with a trailing comma and newline. */
int report_occupancy_json(FILE *out, const struct analysis *a, const struct report_options *o);

#endif
