/* The machine view: every GPU with its processes (struct machine, sampled
 * by the caller every second), the processes that carry smtop's collector
 * marked.  A state machine over a struct machine plus its drawing into a
 * canvas; the terminal loop is ui_run_machine in ui/ui.c.  What a key asks
 * of a process (r: switch recording, Enter: its live view, a: the live view
 * of every process of yours recording) comes back as a result for the
 * caller to carry out. */
#ifndef SMTOP_UI_MACHINE_VIEW_H
#define SMTOP_UI_MACHINE_VIEW_H

#include <stddef.h>
#include <sys/types.h>

#include "src/core/machine.h"
#include "ui/canvas.h"

enum machine_view_result {
	MACHINE_VIEW_STAY,
	MACHINE_VIEW_QUIT,            /* q, Esc, or interrupted */
	MACHINE_VIEW_RECORD,          /* r on an own launched process */
	MACHINE_VIEW_OPEN,            /* Enter on a process recording */
	MACHINE_VIEW_OPEN_ALL,        /* a, with a process of yours recording */
};

/* Fills m anew; 0, or -1 with one line in err (shown, the old data kept). */
struct machine_source {
	void *ud;
	int (*sample)(void *ud, struct machine *m, char *err, size_t errlen);
};

struct machine_view {
	struct machine *m;            /* the caller's */
	int sel, scroll;              /* sel: index into m->procs */
	pid_t sel_pid;                /* the selection follows its process */
	int sel_gpu;
	int help;
	int result;                   /* enum machine_view_result */
	char msg[4352];              /* one-shot message for the status line */
	int ascii, colors;
	int list_y, rows;             /* where the lines were drawn last frame */
};

void machine_view_init(struct machine_view *v, struct machine *m);
/* After a new sample: the selection back on its process (or the nearest). */
void machine_view_resync(struct machine_view *v);
/* Handles one key (APP_KEY_* or a code point); returns 1 to redraw. */
int machine_view_handle_key(struct machine_view *v, int key);
/* How many of the user's own processes record now (what a opens). */
size_t machine_view_recording(const struct machine_view *v);
/* The selected process, NULL when there is none. */
const struct machine_proc *machine_view_selected(const struct machine_view *v);
/* Clears c and draws the view. */
void machine_view_draw(struct canvas *c, struct machine_view *v);

#endif
