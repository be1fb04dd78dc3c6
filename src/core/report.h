/* Renders an analysis (src/core/analysis.h) for `smtop report FILE`: as text for
 * people, as JSON (--json) for scripts.  Pure: writes only into the FILE*
 * given.  The JSON keys are listed in docs/analysis.md and are stable. */
#ifndef SMTOP_REPORT_H
#define SMTOP_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct analysis;

#define REPORT_JSON_VERSION 1

struct report_options {
	const char *source;     /* session path shown in the header, may be NULL */
	size_t max_episodes;    /* worst episodes listed; 0 lists all */
	int explain;            /* text: why each episode's ready time, and what ran meanwhile */
	/* who recorded the registers the occupancy limits read: "cupti" (--sm
	 * marked, Nsight Systems exports), "sanitizer" (--sm all), "mixed",
	 * NULL unknown (said as cupti) */
	const char *registers_from;
};

/* Both return 0, or -1 if writing failed.  Call analysis_update first. */
int report_text(FILE *out, struct analysis *a, const struct report_options *o);
int report_json(FILE *out, struct analysis *a, const struct report_options *o);

#endif
