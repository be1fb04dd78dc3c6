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
#include <stdint.h>

#include "db/summary.h"

struct analysis_params;
struct findings;
struct model;

enum {
	RESULTS_OCCUPANCY = 1,          /* the model draws the stored occupancy */
	RESULTS_EVENTS = 2,             /* the model holds the stored episodes */
};

/* The session whose stored results are looked up, as far as they care. */
struct results_source {
	const char *path;               /* the session file */
	int single_finished;            /* one smtop file, finalised: nothing more will
					 * change what is stored */
	uint64_t threshold_ns;          /* the analysis' blocking threshold */
};

/* The stored episodes on their way to a model, a slice a poll. */
struct results_feed {
	char *path;                     /* where they were found when not in the session
					 * file: its cache (owned); NULL the file */
	int64_t mark;                   /* the last one handed over, by id */
	int more;                       /* some are left */
};

/* The analysis_params the stored events carry for a session of length key
 * under an analysis of threshold_ns ("threshold_us=20.000 analysis=3
 * kernels=... chunks=... streams=..."). */
void results_events_params(uint64_t threshold_ns, const struct db_summary_key *key, char *buf,
			   size_t len);

/* The key of what src stores: 0, 1 when it takes no stored results
 * (several files, an nsys export, not finished), -1 with err. */
int results_key(const struct results_source *src, struct db_summary_key *key, char *err,
		size_t errlen);

/* Hands model m (its device set) the stored results of src that are
 * current, the episodes a slice at a time through feed.  Returns the
 * RESULTS_* found (0: none, or not a single finished smtop session). */
int results_show(const struct results_source *src, struct model *m, struct results_feed *feed);

/* Stored episodes go to the model this many a poll, so that the first frame
 * does not wait for all of them (docs/performance.md, "Loader"). */
#define RESULTS_EVENT_SLICE 4096

/* The next slice of stored episodes, while some are left (session_poll). */
void results_more(const struct results_source *src, struct model *m, struct results_feed *feed);

/* The file feed's episodes come from: its cache, else the session's. */
const char *results_feed_path(const struct results_feed *feed, const char *session_path);

/* The report's findings stored in path (or its cache) for the session as
 * it is now and p's threshold, under this ANALYSIS_VERSION: 0 with f filled (free it with
 * findings_free), 1 when there are none current (the file is not a
 * finished smtop session, has none, or they are of another version,
 * threshold or length: compute them), -1 with err. */
int results_report_load(const char *path, const struct analysis_params *p, struct findings *f,
			char *err, size_t errlen);

#endif
