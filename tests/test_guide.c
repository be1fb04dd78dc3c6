/* Guided replay's stops (src/core/guide.c), derived from the analysis of
 * sessions recorded on the H200, and a guided replay of one with a fake
 * clock. */
#include <criterion/criterion.h>

#include "src/core/analysis.h"
#include "src/core/guide.h"
#include "src/core/replay_clock.h"
#include "tests/support/replay_support.h"

#define PVT REPLAY_SUPPORT_PVT
#define MS 1000000ULL

static uint64_t fake_now_ns;

static uint64_t fake_now(void *ud)
{
	(void)ud;
	return fake_now_ns;
}

static long first_of(const struct analysis *a, int inversion)
{
	for (size_t i = 0; i < analysis_event_count(a); i++)
		if (guide_is_inversion(analysis_event(a, i)->kind) == inversion)
			return (long)i;
	return -1;
}

Test(guide, first_stop_is_the_first_inversion)
{
	struct replay_fixture f;
	cr_assert_eq(replay_support_open(&f, PVT), 0);
	struct guide g;
	cr_assert_gt(guide_build(&g, f.s.analysis, f.p.t_last, NULL, NULL), 2);
	long i = first_of(f.s.analysis, 1);
	cr_assert_geq(i, 0, "the fixture has inversions");
	cr_expect_eq(g.stops[0].kind, GUIDE_FIRST_INVERSION);
	cr_expect_eq(g.stops[0].t, analysis_event(f.s.analysis, (size_t)i)->ready);
	cr_expect_eq(g.stops[0].event, i);
	for (size_t k = 1; k < g.n; k++)
		cr_expect_geq(g.stops[k].t, g.stops[k - 1].t, "stops by time");
	cr_expect_eq(g.stops[g.n - 1].kind, GUIDE_END);
	cr_expect_eq(g.stops[g.n - 1].t, f.p.t_last);
	replay_support_close(&f);
}

Test(guide, the_worst_wait_and_its_end)
{
	struct replay_fixture f;
	cr_assert_eq(replay_support_open(&f, PVT), 0);
	struct guide g;
	guide_build(&g, f.s.analysis, f.p.t_last, NULL, NULL);
	/* the longest inversion, found here independently */
	const struct smtop_event *worst = NULL;
	for (size_t i = 0; i < analysis_event_count(f.s.analysis); i++) {
		const struct smtop_event *e = analysis_event(f.s.analysis, i);
		if (guide_is_inversion(e->kind) && (!worst || e->wait_ns > worst->wait_ns))
			worst = e;
	}
	int begins = 0, ends = 0;
	for (size_t k = 0; k < g.n; k++) {
		if (g.stops[k].kind == GUIDE_WORST || g.stops[k].kind == GUIDE_FIRST_INVERSION ||
		    g.stops[k].kind == GUIDE_OTHER_INVERSION)
			begins += g.stops[k].t == worst->ready;
		if (g.stops[k].kind == GUIDE_VICTIM_STARTS) {
			ends++;
			cr_expect_eq(g.stops[k].t, worst->start, "the high-priority kernel finally starts");
			cr_expect_eq(g.stops[k].wait_ns, worst->wait_ns);
		}
	}
	cr_expect_eq(begins, 1, "one stop where the worst wait begins");
	cr_expect_eq(ends, 1);
	replay_support_close(&f);
}

Test(guide, no_inversion_starts_at_the_first_blocking_episode)
{
	struct replay_fixture f;
	cr_assert_eq(replay_support_open(&f, "tests/fixtures/equal-priority.smtop"), 0);
	struct guide g;
	guide_build(&g, f.s.analysis, f.p.t_last, NULL, NULL);
	cr_assert_eq(first_of(f.s.analysis, 1), -1, "equal priorities: no inversion");
	long i = first_of(f.s.analysis, 0);
	cr_assert_geq(i, 0);
	cr_expect_eq(g.stops[0].kind, GUIDE_FIRST_BLOCKING);
	cr_expect_eq(g.stops[0].t, analysis_event(f.s.analysis, (size_t)i)->ready);
	cr_expect_eq(g.events[SMTOP_EV_BLOCKING], analysis_event_count(f.s.analysis));
	replay_support_close(&f);
}

Test(guide, a_session_without_episodes_only_ends)
{
	struct replay_fixture f;
	cr_assert_eq(replay_support_open(&f, "tests/fixtures/smoke.smtop"), 0);
	struct guide g;
	cr_assert_eq(analysis_event_count(f.s.analysis), 0, "smoke: no episodes");
	cr_expect_eq(guide_build(&g, f.s.analysis, f.p.t_last, NULL, NULL), 1);
	cr_expect_eq(g.stops[0].kind, GUIDE_END);
	cr_expect_eq(g.stops[0].t, f.p.t_last);
	replay_support_close(&f);
}

/* The guided replay of the fixture, with the fake clock: the first pause is
 * at the first inversion, and the model then holds that episode. */
Test(guide, guided_replay_pauses_at_the_first_inversion)
{
	struct replay_fixture f;
	cr_assert_eq(replay_support_open(&f, PVT), 0);
	struct guide g;
	guide_build(&g, f.s.analysis, f.p.t_last, NULL, NULL);
	uint64_t t[GUIDE_MAX_STOPS];
	struct replay_clock r;
	fake_now_ns = 1000 * MS;
	replay_clock_init(&r, f.p.t_first, f.p.t_last, fake_now, NULL);
	r.marks = (struct replay_clock_marks){ &f.p, replay_feed_find };
	replay_clock_set_stops(&r, t, guide_times(&g, t, GUIDE_MAX_STOPS));
	replay_clock_start(&r, f.p.t_first);
	replay_clock_set_guided(&r, 1);
	for (int tick = 0; tick < 400 && r.at_stop < 0; tick++) {
		fake_now_ns += 50 * MS;
		replay_clock_update(&r);
		cr_assert_eq(replay_support_feed(&f, r.clock), 0);
	}
	long first = first_of(f.s.analysis, 1);
	cr_assert_eq(r.at_stop, 0);
	cr_expect_eq(r.clock, analysis_event(f.s.analysis, (size_t)first)->ready);
	cr_expect_eq(f.m.n_events, (size_t)first + 1, "the episode has just begun");
	cr_expect_eq(f.m.events[first].ev.wait_ns, 0, "its wait starts now");
	/* going on: the wait grows with the clock */
	replay_clock_set_paused(&r, 0);
	fake_now_ns += 20 * MS;
	replay_clock_update(&r);
	cr_assert_eq(replay_support_feed(&f, r.clock), 0);
	cr_expect_eq(f.m.events[first].ev.wait_ns,
		     r.clock < analysis_event(f.s.analysis, (size_t)first)->start ?
		     r.clock - f.m.events[first].ev.ready :
		     analysis_event(f.s.analysis, (size_t)first)->wait_ns);
	replay_support_close(&f);
}
