/* Details of the selection: a kernel (name, launch shape, resources, wait,
 * placement) or an SM row (who held it over the window). */
#ifndef SMTOP_UI_DETAILS_H
#define SMTOP_UI_DETAILS_H

#include "src/core/model.h"
#include "ui/app.h"
#include "ui/canvas.h"

void details_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		  const struct model *m);

#endif
