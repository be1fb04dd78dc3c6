#include "src/core/guide.h"

#include <string.h>

#include "src/core/analysis.h"

int guide_is_inversion(enum smtop_event_kind k)
{
	return k == SMTOP_EV_INVERSION_RESIDENT || k == SMTOP_EV_INVERSION_DISPATCH;
}

/* The final episodes, by ready time. */
struct episodes {
	const struct smtop_event *v;
	size_t n;
};

/* The episodes a lesson is built around, as analysis event indices (-1: none). */
struct picks {
	long first_inv, other_inv, first_blk, first_ts, worst, worst_blk;
};

/* Worst as the viewer's w key has it: inversions first, then the longest wait. */
static int worse(const struct smtop_event *e, const struct smtop_event *best)
{
	int inv = guide_is_inversion(e->kind), binv = guide_is_inversion(best->kind);
	return inv != binv ? inv > binv : e->wait_ns > best->wait_ns;
}

static void pick(struct guide *g, const struct episodes *a, struct picks *p)
{
	*p = (struct picks){ -1, -1, -1, -1, -1, -1 };
	size_t n = a->n;
	for (size_t i = 0; i < n; i++) {
		const struct smtop_event *e = &a->v[i];
		if (e->kind <= SMTOP_EV_TIMESLICE) {
			g->events[e->kind]++;
			g->delay_ns[e->kind] += e->wait_ns;
		}
		if (guide_is_inversion(e->kind)) {
			if (p->first_inv < 0)
				p->first_inv = (long)i;
			else if (p->other_inv < 0 && e->kind != a->v[(size_t)p->first_inv].kind)
				p->other_inv = (long)i;
		}
		if (e->kind == SMTOP_EV_BLOCKING) {
			if (p->first_blk < 0)
				p->first_blk = (long)i;
			if (p->worst_blk < 0 || e->wait_ns > a->v[(size_t)p->worst_blk].wait_ns)
				p->worst_blk = (long)i;
		}
		if (e->kind == SMTOP_EV_TIMESLICE && p->first_ts < 0)
			p->first_ts = (long)i;
		if (p->worst < 0 || worse(e, &a->v[(size_t)p->worst]))
			p->worst = (long)i;
	}
}

static const char *name_of(const char *name, guide_name_fn short_name, void *ud)
{
	if (!name)
		return "?";
	return short_name ? short_name(ud, name) : name;
}

static int has_stop(const struct guide *g, long event, enum guide_kind kind)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->stops[i].event == event && (kind != GUIDE_VICTIM_STARTS) ==
		    (g->stops[i].kind != GUIDE_VICTIM_STARTS))
			return 1;
	return 0;
}

static void add(struct guide *g, const struct episodes *a, long i, enum guide_kind kind,
		guide_name_fn short_name, void *ud)
{
	if (i < 0 || g->n >= GUIDE_MAX_STOPS || has_stop(g, i, kind))
		return;
	const struct smtop_event *e = &a->v[(size_t)i];
	struct guide_stop *s = &g->stops[g->n++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->event = i;
	s->t = kind == GUIDE_VICTIM_STARTS ? e->start : e->ready;
	s->ev_kind = e->kind;
	s->ready = e->ready;
	s->start = e->start;
	s->wait_ns = e->wait_ns;
	s->victim = name_of(e->name, short_name, ud);
	s->stream = e->stream_id;
	s->priority = e->priority;
	if (e->n_culprits) {
		const struct smtop_culprit *c = &e->culprits[0];
		s->culprit = name_of(c->name, short_name, ud);
		s->culprit_stream = c->stream_id;
		s->culprit_priority = c->priority;
		s->culprit_blocks = c->blocks;
	}
}

/* By time; at one time, in the order they were added (insertion sort). */
static void sort_stops(struct guide *g)
{
	for (size_t i = 1; i < g->n; i++) {
		struct guide_stop s = g->stops[i];
		size_t j = i;
		for (; j > 0 && g->stops[j - 1].t > s.t; j--)
			g->stops[j] = g->stops[j - 1];
		g->stops[j] = s;
	}
}

size_t guide_build(struct guide *g, const struct analysis *an, uint64_t t_end,
		   guide_name_fn short_name, void *ud)
{
	return guide_build_events(g, analysis_event(an, 0), analysis_event_count(an), t_end,
				  short_name, ud);
}

size_t guide_build_events(struct guide *g, const struct smtop_event *ev, size_t n,
			  uint64_t t_end, guide_name_fn short_name, void *ud)
{
	memset(g, 0, sizeof *g);
	const struct episodes eps = { ev, n }, *a = &eps;
	struct picks p;
	pick(g, a, &p);
	add(g, a, p.first_inv, GUIDE_FIRST_INVERSION, short_name, ud);
	add(g, a, p.other_inv, GUIDE_OTHER_INVERSION, short_name, ud);
	if (p.first_inv < 0)
		add(g, a, p.first_blk, GUIDE_FIRST_BLOCKING, short_name, ud);
	add(g, a, p.first_ts, GUIDE_FIRST_TIMESLICE, short_name, ud);
	add(g, a, p.worst, GUIDE_WORST, short_name, ud);
	add(g, a, p.worst, GUIDE_VICTIM_STARTS, short_name, ud);
	if (p.first_inv >= 0)
		add(g, a, p.worst_blk, GUIDE_WORST_BLOCKING, short_name, ud);
	struct guide_stop *end = &g->stops[g->n < GUIDE_MAX_STOPS ? g->n++ : GUIDE_MAX_STOPS - 1];
	memset(end, 0, sizeof *end);
	end->kind = GUIDE_END;
	end->event = -1;
	end->t = t_end;
	sort_stops(g);
	return g->n;
}

size_t guide_times(const struct guide *g, uint64_t *out, size_t max)
{
	size_t n = g->n < max ? g->n : max;
	for (size_t i = 0; i < n; i++)
		out[i] = g->stops[i].t;
	return n;
}
