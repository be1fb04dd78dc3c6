#include "ui/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/fmt.h"
#include "ui/legend.h"

/* Events are few next to blocks, but a whole-session window may cover many:
 * past this many the marks are left off rather than slowing the frame. */
#define TIMELINE_MAX_EVENTS 20000

void timeline_inversions(const struct app *a, const struct model *m, int ncols, uint64_t *mask)
{
	memset(mask, 0, sizeof *mask * (size_t)ncols);
	uint64_t t0 = a->t0, t1 = a->t0 + a->col_ns * (uint64_t)ncols;
	uint64_t from = t0 > m->max_wait_ns ? t0 - m->max_wait_ns : 0;
	size_t i = model_event_at(m, from), end = model_event_at(m, t1);
	if (end - i > TIMELINE_MAX_EVENTS)
		return;
	for (; i < end; i++) {
		const struct model_event *e = &m->events[i];
		if (e->ev.kind != SMTOP_EV_INVERSION_RESIDENT &&
		    e->ev.kind != SMTOP_EV_INVERSION_DISPATCH)
			continue;
		if (e->ev.start <= t0 || e->ev.ready >= t1)
			continue;
		uint64_t s = e->ev.ready > t0 ? e->ev.ready : t0;
		uint64_t x = e->ev.start < t1 ? e->ev.start : t1;
		int c0 = (int)((s - t0) / a->col_ns), c1 = (int)((x - 1 - t0) / a->col_ns);
		for (int c = c0; c <= c1 && c < ncols; c++)
			mask[c] |= e->culprit_streams;
	}
}

static int visible(const struct app *a, const struct model *m, int stream)
{
	if (stream < 0)
		return 0;
	int rank = m->streams[stream].rank;
	return rank >= 64 || !(a->hidden >> rank & 1);
}

/* Filtered-out streams give way to the runner-up, or read as idle. */
static int shown_stream(const struct app *a, const struct model *m, const struct model_cell *cl)
{
	if (visible(a, m, cl->stream))
		return cl->stream;
	if (visible(a, m, cl->second))
		return cl->second;
	return -1;
}

static void draw_cell(struct canvas *c, int x, int y, const struct app *a, const struct model *m,
		      const struct model_cell *cl, uint64_t inv, int unknown)
{
	int s = shown_stream(a, m, cl);
	if (s < 0) {
		canvas_put(c, x, y, unknown ? LEGEND_UNKNOWN : legend_idle(a), CANVAS_DEFAULT, CANVAS_DEFAULT,
			   CANVAS_DIM);
		return;
	}
	if (s < 64 && (inv >> s & 1)) {
		canvas_put(c, x, y, "!", a->colors ? CANVAS_WHITE : CANVAS_DEFAULT,
			   a->colors ? CANVAS_RED : CANVAS_DEFAULT, CANVAS_BOLD | (a->colors ? 0 : CANVAS_REVERSE));
		return;
	}
	int full = cl->fullness >= LEGEND_FULL;
	char g[2] = { legend_letter(m, s, full), 0 };
	int rank = m->streams[s].rank;
	if (a->colors && full)
		canvas_put(c, x, y, g, CANVAS_BLACK, legend_colour(a, rank), 0);
	else
		canvas_put(c, x, y, g, legend_colour(a, rank), CANVAS_DEFAULT,
			   full ? CANVAS_BOLD : CANVAS_DIM);
}

/* Two groups in one cell: the upper half block takes the first group's
 * colour as foreground, the second's as background. */
static int dense_colour(const struct app *a, const struct model *m, const struct model_cell *cl,
			uint64_t inv)
{
	int s = shown_stream(a, m, cl);
	if (s < 0)
		return CANVAS_BLACK;
	if (s < 64 && (inv >> s & 1))
		return CANVAS_RED;
	return legend_colour(a, m->streams[s].rank);
}

static void row_label(struct canvas *c, int x, int y, const struct app *a, int row,
		      uint32_t sm, uint32_t n)
{
	char t[32];
	if (n == 1)
		snprintf(t, sizeof t, "SM %3u", sm);
	else
		snprintf(t, sizeof t, "%3u-%-3u", sm, sm + n - 1);
	int sel = a->pane == APP_PANE_SMS && row == a->sm_row;
	canvas_printf(c, x, y, TIMELINE_LABEL_W - 1, CANVAS_DEFAULT, CANVAS_DEFAULT,
		      sel ? CANVAS_REVERSE | CANVAS_BOLD : 0, "%s%s", sel ? ">" : " ", t);
}

/* Without any block record occupancy is unknown, not idle: say so instead
 * of drawing idle cells (kernels of libraries carry no block tracer). */
static void no_blocks(struct canvas *c, int y, const struct app *a, const struct model *m)
{
	const struct app_layout *l = &a->layout;
	const char *t = m->live ? "no block records yet: SM occupancy N/A"
				: "no block records in this session: SM occupancy N/A "
				  "(the streams below show its kernels)";
	int w = (int)canvas_utf8_width(t);
	int x = l->plot_x + (w < l->plot_w ? (l->plot_w - w) / 2 : 0);
	canvas_print(c, x, y + l->sms_rows / 2, l->plot_w, CANVAS_DEFAULT, CANVAS_DEFAULT,
		     CANVAS_DIM, t);
}

/* A column wholly before the session's first record, or after its last,
 * stays blank: nothing was recorded there, which is not idle SMs (a window
 * following the replay clock or live data may begin before the start). */
static int outside(const struct app *a, const struct model *m, int col)
{
	uint64_t cs = a->t0 + a->col_ns * (uint64_t)col;
	return cs + a->col_ns <= m->t_first || (m->t_last && cs >= m->t_last);
}

/* The columns that smtop's ranges of dropped launches cover (1 each):
 * their SMs may have run blocks that were never recorded, so a cell with
 * none is unknown, not idle. */
static void dropped_columns(const struct app *a, const struct model *m, int ncols, char *unknown)
{
	if (!m->n_dropped_ranges)
		return;
	uint64_t t1 = app_t1(a);
	for (size_t i = model_nvtx_from(m, a->t0); i < m->n_nvtx && m->nvtx[i].start < t1; i++) {
		const struct model_nvtx *n = &m->nvtx[i];
		int c0, c1;
		if (!n->dropped || !app_span_cols(a, n->start, n->end, &c0, &c1))
			continue;
		for (int col = c0; col <= c1 && col < ncols; col++)
			unknown[col] = 1;
	}
}

void timeline_draw(struct canvas *c, int x, int y, const struct app *a, const struct model *m)
{
	const struct app_layout *l = &a->layout;
	int ncols = l->plot_w;
	if (ncols <= 0 || !m->n_sm)
		return;
	struct model_cell *cells = calloc((size_t)ncols * 2, sizeof *cells);
	uint64_t *inv = calloc((size_t)ncols, sizeof *inv);
	char *unknown = calloc((size_t)ncols, 1);
	if (!cells || !inv || !unknown)
		goto out;
	timeline_inversions(a, m, ncols, inv);
	dropped_columns(a, m, ncols, unknown);
	uint32_t per = a->sm_zoom ? 1 : (uint32_t)l->sms_per_row;
	int dense = a->dense && a->colors && !a->ascii && per >= 2;
	for (int r = 0; r < l->sms_rows; r++) {
		int row = a->sm_scroll + r;
		uint32_t sm = (uint32_t)row * per;
		if (sm >= m->n_sm)
			break;
		uint32_t n = sm + per > m->n_sm ? m->n_sm - sm : per;
		row_label(c, x, y + r, a, row, sm, n);
		if (!m->blocks)
			continue;
		if (dense) {
			uint32_t half = (n + 1) / 2;
			model_sample_sms(m, sm, half, a->t0, a->col_ns, (size_t)ncols, cells);
			model_sample_sms(m, sm + half, n - half, a->t0, a->col_ns, (size_t)ncols,
					 cells + ncols);
			for (int col = 0; col < ncols; col++)
				canvas_put(c, l->plot_x + col, y + r, "▀",
					   dense_colour(a, m, &cells[col], inv[col]),
					   n - half ? dense_colour(a, m, &cells[ncols + col], inv[col])
						    : CANVAS_BLACK, 0);
			continue;
		}
		model_sample_sms(m, sm, n, a->t0, a->col_ns, (size_t)ncols, cells);
		for (int col = 0; col < ncols; col++)
			if (!outside(a, m, col))
				draw_cell(c, l->plot_x + col, y + r, a, m, &cells[col], inv[col], unknown[col]);
	}
	if (!m->blocks)
		no_blocks(c, y, a, m);
out:
	free(cells);
	free(inv);
	free(unknown);
}

void timeline_draw_axis(struct canvas *c, int y, const struct app *a, const struct model *m)
{
	const struct app_layout *l = &a->layout;
	if (l->plot_w <= 0 || !a->col_ns)
		return;
	/* a tick every 12 columns or more, on a round multiple (columns of a
	 * damaged session's span may be so wide that no multiple fits) */
	uint64_t want = a->col_ns > UINT64_MAX / 12 ? UINT64_MAX : a->col_ns * 12, step = 1000;
	while (step < want && step <= UINT64_MAX / 10) {
		if (step * 2 >= want) { step *= 2; break; }
		if (step * 5 >= want) { step *= 5; break; }
		step *= 10;
	}
	uint64_t base = m->t_first;
	uint64_t rel0 = a->t0 > base ? a->t0 - base : 0;
	uint64_t first = rel0 / step * step;
	if (first < rel0 && first <= UINT64_MAX - step)
		first += step;
	int next_free = l->plot_x;
	/* at most a tick per column; t and base + t stop before they wrap */
	for (uint64_t t = first, n = 0; n <= (uint64_t)l->plot_w && t <= UINT64_MAX - base;
	     t += step, n++) {
		uint64_t abs = base + t;
		if (abs < a->t0)
			continue;
		uint64_t col = (abs - a->t0) / a->col_ns;
		if (col >= (uint64_t)l->plot_w)
			break;
		int x = l->plot_x + (int)col;
		char lab[32];
		fmt_offset(lab, sizeof lab, t, step);
		canvas_put(c, x, y, a->ascii ? "|" : "╵", CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM);
		int w = (int)strlen(lab);
		if (x + 1 >= next_free && x + 1 + w <= l->plot_x + l->plot_w) {
			canvas_print(c, x + 1, y, w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM, lab);
			next_free = x + 2 + w;
		}
		if (t > UINT64_MAX - step)
			break;
	}
}
