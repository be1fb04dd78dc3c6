/* What a finished session keeps of its own reading, so that opening it
 * again shows at once what took the whole file to find: the occupancy of
 * the whole session (smtop_occupancy, src/core/occupancy.h), the
 * analysis' episodes (smtop_events) and what `smtop report` prints of it
 * (smtop_report, src/core/findings.h), each keyed by the session's length
 * and the version that computed it (the analysis' ANALYSIS_VERSION, the
 * occupancy's OCCUPANCY_VERSION); a key that differs means computing
 * again; and the chunk table's counts (smtop_meta chunk_stats), which
 * otherwise take a read of every chunk row.  Only a single smtop session
 * keeps them, and only `smtop record` (and `run`, `demo`) stores them into
 * the session, when it finalises it; what a command that only reads
 * computes goes to smtop's cache (db/cache.h), never into the file it
 * reads.  Loads look in the session first, then in the cache.  Nsight
 * Systems exports and views of several files keep none. */
#ifndef SMTOP_SESSION_RESULTS_H
#define SMTOP_SESSION_RESULTS_H

#include <stddef.h>

#include "db/summary.h"

struct analysis_params;
struct findings;
struct session;

/* Where results_store writes. */
enum results_to {
	RESULTS_TO_SESSION,             /* the session file: smtop record finalising it */
	RESULTS_TO_CACHE,               /* smtop's cache of it (db/cache.h) */
};

enum {
	RESULTS_OCCUPANCY = 1,          /* the model draws the stored occupancy */
	RESULTS_EVENTS = 2,             /* the model holds the stored episodes */
};

/* The analysis_params the stored events carry for a session of length key
 * under s's analysis ("threshold_us=20.000 analysis=3 kernels=... chunks=...
 * streams=..."). */
void results_events_params(const struct session *s, const struct db_summary_key *key, char *buf,
			   size_t len);

/* Hands s->model (its device set) the stored results that are current.
 * Returns the RESULTS_* found (0: none, or not a single finished smtop
 * session). */
int results_show(struct session *s);

/* Stored episodes go to the model this many a poll, so that the first frame
 * does not wait for all of them (docs/performance.md, "Loader"). */
#define RESULTS_EVENT_SLICE 4096

/* The next slice of stored episodes, while some are left (session_poll). */
void results_more(struct session *s);

/* The report's findings stored in path (or its cache) for the session as
 * it is now and p's threshold, under this ANALYSIS_VERSION: 0 with f filled (free it with
 * findings_free), 1 when there are none current (the file is not a
 * finished smtop session, has none, or they are of another version,
 * threshold or length: compute them), -1 with err. */
int results_report_load(const char *path, const struct analysis_params *p, struct findings *f,
			char *err, size_t errlen);

/* What s->analysis found over the whole session, with who recorded the
 * registers its occupancy limits read.  0, or -1 when out of memory. */
int results_findings(struct session *s, struct findings *f);

/* Stores f (found by s->analysis over the whole session) and the
 * analysis' episodes into smtop's cache of s.  Returns 0, 1 when the
 * session takes none (see above), or -1 with err. */
int results_report_store(struct session *s, const struct findings *f, char *err,
			 size_t errlen);

/* Stores the occupancy of s->model (which read the whole session), the
 * analysis' events and the report's findings into the session (and its
 * chunk counts) or into smtop's cache of it.  Returns 0, 1 when the
 * session takes none (see above), or -1 with err. */
int results_store(struct session *s, enum results_to to, char *err, size_t errlen);

#endif
