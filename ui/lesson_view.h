/* The lesson panel beside the view (src/core/lessons.h: what the scheduler did,
 * the paper's finding, what to look for, what to try next) and the caption
 * of a guided replay's stop: at the top of the panel, or over the events
 * pane when the terminal is too narrow for the panel. */
#ifndef SMTOP_UI_LESSON_VIEW_H
#define SMTOP_UI_LESSON_VIEW_H

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

#define LESSON_VIEW_MIN_W 34
#define LESSON_VIEW_MAX_W 48
#define LESSON_VIEW_MAIN_MIN_W 96      /* the view keeps at least this much */

/* Columns the panel takes on a w-column screen; 0 when it is not shown. */
int lesson_view_width(const struct app *a, int w);
/* The panel in r (its frame included). */
void lesson_view_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		      const struct model *m);
/* Without the panel: the guided stop's caption over the events pane. */
void lesson_view_caption(struct canvas *c, const struct app *a, const struct model *m);

#endif
