/* The session loader: polls a session through the read-only reader (by rowid
 * watermarks, so a live session is read as it grows) and feeds what is new
 * to the analysis and, when one is attached, the viewer's model. */
#ifndef SMTOP_SESSION_H
#define SMTOP_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "db/reader.h"

struct analysis;
struct analysis_params;
struct model;

struct session {
	struct db_reader *reader;
	struct analysis *analysis;
	struct model *model;            /* may be NULL */
	const char *path;
	struct db_session_info info;
	int64_t kernel_mark, block_mark;
	uint64_t streams_seen, devices_seen, requests_seen;
	uint64_t latest_end;            /* latest kernel or block end fed */
	size_t events_fed;              /* analysis events handed to the model */
	uint64_t nvtx_seen, nvtx_mark;
	int ended;                      /* the session was finalised: nothing more comes */
};

/* Opens path and creates the analysis.  Returns 0, or -1 with one line in err. */
int session_open(struct session *s, const char *path, const struct analysis_params *p,
		 char *err, size_t errlen);

/* Feeds whatever is new to the analysis (and model) and updates the analysis.
 * Returns 1 if anything new arrived, 0 if not, -1 on a read error (err set). */
int session_poll(struct session *s, char *err, size_t errlen);

void session_close(struct session *s);

/* What the status line shows about the session: drops, threshold. */
void session_model_meta(const struct session *s, struct model *m);

/* Stores the analysis' events into the session file (a separate, short-lived
 * write connection).  Returns 0 or -1 with err set. */
int session_store_events(struct session *s, char *err, size_t errlen);

#endif
