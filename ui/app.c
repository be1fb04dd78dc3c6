#include "ui/app.h"

#include <stdio.h>
#include <string.h>

#include "src/core/replay_clock.h"

#define APP_MIN_COL_NS 1000ULL          /* 1 us per column */

uint64_t app_session_t0(const struct app *a)
{
	return a->model->t_first;
}

int app_replaying(const struct app *a)
{
	return a->replay && a->replay->active;
}

int app_cols(const struct app *a)
{
	return a->layout.plot_w > 0 ? a->layout.plot_w : 100;
}

uint64_t app_t1(const struct app *a)
{
	return a->t0 + a->col_ns * (uint64_t)app_cols(a);
}

int app_span_cols(const struct app *a, uint64_t start, uint64_t end, int *c0, int *c1)
{
	uint64_t t1 = app_t1(a);
	if (start >= t1 || end < a->t0)
		return 0;
	uint64_t s = start > a->t0 ? start : a->t0, e = end < t1 ? end : t1;
	*c0 = (int)((s - a->t0) / a->col_ns);
	*c1 = e > s ? (int)((e - 1 - a->t0) / a->col_ns) : *c0;
	return 1;
}

/* Scales step 1-2-5 so that axis labels stay round. */
static uint64_t nice_up(uint64_t ns)
{
	uint64_t d = APP_MIN_COL_NS;
	for (;;) {
		if (ns <= d)
			return d;
		if (ns <= 2 * d)
			return 2 * d;
		if (ns <= 5 * d)
			return 5 * d;
		d *= 10;
	}
}

static uint64_t nice_down(uint64_t ns)
{
	uint64_t prev = APP_MIN_COL_NS, d = APP_MIN_COL_NS;
	while (d < ns) {
		prev = d;
		d = nice_up(d + 1);
	}
	return prev;
}

uint64_t app_round_scale(uint64_t ns)
{
	return nice_up(ns);
}

#define APP_LIVE_COL_NS 20000ULL

static uint64_t fit_col_ns(const struct app *a)
{
	const struct model *m = a->model;
	uint64_t span = m->t_last > m->t_first ? m->t_last - m->t_first : 0;
	uint64_t cols = (uint64_t)app_cols(a);
	/* exact, so the session fills the width; zooming in returns to 1-2-5 steps */
	uint64_t ns = (span + cols - 1) / cols;
	return ns > APP_MIN_COL_NS ? ns : APP_MIN_COL_NS;
}

void app_fit(struct app *a)
{
	a->col_ns = fit_col_ns(a);
	a->t0 = a->model->t_first;
	a->fit_col_ns = a->col_ns;
	a->fit_t0 = a->t0;
}

void app_refit(struct app *a)
{
	if (!a->follow && a->t0 == a->fit_t0 && a->col_ns == a->fit_col_ns &&
	    a->col_ns != fit_col_ns(a))
		app_fit(a);
}

void app_init(struct app *a, const struct model *m)
{
	memset(a, 0, sizeof *a);
	a->model = m;
	a->sel_kernel = -1;
	a->sel_event = -1;
	a->stop_shown = -1;
	a->colors = 8;
	a->follow = m->live;
	app_fit(a);
	/* A live session starts nearly empty: fitting it would zoom to the
	 * floor, so follow it at a scale where kernels and waits are visible. */
	if (a->follow && a->col_ns < APP_LIVE_COL_NS)
		a->col_ns = APP_LIVE_COL_NS;
}

static void set_center(struct app *a, uint64_t c)
{
	uint64_t half = a->col_ns * (uint64_t)app_cols(a) / 2;
	a->t0 = c > half ? c - half : 0;
}

static uint64_t center(const struct app *a)
{
	return a->t0 + a->col_ns * (uint64_t)app_cols(a) / 2;
}

/* The window inside the session where it can be: a window moved to an
 * event or zoomed around a point near an end would otherwise show time
 * before the first record (or after the last) as if the SMs were idle. */
static void clamp_window(struct app *a)
{
	const struct model *m = a->model;
	uint64_t span = a->col_ns * (uint64_t)app_cols(a);
	if (a->follow || m->t_last <= m->t_first)
		return;
	if (a->t0 + span > m->t_last)
		a->t0 = m->t_last > span ? m->t_last - span : 0;
	if (a->t0 < m->t_first)
		a->t0 = m->t_first;
}

/* A zoom step changes the scale by 1.5 times at least: from the exact fit
 * (213 us/col), the next 1-2-5 step down (200) would look the same. */
static uint64_t zoom_in_step(uint64_t col)
{
	uint64_t ns = nice_down(col);
	while (ns > APP_MIN_COL_NS && ns * 3 > col * 2)
		ns = nice_down(ns);
	return ns > APP_MIN_COL_NS ? ns : APP_MIN_COL_NS;
}

static uint64_t zoom_out_step(uint64_t col)
{
	uint64_t ns = nice_up(col + 1);
	while (ns * 2 < col * 3)
		ns = nice_up(ns + 1);
	return ns;
}

static void zoom(struct app *a, int in)
{
	uint64_t c = center(a), fit = fit_col_ns(a);
	a->col_ns = in ? zoom_in_step(a->col_ns) : zoom_out_step(a->col_ns);
	set_center(a, c);
	/* zoomed out as far as the session, or past it: the whole session,
	 * wherever the zoom began (and never wider: the next - keeps it) */
	if (!in && a->col_ns >= fit && !a->follow)
		app_fit(a);
	else if (!in && a->col_ns >= fit)
		a->col_ns = fit;
	clamp_window(a);
	if (a->follow)
		app_tick(a, 0);
}

/* Panning left stops at the session's first record: before it there is
 * nothing to see.  (A window centred on an early event may begin earlier;
 * the header then shows a negative start.) */
static void pan(struct app *a, long cols)
{
	a->follow = 0;
	uint64_t was = a->t0, first = a->model->t_first;
	int64_t d = (int64_t)a->col_ns * cols;
	if (d < 0 && (uint64_t)-d > a->t0)
		a->t0 = 0;
	else
		a->t0 = (uint64_t)((int64_t)a->t0 + d);
	if (d < 0 && a->t0 < first)
		a->t0 = was < first ? was : first;
}

/* Widens the window when [s, e) does not fit in half of it. */
static void show_span(struct app *a, uint64_t s, uint64_t e)
{
	uint64_t cols = (uint64_t)app_cols(a);
	uint64_t need = e > s ? (e - s) * 2 / cols + 1 : 0;
	if (need > a->col_ns)
		a->col_ns = nice_up(need);
	a->follow = 0;
	set_center(a, s + (e > s ? (e - s) / 2 : 0));
	clamp_window(a);
}

/* Selects kernel k without moving the window. */
static void select_kernel(struct app *a, long k)
{
	if (k < 0 || (size_t)k >= a->model->n_kernels)
		return;
	a->sel_kernel = k;
	a->sel_stream = a->model->streams[a->model->kernels[k].stream].rank;
}

/* An event's victim becomes the selected kernel, so that Tab to the streams
 * shows it. */
static void select_event(struct app *a, long i)
{
	a->sel_event = i;
	if (i >= 0 && (size_t)i < a->model->n_events)
		select_kernel(a, a->model->events[i].kernel);
}

/* Rows of the events pane (3 before the first layout). */
static int events_rows(const struct app *a)
{
	return a->layout.events_rows > 0 ? a->layout.events_rows : 3;
}

void app_goto_event(struct app *a, long i)
{
	const struct model *m = a->model;
	if (i < 0 || (size_t)i >= m->n_events)
		return;
	const struct smtop_event *e = &m->events[i].ev;
	select_event(a, i);
	show_span(a, e->ready, e->start > e->ready ? e->start : e->ready);
	int rows = events_rows(a);
	if (i < a->ev_scroll)
		a->ev_scroll = (int)i;
	if (i >= a->ev_scroll + rows)
		a->ev_scroll = (int)i - rows + 1;
}

/* A search hit: the window shows it and the streams pane its details. */
static void goto_kernel(struct app *a, long k)
{
	const struct model_kernel *mk = &a->model->kernels[k];
	select_kernel(a, k);
	a->pane = APP_PANE_STREAMS;
	uint64_t r = model_kernel_ready(a->model, mk);
	uint64_t s = r && r < mk->start ? r : mk->start;
	show_span(a, s, model_kernel_end(a->model, mk));
}

static void search(struct app *a)
{
	const struct model *m = a->model;
	if (!a->search[0] || !m->n_kernels)
		return;
	size_t from = a->sel_kernel >= 0 ? (size_t)a->sel_kernel + 1 : 0;
	for (size_t n = 0; n < m->n_kernels; n++) {
		size_t k = (from + n) % m->n_kernels;
		if (strstr(model_kernel_name(m, &m->kernels[k]), a->search)) {
			goto_kernel(a, (long)k);
			return;
		}
	}
	snprintf(a->msg, sizeof a->msg, "no kernel matches \"%s\"", a->search);
}

/* The inversion that made someone wait longest; a blocking episode if none. */
static void goto_worst(struct app *a)
{
	const struct model *m = a->model;
	long best = -1;
	int best_inv = 0;
	for (size_t i = 0; i < m->n_events; i++) {
		const struct smtop_event *e = &m->events[i].ev;
		int inv = e->kind == SMTOP_EV_INVERSION_RESIDENT ||
			  e->kind == SMTOP_EV_INVERSION_DISPATCH;
		if (best < 0 || inv > best_inv ||
		    (inv == best_inv && e->wait_ns > m->events[best].ev.wait_ns)) {
			best = (long)i;
			best_inv = inv;
		}
	}
	if (best < 0)
		snprintf(a->msg, sizeof a->msg, "no events");
	app_goto_event(a, best);
	a->pane = APP_PANE_EVENTS;
}

static int sm_rows(const struct app *a)
{
	const struct model *m = a->model;
	if (a->sm_zoom)
		return (int)m->n_sm;
	int spr = a->layout.sms_per_row > 0 ? a->layout.sms_per_row : 4;
	return (int)((m->n_sm + (uint32_t)spr - 1) / (uint32_t)spr);
}

static void sm_keep_visible(struct app *a)
{
	app_scroll_to(&a->sm_scroll, a->sm_row, a->layout.sms_rows > 0 ? a->layout.sms_rows : 1);
}

static long kernel_at(const struct app *a, int rank, uint64_t t)
{
	const struct model *m = a->model;
	const struct model_stream *s = model_stream_by_rank(m, (size_t)rank);
	if (!s)
		return -1;
	uint32_t si = (uint32_t)(s - m->streams);
	long i = model_stream_kernel_before(m, si, t + 1);
	if (i < 0)
		i = 0;
	const struct model_kernel *k = model_stream_kernel(m, si, (size_t)i);
	if (!k)
		return -1;
	/* the next kernel when t falls in a gap closer to it */
	const struct model_kernel *n = model_stream_kernel(m, si, (size_t)i + 1);
	uint64_t ke = model_kernel_end(m, k);
	if (n && t > ke && n->start - t < t - ke)
		k = n;
	return (long)(k - m->kernels);
}

static void move(struct app *a, int d)
{
	const struct model *m = a->model;
	switch (a->pane) {
	case APP_PANE_SMS:
		a->sm_row += d;
		if (a->sm_row >= sm_rows(a))
			a->sm_row = sm_rows(a) - 1;
		if (a->sm_row < 0)
			a->sm_row = 0;
		sm_keep_visible(a);
		break;
	case APP_PANE_STREAMS:
		a->sel_stream += d;
		if (a->sel_stream >= (int)m->n_streams)
			a->sel_stream = (int)m->n_streams - 1;
		if (a->sel_stream < 0)
			a->sel_stream = 0;
		a->sel_kernel = kernel_at(a, a->sel_stream, center(a));
		break;
	case APP_PANE_EVENTS: {
		long e = a->sel_event + d;
		if (e >= (long)m->n_events)
			e = (long)m->n_events - 1;
		if (e < 0)
			e = m->n_events ? 0 : -1;
		select_event(a, e);
		int rows = events_rows(a);
		if (e >= 0 && e < a->ev_scroll)
			a->ev_scroll = (int)e;
		if (e >= a->ev_scroll + rows)
			a->ev_scroll = (int)e - rows + 1;
		break;
	}
	}
}

static void enter(struct app *a)
{
	int spr = a->layout.sms_per_row > 0 ? a->layout.sms_per_row : 4;
	switch (a->pane) {
	case APP_PANE_SMS:
		if (a->sm_zoom) {
			a->sm_zoom = 0;
			a->sm_row /= spr;
		} else {
			a->sm_zoom = 1;
			a->sm_row *= spr;
		}
		a->sm_scroll = a->sm_row;
		sm_keep_visible(a);
		break;
	case APP_PANE_STREAMS:
		a->sel_kernel = kernel_at(a, a->sel_stream, center(a));
		break;
	case APP_PANE_EVENTS:
		app_goto_event(a, a->sel_event >= 0 ? a->sel_event : 0);
		break;
	}
}

static int input_key(struct app *a, int key)
{
	if (a->input == APP_INPUT_FILTER) {
		if (key >= 'a' && key <= 'z')
			key -= 32;
		if (key >= 'A' && key <= 'Z' && key - 'A' < (int)a->model->n_streams)
			a->hidden ^= 1ULL << (key - 'A');
		else if (key == '*')
			a->hidden = 0;
		else if (key == APP_KEY_ENTER || key == APP_KEY_ESC)
			a->input = APP_INPUT_NONE;
		return 1;
	}
	enum app_text t = app_text_key(a->search, sizeof a->search, key);
	if (t != APP_TEXT_EDIT)
		a->input = APP_INPUT_NONE;
	if (t == APP_TEXT_CANCEL)
		a->search[0] = 0;
	else if (t == APP_TEXT_ENTER)
		search(a);
	return 1;
}

/* A saved session replays through ui/replay_player.c instead. */
static void space(struct app *a)
{
	if (a->model->live) {
		a->follow = !a->follow;
		snprintf(a->msg, sizeof a->msg, a->follow ? "following live data" : "paused");
		app_tick(a, 0);
	}
}

/* From the selection; with none, the first event in (or after) the window. */
static void next_event(struct app *a)
{
	const struct model *m = a->model;
	long i = a->sel_event + 1;
	if (a->sel_event < 0) {
		i = (long)model_event_at(m, a->t0);
		if ((size_t)i >= m->n_events)
			i = 0;
	}
	if (i >= (long)m->n_events)
		i = a->sel_event;
	app_goto_event(a, i);
}

static int pane_key(struct app *a, int key)
{
	int cols = app_cols(a);
	switch (key) {
	case APP_KEY_LEFT: case 'h': pan(a, -(cols / 8 ? cols / 8 : 1)); break;
	case APP_KEY_RIGHT: case 'l': pan(a, cols / 8 ? cols / 8 : 1); break;
	case 'H': case APP_KEY_PGUP: pan(a, -cols); break;
	case 'L': case APP_KEY_PGDN: pan(a, cols); break;
	case APP_KEY_UP: case 'k': move(a, -1); break;
	case APP_KEY_DOWN: case 'j': move(a, 1); break;
	case APP_KEY_HOME: a->follow = 0; a->t0 = a->model->t_first; break;
	case APP_KEY_END:
		a->follow = a->model->live || app_replaying(a);
		a->t0 = a->model->t_last > a->col_ns * (uint64_t)cols ?
			a->model->t_last - a->col_ns * (uint64_t)cols : 0;
		if (!a->follow && a->t0 < a->model->t_first)
			a->t0 = a->model->t_first;
		break;
	case '+': zoom(a, 1); break;
	case '-': case '_': zoom(a, 0); break;
	case '=': a->follow = 0; app_fit(a); break;
	case ' ': space(a); break;
	case 'n': next_event(a); a->pane = APP_PANE_EVENTS; break;
	case 'N':
		app_goto_event(a, a->sel_event > 0 ? a->sel_event - 1 : 0);
		a->pane = APP_PANE_EVENTS;
		break;
	case 'w': goto_worst(a); break;
	case APP_KEY_ENTER: enter(a); break;
	case APP_KEY_ESC:
		if (a->sm_zoom)
			enter(a);
		break;
	case '/': a->input = APP_INPUT_SEARCH; a->search[0] = 0; break;
	case 'f': a->input = APP_INPUT_FILTER; break;
	case APP_KEY_TAB: a->pane = (a->pane + 1) % APP_PANE_COUNT; break;
	case APP_KEY_BTAB: a->pane = (a->pane + APP_PANE_COUNT - 1) % APP_PANE_COUNT; break;
	case 'm': a->dense = !a->dense; break;
	case '?': a->help = 1; break;
	case 'q': a->quit = 1; break;
	case 'o': a->library = a->quit = 1; break;
	case 'x':
		if (a->exact_window)
			a->exact_window(a->exact_window_ud, a->msg, sizeof a->msg);
		else
			snprintf(a->msg, sizeof a->msg, "x: exact windows are asked of a process being recorded live");
		break;
	case APP_KEY_RESIZE: break;
	default: return 0;
	}
	return 1;
}

/* e: the lesson beside the view, in a saved session or a replay alike. */
static int lesson_key(struct app *a)
{
	if (!a->lesson && !a->guide) {
		snprintf(a->msg, sizeof a->msg, "no lesson: the session was not recorded from a demo scenario");
		return 1;
	}
	a->lesson_panel = !a->lesson_panel;
	return 1;
}

void app_scroll_to(int *scroll, int row, int rows)
{
	if (row < *scroll)
		*scroll = row;
	if (row >= *scroll + rows)
		*scroll = row - rows + 1;
	if (*scroll < 0)
		*scroll = 0;
}

int app_list_move(int *sel, int key, int page, int n)
{
	switch (key) {
	case APP_KEY_UP: case 'k': (*sel)--; break;
	case APP_KEY_DOWN: case 'j': (*sel)++; break;
	case APP_KEY_PGUP: *sel -= page; break;
	case APP_KEY_PGDN: *sel += page; break;
	case APP_KEY_HOME: case 'g': *sel = 0; break;
	case APP_KEY_END: case 'G': *sel = n - 1; break;
	default: return 0;
	}
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
	return 1;
}

enum app_text app_text_key(char *buf, size_t size, int key)
{
	size_t n = strlen(buf);
	if (key == APP_KEY_ENTER)
		return APP_TEXT_ENTER;
	if (key == APP_KEY_ESC)
		return APP_TEXT_CANCEL;
	if (key == APP_KEY_BACKSPACE && n) {
		buf[n - 1] = 0;
	} else if (key >= 32 && key < 127 && n + 1 < size) {
		buf[n] = (char)key;
		buf[n + 1] = 0;
	}
	return APP_TEXT_EDIT;
}

int app_handle_key(struct app *a, int key)
{
	a->msg[0] = 0;
	if (a->input != APP_INPUT_NONE)
		return input_key(a, key);
	/* the help box closes on any key; one that means something else
	 * (a zoom, a pan) does that too, so no key is lost */
	if (a->help && key != APP_KEY_RESIZE) {
		a->help = 0;
		if (key == 'q' || key == '?' || key == APP_KEY_ESC || key == APP_KEY_ENTER)
			return 1;
	}
	if (key == 'e')
		return lesson_key(a);
	if (a->mode && a->mode->key(a, key))
		return 1;
	return pane_key(a, key);
}

int app_handle_mouse(struct app *a, int x, int y)
{
	const struct app_layout *l = &a->layout;
	if (l->too_small || a->help)
		return 0;
	if (y >= l->sms_y && y < l->sms_y + l->sms_rows) {
		a->pane = APP_PANE_SMS;
		int row = a->sm_scroll + (y - l->sms_y);
		if (row < sm_rows(a))
			a->sm_row = row;
		return 1;
	}
	if (y >= l->lanes_y && y < l->lanes_y + l->lanes_rows && y - l->lanes_y < 64) {
		int rank = l->lane_of_row[y - l->lanes_y];
		if (rank < 0)
			return 0;
		a->pane = APP_PANE_STREAMS;
		a->sel_stream = rank;
		if (x >= l->plot_x && x < l->plot_x + l->plot_w)
			a->sel_kernel = kernel_at(a, rank, a->t0 + a->col_ns * (uint64_t)(x - l->plot_x));
		return 1;
	}
	if (y >= l->events_y && y < l->events_y + l->events_rows && x < l->events_x + l->events_w) {
		long e = a->ev_scroll + (y - l->events_y);
		if (e < (long)a->model->n_events) {
			a->pane = APP_PANE_EVENTS;
			select_event(a, e);
		}
		return 1;
	}
	return 0;
}

/* Following live data without an event picked, the events pane shows the
 * newest episodes, as tail -f does. */
static int follow_events(struct app *a)
{
	const struct model *m = a->model;
	int rows = events_rows(a);
	int top = m->n_events > (size_t)rows ? (int)(m->n_events - (size_t)rows) : 0;
	if (a->sel_event >= 0 || a->ev_scroll == top)
		return 0;
	a->ev_scroll = top;
	return 1;
}

int app_tick(struct app *a, uint64_t dt_ns)
{
	const struct model *m = a->model;
	uint64_t span = a->col_ns * (uint64_t)app_cols(a);
	(void)dt_ns;
	if (app_replaying(a) && a->mode)
		return a->mode->tick(a);
	if (a->follow && m->live) {
		int changed = follow_events(a);
		/* under --sm entry a block comes once its end is bounded, well
		 * after its kernel's record: follow the blocks, not the records */
		uint64_t edge = m->ends_bounded && m->t_block_last ? m->t_block_last : m->t_last;
		uint64_t t0 = edge > span ? edge - span : 0;
		if (t0 == a->t0)
			return changed;
		a->t0 = t0;
		return 1;
	}
	return 0;
}
