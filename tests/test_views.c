/* Golden screens of the views, drawn from the synthetic H200 model. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/support/ui_support.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/events_view.h"
#include "ui/lesson_view.h"
#include "ui/screen.h"

static struct model m;
static struct app a;
static struct canvas c;

static void setup(void)
{
	ui_support_model(&m);
	canvas_init(&c, 132, 50);
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	app_fit(&a);
}

static void teardown(void)
{
	canvas_free(&c);
	model_free(&m);
}

TestSuite(views, .init = setup, .fini = teardown);

static void check(const char *name, int w, int h)
{
	ui_support_render(&c, &a, &m, w, h);
	char *text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	cr_expect(ui_support_golden(name, text), "screen %s differs from its golden file", name);
	free(text);
}

Test(views, main_132x50)
{
	check("main_132x50", 132, 50);
}

Test(views, main_80x24)
{
	screen_layout(&a, &m, 80, 24);
	app_fit(&a);
	check("main_80x24", 80, 24);
}

Test(views, ascii)
{
	a.ascii = 1;
	check("main_ascii", 132, 50);
}

Test(views, monochrome_matches_colour_text)
{
	/* monochrome changes attributes, never the text */
	ui_support_render(&c, &a, &m, 132, 50);
	char *colour = canvas_dump_text_str(&c);
	a.colors = 0;
	ui_support_render(&c, &a, &m, 132, 50);
	char *mono = canvas_dump_text_str(&c);
	cr_expect_str_eq(mono, colour);
	free(mono);
	free(colour);
}

Test(views, inversion_zoomed)
{
	/* n jumps to the first event, + zooms in on it */
	app_handle_key(&a, 'n');
	app_handle_key(&a, '+');
	check("inversion_zoom", 132, 50);
}

Test(views, one_sm_per_row)
{
	app_handle_key(&a, 'j');
	app_handle_key(&a, 'j');
	app_handle_key(&a, APP_KEY_ENTER);
	check("sm_zoom", 132, 50);
}

Test(views, kernel_details_narrow)
{
	app_handle_key(&a, APP_KEY_TAB);
	app_handle_key(&a, 'j');
	check("details_80x24", 80, 24);
}

Test(views, help)
{
	app_handle_key(&a, '?');
	check("help", 132, 50);
}

Test(views, filter_hides_stream)
{
	app_handle_key(&a, 'f');
	app_handle_key(&a, 'b');
	app_handle_key(&a, APP_KEY_ENTER);
	check("filter_b", 132, 50);
}

Test(views, too_small)
{
	check("too_small", 60, 20);
}

Test(views, tiny_sizes_do_not_crash)
{
	int sizes[][2] = { { 0, 0 }, { 1, 1 }, { 79, 24 }, { 80, 23 }, { 80, 24 }, { 300, 100 },
			   { 500, 24 } };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		ui_support_render(&c, &a, &m, sizes[i][0], sizes[i][1]);
		char *t = canvas_dump_text_str(&c);
		cr_assert_not_null(t);
		free(t);
	}
}

Test(views, dense_ansi)
{
	a.dense = 1;
	ui_support_render(&c, &a, &m, 132, 50);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	canvas_dump_ansi(&c, f);
	fclose(f);
	cr_expect(strstr(buf, "▀") != NULL);
	cr_expect(strstr(buf, "\033[0;32;42m") != NULL, "stream B (green) shows in the dump");
	free(buf);
}

Test(views, event_line)
{
	char line[256];
	events_view_line(line, sizeof line, &m, 0);
	cr_expect(strstr(line, "INVERSION (resident)") != NULL, "%s", line);
	cr_expect(strstr(line, "A:conv1 waited 200 us") != NULL, "%s", line);
	cr_expect(strstr(line, "culprit B:conv2d_fwd (528 blocks)") != NULL, "%s", line);
}

/* An episode on bounded block ends (--sm entry): the events pane marks it
 * with a '?', the details pane names it possible and how far the bounds
 * could move its wait. */
Test(views, possible_episode_is_marked)
{
	char line[256];
	m.events[0].ev.possible = SMTOP_POSSIBLE_READY;
	m.events[0].ev.wait_min_ns = 50000;
	events_view_line(line, sizeof line, &m, 0);
	cr_expect(strstr(line, "INVERSION (resident)?") != NULL, "%s", line);
	a.pane = APP_PANE_EVENTS;
	a.sel_event = 0;
	ui_support_render(&c, &a, &m, 132, 50);
	char *text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "INVERSION (resident, possible)") != NULL, "%s", text);
	cr_expect(strstr(text, "possible: wait 50 us to 200 us") != NULL, "%s", text);
	free(text);
}

Test(views, empty_model)
{
	struct model e;
	model_init(&e);
	struct app ea;
	app_init(&ea, &e);
	ui_support_render(&c, &ea, &e, 132, 50);
	char *t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, "GPU N/A") != NULL);
	free(t);
	model_free(&e);
}

/* A damaged session may place a kernel centuries away: the frame of its
 * whole span must still draw (every column reads only held bins, the axis
 * finds a tick step) and show both ends. */
Test(views, span_of_centuries_draws)
{
	struct smtop_kernel k = { .start = UINT64_MAX - 1000000, .end = UINT64_MAX - 1000,
				  .grid_id = 99, .pid = 4242, .context_id = 1, .stream_id = 13,
				  .name = "far" };
	model_add_kernel(&m, &k);
	struct smtop_block b = { .grid_id = 99, .start = k.start, .end = k.end, .sm = 3 };
	model_add_block(&m, &b, 4242, 1);
	model_flush(&m);
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	app_fit(&a);
	for (int i = 0; i < 4; i++)
		app_handle_key(&a, '-');
	ui_support_render(&c, &a, &m, 132, 50);
	char *t = canvas_dump_text_str(&c);
	cr_assert_not_null(t);
	cr_expect(strstr(t, "128-131") != NULL, "every SM row drawn:\n%s", t);
	free(t);
}

/* ---- key handling: the app as a state machine ---------------------------- */

Test(views, zoom_stops_at_1us_and_at_the_session)
{
	for (int i = 0; i < 40; i++)
		app_handle_key(&a, '+');
	cr_expect_eq(a.col_ns, 1000);
	for (int i = 0; i < 40; i++)
		app_handle_key(&a, '-');
	uint64_t fit = a.col_ns;
	cr_expect_geq(fit * (uint64_t)app_cols(&a), m.t_last - m.t_first);
	app_handle_key(&a, '-');
	cr_expect_eq(a.col_ns, fit);
}

Test(views, pan_moves_by_an_eighth)
{
	uint64_t t0 = a.t0;
	app_handle_key(&a, 'l');
	cr_expect_eq(a.t0, t0 + a.col_ns * (uint64_t)(app_cols(&a) / 8));
	app_handle_key(&a, APP_KEY_LEFT);
	cr_expect_eq(a.t0, t0);
	app_handle_key(&a, APP_KEY_PGDN);
	cr_expect_eq(a.t0, t0 + a.col_ns * (uint64_t)app_cols(&a));
}

Test(views, next_previous_event_moves_window)
{
	app_handle_key(&a, 'n');
	cr_expect_eq(a.sel_event, 0);
	app_handle_key(&a, '+');
	app_handle_key(&a, '+');
	app_handle_key(&a, 'n');
	app_handle_key(&a, 'n');
	cr_expect_eq(a.sel_event, 2);
	const struct smtop_event *e = &m.events[2].ev;
	cr_expect(a.t0 <= e->ready && app_t1(&a) >= e->start, "event in the window");
	cr_expect_eq(model_kernel_grid(&m, &m.kernels[a.sel_kernel]), 6, "victim kernel selected");
	app_handle_key(&a, 'n');
	cr_expect_eq(a.sel_event, 2, "stays on the last");
	app_handle_key(&a, 'N');
	cr_expect_eq(a.sel_event, 1);
}

Test(views, first_n_starts_at_the_window)
{
	for (int i = 0; i < 4; i++)
		app_handle_key(&a, '+');
	a.t0 = UI_SUPPORT_US(900);
	app_handle_key(&a, 'n');
	cr_expect_eq(a.sel_event, 1, "the first event in the window");
}

Test(views, worst_inversion)
{
	app_handle_key(&a, 'w');
	cr_expect_eq(a.sel_event, 0, "the 200 us inversion");
	cr_expect_eq(a.pane, APP_PANE_EVENTS);
}

Test(views, tab_cycles_panes)
{
	cr_expect_eq(a.pane, APP_PANE_SMS);
	app_handle_key(&a, APP_KEY_TAB);
	cr_expect_eq(a.pane, APP_PANE_STREAMS);
	app_handle_key(&a, APP_KEY_TAB);
	cr_expect_eq(a.pane, APP_PANE_EVENTS);
	app_handle_key(&a, APP_KEY_TAB);
	cr_expect_eq(a.pane, APP_PANE_SMS);
	app_handle_key(&a, APP_KEY_BTAB);
	cr_expect_eq(a.pane, APP_PANE_EVENTS);
}

Test(views, enter_on_sm_row_zooms_and_back)
{
	app_handle_key(&a, 'j');
	app_handle_key(&a, APP_KEY_ENTER);
	cr_expect(a.sm_zoom);
	cr_expect_eq(a.sm_row, 4, "first SM of row 1 (4 per row)");
	for (int i = 0; i < 200; i++)
		app_handle_key(&a, 'j');
	cr_expect_eq(a.sm_row, 131);
	app_handle_key(&a, APP_KEY_ESC);
	cr_expect_not(a.sm_zoom);
	cr_expect_eq(a.sm_row, 32);
}

Test(views, enter_on_event_jumps)
{
	app_handle_key(&a, APP_KEY_TAB);
	app_handle_key(&a, APP_KEY_TAB);
	app_handle_key(&a, 'j');
	app_handle_key(&a, 'j');
	cr_expect_eq(a.sel_event, 1);
	app_handle_key(&a, APP_KEY_ENTER);
	cr_expect_eq(model_kernel_grid(&m, &m.kernels[a.sel_kernel]), 4);
}

Test(views, search_kernel_names)
{
	app_handle_key(&a, '/');
	cr_expect_eq(a.input, APP_INPUT_SEARCH);
	app_handle_key(&a, 'b');
	app_handle_key(&a, 'x');
	app_handle_key(&a, APP_KEY_BACKSPACE);
	app_handle_key(&a, 'n');
	app_handle_key(&a, APP_KEY_ENTER);
	cr_expect_eq(a.input, APP_INPUT_NONE);
	cr_expect_str_eq(a.search, "bn");
	cr_expect_str_eq(model_kernel_name(&m, &m.kernels[a.sel_kernel]), "bn_fwd");
	app_handle_key(&a, '/');
	app_handle_key(&a, 'z');
	app_handle_key(&a, 'z');
	app_handle_key(&a, APP_KEY_ENTER);
	cr_expect(strstr(a.msg, "no kernel") != NULL);
}

Test(views, filter_toggles_streams)
{
	app_handle_key(&a, 'f');
	app_handle_key(&a, 'a');
	app_handle_key(&a, 'C');
	cr_expect_eq(a.hidden, 5);
	app_handle_key(&a, '*');
	cr_expect_eq(a.hidden, 0);
	app_handle_key(&a, 'z');
	cr_expect_eq(a.hidden, 0, "no stream Z");
	app_handle_key(&a, APP_KEY_ESC);
	cr_expect_eq(a.input, APP_INPUT_NONE);
}

Test(views, help_and_quit)
{
	app_handle_key(&a, '?');
	cr_expect(a.help);
	app_handle_key(&a, 'q');
	cr_expect_not(a.help);
	cr_expect_not(a.quit, "q closes the help first");
	app_handle_key(&a, 'q');
	cr_expect(a.quit);
}

Test(views, live_events_pane_shows_the_newest)
{
	m.live = 1;
	app_init(&a, &m);
	screen_layout(&a, &m, 80, 24);
	int rows = a.layout.events_rows;
	cr_assert_gt(rows, 0);
	for (int i = 0; i < 2 * rows; i++) {
		/* copies of the last one, later and later, as a live feed adds them */
		struct smtop_event e = m.events[m.n_events - 1].ev;
		/* the model keeps culprits apart from its copy of the event */
		e.culprits = (struct smtop_culprit *)model_event_culprit(&m, m.n_events - 1, 0);
		e.n_culprits = e.culprits ? 1 : 0;
		e.ready += 1000;
		e.start += 1000;
		cr_assert_eq(model_add_event(&m, &e), 0);
	}
	model_flush(&m);
	cr_assert_gt(m.n_events, (size_t)rows, "%zu events, %d rows", m.n_events, rows);
	app_tick(&a, 0);
	cr_expect_eq(a.ev_scroll, (int)(m.n_events - (size_t)rows), "the last rows show the newest");
	app_goto_event(&a, 0);
	cr_expect_not(a.follow, "going to an event stops following");
	app_tick(&a, 0);
	cr_expect_eq(a.ev_scroll, 0, "a picked event stays in view");
}

Test(views, live_follow_and_pause)
{
	m.live = 1;
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	app_handle_key(&a, '+');
	cr_expect(a.follow);
	cr_expect_eq(app_t1(&a), m.t_last, "window ends at the newest data");
	app_handle_key(&a, ' ');
	cr_expect_not(a.follow);
	uint64_t t0 = a.t0;
	m.t_last += 1000000;
	cr_expect_not(app_tick(&a, 50000000ULL));
	cr_expect_eq(a.t0, t0, "paused: window stays");
	app_handle_key(&a, ' ');
	cr_expect_eq(app_t1(&a), m.t_last);
}

Test(views, mouse_selects_event_and_kernel)
{
	ui_support_render(&c, &a, &m, 132, 50);
	const struct app_layout *l = &a.layout;
	cr_expect(app_handle_mouse(&a, 10, l->events_y + 2));
	cr_expect_eq(a.sel_event, 2);
	cr_expect_eq(a.pane, APP_PANE_EVENTS);
	/* lane B (row 1) at the column of t = 200 us */
	int col = (int)((UI_SUPPORT_US(200) - a.t0) / a.col_ns);
	cr_expect(app_handle_mouse(&a, l->plot_x + col, l->lanes_y + 1));
	cr_expect_eq(a.pane, APP_PANE_STREAMS);
	cr_expect_eq(model_kernel_grid(&m, &m.kernels[a.sel_kernel]), 1);
	cr_expect(app_handle_mouse(&a, 20, l->sms_y + 5));
	cr_expect_eq(a.sm_row, 5);
}

Test(views, resize_keeps_selection_visible)
{
	app_handle_key(&a, APP_KEY_ENTER);
	for (int i = 0; i < 100; i++)
		app_handle_key(&a, 'j');
	ui_support_render(&c, &a, &m, 80, 24);
	cr_expect_geq(a.sm_row, a.sm_scroll);
	cr_expect_lt(a.sm_row, a.sm_scroll + a.layout.sms_rows);
	char *t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, ">SM 100") != NULL, "%s", t);
	free(t);
}

Test(views, monochrome_ansi_has_no_colours)
{
	a.colors = 0;
	ui_support_render(&c, &a, &m, 132, 50);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	canvas_dump_ansi(&c, f);
	fclose(f);
	cr_expect(strstr(buf, ";3") == NULL && strstr(buf, ";4") == NULL && strstr(buf, ";9") == NULL,
		  "no SGR colour codes in monochrome");
	cr_expect(strstr(buf, "\033[0;1;7m!") != NULL, "inversions in reverse video");
	free(buf);
}

/* ---- the main loop's step with a fake data source ------------------------- */

#include "ui/ui.h"

struct fake {
	int polls, details, parts;
	uint64_t next;                  /* us of the next kernel */
	uint64_t d0, d1;                /* the window read */
	int parts_each;                 /* parts a window takes (0: 1) */
	uint64_t part_ns;               /* sleeps this long in each part */
};

static int fake_poll(void *ud, struct model *mm)
{
	struct fake *f = ud;
	f->polls++;
	struct smtop_kernel k = { .start = UI_SUPPORT_US(f->next), .end = UI_SUPPORT_US(f->next + 50),
				  .grid_id = 1000 + f->next, .pid = 4242, .context_id = 1,
				  .stream_id = 13, .grid = { 1, 1, 1 }, .block = { 256, 1, 1 },
				  .name = "live_kernel" };
	model_add_kernel(mm, &k);
	struct smtop_block b = { .grid_id = k.grid_id, .sm = 3, .start = k.start, .end = k.end };
	model_add_block(mm, &b, 4242, 1);
	f->next += 100;
	mm->lag_ns = 80000000;
	return model_flush(mm) == 0;
}

/* A read of a window comes in parts: the first call with start set. */
static int fake_detail(void *ud, struct model *mm, uint64_t t0, uint64_t t1, int start)
{
	struct fake *f = ud;
	(void)mm;
	if (start) {
		f->details++;
		f->d0 = t0;
		f->d1 = t1;
	}
	f->parts++;
	if (f->part_ns) {
		struct timespec ts = { 0, (long)f->part_ns };
		nanosleep(&ts, NULL);
	}
	return f->parts < f->details * (f->parts_each ? f->parts_each : 1);
}

Test(views, live_step_polls_follows_and_fetches_detail)
{
	struct fake f = { .next = 2100 };
	struct ui_source src = { .ud = &f, .poll = fake_poll, .detail = fake_detail };
	m.live = 1;
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	cr_expect(ui_step(&a, &m, &src, 50000000ULL));
	cr_expect_eq(f.polls, 1);
	cr_expect_eq(m.t_last, UI_SUPPORT_US(2150));
	cr_expect_eq(app_t1(&a), m.t_last, "following the newest data");
	cr_expect_eq(f.details, 0, "the whole session needs no detail");
	for (int i = 0; i < 20; i++)
		app_handle_key(&a, '+');
	cr_expect_eq(a.col_ns, 1000);
	ui_step(&a, &m, &src, 50000000ULL);
	cr_expect_eq(f.details, 1, "1 us columns ask the loader for blocks");
	cr_expect(f.d0 <= a.t0 && f.d1 >= app_t1(&a));
	ui_support_render(&c, &a, &m, 132, 50);
	char *t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, "LIVE (lag 80.00 ms)") != NULL, "%.200s", t);
	cr_expect(strstr(t, "bins 1.0 us") == NULL, "detail is finer than 1 us here");
	free(t);
}

/* A slow read (100 parts of 1 ms) stops after the step's budget and goes
 * on over the next steps: the terminal loop answers keys in between and
 * draws the coarse bins until the whole window is in. */
Test(views, detail_read_goes_on_over_steps)
{
	struct fake f = { .next = 2100, .parts_each = 100, .part_ns = 1000000 };
	struct ui_source src = { .ud = &f, .poll = NULL, .detail = fake_detail };
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	for (int i = 0; i < 20; i++)
		app_handle_key(&a, '+');
	cr_expect_eq(ui_step(&a, &m, &src, 0), 0, "nothing new to draw yet");
	cr_expect(a.fetch.on && !m.detail_ready, "the read goes on, no half-read detail");
	cr_expect(f.parts >= 1 && f.parts < 100, "%d parts in the first step", f.parts);
	int steps = 1;
	while (a.fetch.on && steps++ < 1000)
		ui_step(&a, &m, &src, 0);
	cr_expect(!a.fetch.on && m.detail_ready, "the read finished");
	cr_expect_eq(f.details, 1, "one window, started once");
	cr_expect_eq(f.parts, 100);
	cr_expect(f.d0 <= a.t0 && f.d1 >= app_t1(&a), "it covers the window");
	cr_expect_gt(steps, 2);
}

/* ---- replay in the viewer: keys on the synthetic model, fake clock -------- */

#include "src/core/guide.h"
#include "src/core/lessons.h"
#include "src/core/analysis.h"
#include "src/core/replay_clock.h"
#include "tests/support/replay_support.h"
#include "ui/replay_player.h"

static uint64_t real_ns;

static uint64_t fake_real(void *ud)
{
	(void)ud;
	return real_ns;
}

/* Block starts of the synthetic model's kernels (ui_support.c). */
static int synthetic_marks(void *ud, enum replay_clock_mark kind, int dir, uint64_t t, uint32_t sm0,
			   uint32_t sm1, uint64_t *out)
{
	static const uint64_t disp[] = { 0, 500, 650, 750, 1100, 1200, 1600, 1700 };
	static const uint64_t ev[] = { 300, 1000, 1500 };
	(void)ud;
	(void)sm0;
	(void)sm1;
	const uint64_t *v = kind == REPLAY_CLOCK_MARK_EVENT ? ev : disp;
	size_t n = kind == REPLAY_CLOCK_MARK_EVENT ? 3 : 8;
	for (size_t k = 0; k < n; k++) {
		size_t i = dir > 0 ? k : n - 1 - k;
		if ((dir > 0 && UI_SUPPORT_US(v[i]) > t) || (dir < 0 && UI_SUPPORT_US(v[i]) < t)) {
			*out = UI_SUPPORT_US(v[i]);
			return 0;
		}
	}
	return -1;
}

static struct replay_clock rp;

static void attach_replay(void)
{
	real_ns = 1000000000ULL;
	replay_clock_init(&rp, m.t_first, m.t_last, fake_real, NULL);
	rp.marks = (struct replay_clock_marks){ NULL, synthetic_marks };
	replay_player_attach(&a, &rp);
}

Test(views, space_starts_a_replay_that_the_window_follows)
{
	attach_replay();
	app_handle_key(&a, ' ');
	cr_expect(replay_player_active(&a));
	cr_expect_eq(rp.clock, m.t_first, "the window showed the whole session: from its start");
	cr_expect(a.follow);
	real_ns += 500000000ULL;                /* 500 ms at x1000: 500 us */
	replay_clock_update(&rp);
	cr_expect(app_tick(&a, 50000000ULL));
	cr_expect_eq(rp.clock, UI_SUPPORT_US(500));
	cr_expect_eq(app_t1(&a), rp.clock, "the window ends at the replay clock");
	app_handle_key(&a, ' ');
	cr_expect(rp.paused);
	real_ns += 500000000ULL;
	cr_expect_not(replay_clock_update(&rp));
	cr_expect_not(app_tick(&a, 50000000ULL), "paused: nothing moves");
	app_handle_key(&a, 'r');
	cr_expect_not(replay_player_active(&a));
	cr_expect_eq(rp.clock, m.t_last, "stopped: the whole session again");
}

Test(views, replay_keys_speed_and_steps)
{
	attach_replay();
	app_handle_key(&a, 'r');
	app_handle_key(&a, '>');
	cr_expect_float_eq(rp.speed, 2000, 1e-9);
	app_handle_key(&a, '<');
	app_handle_key(&a, '<');
	cr_expect_float_eq(rp.speed, 500, 1e-9);
	cr_expect(strstr(a.msg, "x500") != NULL, "%s", a.msg);
	app_handle_key(&a, '.');
	cr_expect_eq(rp.clock, UI_SUPPORT_US(500), "the next block start after 0");
	cr_expect(rp.paused);
	app_handle_key(&a, '.');
	cr_expect_eq(rp.clock, UI_SUPPORT_US(650));
	app_handle_key(&a, ',');
	cr_expect_eq(rp.clock, UI_SUPPORT_US(500));
	a.pane = APP_PANE_SMS;
	app_handle_key(&a, 'n');
	cr_expect_eq(rp.clock, UI_SUPPORT_US(1000), "the next episode begins at 1000 us");
	cr_expect_eq(a.pane, APP_PANE_EVENTS, "n makes the events pane active, as outside a replay");
	app_tick(&a, 0);
	cr_expect_eq(a.sel_event, 1, "and it is selected");
	cr_expect_eq(app_t1(&a), rp.clock);
	app_handle_key(&a, 'N');
	app_tick(&a, 0);
	cr_expect_eq(rp.clock, UI_SUPPORT_US(300));
	cr_expect_eq(a.sel_event, 0);
	app_handle_key(&a, 'N');
	cr_expect(strstr(a.msg, "no earlier") != NULL, "%s", a.msg);
}

Test(views, replay_status_line_shows_clock_speed_and_state)
{
	attach_replay();
	app_handle_key(&a, 'r');
	replay_clock_set_speed(&rp, 1e4);
	replay_clock_seek(&rp, UI_SUPPORT_US(1234));
	replay_clock_set_paused(&rp, 1);
	app_tick(&a, 0);
	ui_support_render(&c, &a, &m, 132, 50);
	char *t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, "replay 1.234000 ms · x10000 (1 us = 10.00 ms) · paused") != NULL,
		  "%s", strrchr(t, '\n') ? t + strlen(t) - 200 : t);
	cr_expect(strstr(t, "REPLAY") != NULL);
	free(t);
	replay_clock_set_speed(&rp, 1e6);
	ui_support_render(&c, &a, &m, 132, 50);
	t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, "x1000000 (1 us = 1.00 s)") != NULL, "the top speed in full");
	free(t);
	app_handle_key(&a, '<');
	for (int i = 0; i < 30; i++)
		app_handle_key(&a, '<');
	ui_support_render(&c, &a, &m, 132, 50);
	t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, "x1 (1 us = 1.0 us)") != NULL, "real time at the bottom");
	free(t);
}

Test(views, lesson_key_without_a_lesson_says_so)
{
	app_handle_key(&a, 'e');
	cr_expect(strstr(a.msg, "no lesson") != NULL);
	a.lesson = lessons_find("head-of-line");
	app_handle_key(&a, 'e');
	cr_expect(a.lesson_panel);
	ui_support_render(&c, &a, &m, 160, 50);
	char *t = canvas_dump_text_str(&c);
	cr_expect(strstr(t, "lesson: head-of-line") != NULL);
	cr_expect(strstr(t, "Finding (Gilman & Walls 2021)") != NULL);
	free(t);
	app_handle_key(&a, 'e');
	cr_expect_not(a.lesson_panel);
}

/* ---- replay frames of a session recorded on the H200 ------------------------ */

#define PVT REPLAY_SUPPORT_PVT

struct recorded {
	struct replay_fixture f;
	struct replay_clock r;
	struct guide g;
	struct app a;
};

static struct recorded *recorded_open(void)
{
	struct recorded *x = calloc(1, sizeof *x);
	cr_assert_eq(replay_support_open(&x->f, PVT), 0);
	x->f.m.session_label = "demo: priority-vs-training";
	real_ns = 1000000000ULL;
	replay_clock_init(&x->r, x->f.p.t_first, x->f.p.t_last, fake_real, NULL);
	x->r.marks = (struct replay_clock_marks){ &x->f.p, replay_feed_find };
	guide_build(&x->g, x->f.s.analysis, x->f.p.t_last, replay_support_short_name, x->f.s.reader);
	uint64_t t[GUIDE_MAX_STOPS];
	replay_clock_set_stops(&x->r, t, guide_times(&x->g, t, GUIDE_MAX_STOPS));
	app_init(&x->a, &x->f.m);
	replay_player_attach(&x->a, &x->r);
	x->a.guide = &x->g;
	x->a.lesson = lessons_for_command(x->f.s.info.command);
	x->a.lesson_panel = 1;
	return x;
}

/* The clock put at t, the model fed up to it, the window following it. */
static void recorded_at(struct recorded *x, uint64_t t, int guided)
{
	replay_player_begin(&x->a, t, guided);
	replay_clock_set_paused(&x->r, 1);
	cr_assert_eq(replay_support_feed(&x->f, x->r.clock), 0);
	app_tick(&x->a, 0);
}

static void recorded_close(struct recorded *x)
{
	replay_support_close(&x->f);
	free(x);
}

static void check_recorded(struct recorded *x, const char *name, int w, int h)
{
	ui_support_render(&c, &x->a, &x->f.m, w, h);
	char *text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	cr_expect(ui_support_golden(name, text), "screen %s differs from its golden file", name);
	free(text);
}

Test(views, replay_frame_of_a_recorded_session)
{
	struct recorded *x = recorded_open();
	cr_assert_not_null(x->a.lesson, "the fixture was recorded from smtop-demo");
	screen_layout(&x->a, &x->f.m, 160 - lesson_view_width(&x->a, 160), 50);
	recorded_at(x, x->f.p.t_first + 5000000ULL, 0);
	check_recorded(x, "replay_160x50", 160, 50);
	recorded_close(x);
}

Test(views, guided_stop_of_a_recorded_session)
{
	struct recorded *x = recorded_open();
	screen_layout(&x->a, &x->f.m, 160 - lesson_view_width(&x->a, 160), 50);
	recorded_at(x, x->g.stops[0].t, 1);
	cr_expect_eq(x->r.at_stop, 0, "put on the first stop, the replay waits there");
	check_recorded(x, "replay_guided_160x50", 160, 50);
	/* too narrow for the panel: the caption goes over the events */
	x->a.lesson_panel = 1;
	check_recorded(x, "replay_caption_100x30", 100, 30);
	recorded_close(x);
}

/* An n step during a replay selects the episode; its details say the victim
 * is still waiting at the clock, and once it has started, when it did. */
Test(views, replay_episode_details_while_the_victim_waits)
{
	struct recorded *x = recorded_open();
	screen_layout(&x->a, &x->f.m, 160 - lesson_view_width(&x->a, 160), 50);
	recorded_at(x, x->f.p.t_first, 0);
	app_handle_key(&x->a, 'n');
	cr_assert_eq(replay_support_feed(&x->f, x->r.clock), 0);
	app_tick(&x->a, 0);
	cr_assert_geq(x->a.sel_event, 0, "the episode at the clock is selected");
	cr_expect_eq(x->a.pane, APP_PANE_EVENTS);
	ui_support_render(&c, &x->a, &x->f.m, 160, 50);
	char *text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "A:gemm_kernel waiting 0.0 us so far") != NULL, "%s", text);
	cr_expect(strstr(text, "ready 3.076ms  not started yet") != NULL, "%s", text);
	cr_expect(strstr(text, "100% B:gemm_kernel, 509 blocks") != NULL, "%s", text);
	free(text);
	/* half way through the wait: the victim's lane shows it waiting so far,
	 * though its kernel has not come yet */
	const struct smtop_event *e = analysis_event(x->f.s.analysis, 0);
	replay_clock_seek(&x->r, e->ready + (e->start - e->ready) / 2);
	cr_assert_eq(replay_support_feed(&x->f, x->r.clock), 0);
	app_tick(&x->a, 0);
	x->a.t0 = e->ready - 20 * x->a.col_ns;
	ui_support_render(&c, &x->a, &x->f.m, 160, 50);
	text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	const char *lane = strstr(text, "A s13 p-5");
	cr_assert_not_null(lane, "%s", text);
	size_t end = strcspn(lane, "\n");
	char *wait = strstr(lane, "░");
	cr_expect(wait && wait < lane + end, "the waiting lane is blank:\n%s", text);
	free(text);
	/* past the victim's start: the whole episode */
	replay_clock_seek(&x->r, e->start + 1000);
	cr_assert_eq(replay_support_feed(&x->f, x->r.clock), 0);
	app_tick(&x->a, 0);
	ui_support_render(&c, &x->a, &x->f.m, 160, 50);
	text = canvas_dump_text_str(&c);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "A:gemm_kernel waited 192 us") != NULL, "%s", text);
	cr_expect(strstr(text, "ready 3.076ms  started 3.268ms") != NULL, "%s", text);
	cr_expect(strstr(text, "not started yet") == NULL, "%s", text);
	free(text);
	recorded_close(x);
}

/* Blocks whose kernel is unknown are named for why: live, the kernel's record
 * is on its way; in a trimmed session the trim cut it; else it is missing. */
Test(views, status_line_says_why_blocks_lack_their_kernel)
{
	struct smtop_block b = { .grid_id = 987654, .sm = 3, .start = UI_SUPPORT_US(10),
				 .end = UI_SUPPORT_US(20) };
	cr_assert_eq(model_add_block(&m, &b, 1, 1), 0);
	cr_assert_gt(m.n_pending, 0);
	static const struct { int live, trimmed; const char *word; } cases[] = {
		{ 1, 0, "awaiting kernel records 1" }, { 0, 1, "trimmed 1" }, { 0, 0, "unmatched 1" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		m.live = cases[i].live;
		m.trimmed = cases[i].trimmed;
		ui_support_render(&c, &a, &m, 160, 50);
		char *t = canvas_dump_text_str(&c);
		cr_expect(strstr(t, cases[i].word) != NULL, "%s: %s", cases[i].word, strrchr(t, '\n') ? t + strlen(t) - 200 : t);
		free(t);
	}
	m.live = 0;
}

Test(views, live_entry_sessions_follow_their_blocks)
{
	struct fake f = { .next = 2100 };
	struct ui_source src = { .ud = &f, .poll = fake_poll, .detail = fake_detail };
	m.live = 1;
	app_init(&a, &m);
	screen_layout(&a, &m, 132, 50);
	ui_step(&a, &m, &src, 50000000ULL);
	cr_assert_eq(app_t1(&a), m.t_last);
	/* under --sm entry blocks come once their ends are bounded, after
	 * the kernel records: the live edge is the latest block */
	m.ends_bounded = 1;
	m.t_block_last = m.t_last - 100000;
	app_tick(&a, 0);
	cr_expect_eq(app_t1(&a), m.t_block_last, "t1 %llu, blocks %llu, records %llu, follow %d",
		     (unsigned long long)app_t1(&a), (unsigned long long)m.t_block_last,
		     (unsigned long long)m.t_last, a.follow);
}
