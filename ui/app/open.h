/* The viewer commands (smtop open, replay, run, demo, and plain smtop): a
 * saved session shown, or a workload (or a demo scenario) recorded and
 * shown live.  Glue between the session loader, the recorder, the session
 * library and the terminal loops: the viewer and the session list (o) take
 * turns on one terminal, opened once. */
#ifndef SMTOP_OPEN_H
#define SMTOP_OPEN_H

#include "ui/app/cli.h"

/* smtop open [FILE...]: one view of the files (several sessions as one,
 * db/session/session.h); without FILE, the session list (open_browse). */
int open_main(const struct cli *c);

/* smtop replay FILE... [--speed X] [--guided] (several files: one view, as open) */
int open_replay_main(const struct cli *c);

/* smtop ls on a terminal, smtop open without FILE: the session list, then
 * the viewer on what it opens (back to the list, saying why, when it does
 * not open). */
int open_browse(const struct cli *c);

/* smtop run -- CMD: record and view live. */
int open_run_main(const struct cli *c);

/* smtop demo [NAME] | --list: a demo scenario recorded and viewed live
 * (without NAME: priority-vs-training). */
int open_demo_main(const struct cli *c);

/* plain smtop without a GPU: the bundled session, saying so. */
int open_default_main(const struct cli *c);

struct ui_term;

/* The viewer on n sessions other processes write (read only, followed as
 * they grow; several as one view, as smtop open A B), on t, already open:
 * until q, with the session list (o) as from any view.  0, or -1 with err
 * when they do not open. */
int open_follow_on(struct ui_term *t, const struct cli *c, const char *const *paths, size_t n,
		   const char *label, char *err, size_t errlen);

#endif
