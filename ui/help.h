/* The key help, drawn over the screen. */
#ifndef SMTOP_UI_HELP_H
#define SMTOP_UI_HELP_H

#include "ui/app.h"
#include "ui/canvas.h"

void help_draw(struct canvas *c, const struct app *a);

#endif
