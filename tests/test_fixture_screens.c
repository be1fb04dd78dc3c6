/* Golden screens of sessions recorded on the H200.  Each test opens a fixture
 * of tests/fixtures/ through the session loader (db/session/session.c) into the
 * model, drives the app with keys as the terminal loop does (a key, then a
 * ui_step that fetches block detail for fine windows), draws the real screen
 * into a canvas and compares its text, and for some screens its colour and
 * attribute plane, with tests/golden/fixtures/<fixture>/<screen>.txt.
 * SMTOP_UPDATE_GOLDEN=1 rewrites the files (see docs/ui.md). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "db/session/session.h"
#include "tests/support/ui_support.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"
#include "ui/ui.h"

static struct session s;
static struct model m;
static struct app a;
static struct canvas c;
static struct ui_source src;
static const char *fixture;
static char label[256];

static int poll_session(void *ud, struct model *mm)
{
	char err[512];
	(void)mm;
	return session_poll(ud, err, sizeof err);
}

static int fill_detail(void *ud, struct model *mm, uint64_t t0, uint64_t t1, int start)
{
	(void)mm;
	if (start)
		session_detail_start(ud, t0, t1);
	return session_detail_more(ud, SESSION_DETAIL_CHUNKS);
}

static int focus_kernel(void *ud, struct model *mm, long k, long e, int start)
{
	if (k < 0)
		return session_focus_event(ud, mm, e);
	if (start && session_focus_start(ud, mm, k) != 0)
		return -1;
	return session_focus_more(ud, SESSION_DETAIL_CHUNKS);
}

/* A step, and more while a detail read or the details pane's is still
 * going (they stop after a time budget): screens do not depend on the
 * machine's speed. */
static void step(void)
{
	ui_step(&a, &m, &src, 0);
	for (int i = 0; i < 1000 && (a.fetch.on || a.focusing.on); i++)
		ui_step(&a, &m, &src, 0);
}

/* What `smtop open tests/fixtures/NAME.smtop` does before its first frame on
 * a w x h terminal: load, fit the session to the real width. */
static void open_fixture_on(const char *name, int w, int h, int device)
{
	char path[256], err[512];
	struct analysis_params p;
	fixture = name;
	snprintf(path, sizeof path, "tests/fixtures/%s.smtop", name);
	snprintf(label, sizeof label, "%s", path);
	analysis_params_default(&p);
	cr_assert_eq(session_open(&s, path, &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(model_init(&m), 0);
	s.model = &m;
	s.view_device = device;
	m.session_label = label;
	cr_assert_geq(session_poll(&s, err, sizeof err), 0, "%s", err);
	src = (struct ui_source){ .ud = &s, .poll = poll_session, .detail = fill_detail,
				  .focus = focus_kernel };
	app_init(&a, &m);
	cr_assert_eq(canvas_init(&c, w, h), 0);
	screen_layout(&a, &m, w, h);
	app_fit(&a);
	step();
}

static void open_fixture(const char *name, int w, int h)
{
	open_fixture_on(name, w, h, -1);
}

static void close_fixture(void)
{
	canvas_free(&c);
	model_free(&m);
	session_close(&s);
}

TestSuite(fixture_screens, .fini = close_fixture, .timeout = 60);

/* One key as the terminal loop handles it: the key, then a step (no replay
 * tick, so screens do not depend on timing). */
static void press(int key)
{
	app_handle_key(&a, key);
	step();
}

static void type(const char *keys)
{
	for (; *keys; keys++)
		press((unsigned char)*keys);
}

/* Zooms in with + until a column is at most ns wide. */
static void zoom_in_to(uint64_t ns)
{
	for (int i = 0; i < 40 && a.col_ns > ns; i++)
		press('+');
	cr_assert_leq(a.col_ns, ns, "+ reaches %llu ns per column", (unsigned long long)ns);
}

static char *draw(int w, int h)
{
	ui_support_render(&c, &a, &m, w, h);
	char *t = canvas_dump_text_str(&c);
	cr_assert_not_null(t);
	return t;
}

/* Draws a w x h screen, compares its text with the golden file and returns
 * the text for further checks (free it). */
static char *golden(const char *screen, int w, int h)
{
	char name[256];
	char *t = draw(w, h);
	snprintf(name, sizeof name, "fixtures/%s/%s", fixture, screen);
	cr_expect(ui_support_golden(name, t), "screen %s differs from its golden file", name);
	return t;
}

/* The colour and attribute plane of the screen drawn last with `colors`
 * colours (0: NO_COLOR or a monochrome terminal). */
static void golden_styles(const char *screen, int colors, int w, int h)
{
	char name[256];
	a.colors = colors;
	ui_support_render(&c, &a, &m, w, h);
	char *st = canvas_dump_styles_str(&c);
	cr_assert_not_null(st);
	snprintf(name, sizeof name, "fixtures/%s/%s", fixture, screen);
	cr_expect(ui_support_golden(name, st), "styles %s differ from their golden file", name);
	free(st);
}

static int has(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

/* Line n (0-based) of text, into buf. */
static const char *line_of(const char *text, int n, char *buf, size_t len)
{
	for (; n > 0 && text; n--) {
		text = strchr(text, '\n');
		if (text)
			text++;
	}
	size_t l = text ? strcspn(text, "\n") : 0;
	if (l >= len)
		l = len - 1;
	memcpy(buf, text ? text : "", l);
	buf[l] = 0;
	return buf;
}

/* ---- priority-vs-training: a priority -5 stream behind training ----------- */

#define PVT "priority-vs-training"

Test(fixture_screens, pvt_whole_session_132x50)
{
	open_fixture(PVT, 132, 50);
	char *t = golden("main_132x50", 132, 50);
	cr_expect(has(t, "NVIDIA H200 · 132 SMs"));
	cr_expect(has(t, "A s13 prio -5  B s14 prio 0"), "letters go by priority");
	cr_expect(has(t, "!"), "inversions are marked in the SM view");
	cr_expect(has(t, "INVERSION (dispatch)") && has(t, "INVERSION (resident)"),
		  "both kinds of inversion are listed");
	cr_expect(has(t, "SMs 0-3 over the window"), "SM details beside the events");
	free(t);
}

Test(fixture_screens, pvt_colour_planes)
{
	open_fixture(PVT, 132, 50);
	char *colour = draw(132, 50);
	golden_styles("main_132x50.styles-16", 16, 132, 50);
	golden_styles("main_132x50.styles-8", 8, 132, 50);
	golden_styles("main_132x50.styles-mono", 0, 132, 50);
	char *mono = draw(132, 50);
	cr_expect_str_eq(mono, colour, "monochrome changes attributes, never the text");
	free(mono);
	free(colour);
}

Test(fixture_screens, pvt_80x24)
{
	open_fixture(PVT, 80, 24);
	char *t = golden("main_80x24", 80, 24);
	cr_expect(has(t, "131"), "all 132 SMs fit at 24 rows");
	free(t);
}

Test(fixture_screens, pvt_ascii)
{
	open_fixture(PVT, 132, 50);
	a.ascii = 1;
	char *t = golden("main_ascii_132x50", 132, 50);
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		cr_assert_lt(*p, 0x80, "ASCII only, found byte 0x%x", *p);
	free(t);
}

Test(fixture_screens, pvt_worst_inversion)
{
	open_fixture(PVT, 132, 50);
	press('w');
	char *t = golden("worst_132x50", 132, 50);
	const struct smtop_event *e = &m.events[a.sel_event].ev;
	cr_expect(e->kind == SMTOP_EV_INVERSION_RESIDENT || e->kind == SMTOP_EV_INVERSION_DISPATCH);
	for (size_t i = 0; i < m.n_events; i++)
		if (m.events[i].ev.kind != SMTOP_EV_BLOCKING)
			cr_expect_leq(m.events[i].ev.wait_ns, e->wait_ns, "w takes the longest wait");
	cr_expect(a.t0 <= e->ready && app_t1(&a) >= e->start, "the wait is in the window");
	cr_expect(has(t, "*events"), "the events pane is active");
	free(t);
}

Test(fixture_screens, pvt_worst_fine_zoom)
{
	open_fixture(PVT, 132, 50);
	press('w');
	zoom_in_to(10000);
	char *t = golden("worst_10us_132x50", 132, 50);
	char hdr[512];
	cr_expect(has(line_of(t, 0, hdr, sizeof hdr), "10 us/col"), "%s", hdr);
	cr_expect(has(t, "!"), "the inversion shows at 10 us per column");
	free(t);
}

Test(fixture_screens, pvt_worst_1us)
{
	open_fixture(PVT, 132, 50);
	press('w');
	zoom_in_to(1000);
	char *t = golden("worst_1us_132x50", 132, 50);
	char hdr[512];
	line_of(t, 0, hdr, sizeof hdr);
	cr_expect(has(hdr, "1.0 us/col"), "%s", hdr);
	cr_expect(m.detail_ready && model_resolution(&m, a.t0, app_t1(&a), a.col_ns) <= 1000,
		  "1 us columns are drawn from the blocks of the window");
	press('+');
	cr_expect_eq(a.col_ns, 1000, "zoom stops at 1 us per column");
	free(t);
}

Test(fixture_screens, pvt_one_sm_per_row)
{
	open_fixture(PVT, 132, 50);
	press('w');
	press(APP_KEY_TAB);                     /* events -> SMs */
	type("jj");
	press(APP_KEY_ENTER);
	char *t = golden("sm_zoom_132x50", 132, 50);
	cr_expect(has(t, "SMs, one per row"));
	cr_expect(has(t, ">SM   8"), "row 2 of 4 SMs opens at SM 8");
	cr_expect(has(t, "SM 8 over the window"), "SM details name the SM");
	free(t);
}

Test(fixture_screens, pvt_event_selected)
{
	open_fixture(PVT, 132, 50);
	press(APP_KEY_TAB);
	press(APP_KEY_TAB);
	type("jjj");
	cr_expect_eq(a.sel_event, 2);
	char *t = golden("event_selected_132x50", 132, 50);
	cr_expect(has(t, "*events (5)"));
	cr_expect(has(t, "│ INVERSION (resident)  "), "the episode's kind in the details");
	cr_expect(has(t, "100% B:gemm_kernel, 538 blocks"), "its culprit in the details");
	cr_expect_eq(a.sel_kernel, m.events[2].kernel, "the victim is selected for the streams");
	free(t);
}

Test(fixture_screens, pvt_kernel_details)
{
	open_fixture(PVT, 132, 50);
	press('w');
	press(APP_KEY_TAB);
	press(APP_KEY_TAB);                     /* streams, the victim selected */
	char *t = golden("kernel_details_132x50", 132, 50);
	const struct model_kernel *k = &m.kernels[a.sel_kernel];
	cr_expect_eq(model_kernel_event(&m, k), a.sel_event, "the worst episode's victim");
	cr_expect(has(t, model_kernel_short_name(&m, k)));
	cr_expect(has(t, "ran 388 us  waited 1.52 ms"), "the wait of the worst inversion");
	free(t);
}

Test(fixture_screens, pvt_kernel_details_80x24)
{
	open_fixture(PVT, 80, 24);
	press('w');
	press(APP_KEY_TAB);
	press(APP_KEY_TAB);
	char *t = golden("kernel_details_80x24", 80, 24);
	cr_expect(has(t, "details (Tab: events)"), "details replace the events when narrow");
	free(t);
}

Test(fixture_screens, pvt_filter)
{
	open_fixture(PVT, 132, 50);
	type("fb");
	press(APP_KEY_ENTER);
	char *t = golden("filter_b_132x50", 132, 50);
	cr_expect(!has(t, "B s14 p0"), "lane B is hidden");
	free(t);
}

Test(fixture_screens, pvt_help_80x24)
{
	open_fixture(PVT, 80, 24);
	press('?');
	char *t = golden("help_80x24", 80, 24);
	cr_expect(has(t, "help: keys"));
	free(t);
}

Test(fixture_screens, pvt_too_small)
{
	open_fixture(PVT, 132, 50);
	char *t = golden("too_small_79x24", 79, 24);
	cr_expect(has(t, "smtop needs 80x24; this terminal is 79x24"));
	free(t);
	t = draw(80, 23);
	cr_expect(has(t, "this terminal is 80x23"));
	free(t);
	t = draw(80, 24);
	cr_expect(!has(t, "needs 80x24"), "80x24 is enough");
	free(t);
}

/* ---- head-of-line: one long kernel holds every SM ------------------------ */

#define HOL "head-of-line"

Test(fixture_screens, hol_whole_session)
{
	open_fixture(HOL, 132, 50);
	char *t = golden("main_132x50", 132, 50);
	free(t);
}

Test(fixture_screens, hol_worst_names_the_culprit)
{
	open_fixture(HOL, 132, 50);
	press('w');
	char *t = golden("worst_132x50", 132, 50);
	cr_expect(has(t, "100% B:hol_long_kernel, 264 blocks"), "the long kernel is the culprit");
	free(t);
}

Test(fixture_screens, hol_culprit_details)
{
	open_fixture(HOL, 132, 50);
	press('/');
	type("hol_long");
	press(APP_KEY_ENTER);
	char *t = golden("culprit_details_132x50", 132, 50);
	cr_expect(has(t, "B:hol_long_kernel"), "details of the culprit");
	free(t);
}

/* ---- equal-priority: blocking, no inversion ------------------------------ */

#define EQP "equal-priority"

Test(fixture_screens, eqp_whole_session)
{
	open_fixture(EQP, 132, 50);
	char *t = golden("main_132x50", 132, 50);
	cr_expect(!has(t, "INVERSION"), "equal priorities cannot invert");
	cr_expect(has(t, "BLOCKING"));
	free(t);
}

Test(fixture_screens, eqp_worst_blocking_zoomed)
{
	open_fixture(EQP, 132, 50);
	press('w');
	zoom_in_to(20000);
	char *t = golden("worst_20us_132x50", 132, 50);
	cr_expect(has(t, "waited 3.07 ms"), "the longest blocking episode");
	free(t);
}

/* ---- ResNet-50 in PyTorch: kernel records, no block records ---------------- */

#define RESNET "resnet50-two-streams"

Test(fixture_screens, resnet_whole_session)
{
	open_fixture(RESNET, 132, 50);
	char *t = golden("main_132x50", 132, 50);
	free(t);
}

Test(fixture_screens, resnet_kernel_details)
{
	open_fixture(RESNET, 132, 50);
	press(APP_KEY_TAB);
	press('j');
	char *t = golden("kernel_details_132x50", 132, 50);
	cr_expect(has(t, "blocks N/A (no block records)"));
	free(t);
}

/* ---- smoke: 400 kernels on two streams ----------------------------------- */

Test(fixture_screens, smoke_whole_session)
{
	open_fixture("smoke", 132, 50);
	char *t = golden("main_132x50", 132, 50);
	cr_expect(has(t, "kernels 400"));
	cr_expect(has(t, "blocks 105,600"));
	free(t);
	t = golden("main_80x24", 80, 24);
	free(t);
}

/* ---- keys and clicks on a real session ------------------------------------ */

Test(fixture_screens, zoom_out_ends_on_the_whole_session)
{
	open_fixture(PVT, 132, 50);
	uint64_t fit = a.col_ns;
	press('w');
	zoom_in_to(1000);
	for (int i = 0; i < 40; i++)
		press('-');
	cr_expect_eq(a.col_ns, fit);
	cr_expect_eq(a.t0, m.t_first, "all of the session, not a window shifted to the event");
	cr_expect_geq(app_t1(&a), m.t_last);
}

/* Each + changes the scale by half again at least (213 -> 200 us/col
 * looked the same), each - widens it until the whole session, never past
 * it and back. */
Test(fixture_screens, zoom_steps_are_visible_and_monotone)
{
	open_fixture(PVT, 80, 24);
	uint64_t fit = a.col_ns, was = a.col_ns;
	for (int i = 0; i < 12; i++) {
		press('+');
		cr_expect(a.col_ns == 1000 || a.col_ns * 3 <= was * 2, "+ from %lu to %lu ns/col",
			  (unsigned long)was, (unsigned long)a.col_ns);
		was = a.col_ns;
	}
	for (int i = 0; i < 20; i++) {
		press('-');
		cr_expect_geq(a.col_ns, was, "- never zooms in");
		cr_expect_leq(a.col_ns, fit, "- stops at the whole session");
		was = a.col_ns;
	}
	cr_expect_eq(a.col_ns, fit);
}

/* A jump to an episode keeps the window inside the session: no columns of
 * "idle" before its first record. */
Test(fixture_screens, jumps_stay_inside_the_session)
{
	open_fixture(PVT, 200, 50);
	for (size_t i = 0; i < m.n_events; i++) {
		press('n');
		cr_expect_geq(a.t0, m.t_first, "event %zu: window from before the session", i);
		const struct smtop_event *e = &m.events[a.sel_event].ev;
		cr_expect(a.t0 <= e->ready && app_t1(&a) >= e->start, "the wait is in the window");
	}
}

/* Without a GPU, plain smtop opens the bundled session under a label that
 * says so; at 80 columns those words stay. */
Test(fixture_screens, bundled_label_stays_at_80_columns)
{
	open_fixture(PVT, 80, 24);
	snprintf(label, sizeof label, "no GPU here: bundled H200 session, demo priority-vs-training");
	char *t = draw(80, 24), hdr[512];
	line_of(t, 0, hdr, sizeof hdr);
	cr_expect(has(hdr, "no GPU here: bundled H200 session"), "%s", hdr);
	cr_expect(has(hdr, "us/col"), "the scale stays too: %s", hdr);
	free(t);
}

Test(fixture_screens, pan_left_stops_at_the_first_record)
{
	open_fixture(PVT, 132, 50);
	zoom_in_to(100000);
	press(APP_KEY_HOME);
	cr_expect_eq(a.t0, m.t_first);
	press('h');
	press('H');
	press(APP_KEY_LEFT);
	cr_expect_eq(a.t0, m.t_first, "nothing to see before the session");
	press('l');
	cr_expect_eq(a.t0, m.t_first + a.col_ns * (uint64_t)(app_cols(&a) / 8));
	uint64_t t1 = app_t1(&a);
	press('L');
	cr_expect_eq(a.t0, t1, "L moves by a whole window");
	press(APP_KEY_END);
	cr_expect_eq(app_t1(&a), m.t_last, "End shows the session's end");
}

Test(fixture_screens, search_shows_the_kernel)
{
	open_fixture(HOL, 132, 50);
	press('/');
	type("hol_long");
	press(APP_KEY_ENTER);
	cr_expect_eq(a.pane, APP_PANE_STREAMS, "the match's details, not the SMs'");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[a.sel_kernel]), "hol_long_kernel");
	/* one long kernel, two short ones */
	press('/');
	type("hol_short");
	press(APP_KEY_ENTER);
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[a.sel_kernel]), "hol_short_kernel");
	long first = a.sel_kernel;
	press('/');
	type("hol_short");
	press(APP_KEY_ENTER);
	cr_expect_neq(a.sel_kernel, first, "Enter finds the next match");
	cr_expect_str_eq(model_kernel_short_name(&m, &m.kernels[a.sel_kernel]), "hol_short_kernel");
}

/* The screen column of time t in the plot. */
static int column_of(uint64_t t)
{
	return a.layout.plot_x + (int)((t - a.t0) / a.col_ns);
}

Test(fixture_screens, clicks_select_what_is_drawn_there)
{
	open_fixture(HOL, 132, 50);
	free(draw(132, 50));
	const struct app_layout *l = &a.layout;
	/* the lane of stream B, in the middle of its first kernel */
	const struct model_stream *b = model_stream_by_rank(&m, 1);
	const struct model_kernel *k = model_stream_kernel(&m, (uint32_t)(b - m.streams), 0);
	int row = 0;
	while (row < l->lanes_rows && l->lane_of_row[row] != 1)
		row++;
	cr_assert(app_handle_mouse(&a, column_of(k->start / 2 + model_kernel_end(&m, k) / 2), l->lanes_y + row));
	cr_expect_eq(a.pane, APP_PANE_STREAMS);
	cr_expect_eq(&m.kernels[a.sel_kernel], k);
	char *t = draw(132, 50);
	cr_expect(has(t, "│ B:hol_long_kernel "), "details name the clicked kernel");
	free(t);
	/* the SM row of SMs 40-43 */
	cr_assert(app_handle_mouse(&a, 30, l->sms_y + 10));
	cr_expect_eq(a.pane, APP_PANE_SMS);
	t = draw(132, 50);
	cr_expect(has(t, "> 40-43"), "the clicked row is selected");
	cr_expect(has(t, "SMs 40-43 over the window"));
	free(t);
	/* the session's one event */
	cr_expect_eq(m.n_events, 1);
	cr_expect_lt(a.sel_event, 0, "no event selected yet");
	cr_assert(app_handle_mouse(&a, 20, l->events_y));
	cr_expect_eq(a.sel_event, 0);
	t = draw(132, 50);
	cr_expect(has(t, ">   2.142ms  INVERSION"));
	cr_expect(has(t, "100% B:hol_long_kernel"));
	free(t);
	app_handle_mouse(&a, 20, l->events_y + 1);
	cr_expect_eq(a.sel_event, 0, "a click below the last event selects nothing");
}

Test(fixture_screens, resizes_keep_the_selection_on_screen)
{
	open_fixture(PVT, 132, 50);
	press(APP_KEY_ENTER);
	for (int i = 0; i < 100; i++)
		press('j');
	int sizes[][2] = { { 80, 24 }, { 79, 24 }, { 40, 10 }, { 1, 1 }, { 0, 0 }, { 200, 60 },
			   { 80, 24 }, { 300, 100 } };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char *t = draw(sizes[i][0], sizes[i][1]);
		if (!a.layout.too_small) {
			cr_expect_geq(a.sm_row, a.sm_scroll);
			cr_expect_lt(a.sm_row, a.sm_scroll + a.layout.sms_rows);
			cr_expect(has(t, ">SM 100"), "at %dx%d", sizes[i][0], sizes[i][1]);
		} else if (sizes[i][0] >= 20) {
			char now[32];
			snprintf(now, sizeof now, "%dx%d", sizes[i][0], sizes[i][1]);
			cr_expect(has(t, "80x24") && has(t, now), "the message keeps the size: %s", t);
		}
		free(t);
	}
}

/* ---- the golden files' own tools ------------------------------------------- */

Test(fixture_screens, a_mismatch_prints_a_line_diff)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ui_support_diff(f, "same\n│ A·B │\nend\n", "same\n│ A·C │\nend\nmore\n");
	fclose(f);
	cr_expect_str_eq(buf, "  3 lines expected, 4 drawn\n"
			      "  line 2:\n"
			      "  - │ A·B │\n"
			      "  + │ A·C │\n"
			      "        ^ column 5\n"
			      "  line 4:\n"
			      "  - (no line)\n"
			      "  + more\n");
	free(buf);
}

/* ---- detail read in slices ------------------------------------------------- */

/* A window read a chunk at a time fills the detail level exactly as one
 * read of the whole window does: no chunk lost or read twice across the
 * calls (chunks of equal start included: the walk resumes by start and id). */
Test(fixture_screens, detail_in_parts_equals_one_read)
{
	open_fixture(PVT, 132, 50);
	uint64_t t0 = m.t_first + 5000000, t1 = t0 + 3000000;
	cr_assert_eq(session_fill_detail(&s, t0, t1), 0);
	size_t n = (size_t)m.n_sm * m.detail.stride;
	struct model_bin *whole = malloc(n * sizeof *whole);
	cr_assert(whole && m.detail_ready && m.detail.used);
	memcpy(whole, m.detail.bins, n * sizeof *whole);
	model_detail_begin(&m, t0, t1);
	session_detail_start(&s, t0, t1);
	int calls = 0, r;
	while ((r = session_detail_more(&s, 1)) == 1)
		calls++;
	cr_assert_eq(r, 0);
	model_detail_end(&m);
	cr_expect_gt(calls, 10, "one chunk a call: %d calls", calls);
	cr_expect_eq(memcmp(whole, m.detail.bins, n * sizeof *whole), 0, "the sliced read differs");
	free(whole);
}

/* ---- several GPUs ------------------------------------------------------------ */

/* The letters drawn in the SM rows of a screen (rows "│> 0-3  ..."). */
static void sm_row_letters(const char *t, char *out, size_t len)
{
	size_t n = 0;
	for (const char *line = t; *line && n + 1 < len; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		unsigned a0, a1;
		char mark;
		/* "│" is 3 bytes of UTF-8 */
		if (sscanf(line + 3, "%c %u-%u", &mark, &a0, &a1) != 3 && sscanf(line + 3, " %u-%u", &a0, &a1) != 2)
			continue;
		for (const char *p = line + 14; *p && *p != '\n' && n + 1 < len; p++)
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
				if (!memchr(out, *p, n))
					out[n++] = *p;
	}
	out[n] = 0;
}

/* Two H200s in one process: the SM rows are one GPU's (the first, or the
 * one asked for), never both on the same rows; the header says which. */
Test(fixture_screens, two_gpus_draw_one_gpu_at_a_time)
{
	char letters[64];
	open_fixture_on("two-gpus", 160, 50, -1);
	char *t = draw(160, 50);
	cr_expect(strstr(t, "GPU 0 of 2"), "%s", t);
	sm_row_letters(t, letters, sizeof letters);
	/* streams A and C ran on GPU 0, B and D on GPU 1 */
	cr_expect(strlen(letters) > 0 && !strpbrk(letters, "bdBD"), "GPU 0's rows drew '%s'", letters);
	free(t);
	close_fixture();

	open_fixture_on("two-gpus", 160, 50, 1);
	t = draw(160, 50);
	cr_expect(strstr(t, "GPU 1 of 2"), "%s", t);
	sm_row_letters(t, letters, sizeof letters);
	cr_expect(strlen(letters) > 0 && !strpbrk(letters, "acAC"), "GPU 1's rows drew '%s'", letters);
	free(t);
}

/* The details pane of a --sm all session: its registers said to be the
 * driver's under the sanitizer, and every kernel's most blocks per SM the
 * analysis' own, and the same counted from the blocks the pane reads. */
Test(fixture_screens, sm_all_kernel_details)
{
	open_fixture("torch-sm-all", 132, 50);
	press('w');
	press(APP_KEY_TAB);
	press(APP_KEY_TAB);
	cr_assert_geq(a.sel_kernel, 0);
	char *t = draw(132, 50);
	cr_expect(has(t, "(--sm all)"), "the registers line names the backend");
	cr_expect(has(t, "resident ≤ "), "the residency line");
	cr_expect(has(t, "/SM, limit "), "the residency line");
	free(t);
	size_t checked = 0;
	for (size_t i = 0; i < m.n_kernels; i++) {
		const struct model_kernel *k = &m.kernels[i];
		const struct model_stream *st = &m.streams[k->stream];
		cr_assert_eq(session_focus_kernel(&s, &m, (long)i), 0);
		cr_assert_eq(m.focus.kernel, (long)i);
		long ak = analysis_kernel_find(s.analysis, st->pid, st->device_id, model_kernel_grid(&m, k),
					       m.focus.correlation_id);
		cr_assert_geq(ak, 0);
		struct analysis_kernel_occupancy o;
		analysis_kernel_occupancy(s.analysis, (size_t)ak, &o);
		uint32_t most = model_kernel_most_per_sm(&m, k);
		cr_expect_eq(most, o.most_per_sm, "kernel %zu: %u, the analysis' %u", i, most,
			     o.most_per_sm);
		/* counted again from the blocks read for the details pane */
		cr_expect_eq(m.focus.most_per_sm, o.most_per_sm, "kernel %zu: %u read, the analysis' %u",
			     i, m.focus.most_per_sm, o.most_per_sm);
		checked += model_kernel_blocks_seen(&m, k) > 0 && most > 0;
	}
	cr_expect_eq(checked, 184, "every kernel with blocks has its most (%zu)", checked);
}
