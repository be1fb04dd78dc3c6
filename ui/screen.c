#include "ui/screen.h"

#include <stdio.h>
#include <string.h>

#include "ui/details.h"
#include "ui/events_view.h"
#include "ui/help.h"
#include "ui/lesson_view.h"
#include "ui/lanes.h"
#include "ui/legend.h"
#include "ui/status.h"
#include "ui/timeline.h"

#define SCREEN_FIXED_ROWS 8             /* header, borders, axis, legend, status */
#define SCREEN_MIN_EVENTS 3
#define SCREEN_MAX_LANES 12
#define SCREEN_DETAILS_W 44
#define SCREEN_SPLIT_W 120              /* from here events and details side by side */

static int lanes_plan(struct app *a, const struct model *m, int max_rows)
{
	int n = 0;
	for (size_t r = 0; r < m->n_streams && n < max_rows; r++)
		if ((r >= 64 || !(a->hidden >> r & 1)) && model_stream_by_rank(m, r)->n_kernels)
			a->layout.lane_of_row[n++] = (int)r;
	if (m->n_nvtx && n < max_rows)
		a->layout.lane_of_row[n++] = LANES_NVTX_ROW;
	if (!n)
		a->layout.lane_of_row[n++] = -1;
	return n;
}

void screen_layout(struct app *a, const struct model *m, int w, int h)
{
	struct app_layout *l = &a->layout;
	memset(l, 0, sizeof *l);
	for (int i = 0; i < 64; i++)
		l->lane_of_row[i] = -1;
	l->w = w;
	l->h = h;
	if (w < SCREEN_MIN_W || h < SCREEN_MIN_H) {
		l->too_small = 1;
		return;
	}
	l->plot_x = 1 + TIMELINE_LABEL_W;
	l->plot_w = w - 2 - TIMELINE_LABEL_W;
	l->lanes_rows = lanes_plan(a, m, SCREEN_MAX_LANES);
	int avail = h - SCREEN_FIXED_ROWS - l->lanes_rows - SCREEN_MIN_EVENTS;
	if (avail < 1) {
		l->lanes_rows += avail - 1;
		avail = 1;
	}
	uint32_t n_sm = m->n_sm ? m->n_sm : 1;
	if (a->sm_zoom) {
		l->sms_per_row = 1;
		l->sms_rows = avail < (int)n_sm ? avail : (int)n_sm;
	} else {
		l->sms_per_row = (int)((n_sm + (uint32_t)avail - 1) / (uint32_t)avail);
		l->sms_rows = (int)((n_sm + (uint32_t)l->sms_per_row - 1) / (uint32_t)l->sms_per_row);
	}
	l->sms_y = 2;
	l->lanes_y = l->sms_y + l->sms_rows + 3;
	l->events_y = l->lanes_y + l->lanes_rows + 1;
	l->events_rows = h - 2 - l->events_y;
	l->events_x = 1;
	if (w >= SCREEN_SPLIT_W) {
		l->details_w = SCREEN_DETAILS_W;
		l->details_x = w - 1 - SCREEN_DETAILS_W;
		l->events_w = l->details_x - 1 - l->events_x;
	} else {
		l->events_w = w - 2;
	}
	/* keep selections on screen after a resize */
	int rows = a->sm_zoom ? (int)n_sm : l->sms_rows;
	if (a->sm_row >= rows)
		a->sm_row = rows - 1;
	if (a->sm_scroll > a->sm_row)
		a->sm_scroll = a->sm_row;
	if (a->sm_row >= a->sm_scroll + l->sms_rows)
		a->sm_scroll = a->sm_row - l->sms_rows + 1;
	if (!a->sm_zoom)
		a->sm_scroll = 0;
	app_refit(a);
}

static void separator(struct canvas *c, int y, int w, const char *title, int ascii)
{
	canvas_put(c, 0, y, ascii ? "+" : "├", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	for (int x = 1; x < w - 1; x++)
		canvas_put(c, x, y, ascii ? "-" : "─", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_put(c, w - 1, y, ascii ? "+" : "┤", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	char t[96];
	snprintf(t, sizeof t, " %s ", title);
	canvas_print(c, 1, y, w - 2, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, t);
}

static void too_small(struct canvas *c)
{
	char t[96];
	snprintf(t, sizeof t, "smtop needs %dx%d; this terminal is %dx%d", SCREEN_MIN_W,
		 SCREEN_MIN_H, c->w, c->h);
	/* cut, the long form would lose the size it reports */
	if ((int)strlen(t) > c->w)
		snprintf(t, sizeof t, "min %dx%d, now %dx%d", SCREEN_MIN_W, SCREEN_MIN_H, c->w,
			 c->h);
	int len = (int)strlen(t);
	int x = len < c->w ? (c->w - len) / 2 : 0;
	canvas_print(c, x, c->h / 2, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, t);
	if (c->h / 2 + 1 < c->h)
		canvas_print(c, x, c->h / 2 + 1, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, 0,
			     c->w - x >= 30 ? "enlarge it, or press q to quit" : "q quits");
}

static const char *pane_mark(const struct app *a, int pane)
{
	return a->pane == pane ? "*" : "";
}

static void draw_main(struct canvas *c, struct app *a, const struct model *m)
{
	canvas_clear(c);
	screen_layout(a, m, c->w, c->h);
	const struct app_layout *l = &a->layout;
	if (l->too_small) {
		too_small(c);
		return;
	}
	char t[96];
	status_draw_header(c, 0, a, m);
	if (a->sm_zoom)
		snprintf(t, sizeof t, "%sSMs, one per row (Enter: groups)", pane_mark(a, APP_PANE_SMS));
	else
		snprintf(t, sizeof t, "%sSMs, %d per row", pane_mark(a, APP_PANE_SMS), l->sms_per_row);
	canvas_box(c, (struct canvas_rect){ 0, 1, c->w, c->h - 2 }, t, a->ascii);
	timeline_draw(c, 1, l->sms_y, a, m);
	timeline_draw_axis(c, l->sms_y + l->sms_rows, a, m);
	legend_draw(c, (struct canvas_rect){ 2, l->sms_y + l->sms_rows + 1, c->w - 4, 1 }, a, m);
	snprintf(t, sizeof t, "%sstreams", pane_mark(a, APP_PANE_STREAMS));
	separator(c, l->lanes_y - 1, c->w, t, a->ascii);
	lanes_draw(c, 1, l->lanes_y, a, m);
	int details_instead = !l->details_w && a->pane == APP_PANE_STREAMS && a->sel_kernel >= 0;
	if (details_instead)
		snprintf(t, sizeof t, "details (Tab: events)");
	else
		snprintf(t, sizeof t, "%sevents (%zu)", pane_mark(a, APP_PANE_EVENTS), m->n_events);
	separator(c, l->events_y - 1, c->w, t, a->ascii);
	struct canvas_rect ev = { l->events_x, l->events_y, l->events_w, l->events_rows };
	if (l->details_w) {
		for (int y = l->events_y; y < l->events_y + l->events_rows; y++)
			canvas_put(c, l->details_x - 1, y, a->ascii ? "|" : "│", CANVAS_DEFAULT,
				   CANVAS_DEFAULT, 0);
		canvas_put(c, l->details_x - 1, l->events_y - 1, a->ascii ? "+" : "┬", CANVAS_DEFAULT,
			   CANVAS_DEFAULT, 0);
		canvas_put(c, l->details_x - 1, c->h - 2, a->ascii ? "+" : "┴", CANVAS_DEFAULT,
			   CANVAS_DEFAULT, 0);
		canvas_print(c, l->details_x, l->events_y - 1, 10, CANVAS_DEFAULT, CANVAS_DEFAULT,
			     CANVAS_BOLD, " details ");
		events_view_draw(c, ev, a, m);
		details_draw(c, (struct canvas_rect){ l->details_x + 1, l->events_y, l->details_w - 2,
						       l->events_rows }, a, m);
	} else if (details_instead) {
		details_draw(c, ev, a, m);
	} else {
		events_view_draw(c, ev, a, m);
	}
	status_draw_footer(c, c->h - 1, a, m);
	if (a->help)
		help_draw(c, a);
}

/* The lesson panel takes the right of the screen; the view draws into the
 * rest as it would on a narrower terminal. */
void screen_draw(struct canvas *c, struct app *a, const struct model *m)
{
	int pw = lesson_view_width(a, c->w);
	struct canvas left;
	if (!pw || canvas_init(&left, c->w - pw, c->h) != 0) {
		draw_main(c, a, m);
		lesson_view_caption(c, a, m);
		return;
	}
	draw_main(&left, a, m);
	canvas_clear(c);
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < left.w; x++)
			*canvas_cell(c, x, y) = *canvas_cell(&left, x, y);
	canvas_free(&left);
	lesson_view_draw(c, (struct canvas_rect){ c->w - pw, 1, pw, c->h - 2 }, a, m);
}
