#include "ui/ui.h"

#include <stdio.h>

#include "ui/canvas.h"
#include "ui/screen.h"
#include "ui/sessions.h"
#include "ui/tty.h"

/* Asks for detail over three windows' width, so that small pans do not
 * fetch again. */
static int fetch_detail(struct app *a, struct model *m, const struct ui_source *src)
{
	uint64_t t1 = app_t1(a), span = t1 - a->t0;
	if (!src || !src->detail || !model_wants_detail(m, a->t0, t1, a->col_ns))
		return 0;
	uint64_t s = a->t0 > span ? a->t0 - span : 0;
	if (src->detail(src->ud, m, s, t1 + span) < 0)
		snprintf(a->msg, sizeof a->msg, "could not read the blocks of this window");
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
		tty_read(&in, m->loading ? 0 : UI_TICK_MS);
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
