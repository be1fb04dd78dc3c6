/* Stream colours and glyphs, and the legend line that explains them. */
#ifndef SMTOP_UI_LEGEND_H
#define SMTOP_UI_LEGEND_H

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

/* Colour index of the stream of rank r (CANVAS_DEFAULT in monochrome). */
int legend_colour(const struct app *a, int rank);
/* The stream's letter, lower case for a partly full SM. */
char legend_letter(const struct model *m, int stream, int full);
/* An SM cell with no block where launches' blocks were dropped: not
 * known to be idle (ASCII, as every terminal draws it). */
#define LEGEND_UNKNOWN "?"

/* Glyph for idle, wait, busy, inversion in the app's charset. */
const char *legend_idle(const struct app *a);
const char *legend_wait(const struct app *a);
const char *legend_busy(const struct app *a);
/* Fullness at or above which a cell is drawn upper case. */
#define LEGEND_FULL 0.5f

/* One line: letters and what they stand for, then the glyphs. */
void legend_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		 const struct model *m);

#endif
