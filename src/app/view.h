/* The viewer commands: open a saved session, or record a workload (or a
 * demo scenario) and show it live.  Glue between the session loader, the
 * recorder and the terminal loop. */
#ifndef SMTOP_VIEW_H
#define SMTOP_VIEW_H

#include <stddef.h>

#include "src/app/cli.h"

struct analysis_params;


/* smtop open FILE */
int view_open(const struct cli *c, const char *path, const char *label);

/* smtop replay FILE... [--speed X] [--guided] (several files: one view, as open) */
int view_replay(const struct cli *c, const char *const *paths, size_t n);

/* smtop open FILE FILE...: one view of several sessions (src/session/session.h). */
int view_open_many(const struct cli *c, const char *const *paths, size_t n, const char *label);
/* The viewer on path, then on whatever the session list (o) opens next, on
 * a terminal the caller checked.  Returns the exit status, or -1 with one
 * line in err when path cannot be opened. */
int view_session(const struct cli *c, const char *path, const char *label, char *err,
		 size_t errlen);

/* smtop run -- CMD, smtop demo NAME: record and view live. */
int view_live(const struct cli *c, char *const *argv, const char *label);

/* smtop demo NAME | --list */
int view_demo(const struct cli *c);

/* plain smtop: the default demo with a GPU, the bundled session without. */
int view_default(const struct cli *c);

#endif
