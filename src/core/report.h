/* Renders what an analysis found (src/core/findings.h) for `smtop report
 * FILE`: as text for people, as JSON (--json) for scripts.  Pure: writes only into the FILE*
 * given.  The JSON keys are listed in docs/analysis.md and are stable. */
#ifndef SMTOP_REPORT_H
#define SMTOP_REPORT_H

#include <stddef.h>
#include <stdint.h>
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
	/* text: kernels by their full names instead of the short ones the
	 * viewer shows (JSON always has both) */
	int long_names;
	/* the full name shown for a stored one (a demangler, malloc'd result,
	 * NULL: the stored name); the core has none of its own */
	char *(*full_name)(const char *name);
	/* what the collector counted as dropped (the session's info); an
	 * Nsight Systems export counts none: drops_known 0, said as unknown */
	int drops_known;
	uint64_t dropped_blocks, dropped_cupti, dropped_ring;
};

/* Longest short name in the text's tables; longer ones end in "...". */
#define REPORT_NAME_MAX 48
/* Room for a full name (cuDNN's run to 1,500 characters). */
#define REPORT_NAME_LEN 4096

/* The name text shows for a kernel: short (names_short, cut to max
 * characters, 0 no cut) unless o->long_names.  Writes into buf. */
const char *report_name(char *buf, size_t len, const char *name, size_t max,
			const struct report_options *o);

/* Both render f (findings_from_analysis of an updated analysis, or the
 * session file's stored copy: the same bytes either way).  Return 0, or -1
 * if writing failed. */
int report_text(FILE *out, const struct findings *f, const struct report_options *o);
int report_json(FILE *out, const struct findings *f, const struct report_options *o);

#endif
