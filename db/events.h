/* Scheduling episodes found by the analysis, kept in the session file
 * (smtop_events, smtop_event_culprits) so a saved session reopens with them. */
#ifndef SMTOP_DB_EVENTS_H
#define SMTOP_DB_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

/* Replaces every stored event with ev[0..n) in one transaction; params (e.g.
 * "threshold_us=20", may be NULL) goes into smtop_meta key analysis_params.
 * Only smtop sessions take events.  On failure returns -1 with one line in err. */
int db_events_store(const char *path, const struct smtop_event *ev, size_t n,
		    const char *params, char *err, size_t errlen);

/* Reads the stored events (heaviest culprit first) into a malloc'd array that
 * owns its strings and culprits; free it with db_events_free.  params receives
 * analysis_params ("" if none).  A file without events gives n = 0. */
int db_events_load(const char *path, struct smtop_event **out, size_t *n,
		   char *params, size_t paramslen, char *err, size_t errlen);

/* The same for at most max events (negative: all) of id past *after, which
 * moves to the last one read: a caller that must stay responsive reads a
 * slice at a time (events in a slice by start; slices in the order stored). */
int db_events_load_slice(const char *path, int64_t *after, int64_t max, struct smtop_event **out,
			 size_t *n, char *params, size_t paramslen, char *err, size_t errlen);

/* The culprits stored for the episode of victim v (found by its start,
 * ready time, process, device and grid id), heaviest first, into *out (n
 * of them; names owned: free each name, then the array).  A file without
 * such an episode gives n = 0.  Returns 0, or -1 with one line in err. */
int db_events_culprits(const char *path, const struct smtop_event *v, struct smtop_culprit **out,
		       size_t *n, char *err, size_t errlen);

void db_events_free(struct smtop_event *ev, size_t n);

#endif
