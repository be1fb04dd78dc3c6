/* The episodes list: one line per blocking or inversion event, by time. */
#ifndef SMTOP_UI_EVENTS_VIEW_H
#define SMTOP_UI_EVENTS_VIEW_H

#include <stddef.h>

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

void events_view_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		      const struct model *m);
/* The line for event i (without the selection mark). */
void events_view_line(char *buf, size_t len, const struct model *m, size_t i);

#endif
