/* Ending a session from the process that recorded it: `smtop record` ends
 * the sessions it started, and the collector of a process started by `smtop
 * launch` ends each of its own, since no smtop need be there when it stops. */
#ifndef SMTOP_DB_SESSION_END_H
#define SMTOP_DB_SESSION_END_H

struct db_writer;

/* Marks the session at path ended through w (clean 1 or 0, reason may be
 * NULL), then stores the clock between %globaltimer and CUPTI time measured
 * on its own kernels and blocks, so every reader uses the same one.  0, or
 * -1 with db_writer_error(w) set. */
int db_session_end(struct db_writer *w, const char *path, int clean, const char *reason);

#endif
