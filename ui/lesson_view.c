#include "ui/lesson_view.h"

#include "src/core/fmt.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "src/core/guide.h"
#include "src/core/lessons.h"
#include "src/core/replay_clock.h"
#include "ui/replay_player.h"

int lesson_view_width(const struct app *a, int w)
{
	if (!a->lesson_panel || (!a->lesson && !a->guide))
		return 0;
	int pw = w / 4;
	if (pw < LESSON_VIEW_MIN_W)
		pw = LESSON_VIEW_MIN_W;
	if (pw > LESSON_VIEW_MAX_W)
		pw = LESSON_VIEW_MAX_W;
	return w - pw >= LESSON_VIEW_MAIN_MIN_W ? pw : 0;
}

/* Word-wraps text into r from row *y on (texts are ASCII: a byte is a column). */
static void wrap(struct canvas *c, struct canvas_rect r, int *y, int fg, int attr, const char *text)
{
	const char *p = text;
	while (*y < r.y + r.h && r.w > 0) {
		while (*p == ' ')
			p++;
		if (!*p)
			return;
		size_t fit = 0, i = 0;
		while (p[i]) {
			size_t k = i;
			while (p[k] == ' ')
				k++;
			while (p[k] && p[k] != ' ')
				k++;
			if (k > (size_t)r.w)
				break;
			fit = i = k;
		}
		if (!fit) /* a word wider than the row */
			fit = strlen(p) < (size_t)r.w ? strlen(p) : (size_t)r.w;
		char row[256];
		size_t n = fit < sizeof row - 1 ? fit : sizeof row - 1;
		memcpy(row, p, n);
		row[n] = 0;
		canvas_print(c, r.x, *y, r.w, fg, CANVAS_DEFAULT, attr, row);
		(*y)++;
		p += fit;
	}
}

static void ms(char *buf, size_t len, uint64_t t, uint64_t base)
{
	snprintf(buf, len, "%.3f ms", (double)(t > base ? t - base : 0) / 1e6);
}

static void prio(char *buf, size_t len, int32_t p)
{
	if (p == SMTOP_PRIORITY_UNKNOWN)
		snprintf(buf, len, "prio N/A");
	else
		snprintf(buf, len, "prio %d", p);
}

static void wait_text(char *buf, size_t len, uint64_t ns)
{
	fmt_duration(buf, len, ns, 1);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The episode in numbers, as the analysis found it. */
static void stop_facts(char *buf, size_t len, const struct guide *g, const struct guide_stop *s,
		       uint64_t base)
{
	char t[32], w[32], p[24], cp[24];
	if (s->kind == GUIDE_END) {
		size_t inv = g->events[SMTOP_EV_INVERSION_RESIDENT] + g->events[SMTOP_EV_INVERSION_DISPATCH];
		uint64_t delay = 0;
		for (int k = 0; k <= SMTOP_EV_TIMESLICE; k++)
			delay += g->delay_ns[k];
		wait_text(w, sizeof w, delay);
		size_t blk = g->events[SMTOP_EV_BLOCKING], ts = g->events[SMTOP_EV_TIMESLICE];
		snprintf(buf, len, "%zu inversion%s (%zu resident, %zu dispatch), %zu blocking and %zu "
			 "time-slice episode%s: %s of waiting in all.", inv, plural(inv),
			 g->events[SMTOP_EV_INVERSION_RESIDENT], g->events[SMTOP_EV_INVERSION_DISPATCH],
			 blk, ts, plural(blk + ts), w);
		return;
	}
	prio(p, sizeof p, s->priority);
	wait_text(w, sizeof w, s->wait_ns);
	if (s->kind == GUIDE_VICTIM_STARTS) {
		ms(t, sizeof t, s->start, base);
		snprintf(buf, len, "%s on s%u (%s) starts at %s, after waiting %s.", s->victim, s->stream,
			 p, t, w);
		return;
	}
	ms(t, sizeof t, s->ready, base);
	int n = snprintf(buf, len, "%s on s%u (%s) is ready at %s", s->victim, s->stream, p, t);
	if (s->culprit && n > 0 && (size_t)n < len) {
		prio(cp, sizeof cp, s->culprit_priority);
		char b[32] = "";
		if (s->culprit_blocks)
			snprintf(b, sizeof b, ", %u blocks", s->culprit_blocks);
		n += snprintf(buf + n, len - (size_t)n, "; %s on s%u (%s%s) holds the SMs", s->culprit,
			      s->culprit_stream, cp, b);
	}
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ". It will wait %s.", w);
}

/* The caption of the stop the replay waits at, or where the next one is;
 * returns 0 when there is nothing to say. */
static int caption(struct canvas *c, struct canvas_rect r, int *y, const struct app *a,
		   const struct model *m)
{
	const struct replay_clock *rp = a->replay;
	if (!replay_player_active(a) || !a->guide || !rp->guided)
		return 0;
	uint64_t base = m->t_first ? m->t_first : rp->t_first;
	char t[512], at[32];
	if (rp->at_stop < 0 || (size_t)rp->at_stop >= a->guide->n) {
		if (rp->next_stop >= a->guide->n)
			return 0;
		const struct guide_stop *s = &a->guide->stops[rp->next_stop];
		ms(at, sizeof at, s->t, base);
		/* the title goes mid-sentence: its capital goes */
		char title[160];
		snprintf(title, sizeof title, "%s", lessons_stop_title(s->kind, s->ev_kind));
		title[0] = (char)tolower((unsigned char)title[0]);
		snprintf(t, sizeof t, "Guided replay: next stop at %s: %s.", at, title);
		wrap(c, r, y, CANVAS_DEFAULT, CANVAS_DIM, t);
		return 1;
	}
	const struct guide_stop *s = &a->guide->stops[rp->at_stop];
	ms(at, sizeof at, s->t, base);
	snprintf(t, sizeof t, "Stop %d of %zu at %s", rp->at_stop + 1, a->guide->n, at);
	canvas_print(c, r.x, (*y)++, r.w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_REVERSE | CANVAS_BOLD, t);
	wrap(c, r, y, a->colors && guide_is_inversion(s->ev_kind) && s->kind != GUIDE_END ?
		      CANVAS_RED : CANVAS_DEFAULT, CANVAS_BOLD, lessons_stop_title(s->kind, s->ev_kind));
	wrap(c, r, y, CANVAS_DEFAULT, 0, lessons_stop_text(s->kind, s->ev_kind));
	stop_facts(t, sizeof t, a->guide, s, base);
	wrap(c, r, y, CANVAS_DEFAULT, 0, t);
	wrap(c, r, y, CANVAS_DEFAULT, CANVAS_DIM, s->kind == GUIDE_END ? "space: replay again"
								     : "Enter or space: continue");
	return 1;
}

static void section(struct canvas *c, struct canvas_rect r, int *y, const char *head,
		    const char *text)
{
	(*y)++;
	wrap(c, r, y, CANVAS_DEFAULT, CANVAS_BOLD | CANVAS_UNDERLINE, head);
	wrap(c, r, y, CANVAS_DEFAULT, 0, text);
}

void lesson_view_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		      const struct model *m)
{
	char title[96];
	snprintf(title, sizeof title, "lesson: %s", a->lesson ? a->lesson->scenario : "none");
	canvas_fill(c, r, " ", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_box(c, r, title, a->ascii);
	struct canvas_rect in = { r.x + 2, r.y + 1, r.w - 4, r.h - 2 };
	int y = in.y;
	if (caption(c, in, &y, a, m)) {
		for (int x = in.x; x < in.x + in.w && y < in.y + in.h; x++)
			canvas_put(c, x, y, a->ascii ? "-" : "─", CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM);
		y++;
	}
	const struct lesson *l = a->lesson;
	if (!l) {
		wrap(c, in, &y, CANVAS_DEFAULT, CANVAS_DIM,
		     "No lesson for this session: it was not recorded from a smtop demo scenario.");
		return;
	}
	wrap(c, in, &y, CANVAS_DEFAULT, CANVAS_BOLD, l->title);
	section(c, in, &y, "What the scheduler did", l->did);
	section(c, in, &y, "Finding (Gilman & Walls 2021)", l->finding);
	section(c, in, &y, "Look for", l->look);
	section(c, in, &y, "Try next", l->next);
}

void lesson_view_caption(struct canvas *c, const struct app *a, const struct model *m)
{
	const struct app_layout *l = &a->layout;
	if (l->too_small || !replay_player_active(a) || a->replay->at_stop < 0 || a->help)
		return;
	int w = c->w - 2;
	if (w < 24)
		return;
	struct canvas scratch;
	/* drawn once off screen to size the box, then for real */
	if (canvas_init(&scratch, c->w, c->h) != 0)
		return;
	int y = 0;
	int said = caption(&scratch, (struct canvas_rect){ 3, 0, w - 4, c->h }, &y, a, m);
	canvas_free(&scratch);
	if (!said)
		return;
	/* above the status line, over the events (and the lanes when it needs
	 * more rows), at most half the screen */
	int h = y + 2;
	if (h > c->h / 2)
		h = c->h / 2;
	struct canvas_rect r = { 1, c->h - 2 - h, w, h };
	struct canvas_rect in = { r.x + 2, r.y + 1, r.w - 4, r.h - 2 };
	canvas_fill(c, r, " ", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_box(c, r, "guided replay", a->ascii);
	y = in.y;
	caption(c, in, &y, a, m);
}
