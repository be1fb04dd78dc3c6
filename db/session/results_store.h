/* Storing what a finished session keeps of its own reading
 * (db/session/results.h says what and where): above the session, whose
 * analysis and model it reads. */
#ifndef SMTOP_SESSION_RESULTS_STORE_H
#define SMTOP_SESSION_RESULTS_STORE_H

#include <stddef.h>

#include "db/session/session.h"

struct findings;

/* Where results_store writes. */
enum results_to {
	RESULTS_TO_SESSION,             /* the session file: smtop record finalising it */
	RESULTS_TO_CACHE,               /* smtop's cache of it (db/cache.h) */
};

/* What s->analysis found over the whole session, with who recorded the
 * registers its occupancy limits read.  0, or -1 when out of memory. */
int results_store_findings(struct session *s, struct findings *f);

/* Stores f (found by s->analysis over the whole session) and the
 * analysis' episodes into smtop's cache of s.  Returns 0, 1 when the
 * session takes none (db/session/results.h), or -1 with err. */
int results_store_report(struct session *s, const struct findings *f, char *err, size_t errlen);

/* Stores the occupancy of s->model (which read the whole session), the
 * analysis' events and the report's findings into the session (and its
 * chunk counts) or into smtop's cache of it.  Returns 0, 1 when the
 * session takes none, or -1 with err. */
int results_store(struct session *s, enum results_to to, char *err, size_t errlen);

#endif
