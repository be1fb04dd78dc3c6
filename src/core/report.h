/* Renders what an analysis found (src/core/findings.h) for `smtop report
 * FILE`: as text for people, as JSON (--json) for scripts.  Pure: writes only into the FILE*
 * given.  The JSON keys are listed in docs/analysis.md and are stable. */
#ifndef SMTOP_REPORT_H
#define SMTOP_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct findings;

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

/* Both render f (findings_from_analysis of an updated analysis, or the
 * session file's stored copy: the same bytes either way).  Return 0, or -1
 * if writing failed. */
int report_text(FILE *out, const struct findings *f, const struct report_options *o);
int report_json(FILE *out, const struct findings *f, const struct report_options *o);

#endif
