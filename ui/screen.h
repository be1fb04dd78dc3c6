/* The whole screen: lays the views out for the canvas size, records the
 * layout in the app (for mouse clicks and scrolling) and draws them. */
#ifndef SMTOP_UI_SCREEN_H
#define SMTOP_UI_SCREEN_H

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

#define SCREEN_MIN_W 80
#define SCREEN_MIN_H 24

/* Fills a->layout for a w x h screen. */
void screen_layout(struct app *a, const struct model *m, int w, int h);
/* Clears c and draws everything (or a "too small" message). */
void screen_draw(struct canvas *c, struct app *a, const struct model *m);

#endif
