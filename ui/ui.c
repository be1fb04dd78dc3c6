#include "ui/ui.h"

#include <stdio.h>

#include "src/core/clock.h"
#include "ui/canvas.h"
#include "ui/screen.h"
#include "ui/sessions.h"
#include "ui/tty.h"

/* A detail read goes a part at a time (a few chunks of blocks), and a step
 * stops after the budget: a mid-session window of a 1 G-block session took
 * 5 s in one read, with the keys unanswered.  The coarser bins are drawn
 * until it is in. */
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

int ui_run(struct app *a, struct model *m, const struct ui_source *src, char *err,
	   size_t errlen)
{
	struct tty_caps caps;
	if (tty_open(&caps, err, errlen))
		return -1;
	a->colors = caps.colors;
	a->ascii = a->ascii || !caps.utf8; /* --ascii forces it */
	struct canvas c;
	if (canvas_init(&c, 0, 0)) {
		tty_close();
		snprintf(err, errlen, "smtop: out of memory");
		return -1;
	}
	/* app_init fitted the session to a guessed width; fit again to the real
	 * one unless the caller moved the window */
	resize(&c);
	uint64_t before = a->t0;
	screen_layout(a, m, c.w, c.h);
	if (before == m->t_first && !a->follow)
		app_fit(a);
	app_tick(a, 0);
	int dirty = 1;
	while (!a->quit && !tty_interrupted()) {
		if (resize(&c) < 0)
			break;
		if (dirty) {
			screen_draw(&c, a, m);
			tty_blit(&c);
			dirty = 0;
		}
		struct tty_input in;
		/* a loader catching up polls again at once (its poll is bounded) */
		tty_read(&in, m->loading || a->fetch.on ? 0 : UI_TICK_MS);
		if (in.mouse)
			dirty |= app_handle_mouse(a, in.x, in.y);
		else if (in.key == APP_KEY_RESIZE)
			dirty = 1;
		else if (in.key)
			dirty |= app_handle_key(a, in.key);
		/* a key resets the tick only visually; data still flows */
		dirty |= ui_step(a, m, src, (uint64_t)UI_TICK_MS * 1000000ULL);
	}
	canvas_free(&c);
	tty_close();
	return 0;
}

int ui_run_sessions(struct sessions_view *v, struct model *m, const struct ui_source *bg,
		    char *err, size_t errlen)
{
	struct tty_caps caps;
	struct canvas c;
	if (tty_open(&caps, err, errlen))
		return -1;
	v->colors = caps.colors;
	v->ascii = v->ascii || !caps.utf8;
	if (canvas_init(&c, 0, 0)) {
		tty_close();
		snprintf(err, errlen, "smtop: out of memory");
		return -1;
	}
	int dirty = 1;
	v->result = SESSIONS_STAY;
	while (v->result == SESSIONS_STAY) {
		if (tty_interrupted()) {
			v->result = SESSIONS_QUIT;
			break;
		}
		int w = c.w, h = c.h;
		if (resize(&c) < 0)
			break;
		if (dirty || w != c.w || h != c.h) {
			sessions_draw(&c, v);
			tty_blit(&c);
			dirty = 0;
		}
		struct tty_input in;
		tty_read(&in, UI_TICK_MS);
		if (in.mouse)
			dirty |= sessions_handle_mouse(v, in.x, in.y);
		else if (in.key == APP_KEY_RESIZE)
			dirty = 1;
		else if (in.key)
			dirty |= sessions_handle_key(v, in.key);
		/* a live view behind the list keeps reading its session */
		if (bg && bg->poll && m)
			bg->poll(bg->ud, m);
	}
	canvas_free(&c);
	tty_close();
	return 0;
}
