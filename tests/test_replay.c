/* The replay clock (src/core/replay_clock.c) driven by a fake real-time clock and fake
 * marks; then the replay feed (db/session/replay_feed.c) on sessions recorded
 * on the H200. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db/reader.h"
#include "src/core/analysis.h"
#include "src/core/guide.h"
#include "src/core/model.h"
#include "src/core/replay_clock.h"
#include "db/session/session.h"
#include "db/session/replay_feed.h"
#include "tests/support/model_ref.h"
#include "tests/support/replay_support.h"

#define T0 1796020335000000000ULL       /* a session's first record, ns */
#define MS 1000000ULL
#define US 1000ULL

static uint64_t fake_now_ns;

static uint64_t fake_now(void *ud)
{
	(void)ud;
	return fake_now_ns;
}

static void wait_real(uint64_t ns)
{
	fake_now_ns += ns;
}

/* A 40 ms session, replaying from its start. */
static struct replay_clock r;

static void setup(void)
{
	fake_now_ns = 5000 * MS;
	replay_clock_init(&r, T0, T0 + 40 * MS, fake_now, NULL);
}

TestSuite(replay, .init = setup);

Test(replay, starts_idle_showing_everything)
{
	cr_expect_not(r.active);
	cr_expect_eq(r.clock, T0 + 40 * MS, "not replaying: the whole session is shown");
	cr_expect_float_eq(r.speed, REPLAY_CLOCK_SPEED_DEFAULT, 1e-9);
	wait_real(1000 * MS);
	cr_expect_not(replay_clock_update(&r), "an idle replay does not move");
}

Test(replay, speed_maps_real_time_to_gpu_time)
{
	replay_clock_set_speed(&r, 1e4);
	replay_clock_start(&r, T0);
	wait_real(10 * MS);
	cr_expect(replay_clock_update(&r));
	cr_expect_eq(r.clock, T0 + 1 * US, "x1e4: 10 ms of real time is 1 us of GPU time");
	wait_real(990 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 100 * US);
}

Test(replay, updates_do_not_accumulate_rounding)
{
	replay_clock_set_speed(&r, 3);
	replay_clock_start(&r, T0);
	for (int i = 0; i < 3000; i++) {
		wait_real(1);
		replay_clock_update(&r);
	}
	cr_expect_eq(r.clock, T0 + 1000, "3000 ticks of 1 ns at x3: 1000 ns, not 0");
}

Test(replay, pause_freezes_and_resume_goes_on_from_there)
{
	replay_clock_start(&r, T0);
	wait_real(500 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 500 * US);
	replay_clock_set_paused(&r, 1);
	wait_real(5000 * MS);
	cr_expect_not(replay_clock_update(&r), "paused: the clock stays");
	cr_expect_eq(r.clock, T0 + 500 * US);
	replay_clock_set_paused(&r, 0);
	cr_expect_eq(r.clock, T0 + 500 * US, "resuming does not jump over the pause");
	wait_real(100 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 600 * US);
}

Test(replay, pause_takes_the_time_played_until_then)
{
	replay_clock_start(&r, T0);
	wait_real(200 * MS);
	replay_clock_set_paused(&r, 1); /* no update in between */
	cr_expect_eq(r.clock, T0 + 200 * US);
}

Test(replay, speed_change_midway_keeps_the_clock_continuous)
{
	replay_clock_start(&r, T0);
	wait_real(300 * MS);                    /* 300 us at x1000 */
	replay_clock_set_speed(&r, 100);              /* no update before: the change updates */
	cr_expect_eq(r.clock, T0 + 300 * US);
	wait_real(100 * MS);                    /* 1 ms at x100 */
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 1300 * US);
	replay_clock_set_speed(&r, r.speed * 2);
	wait_real(100 * MS);                    /* 500 us at x200 */
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 1800 * US);
}

struct speed_case {
	double asked, got;
};

ParameterizedTestParameters(replay, speed_is_clamped)
{
	static struct speed_case cases[] = {
		{ 0.5, 1 }, { 1, 1 }, { 1e4, 1e4 }, { 1e6, 1e6 }, { 2e6, 1e6 }, { -3, 1 },
		{ NAN, 1 }, { INFINITY, 1e6 },
	};
	return cr_make_param_array(struct speed_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct speed_case *c, replay, speed_is_clamped)
{
	replay_clock_set_speed(&r, c->asked);
	cr_expect_float_eq(r.speed, c->got, 1e-9, "asked %g", c->asked);
}

Test(replay, end_of_session_stops_the_clock)
{
	replay_clock_set_speed(&r, 1);
	replay_clock_start(&r, T0 + 39 * MS);
	wait_real(5 * MS);
	cr_expect(replay_clock_update(&r));
	cr_expect_eq(r.clock, T0 + 40 * MS, "clamped at the end");
	cr_expect(r.ended);
	cr_expect(r.paused);
	wait_real(5 * MS);
	cr_expect_not(replay_clock_update(&r));
	replay_clock_set_paused(&r, 0);
	cr_expect(r.paused, "at the end there is nothing to resume");
}

Test(replay, huge_real_gaps_do_not_overflow)
{
	replay_clock_set_speed(&r, 1);
	replay_clock_start(&r, T0);
	fake_now_ns = UINT64_MAX - 1;
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 40 * MS);
}

Test(replay, start_and_seek_clamp_to_the_session)
{
	replay_clock_start(&r, T0 - 5 * MS);
	cr_expect(r.active);
	cr_expect_eq(r.clock, T0);
	cr_expect_not(r.paused);
	replay_clock_seek(&r, T0 + 99 * MS);
	cr_expect_eq(r.clock, T0 + 40 * MS);
	cr_expect(r.ended);
	replay_clock_stop(&r);
	cr_expect_not(r.active);
	cr_expect_eq(r.clock, T0 + 40 * MS);
}

/* ---- stepping, with marks from arrays --------------------------------------- */

struct fake_marks {
	const uint64_t *dispatch;       /* block starts, ascending */
	const uint16_t *sm;             /* their SMs */
	size_t n_dispatch;
	const uint64_t *events;
	size_t n_events;
};

static int fake_find(void *ud, enum replay_clock_mark kind, int dir, uint64_t t, uint32_t sm0,
		     uint32_t sm1, uint64_t *out)
{
	const struct fake_marks *f = ud;
	const uint64_t *v = kind == REPLAY_CLOCK_MARK_EVENT ? f->events : f->dispatch;
	size_t n = kind == REPLAY_CLOCK_MARK_EVENT ? f->n_events : f->n_dispatch;
	long best = -1;
	for (size_t i = 0; i < n; i++) {
		if (kind == REPLAY_CLOCK_MARK_DISPATCH && (f->sm[i] < sm0 || f->sm[i] >= sm1))
			continue;
		if (dir > 0 && v[i] > t) {
			best = (long)i;
			break;
		}
		if (dir < 0 && v[i] < t)
			best = (long)i;
	}
	if (best < 0)
		return -1;
	*out = v[best];
	return 0;
}

static const uint64_t starts[] = { T0 + 10, T0 + 500, T0 + 500, T0 + 2 * MS, T0 + 3 * MS };
static const uint16_t sms[] = { 0, 7, 3, 100, 131 };
static const uint64_t events[] = { T0 + 1 * MS, T0 + 20 * MS };
static struct fake_marks marks = { starts, sms, 5, events, 2 };

Test(replay, step_to_the_next_dispatch_pauses_there)
{
	r.marks = (struct replay_clock_marks){ &marks, fake_find };
	replay_clock_start(&r, T0);
	cr_expect_eq(replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, 1, 0, 132), 0);
	cr_expect_eq(r.clock, T0 + 10);
	cr_expect(r.paused);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, 1, 0, 132);
	cr_expect_eq(r.clock, T0 + 500, "two blocks start together: one step");
	replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, 1, 0, 132);
	cr_expect_eq(r.clock, T0 + 2 * MS);
	wait_real(1000 * MS);
	cr_expect_not(replay_clock_update(&r), "a step leaves the replay paused");
}

Test(replay, dispatch_steps_only_count_the_sms_in_view)
{
	r.marks = (struct replay_clock_marks){ &marks, fake_find };
	replay_clock_start(&r, T0);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, 1, 100, 132);
	cr_expect_eq(r.clock, T0 + 2 * MS, "SMs 100-131: the block on SM 100");
	replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, -1, 5, 10);
	cr_expect_eq(r.clock, T0 + 500, "back, SMs 5-9: the block on SM 7");
}

Test(replay, step_back_and_at_the_ends)
{
	r.marks = (struct replay_clock_marks){ &marks, fake_find };
	replay_clock_start(&r, T0 + 2 * MS);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, -1, 0, 132);
	cr_expect_eq(r.clock, T0 + 500);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, -1, 0, 132);
	cr_expect_eq(r.clock, T0 + 10);
	cr_expect_eq(replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, -1, 0, 132), -1, "nothing before");
	cr_expect_eq(r.clock, T0 + 10, "the clock stays");
	replay_clock_seek(&r, T0 + 3 * MS);
	cr_expect_eq(replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, 1, 0, 132), -1, "nothing after");
	cr_expect_eq(r.clock, T0 + 3 * MS);
}

Test(replay, step_to_events)
{
	r.marks = (struct replay_clock_marks){ &marks, fake_find };
	replay_clock_start(&r, T0);
	wait_real(100 * MS);                    /* plays to 100 us first */
	cr_expect_eq(replay_clock_step(&r, REPLAY_CLOCK_MARK_EVENT, 1, 0, 0), 0);
	cr_expect_eq(r.clock, T0 + 1 * MS);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_EVENT, 1, 0, 0);
	cr_expect_eq(r.clock, T0 + 20 * MS);
	cr_expect_eq(replay_clock_step(&r, REPLAY_CLOCK_MARK_EVENT, 1, 0, 0), -1);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_EVENT, -1, 0, 0);
	cr_expect_eq(r.clock, T0 + 1 * MS);
}

Test(replay, step_without_marks_fails_cleanly)
{
	replay_clock_start(&r, T0);
	cr_expect_eq(replay_clock_step(&r, REPLAY_CLOCK_MARK_DISPATCH, 1, 0, 132), -1);
	cr_expect_eq(r.clock, T0);
}

Test(replay, steps_and_seeks_play_on_at_the_new_place)
{
	r.marks = (struct replay_clock_marks){ &marks, fake_find };
	replay_clock_start(&r, T0);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_EVENT, 1, 0, 0);
	replay_clock_set_paused(&r, 0);
	wait_real(1000 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 2 * MS, "1 s at x1000 from the event at 1 ms");
}

/* ---- guided stops -------------------------------------------------------------- */

Test(replay, guided_pauses_at_each_stop_and_goes_on)
{
	uint64_t stops[] = { T0 + 5 * MS, T0 + 1 * MS }; /* sorted on the way in */
	replay_clock_set_stops(&r, stops, 2);
	replay_clock_start(&r, T0);
	replay_clock_set_guided(&r, 1);
	wait_real(3000 * MS);                   /* would reach 3 ms */
	cr_expect(replay_clock_update(&r));
	cr_expect_eq(r.clock, T0 + 1 * MS, "held at the first stop");
	cr_expect_eq(r.at_stop, 0);
	cr_expect(r.paused);
	wait_real(3000 * MS);
	cr_expect_not(replay_clock_update(&r));
	replay_clock_set_paused(&r, 0);
	cr_expect_eq(r.at_stop, -1, "going on clears the stop");
	wait_real(10000 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 5 * MS);
	cr_expect_eq(r.at_stop, 1);
	replay_clock_set_paused(&r, 0);
	wait_real(100 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 5100 * US, "past the last stop it plays on");
}

Test(replay, unguided_ignores_stops)
{
	uint64_t stops[] = { T0 + 1 * MS };
	replay_clock_set_stops(&r, stops, 1);
	replay_clock_start(&r, T0);
	wait_real(3000 * MS);
	replay_clock_update(&r);
	cr_expect_eq(r.clock, T0 + 3 * MS);
	cr_expect_eq(r.at_stop, -1);
}

Test(replay, seeking_onto_a_stop_shows_it_and_back_rearms_it)
{
	uint64_t stops[] = { T0 + 1 * MS, T0 + 20 * MS };
	replay_clock_set_stops(&r, stops, 2);
	r.marks = (struct replay_clock_marks){ &marks, fake_find };
	replay_clock_start(&r, T0);
	replay_clock_set_guided(&r, 1);
	replay_clock_step(&r, REPLAY_CLOCK_MARK_EVENT, 1, 0, 0);
	cr_expect_eq(r.at_stop, 0, "the step landed on a stop");
	replay_clock_seek(&r, T0 + 10 * MS);
	cr_expect_eq(r.at_stop, -1);
	cr_expect_eq(r.next_stop, 1);
	replay_clock_seek(&r, T0);
	cr_expect_eq(r.next_stop, 0, "going back makes earlier stops count again");
}

/* ---- the replay feed on a recorded session --------------------------------------- */

#define PVT REPLAY_SUPPORT_PVT
#define fixture replay_fixture
#define fixture_close replay_support_close

static void fixture_open(struct fixture *f, const char *path)
{
	cr_assert_eq(replay_support_open(f, path), 0);
}

static void feed(struct fixture *f, uint64_t clock)
{
	cr_assert_eq(replay_support_feed(f, clock), 0);
}

/* Blocks the replay can show (their kernel is recorded) and that start by t,
 * counted straight from the reader. */
struct count {
	struct replay_feed *p;
	uint64_t t;
	uint64_t n;
	uint64_t next;                  /* first start after t */
};

static int count_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct count *c = ud;
	int known = 0;
	for (size_t i = 0; i < c->p->n_kernels && !known; i++)
		known = c->p->kernels[i].pid == pid && c->p->kernels[i].context_id == ctx &&
			c->p->kernels[i].grid_id == b->grid_id;
	if (!known || b->end <= b->start)
		return 0;
	if (b->start <= c->t)
		c->n++;
	else if (!c->next || b->start < c->next)
		c->next = b->start;
	return 0;
}

static struct count count_blocks(struct fixture *f, uint64_t t)
{
	struct count c = { &f->p, t, 0, 0 };
	db_reader_blocks(f->s.reader, f->p.read_from, f->p.read_end, count_block, &c);
	return c;
}

/* The session loader's own model of the whole session at path. */
static void load_whole(struct session *s, struct model *w, const char *path)
{
	struct analysis_params ap;
	char err[512];
	analysis_params_default(&ap);
	cr_assert_eq(model_init(w), 0);
	cr_assert_eq(session_open(s, path, &ap, err, sizeof err), 0, "%s", err);
	s->model = w;
	cr_assert_geq(session_poll(s, err, sizeof err), 0, "%s", err);
}

static void unload_whole(struct session *s, struct model *w)
{
	session_close(s);
	model_free(w);
}

Test(replay_feed, shows_only_what_happened_before_the_clock)
{
	struct fixture f;
	fixture_open(&f, PVT);
	uint64_t c = f.p.t_first + 5 * MS;
	feed(&f, c);
	cr_expect_gt(f.m.n_kernels, 0);
	for (size_t i = 0; i < f.m.n_kernels; i++) {
		cr_expect_leq(model_kernel_end(&f.m, &f.m.kernels[i]), c, "kernel %zu cut at the clock", i);
		cr_expect_leq(model_kernel_last_block(&f.m, &f.m.kernels[i]), c + 1,
			      "blocks cut at the clock");
	}
	for (size_t i = 0; i < f.m.n_events; i++) {
		cr_expect_leq(f.m.events[i].ev.ready, c);
		cr_expect_leq(f.m.events[i].ev.start, c, "a waiting victim's wait ends at the clock");
	}
	cr_expect_leq(f.m.t_last, c + 1);
	struct count n = count_blocks(&f, c);
	cr_expect_eq(f.m.blocks, n.n, "every block started by the clock, each once: %llu vs %llu",
		     (unsigned long long)f.m.blocks, (unsigned long long)n.n);
	cr_expect_eq(f.m.n_pending, 0, "blocks without a kernel record are left out");
	fixture_close(&f);
}

Test(replay_feed, in_small_steps_equals_at_once)
{
	struct fixture a, b;
	fixture_open(&a, PVT);
	fixture_open(&b, PVT);
	uint64_t t0 = a.p.t_first, c = t0 + 12 * MS;
	for (uint64_t t = t0; t < c; t += 37 * US)
		feed(&a, t);
	feed(&a, c);
	feed(&b, c);
	cr_expect_eq(a.m.blocks, b.m.blocks);
	cr_expect_eq(a.m.n_kernels, b.m.n_kernels);
	cr_expect_eq(a.m.n_events, b.m.n_events);
	for (size_t i = 0; i < a.m.n_kernels; i++) {
		cr_expect_eq(a.m.kernels[i].start, b.m.kernels[i].start);
		cr_expect_eq(model_kernel_end(&a.m, &a.m.kernels[i]), model_kernel_end(&b.m, &b.m.kernels[i]));
		cr_expect_eq(model_kernel_blocks_seen(&a.m, &a.m.kernels[i]),
			     model_kernel_blocks_seen(&b.m, &b.m.kernels[i]));
	}
	for (size_t i = 0; i < a.m.n_events; i++)
		cr_expect_eq(a.m.events[i].ev.wait_ns, b.m.events[i].ev.wait_ns);
	/* occupancy: the parts of a block add up to the block, exactly */
	cr_expect(model_ref_same_occupancy(&a.m, &b.m), "the same occupancy in every bin");
	struct model_cell ca[200], cb[200];
	for (uint32_t sm = 0; sm < 132; sm += 11) {
		model_sample_sms(&a.m, sm, 4, c - 4 * MS, 20 * US, 200, ca);
		model_sample_sms(&b.m, sm, 4, c - 4 * MS, 20 * US, 200, cb);
		for (int i = 0; i < 200; i++) {
			cr_expect_float_eq(ca[i].fullness, cb[i].fullness, 1e-4, "SM %u col %d", sm, i);
			if (cb[i].share > 0.6f)
				cr_expect_eq(ca[i].stream, cb[i].stream, "SM %u col %d", sm, i);
		}
	}
	fixture_close(&a);
	fixture_close(&b);
}

Test(replay_feed, going_back_rebuilds_the_same_model)
{
	struct fixture a, b;
	fixture_open(&a, PVT);
	fixture_open(&b, PVT);
	uint64_t c = a.p.t_first + 6 * MS;
	feed(&a, a.p.t_first + 20 * MS);
	feed(&a, c);
	feed(&b, c);
	cr_expect_eq(a.m.blocks, b.m.blocks);
	cr_expect_eq(a.m.n_kernels, b.m.n_kernels);
	cr_expect_eq(a.m.n_events, b.m.n_events);
	cr_expect_eq(a.m.t_last, b.m.t_last);
	cr_expect(a.m.has_device && a.m.n_sm == 132, "the rebuilt model has its device");
	fixture_close(&a);
	fixture_close(&b);
}

Test(replay_feed, the_end_shows_the_whole_session)
{
	struct fixture f;
	fixture_open(&f, PVT);
	feed(&f, f.p.t_last);
	/* the loader's own model of the whole session */
	struct model w;
	struct session ws;
	load_whole(&ws, &w, PVT);
	cr_expect_eq(f.m.n_kernels, w.n_kernels);
	cr_expect_eq(f.m.blocks, w.blocks, "every block of a known kernel");
	cr_expect_eq(f.m.n_events, analysis_event_count(f.s.analysis));
	cr_expect_eq(f.m.t_first, w.t_first);
	cr_expect(model_ref_same_bins(&f.m, &w), "the same bins as the loader's, bit for bit");
	unload_whole(&ws, &w);
	fixture_close(&f);
}

Test(replay_feed, next_dispatch_is_the_next_block_start)
{
	struct fixture f;
	fixture_open(&f, PVT);
	uint64_t c = f.p.t_first + 7 * MS, t;
	feed(&f, c);
	struct count n = count_blocks(&f, c);
	cr_assert_eq(replay_feed_find(&f.p, REPLAY_CLOCK_MARK_DISPATCH, 1, c, 0, 132, &t), 0);
	cr_expect_eq(t, n.next, "%llu vs %llu", (unsigned long long)(t - c), (unsigned long long)(n.next - c));
	cr_assert_eq(replay_feed_find(&f.p, REPLAY_CLOCK_MARK_DISPATCH, -1, c, 0, 132, &t), 0);
	cr_expect_leq(t, c);
	struct count before = count_blocks(&f, t - 1), at = count_blocks(&f, t);
	cr_expect_gt(at.n, before.n, "a block starts at the previous mark");
	cr_expect_eq(count_blocks(&f, c - 1).n, at.n, "no block starts between it and the clock");
	fixture_close(&f);
}

Test(replay_feed, next_event_is_the_next_ready_time)
{
	struct fixture f;
	fixture_open(&f, PVT);
	uint64_t t;
	cr_assert_eq(replay_feed_find(&f.p, REPLAY_CLOCK_MARK_EVENT, 1, f.p.t_first, 0, 132, &t), 0);
	cr_expect_eq(t, analysis_event(f.s.analysis, 0)->ready);
	cr_expect_eq(replay_feed_find(&f.p, REPLAY_CLOCK_MARK_EVENT, -1, t, 0, 132, &t), -1);
	fixture_close(&f);
}


Test(replay_feed, letters_stay_those_of_the_whole_session)
{
	struct fixture f;
	fixture_open(&f, "tests/fixtures/head-of-line.smtop");
	feed(&f, f.p.t_first + 1 * MS);         /* before the short kernel's stream runs */
	struct model w;
	struct session ws;
	load_whole(&ws, &w, "tests/fixtures/head-of-line.smtop");
	int checked = 0;
	for (size_t i = 0; i < w.n_streams; i++) {
		const struct model_stream *ws = &w.streams[i];
		if (!ws->n_kernels)
			continue;
		long j = model_find_stream(&f.m, ws->pid, ws->device_id, ws->context_id, ws->stream_id);
		cr_assert_geq(j, 0);
		cr_expect_eq(f.m.streams[j].letter, ws->letter, "stream %u", ws->stream_id);
		checked++;
	}
	cr_expect_eq(checked, 2, "the long and the short kernel's streams");
	unload_whole(&ws, &w);
	fixture_close(&f);
}

/* Two processes' Nsight Systems exports opened as one session replay as
 * one: each file's kernels arrive at their own start, both processes'
 * streams keep their letters apart, and the end is the loader's view of
 * both. */
static int kernel_start(void *ud, const struct smtop_kernel *k)
{
	struct count *c = ud;
	if (k->start <= c->t)
		c->n++;
	return 0;
}

Test(replay_feed, several_files_replay_as_one)
{
	const char *paths[] = { "tests/fixtures/nsys/nsys-3.16.1.sqlite",
				"tests/fixtures/nsys/nsys-3.28.1.sqlite" };
	struct analysis_params ap;
	struct session s, ws;
	struct replay_feed p;
	struct model m, w;
	char err[512];
	analysis_params_default(&ap);
	cr_assert_eq(session_open_many(&s, paths, 2, &ap, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&s, err, sizeof err), 0, "%s", err);
	cr_assert_eq(model_init(&m), 0);
	cr_assert_eq(replay_feed_open(&p, &s, &m, 0, err, sizeof err), 0, "%s", err);
	cr_expect_eq(p.n_kernels, 30 + 48, "every file's kernels");
	for (size_t i = 1; i < p.n_kernels; i++)
		cr_expect_leq(p.kernels[i - 1].start, p.kernels[i].start, "kernels by start (%zu)", i);

	uint64_t c = p.t_first + (p.t_last - p.t_first) / 2;
	cr_assert_eq(replay_feed_to(&p, c, err, sizeof err), 1, "%s", err);
	struct count n = { &p, c, 0, 0 };
	cr_assert_eq(session_kernels(&s, 0, INT64_MAX, kernel_start, &n), 0);
	cr_expect_gt(n.n, 0);
	cr_expect_lt(n.n, p.n_kernels, "the clock is half way");
	cr_expect_eq(m.n_kernels, n.n, "the kernels of both files started by the clock");
	int pid_a = 0, pid_b = 0;
	for (size_t i = 0; i < m.n_kernels; i++) {
		pid_a |= m.streams[m.kernels[i].stream].pid == 4101;
		pid_b |= m.streams[m.kernels[i].stream].pid == 4303;
		cr_expect_leq(model_kernel_end(&m, &m.kernels[i]), c, "kernel %zu cut at the clock", i);
	}
	cr_expect(pid_a && pid_b, "both processes have run by half way");

	cr_assert_eq(replay_feed_to(&p, p.t_last, err, sizeof err), 1, "%s", err);
	cr_assert_eq(model_init(&w), 0);
	cr_assert_eq(session_open_many(&ws, paths, 2, &ap, err, sizeof err), 0, "%s", err);
	ws.model = &w;
	cr_assert_geq(session_poll(&ws, err, sizeof err), 0, "%s", err);
	cr_expect_eq(m.n_kernels, w.n_kernels);
	cr_expect_eq(m.n_streams, w.n_streams);
	cr_expect_eq(m.n_events, analysis_event_count(s.analysis));
	cr_expect_gt(m.n_events, 0, "the exports hold inversions");
	cr_expect_eq(m.t_first, w.t_first);
	cr_expect_eq(m.t_last, w.t_last);
	for (size_t i = 0; i < w.n_streams; i++) {
		long j = model_find_stream(&m, w.streams[i].pid, w.streams[i].device_id,
					   w.streams[i].context_id, w.streams[i].stream_id);
		cr_assert_geq(j, 0);
		cr_expect_eq(m.streams[j].letter, w.streams[i].letter, "stream %u of %u",
			     w.streams[i].stream_id, w.streams[i].pid);
	}
	session_close(&ws);
	model_free(&w);
	replay_feed_close(&p);
	model_free(&m);
	session_close(&s);
}
