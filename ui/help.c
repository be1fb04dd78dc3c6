#include "ui/help.h"

#include <string.h>

static const char *const lines[] = {
	"arrows, h/l     pan the time window (H/L, PgUp/PgDn: a whole window)",
	"up/down, j/k    move the selection in the current pane",
	"+ / -           zoom in (down to 1 us per column) / out (to the session)",
	"=               show the whole session;  Home/End: its start/end",
	"space           live: pause/resume following;  saved: replay / pause",
	"n / N           next / previous event (replay: step the clock to it)",
	"w               worst inversion (longest wait);  x live: exact window",
	"Enter           events: jump there;  SMs: one SM per row and back",
	"Tab             next pane (SMs, streams, events)",
	"/               search kernel names (Enter: next match)",
	"f               filter streams: press their letters, * for all",
	"m               dense SM view (two SM groups per cell, colour only)",
	"mouse           click a row, lane or event to select it",
	"r / g           replay from the window / guided from the start (r: stop)",
	"< >  . ,        replay: halve/double speed;  next/previous block start",
	"?               this help;  e lesson;  o session library;  q quit",
	"",
	"SM cells: the letter of the stream whose blocks held the SMs longest;",
	"lower case: under half full;  ! : an inversion victim waited behind it;",
	". or middle dot: idle;  ?: not recorded.  Lanes: bars run, shade waits.",
};

void help_draw(struct canvas *c, const struct app *a)
{
	int n = (int)(sizeof lines / sizeof *lines);
	/* a blank line above and below the text, unless the box would then
	 * cover the header and the status line */
	int pad = n + 4 <= c->h - 2;
	int w = 76, h = n + 2 + 2 * pad;
	if (w > c->w)
		w = c->w;
	if (h > c->h)
		h = c->h;
	struct canvas_rect r = { (c->w - w) / 2, (c->h - h) / 2, w, h };
	canvas_fill(c, r, " ", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_box(c, r, "help: keys (any key closes it)", a->ascii);
	for (int i = 0; i < n && i + 1 + pad < h - 1; i++)
		canvas_print(c, r.x + 2, r.y + 1 + pad + i, w - 4, CANVAS_DEFAULT, CANVAS_DEFAULT, 0,
			     lines[i]);
}
