#include "ui/ui.h"

#include <stdio.h>

#include "src/core/clock.h"
#include "ui/canvas.h"
#include "ui/machine_view.h"
#include "ui/screen.h"
#include "ui/sessions.h"
#include "ui/tty.h"

/* A detail read goes a part at a time (a few chunks of blocks), and a step
 * stops after the budget, so that keys are answered while a large window is
 * read (docs/performance.md, "Loader").  The coarser bins are drawn until
 * it is in. */
#define UI_DETAIL_BUDGET_NS 30000000ull

/* Starts reading detail over three windows' width, so that small pans do
 * not read again; 0 if the window needs none. */
static int fetch_begin(struct app *a, struct model *m)
{
	uint64_t t1 = app_t1(a), span = t1 - a->t0;
	if (!model_wants_detail(m, a->t0, t1, a->col_ns))
		return 0;
	a->fetch.on = 1;
	a->fetch.started = 0;
	a->fetch.t0 = a->t0 > span ? a->t0 - span : 0;
	a->fetch.t1 = t1 + span;
	model_detail_begin(m, a->fetch.t0, a->fetch.t1);
	return 1;
}

/* Reads parts of the detail window until done or out of budget; returns 1
 * when the detail is in (the screen changes). */
static int fetch_detail(struct app *a, struct model *m, const struct ui_source *src)
{
	if (!src || !src->detail)
		return 0;
	if (a->fetch.on && (a->t0 < a->fetch.t0 || app_t1(a) > a->fetch.t1))
		a->fetch.on = 0; /* the window left it: read the new one */
	if (!a->fetch.on && !fetch_begin(a, m))
		return 0;
	uint64_t begun = clock_mono_ns();
	int r;
	do {
		r = src->detail(src->ud, m, a->fetch.t0, a->fetch.t1, !a->fetch.started);
		a->fetch.started = 1;
	} while (r > 0 && clock_mono_ns() - begun < UI_DETAIL_BUDGET_NS);
	if (r > 0)
		return 0;
	if (r < 0) /* what was read is shown; no retry on every step */
		snprintf(a->msg, sizeof a->msg, "could not read the blocks of this window");
	a->fetch.on = 0;
	model_detail_end(m);
	return 1;
}

/* The selected episode's culprits past the heaviest, once per episode. */
static int fetch_culprits(struct app *a, struct model *m, const struct ui_source *src)
{
	if (a->pane != APP_PANE_EVENTS || a->sel_event < 0 ||
	    !model_event_wants_culprits(m, (size_t)a->sel_event))
		return 0;
	if (src->focus(src->ud, m, -1, a->sel_event, 1) < 0) {
		snprintf(a->msg, sizeof a->msg, "could not read the culprits of this episode");
		model_focus_culprits(m, a->sel_event, NULL, 0); /* N/A, no retry */
	}
	return 1;
}

/* The selected kernel's SMs, read once per kernel and again as its blocks
 * grow, a part at a time within the budget (as the detail); and the
 * selected episode's culprits.  Returns 1 when the details pane changes. */
static int fetch_focus(struct app *a, struct model *m, const struct ui_source *src)
{
	if (!src || !src->focus)
		return 0;
	int changed = fetch_culprits(a, m, src);
	long k = a->sel_kernel;
	if (k < 0 || (size_t)k >= m->n_kernels)
		return changed;
	uint64_t seen = model_kernel_blocks_seen(m, &m->kernels[k]);
	int going = a->focusing.on && a->focusing.kernel == k && a->focusing.blocks_seen == seen;
	if (!going && m->focus.kernel == k && m->focus.blocks_seen == seen)
		return changed;
	int start = !going;
	a->focusing.on = 1;
	a->focusing.kernel = k;
	a->focusing.blocks_seen = seen;
	uint64_t begun = clock_mono_ns();
	int r;
	do {
		r = src->focus(src->ud, m, k, -1, start);
		start = 0;
	} while (r > 0 && clock_mono_ns() - begun < UI_DETAIL_BUDGET_NS);
	if (r > 0)
		return changed; /* more at the next step; the pane says N/A meanwhile */
	a->focusing.on = 0;
	if (r < 0) {
		snprintf(a->msg, sizeof a->msg, "could not read the blocks of this kernel");
		model_focus_kernel(m, k, seen, 0, 0, 0); /* N/A, no retry */
	}
	return 1;
}

int ui_step(struct app *a, struct model *m, const struct ui_source *src, uint64_t dt_ns)
{
	int changed = 0;
	if (src && src->poll) {
		int r = src->poll(src->ud, m);
		if (r < 0)
			snprintf(a->msg, sizeof a->msg, "session read failed; retrying");
		changed |= r > 0;
	}
	changed |= app_tick(a, dt_ns);
	changed |= fetch_detail(a, m, src);
	changed |= fetch_focus(a, m, src);
	return changed;
}

static int resize(struct canvas *c)
{
	int w, h;
	tty_size(&w, &h);
	if (w == c->w && h == c->h)
		return 0;
	return canvas_resize(c, w, h);
}

/* One screen the loop runs: the viewer or the session list. */
struct ui_screen {
	void *self;
	int (*running)(void *self);             /* 0 ends the loop */
	void (*interrupt)(void *self);          /* Ctrl-C or a signal came */
	void (*draw)(struct canvas *c, void *self);
	int (*key)(void *self, int key);        /* 1: redraw */
	int (*mouse)(void *self, int x, int y);
	int (*step)(void *self);                /* after every read; 1: redraw */
	int (*wait_ms)(void *self);             /* how long the next read may wait */
};

/* The one main loop: draws when something changed or the terminal was
 * resized, reads a key or a click (or times out), hands it over, steps. */
static void ui_loop(const struct ui_screen *s, struct canvas *c)
{
	int dirty = 1;
	while (s->running(s->self)) {
		if (tty_interrupted()) {
			s->interrupt(s->self);
			break;
		}
		int w = c->w, h = c->h;
		if (resize(c) < 0)
			break;
		if (dirty || w != c->w || h != c->h) {
			s->draw(c, s->self);
			tty_blit(c);
			dirty = 0;
		}
		struct tty_input in;
		tty_read(&in, s->wait_ms(s->self));
		if (in.mouse)
			dirty |= s->mouse(s->self, in.x, in.y);
		else if (in.key == APP_KEY_RESIZE)
			dirty = 1;
		else if (in.key)
			dirty |= s->key(s->self, in.key);
		dirty |= s->step(s->self);
	}
}

int ui_term_open(struct ui_term *t, char *err, size_t errlen)
{
	if (tty_open(&t->caps, err, errlen))
		return -1;
	if (canvas_init(&t->c, 0, 0)) {
		tty_close();
		snprintf(err, errlen, "smtop: out of memory");
		return -1;
	}
	resize(&t->c);
	return 0;
}

void ui_term_close(struct ui_term *t)
{
	canvas_free(&t->c);
	tty_close();
}

/* ---- the viewer ---- */

struct ui_viewer {
	struct app *a;
	struct model *m;
	const struct ui_source *src;
};

static int viewer_running(void *self) { return !((struct ui_viewer *)self)->a->quit; }
static void viewer_interrupt(void *self) { (void)self; }

static void viewer_draw(struct canvas *c, void *self)
{
	struct ui_viewer *v = self;
	screen_draw(c, v->a, v->m);
}

static int viewer_key(void *self, int key) { return app_handle_key(((struct ui_viewer *)self)->a, key); }

static int viewer_mouse(void *self, int x, int y)
{
	return app_handle_mouse(((struct ui_viewer *)self)->a, x, y);
}

/* A key resets the tick only visually; data still flows. */
static int viewer_step(void *self)
{
	struct ui_viewer *v = self;
	return ui_step(v->a, v->m, v->src, (uint64_t)UI_TICK_MS * 1000000ULL);
}

/* A loader catching up polls again at once (its poll is bounded). */
static int viewer_wait_ms(void *self)
{
	struct ui_viewer *v = self;
	return v->m->loading || v->a->fetch.on ? 0 : UI_TICK_MS;
}

/* A screen takes the terminal over: its size, which may have changed
 * while another screen had it, and what it can show (--ascii, already in
 * *ascii, forces ASCII whatever the terminal can). */
static void take_terminal(struct ui_term *t, int *colors, int *ascii)
{
	resize(&t->c);
	*colors = t->caps.colors;
	*ascii = *ascii || !t->caps.utf8;
}

void ui_run(struct ui_term *t, struct app *a, struct model *m, const struct ui_source *src)
{
	struct ui_viewer v = { a, m, src };
	const struct ui_screen s = { &v, viewer_running, viewer_interrupt, viewer_draw,
				     viewer_key, viewer_mouse, viewer_step, viewer_wait_ms };
	take_terminal(t, &a->colors, &a->ascii);
	/* app_init fitted the session to a guessed width; fit again to the real
	 * one unless the caller moved the window */
	uint64_t before = a->t0;
	screen_layout(a, m, t->c.w, t->c.h);
	if (before == m->t_first && !a->follow)
		app_fit(a);
	app_tick(a, 0);
	ui_loop(&s, &t->c);
}

/* ---- the session list ---- */

struct ui_list {
	struct sessions_view *v;
	struct model *m;
	const struct ui_source *bg;
};

static int list_running(void *self) { return ((struct ui_list *)self)->v->result == SESSIONS_STAY; }
static void list_interrupt(void *self) { ((struct ui_list *)self)->v->result = SESSIONS_QUIT; }
static void list_draw(struct canvas *c, void *self) { sessions_draw(c, ((struct ui_list *)self)->v); }
static int list_key(void *self, int key) { return sessions_handle_key(((struct ui_list *)self)->v, key); }

static int list_mouse(void *self, int x, int y)
{
	return sessions_handle_mouse(((struct ui_list *)self)->v, x, y);
}

/* A live view behind the list keeps reading its session. */
static int list_step(void *self)
{
	struct ui_list *l = self;
	if (l->bg && l->bg->poll && l->m)
		l->bg->poll(l->bg->ud, l->m);
	return 0;
}

static int list_wait_ms(void *self)
{
	(void)self;
	return UI_TICK_MS;
}

void ui_run_sessions(struct ui_term *t, struct sessions_view *v, struct model *m,
		     const struct ui_source *bg)
{
	struct ui_list l = { v, m, bg };
	const struct ui_screen s = { &l, list_running, list_interrupt, list_draw,
				     list_key, list_mouse, list_step, list_wait_ms };
	take_terminal(t, &v->colors, &v->ascii);
	v->result = SESSIONS_STAY;
	ui_loop(&s, &t->c);
}

/* ---- the machine view ---- */

struct ui_machine {
	struct machine_view *v;
	const struct machine_source *src;
	uint64_t sampled;               /* when src was last sampled */
};

static int machine_running(void *self) { return ((struct ui_machine *)self)->v->result == MACHINE_VIEW_STAY; }
static void machine_interrupt(void *self) { ((struct ui_machine *)self)->v->result = MACHINE_VIEW_QUIT; }
static void machine_draw(struct canvas *c, void *self) { machine_view_draw(c, ((struct ui_machine *)self)->v); }
static int machine_key(void *self, int key) { return machine_view_handle_key(((struct ui_machine *)self)->v, key); }

static int machine_mouse(void *self, int x, int y)
{
	(void)self, (void)x, (void)y;
	return 0;
}

/* A new sample once a second; a failed one keeps the last on screen. */
static int machine_sample(struct ui_machine *u)
{
	char err[512];

	u->sampled = clock_mono_ns();
	if (u->src->sample(u->src->ud, u->v->m, err, sizeof err) != 0) {
		snprintf(u->v->msg, sizeof u->v->msg, "%s", err);
		return 1;
	}
	machine_view_resync(u->v);
	return 1;
}

static int machine_step(void *self)
{
	struct ui_machine *u = self;

	if (clock_mono_ns() - u->sampled < (uint64_t)UI_MACHINE_REFRESH_MS * 1000000ull)
		return 0;
	return machine_sample(u);
}

static int machine_wait_ms(void *self)
{
	(void)self;
	return UI_TICK_MS;
}

void ui_run_machine(struct ui_term *t, struct machine_view *v, const struct machine_source *src)
{
	struct ui_machine u = { v, src, 0 };
	const struct ui_screen s = { &u, machine_running, machine_interrupt, machine_draw,
				     machine_key, machine_mouse, machine_step, machine_wait_ms };
	take_terminal(t, &v->colors, &v->ascii);
	v->result = MACHINE_VIEW_STAY;
	machine_sample(&u);
	ui_loop(&s, &t->c);
}
