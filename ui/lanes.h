/* Stream lanes: each stream's kernels as bars on the SM timeline's time axis,
 * the wait between ready and start drawn as shade, names where they fit, and
 * a row of NVTX ranges. */
#ifndef SMTOP_UI_LANES_H
#define SMTOP_UI_LANES_H

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

#define LANES_NVTX_ROW (-2)             /* layout.lane_of_row value of the NVTX row */

/* Draws layout.lanes_rows rows from row y, labels from column x. */
void lanes_draw(struct canvas *c, int x, int y, const struct app *a, const struct model *m);

#endif
