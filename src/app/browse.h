/* The session list on a terminal: the first screen of `smtop ls` and of
 * `smtop open` without a file, and what o shows over the viewer.  Glue
 * between the library and the list view; the viewer is its caller's. */
#ifndef SMTOP_BROWSE_H
#define SMTOP_BROWSE_H

#include <stddef.h>

#include "src/app/cli.h"

struct model;
struct ui_source;

enum browse_result {
	BROWSE_QUIT,                 /* leave smtop (Ctrl-C, or back with no viewer behind) */
	BROWSE_BACK,                 /* back to the viewer behind the list */
	BROWSE_OPEN,                 /* open the session written into chosen */
};

/* Shows the library of c (ls DIR, else the default one).  current: the
 * session a viewer shows behind the list (NULL: none); m and bg: a live view
 * behind it whose source keeps being polled (NULL: none); msg: a first
 * message for the status line (NULL: none). */
int browse_list(const struct cli *c, const char *current, struct model *m,
		const struct ui_source *bg, const char *msg, char *chosen, size_t len);

/* Shows a session chosen in the list (view_session): its exit status, or
 * -1 with err when it cannot be opened. */
typedef int browse_open_fn(const struct cli *c, const char *path, const char *label, char *err,
			   size_t errlen);

/* smtop ls on a terminal, smtop open without FILE: the list, then open on
 * what it chose (back to the list, saying why, when it does not open).
 * Returns the exit status. */
int browse_main(const struct cli *c, browse_open_fn *open);

#endif
