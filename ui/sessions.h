/* The session list: the library as a scrollable list with the columns of
 * `smtop ls`.  Enter opens a session, r renames it (prompt in the status
 * line), d deletes it after a y/n confirm, q or Esc goes back.  A state
 * machine over a struct library plus its drawing into a canvas; the terminal
 * loop is ui_run_sessions in ui/ui.c. */
#ifndef SMTOP_UI_SESSIONS_H
#define SMTOP_UI_SESSIONS_H

#include <limits.h>
#include <sys/types.h>

#include "db/session/library.h"
#include "ui/canvas.h"

enum sessions_input { SESSIONS_INPUT_NONE, SESSIONS_INPUT_RENAME, SESSIONS_INPUT_DELETE };

enum sessions_result {
	SESSIONS_STAY,               /* keep showing the list */
	SESSIONS_OPEN,               /* Enter on a session: open it */
	SESSIONS_BACK,               /* q or Esc (or Enter on the session shown behind the list) */
	SESSIONS_QUIT,               /* interrupted: leave smtop */
};

struct sessions_view {
	struct library *lib;         /* the caller's; renames and deletions update it */
	int has_current;             /* a viewer shows a session behind the list */
	dev_t cur_dev;
	ino_t cur_ino;
	int sel, scroll;
	int input;                   /* enum sessions_input */
	char text[NAME_MAX + 1];     /* the new name being typed */
	char msg[PATH_MAX + 160];    /* one-shot message for the status line */
	int ascii, colors;
	int result;                  /* enum sessions_result */
	int list_y, rows;            /* where the rows were drawn last frame */
};

/* current: the session a viewer shows behind the list, or NULL. */
void sessions_init(struct sessions_view *v, struct library *lib, const char *current);
/* Handles one key (APP_KEY_* or a code point); returns 1 to redraw. */
int sessions_handle_key(struct sessions_view *v, int key);
/* A click on a row selects it. */
int sessions_handle_mouse(struct sessions_view *v, int x, int y);
/* The selected entry, NULL when the list is empty. */
const struct library_entry *sessions_selected(const struct sessions_view *v);
/* Clears c and draws the list. */
void sessions_draw(struct canvas *c, struct sessions_view *v);

#endif
