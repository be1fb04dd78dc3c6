/* What the analysis found over a whole session, as `smtop report` prints it:
 * the threshold, the totals, each stream's summary, the limits and every
 * final episode with its culprits.  A plain copy that owns its strings, so
 * that it outlives the analysis, and packs into bytes for the session file
 * (smtop_report, docs/session-format.md): a saved session's report then
 * prints without reading a block.  Pure: no I/O. */
#ifndef SMTOP_CORE_FINDINGS_H
#define SMTOP_CORE_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis.h"
#include "src/core/report_occupancy.h"

/* Bumped when the bytes change (what they mean is ANALYSIS_VERSION's):
 * 3, an episode's possible and least wait; 4, and the session's first
 * time (reports print times from it). */
#define FINDINGS_VERSION 4

struct findings {
	uint64_t threshold_ns;
	uint64_t t_first;                       /* the session's first kernel or block start
						 * (CUPTI ns), what the viewer counts times
						 * from; 0 unknown */
	struct analysis_totals totals;
	unsigned limits;                        /* OR of enum analysis_limit */
	struct analysis_stream_summary *streams; /* analysis_stream_summary's order */
	size_t n_streams;
	struct smtop_event *events;             /* final, by ready time as the analysis
						 * orders them; names and culprits owned */
	size_t n_events;
	struct occupancy_configs occ;           /* observed residency against limits */
	char *registers_from;                   /* who recorded the registers: "cupti",
						 * "sanitizer", "mixed"; NULL: "cupti" */
};

/* Copies what a (updated) analysis found.  0, or -1 when out of memory (f
 * then holds nothing). */
int findings_from_analysis(struct analysis *a, struct findings *f);

void findings_free(struct findings *f);

/* Bytes (malloc'd, *len long) and back; decode checks every count against
 * the bytes' end: -1 on damaged bytes or another FINDINGS_VERSION, -2 when
 * out of memory (f then holds nothing). */
int findings_encode(const struct findings *f, uint8_t **out, size_t *len);
int findings_decode(struct findings *f, const uint8_t *p, size_t len);

#endif
