#include "ui/lanes.h"

#include <stdio.h>
#include <string.h>

#include "ui/legend.h"
#include "ui/replay_player.h"
#include "ui/timeline.h"

static void label(struct canvas *c, int x, int y, const struct app *a,
		  const struct model_stream *s)
{
	char p[16];
	if (s->priority == SMTOP_PRIORITY_UNKNOWN)
		snprintf(p, sizeof p, "N/A");
	else
		snprintf(p, sizeof p, "%d", s->priority);
	int sel = a->pane == APP_PANE_STREAMS && s->rank == a->sel_stream;
	char l[2] = { s->letter, 0 };
	canvas_print(c, x, y, 1, CANVAS_DEFAULT, CANVAS_DEFAULT, sel ? CANVAS_REVERSE : 0,
		     sel ? ">" : " ");
	canvas_print(c, x + 1, y, 1, legend_colour(a, s->rank), CANVAS_DEFAULT, CANVAS_BOLD, l);
	canvas_printf(c, x + 2, y, TIMELINE_LABEL_W - 3, CANVAS_DEFAULT, CANVAS_DEFAULT, 0,
		      " s%u p%s", s->stream_id, p);
}

/* The kernel (or wait) under each column, found by binary search so the
 * cost is per column, not per kernel. */
static void bars(struct canvas *c, int y, const struct app *a, const struct model *m,
		 uint32_t si, int colour)
{
	const struct app_layout *l = &a->layout;
	for (int col = 0; col < l->plot_w; col++) {
		uint64_t cs = a->t0 + a->col_ns * (uint64_t)col, ce = cs + a->col_ns;
		long i = model_stream_kernel_before(m, si, ce);
		const struct model_kernel *k = i >= 0 ? model_stream_kernel(m, si, (size_t)i) : NULL;
		const struct model_kernel *n = model_stream_kernel(m, si, (size_t)(i + 1));
		int x = l->plot_x + col;
		uint64_t nr = 0;
		if (k && model_kernel_end(m, k) > cs) {
			int sel = a->sel_kernel >= 0 && k == &m->kernels[a->sel_kernel];
			canvas_put(c, x, y, legend_busy(a), colour, CANVAS_DEFAULT,
				   sel ? CANVAS_BOLD | CANVAS_UNDERLINE : 0);
		} else if (n && (nr = model_stream_kernel_ready(m, si, (size_t)(i + 1))) && nr < ce) {
			long ev = model_kernel_event(m, n);
			int inv = ev >= 0 && m->events[ev].ev.kind != SMTOP_EV_BLOCKING &&
				  m->events[ev].ev.kind != SMTOP_EV_TIMESLICE;
			canvas_put(c, x, y, legend_wait(a), inv && a->colors ? CANVAS_RED : colour,
				   CANVAS_DEFAULT, 0);
		}
	}
}

/* A victim still waiting when a replay's clock stands between its ready
 * time and its start has no kernel in the model yet (its record comes with
 * its start): its wait so far is drawn from its episode. */
static void open_waits(struct canvas *c, int y, const struct app *a, const struct model *m,
		       uint32_t si, int colour)
{
	const struct app_layout *l = &a->layout;
	uint64_t t1 = app_t1(a);
	for (size_t i = 0; i < m->n_events; i++) {
		const struct model_event *me = &m->events[i];
		const struct smtop_event *e = &me->ev;
		if (me->kernel >= 0 || e->start <= e->ready || e->start <= a->t0 || e->ready >= t1 ||
		    model_find_stream(m, e->pid, e->device_id, e->context_id, e->stream_id) != (long)si)
			continue;
		int inv = e->kind != SMTOP_EV_BLOCKING && e->kind != SMTOP_EV_TIMESLICE;
		uint64_t s = e->ready > a->t0 ? e->ready : a->t0, end = e->start < t1 ? e->start : t1;
		for (int col = (int)((s - a->t0) / a->col_ns);
		     col < l->plot_w && a->t0 + a->col_ns * (uint64_t)col < end; col++)
			canvas_put(c, l->plot_x + col, y, legend_wait(a),
				   inv && a->colors ? CANVAS_RED : colour, CANVAS_DEFAULT, 0);
	}
}

/* Names inside bars long enough to hold them; skipped when the window
 * holds more kernels than columns (nothing would fit anyway). */
static void names(struct canvas *c, int y, const struct app *a, const struct model *m,
		  uint32_t si, int colour)
{
	const struct app_layout *l = &a->layout;
	uint64_t t1 = app_t1(a);
	long i0 = model_stream_kernel_before(m, si, a->t0), i1 = model_stream_kernel_before(m, si, t1);
	if (i0 < 0)
		i0 = 0;
	if (i1 - i0 > l->plot_w)
		return;
	for (long i = i0; i <= i1; i++) {
		const struct model_kernel *k = model_stream_kernel(m, si, (size_t)i);
		uint64_t ke = k ? model_kernel_end(m, k) : 0;
		if (!k || ke <= a->t0 || k->start >= t1)
			continue;
		uint64_t s = k->start > a->t0 ? k->start : a->t0, e = ke < t1 ? ke : t1;
		int c0 = (int)((s - a->t0) / a->col_ns), c1 = (int)((e - 1 - a->t0) / a->col_ns);
		const char *sn = model_kernel_short_name(m, k);
		int len = (int)strlen(sn);
		if (c1 - c0 + 1 < len + 2)
			continue;
		canvas_print(c, l->plot_x + c0 + 1, y, len, a->colors ? CANVAS_BLACK : CANVAS_DEFAULT,
			     a->colors ? colour : CANVAS_DEFAULT, a->colors ? 0 : CANVAS_REVERSE,
			     sn);
	}
}

static void nvtx_row(struct canvas *c, int x, int y, const struct app *a, const struct model *m)
{
	const struct app_layout *l = &a->layout;
	canvas_print(c, x, y, TIMELINE_LABEL_W - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
		     "  nvtx");
	uint64_t t1 = app_t1(a);
	int drawn = 0;
	for (size_t i = model_nvtx_from(m, a->t0); i < m->n_nvtx && drawn < 4096; i++, drawn++) {
		const struct model_nvtx *n = &m->nvtx[i];
		int c0, c1;
		if (n->start >= t1)
			break;
		if (!app_span_cols(a, n->start, n->end, &c0, &c1))
			continue;
		for (int col = c0; col <= c1 && col < l->plot_w; col++)
			canvas_put(c, l->plot_x + col, y, a->ascii ? "-" : "─", CANVAS_DEFAULT,
				   CANVAS_DEFAULT, 0);
		canvas_put(c, l->plot_x + c0, y, "[", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
		int len = (int)strlen(n->text);
		if (c1 - c0 - 1 >= len)
			canvas_print(c, l->plot_x + c0 + 1, y, len, CANVAS_DEFAULT, CANVAS_DEFAULT,
				     CANVAS_BOLD, n->text);
		if (c1 > c0 && c1 < l->plot_w)
			canvas_put(c, l->plot_x + c1, y, "]", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	}
}

void lanes_draw(struct canvas *c, int x, int y, const struct app *a, const struct model *m)
{
	const struct app_layout *l = &a->layout;
	for (int r = 0; r < l->lanes_rows && r < 64; r++) {
		int rank = l->lane_of_row[r];
		if (rank == LANES_NVTX_ROW) {
			nvtx_row(c, x, y + r, a, m);
			continue;
		}
		const struct model_stream *s = model_stream_by_rank(m, (size_t)rank);
		if (!s)
			continue;
		uint32_t si = (uint32_t)(s - m->streams);
		int colour = legend_colour(a, rank);
		label(c, x, y + r, a, s);
		bars(c, y + r, a, m, si, colour);
		if (replay_player_active(a))
			open_waits(c, y + r, a, m, si, colour);
		names(c, y + r, a, m, si, colour);
	}
}
