/* The SM timeline: rows of SMs (a group per row, or one SM per row when
 * zoomed), columns of time, each cell the dominant stream's letter. */
#ifndef SMTOP_UI_TIMELINE_H
#define SMTOP_UI_TIMELINE_H

#include <stdint.h>

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

#define TIMELINE_LABEL_W 12             /* columns before the plot, shared with lanes */

/* Draws app->layout.sms_rows rows from row y; the plot starts at layout.plot_x. */
void timeline_draw(struct canvas *c, int x, int y, const struct app *a, const struct model *m);
/* The time axis (ticks and labels) on row y. */
void timeline_draw_axis(struct canvas *c, int y, const struct app *a, const struct model *m);
/* For each of ncols columns, the model streams (bit per index < 64) whose
 * blocks an inversion victim was waiting behind. */
void timeline_inversions(const struct app *a, const struct model *m, int ncols, uint64_t *mask);

#endif
