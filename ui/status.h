/* The header (device, session, window, scale) and the status line (counts,
 * drops, threshold, keys or the current input). */
#ifndef SMTOP_UI_STATUS_H
#define SMTOP_UI_STATUS_H

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

void status_draw_header(struct canvas *c, int y, const struct app *a, const struct model *m);
void status_draw_footer(struct canvas *c, int y, const struct app *a, const struct model *m);

#endif
