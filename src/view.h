/* The viewer commands: open a saved session, or record a workload (or a
 * demo scenario) and show it live.  Glue between the session loader, the
 * recorder and the terminal loop. */
#ifndef SMTOP_VIEW_H
#define SMTOP_VIEW_H

#include "src/cli.h"

struct analysis_params;

/* The analysis thresholds the command line asks for. */
void view_params(const struct cli *c, struct analysis_params *p);

/* smtop open FILE */
int view_open(const struct cli *c, const char *path, const char *label);

/* smtop replay FILE [--speed X] [--guided] */
int view_replay(const struct cli *c, const char *path);

/* smtop run -- CMD, smtop demo NAME: record and view live. */
int view_live(const struct cli *c, char *const *argv, const char *label);

/* smtop demo NAME | --list */
int view_demo(const struct cli *c);

/* plain smtop: the default demo with a GPU, the bundled session without. */
int view_default(const struct cli *c);

#endif
