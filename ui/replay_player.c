#include "ui/replay_player.h"

#include <stdio.h>
#include <string.h>

#include "src/core/guide.h"
#include "src/core/replay_clock.h"
#include "src/core/fmt.h"

int replay_player_active(const struct app *a)
{
	return app_replaying(a);
}

/* The scale at which the window spans PLAYER_WINDOW_REAL_NS of real time,
 * or the whole session when that is shorter. */
static uint64_t replay_scale(const struct app *a)
{
	const struct replay_clock *r = a->replay;
	uint64_t span = replay_clock_gpu_ns(r, PLAYER_WINDOW_REAL_NS);
	if (r->t_last - r->t_first < span)
		span = r->t_last - r->t_first;
	return app_round_scale(span / (uint64_t)app_cols(a));
}

/* Kernel indices change when the model is rebuilt (going back), so the
 * selection goes; events keep theirs (the feed adds them in order). */
static void forget_kernel(struct app *a)
{
	a->sel_kernel = -1;
}

void replay_player_begin(struct app *a, uint64_t t, int guided)
{
	struct replay_clock *r = a->replay;
	replay_clock_start(r, t);
	replay_clock_set_guided(r, guided);
	a->follow = 1;
	a->col_ns = replay_scale(a);
	a->sel_event = -1;
	a->ev_scroll = 0;
	a->stop_shown = -1;
	a->select_at = 0;
	forget_kernel(a);
	if (guided && a->guide)
		a->lesson_panel = 1;
}

static void stop(struct app *a)
{
	replay_clock_stop(a->replay);
	a->follow = 0;
	a->select_at = 0;
	app_fit(a);
	snprintf(a->msg, sizeof a->msg, "replay stopped: the whole session");
}

/* The SMs on screen: all of them in groups, the visible rows in one SM per row. */
static void sms_in_view(const struct app *a, uint32_t *sm0, uint32_t *sm1)
{
	uint32_t n = a->model->n_sm ? a->model->n_sm : UINT32_MAX;
	*sm0 = 0;
	*sm1 = n;
	if (!a->sm_zoom || a->layout.sms_rows <= 0)
		return;
	*sm0 = (uint32_t)a->sm_scroll;
	*sm1 = *sm0 + (uint32_t)a->layout.sms_rows;
	if (*sm1 > n)
		*sm1 = n;
}

static void step(struct app *a, enum replay_clock_mark kind, int dir)
{
	uint32_t sm0, sm1;
	sms_in_view(a, &sm0, &sm1);
	uint64_t before = a->replay->clock;
	if (replay_clock_step(a->replay, kind, dir, sm0, sm1) != 0) {
		snprintf(a->msg, sizeof a->msg, "no %s %s", dir > 0 ? "later" : "earlier",
			 kind == REPLAY_CLOCK_MARK_EVENT ? "blocking or inversion episode" : "block start on these SMs");
		return;
	}
	a->follow = 1;
	if (a->replay->clock < before)
		forget_kernel(a);
	/* as n and N outside a replay: the events pane shows the episode */
	if (kind == REPLAY_CLOCK_MARK_EVENT) {
		a->select_at = a->replay->clock;
		a->pane = APP_PANE_EVENTS;
	}
	snprintf(a->msg, sizeof a->msg, "step%s: %s %s", dir > 0 ? "" : " back",
		 dir > 0 ? "next" : "previous", kind == REPLAY_CLOCK_MARK_EVENT ? "episode" : "block start");
}

/* 1000000 rather than 1e+06; halvings keep their digits (62.5). */
static void speed_text(char *buf, size_t len, double x)
{
	if (x == (double)(uint64_t)x)
		snprintf(buf, len, "x%llu", (unsigned long long)x);
	else
		snprintf(buf, len, "x%g", x);
}

static void set_speed(struct app *a, double x)
{
	replay_clock_set_speed(a->replay, x);
	char d[32], sp[32];
	fmt_duration(d, sizeof d, (uint64_t)(a->replay->speed * 1000.0 + 0.5), 1);
	speed_text(sp, sizeof sp, a->replay->speed);
	snprintf(a->msg, sizeof a->msg, "speed %s: 1 us of GPU time takes %s", sp, d);
}

/* Space and Enter go on from a stop; at the end, space plays again. */
static void play_pause(struct app *a)
{
	struct replay_clock *r = a->replay;
	if (r->ended) {
		replay_player_begin(a, r->t_first, r->guided);
		return;
	}
	replay_clock_set_paused(r, !r->paused);
	a->follow = 1;
	snprintf(a->msg, sizeof a->msg, r->paused ? "paused" : "playing");
}

static int active_key(struct app *a, int key)
{
	struct replay_clock *r = a->replay;
	switch (key) {
	case ' ': play_pause(a); return 1;
	case APP_KEY_ENTER:
		if (r->at_stop < 0)
			return 0;
		play_pause(a);
		return 1;
	case '<': set_speed(a, r->speed / 2); return 1;
	case '>': set_speed(a, r->speed * 2); return 1;
	case '.': step(a, REPLAY_CLOCK_MARK_DISPATCH, 1); return 1;
	case ',': step(a, REPLAY_CLOCK_MARK_DISPATCH, -1); return 1;
	case 'n': step(a, REPLAY_CLOCK_MARK_EVENT, 1); return 1;
	case 'N': step(a, REPLAY_CLOCK_MARK_EVENT, -1); return 1;
	case 'g':
		replay_clock_set_guided(r, !r->guided);
		if (r->guided)
			a->lesson_panel = 1;
		snprintf(a->msg, sizeof a->msg, r->guided ? "guided: pauses at each key moment"
							  : "guided off");
		return 1;
	case 'r': stop(a); return 1;
	}
	return 0;
}

int replay_player_key(struct app *a, int key)
{
	if (!a->replay)
		return 0;
	if (replay_player_active(a))
		return active_key(a, key);
	/* a saved session: space, r and g start a replay from the window
	 * (from the start when the window shows it), g a guided one */
	uint64_t from = a->t0 > a->replay->t_first ? a->t0 : a->replay->t_first;
	switch (key) {
	case ' ': case 'r':
		replay_player_begin(a, from, 0);
		snprintf(a->msg, sizeof a->msg, "replaying");
		return 1;
	case 'g':
		replay_player_begin(a, a->replay->t_first, 1);
		snprintf(a->msg, sizeof a->msg, "guided replay: it pauses at each key moment");
		return 1;
	}
	return 0;
}

static int select_event_at(struct app *a, uint64_t t)
{
	const struct model *m = a->model;
	size_t i = model_event_at(m, t);
	if (i >= m->n_events || m->events[i].ev.ready != t)
		return 0;
	long k = m->events[i].kernel;
	app_goto_event(a, (long)i);
	/* show the clock, not the event's end (it has not happened yet) */
	a->follow = 1;
	if (k < 0)
		a->sel_kernel = -1;
	return 1;
}

int replay_player_tick(struct app *a)
{
	const struct replay_clock *r = a->replay;
	int changed = 0;
	if (a->select_at && select_event_at(a, a->select_at)) {
		a->select_at = 0;
		changed = 1;
	}
	if (r->at_stop != a->stop_shown) {
		a->stop_shown = r->at_stop;
		a->msg[0] = 0; /* the caption says it; the status line shows the keys */
		if (r->at_stop >= 0 && a->guide && (size_t)r->at_stop < a->guide->n) {
			const struct guide_stop *s = &a->guide->stops[r->at_stop];
			if (s->event >= 0 && (size_t)s->event < a->model->n_events)
				select_event_at(a, a->model->events[s->event].ev.ready);
			a->follow = 1;
		}
		changed = 1;
	}
	if (!a->follow)
		return changed;
	uint64_t span = a->col_ns * (uint64_t)app_cols(a);
	uint64_t t0 = r->clock > span ? r->clock - span : 0;
	if (t0 == a->t0)
		return changed;
	a->t0 = t0;
	return 1;
}

void replay_player_status(const struct app *a, char *buf, size_t len)
{
	const struct replay_clock *r = a->replay;
	const char *dot = a->ascii ? "|" : "·";
	uint64_t base = a->model->t_first ? a->model->t_first : r->t_first;
	uint64_t at = r->clock > base ? r->clock - base : 0;
	char d[32], state[48], sp[32];
	fmt_duration(d, sizeof d, (uint64_t)(r->speed * 1000.0 + 0.5), 1);
	speed_text(sp, sizeof sp, r->speed);
	if (r->at_stop >= 0)
		snprintf(state, sizeof state, "stop %d of %zu", r->at_stop + 1, r->n_stops);
	else if (r->ended)
		snprintf(state, sizeof state, "end");
	else
		snprintf(state, sizeof state, "%s%s", r->paused ? "paused" : "playing",
			 r->guided ? " (guided)" : "");
	snprintf(buf, len, "replay %llu.%06llu ms %s %s (1 us = %s) %s %s",
		 (unsigned long long)(at / 1000000ULL), (unsigned long long)(at % 1000000ULL), dot,
		 sp, d, dot, state);
}

static const struct app_mode replay_player_mode = { replay_player_key, replay_player_tick };

void replay_player_attach(struct app *a, struct replay_clock *r)
{
	a->replay = r;
	a->mode = &replay_player_mode;
}
