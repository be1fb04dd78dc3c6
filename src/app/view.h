/* The viewer commands: open a saved session, or record a workload (or a
 * demo scenario) and show it live.  Glue between the session loader, the
 * recorder, the session library and the terminal loops: the viewer and the
 * session list (o) take turns on one terminal, opened once. */
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

/* smtop ls on a terminal, smtop open without FILE: the session list, then
 * the viewer on what it opens (back to the list, saying why, when it does
 * not open). */
int view_browse(const struct cli *c);

/* smtop run -- CMD, smtop demo NAME: record and view live. */
int view_live(const struct cli *c, char *const *argv, const char *label);

/* smtop demo NAME | --list */
int view_demo(const struct cli *c);

/* plain smtop: the default demo with a GPU, the bundled session without. */
int view_default(const struct cli *c);

#endif
