/* The interactive main loop: reads keys, polls the data source every tick
 * (~50 ms), asks it for block detail when the window is finer than the
 * model's bins hold, and redraws when anything changed. */
#ifndef SMTOP_UI_UI_H
#define SMTOP_UI_UI_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/tty.h"

struct ui_source {
	void *ud;
	/* Adds what is new to m (then model_flush); returns 1 if anything
	 * changed, 0 if not, -1 on error (shown, the loop goes on).  NULL for a
	 * fully loaded saved session. */
	int (*poll)(void *ud, struct model *m);
	/* Adds to m's detail level (begun with model_detail_begin by the
	 * caller, which ends it once all is in) the blocks of [t0, t1), a part
	 * per call: start is 1 for the first call of a window, 0 for the rest.
	 * Returns 1 while more remains, 0 when all is in, -1 on error.  May be
	 * NULL: windows finer than the bins are then drawn coarser. */
	int (*detail)(void *ud, struct model *m, uint64_t t0, uint64_t t1, int start);
	/* Reads into m->focus what the details pane shows beyond the model:
	 * the SMs kernel k ran on (k >= 0; a part per call, start 1 for the
	 * first: 1 while more remains), or the culprits of episode e that the
	 * model left in the file (e >= 0).  Returns 0 when done, -1 on error.
	 * May be NULL: those lines then say N/A. */
	int (*focus)(void *ud, struct model *m, long k, long e, int start);
};

#define UI_TICK_MS 50

/* The terminal, opened once for all the screens of a run: the viewer and
 * the session list take turns on it and share its canvas. */
struct ui_term {
	struct tty_caps caps;
	struct canvas c;
};

/* Returns 0, or -1 with one line in err when the terminal cannot be used. */
int ui_term_open(struct ui_term *t, char *err, size_t errlen);
void ui_term_close(struct ui_term *t);

/* Runs the viewer on t until q, o (a->library) or SIGINT.  a must be
 * app_init'ed on m. */
void ui_run(struct ui_term *t, struct app *a, struct model *m, const struct ui_source *src);

/* One step without a terminal (tests, dumps): polls, ticks, fetches detail. */
int ui_step(struct app *a, struct model *m, const struct ui_source *src, uint64_t dt_ns);

struct sessions_view;

/* Runs the session list on t until it has a result (v->result: open, back
 * or quit).  bg and m, when given, are a live view behind the list: its
 * source keeps being polled. */
void ui_run_sessions(struct ui_term *t, struct sessions_view *v, struct model *m,
		     const struct ui_source *bg);

struct machine_view;
struct machine_source;

/* Runs the machine view on t until it has a result (v->result: quit, or a
 * key that asks the caller to act on the selected process), sampling src
 * every UI_MACHINE_REFRESH_MS and once at the start. */
#define UI_MACHINE_REFRESH_MS 1000
void ui_run_machine(struct ui_term *t, struct machine_view *v, const struct machine_source *src);

#endif
