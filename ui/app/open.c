#include "ui/app/open.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "src/core/analysis.h"
#include "src/core/clock.h"
#include "src/core/guide.h"
#include "src/core/lessons.h"
#include "db/session/library.h"
#include "src/core/model.h"
#include "ui/app/control_client.h"
#include "ui/app/progress_line.h"
#include "ui/app/record.h"
#include "src/core/replay_clock.h"
#include "db/session/session.h"
#include "db/session/replay_feed.h"
#include "ui/app.h"
#include "ui/replay_player.h"
#include "ui/sessions.h"
#include "ui/ui.h"

#define OPEN_DEFAULT_DEMO "priority-vs-training"
#define OPEN_BUNDLED "tests/fixtures/priority-vs-training.smtop"
/* Grace periods when the viewer quits before the workload: SIGINT first (most
 * programs clean up), then SIGTERM, then SIGKILL. */
#define OPEN_STOP_GRACE_MS 3000
/* A live view whose data stopped coming redraws when its lag moved this much. */
#define OPEN_LAG_REDRAW_NS 100000000ull

struct view {
	struct session s;
	struct model m;
	struct record_child *child;     /* live recording, or NULL */
	int child_done;
	int child_code;                 /* the status smtop passes on, once done */
	/* the workload ended by itself having recorded nothing: the view
	 * closes and says why (record_drop_empty) */
	int nothing;
	char why[160];
	uint64_t lag_drawn;             /* lag_ns the last reported change showed */
	char label[256];
	int began;                      /* view_begin succeeded */
	/* a saved session replays: the feed makes the model follow the clock */
	int replaying;
	struct replay_feed feed;
	struct replay_clock replay;
	struct guide guide;
	/* a saved session is shown while it loads; its replay is set up once
	 * every block is in */
	int replay_pending;
	/* the viewer's state outlives a visit to the session list (o) */
	struct app a;
	struct ui_source src;
};

/* One terminal and what it shows in turn: a view, the session list over
 * it, or the list alone (smtop ls, or a picked session that did not open). */
struct flow {
	const struct cli *c;
	struct ui_term *term;           /* own, or a caller's already open */
	struct ui_term own;
	struct view v;
	int shown;                      /* v is begun and on screen (or under the list) */
	char path[PATH_MAX];            /* a picked session's file: v.s.path points here */
	struct library lib;             /* read before the first list, else by each list */
	int lib_read;
	char msg[PATH_MAX + 128];       /* why a picked session did not open, for the list */
};

/* Finalises the session as soon as the workload ends, while the view stays. */
static void reap_child(struct view *v)
{
	int status;
	if (!v->child || v->child_done || record_poll(v->child, 0, &status) != 1)
		return;
	v->child_done = 1;
	v->child_code = record_finish(v->child, status);
	snprintf(v->label + strlen(v->label), sizeof v->label - strlen(v->label), " (workload ended)");
	if (record_nothing_recorded(v->child, v->why, sizeof v->why)) {
		v->nothing = 1;
		v->a.quit = 1;
	}
}

static uint64_t monotonic_ns(void *ud)
{
	(void)ud;
	return clock_mono_ns();
}

static const char *short_name(void *ud, const char *name)
{
	return session_short_name(ud, name);
}

/* A saved session can replay: the clock, its marks and the guided stops. */
static int replay_setup(struct view *v, int model_whole, char *err, size_t errlen)
{
	if (replay_feed_open(&v->feed, &v->s, &v->m, model_whole, err, errlen) != 0)
		return -1;
	replay_clock_init(&v->replay, v->feed.t_first, v->feed.t_last, monotonic_ns, NULL);
	v->replay.marks = (struct replay_clock_marks){ &v->feed, replay_feed_find };
	guide_build_events(&v->guide, session_event(&v->s, 0), session_event_count(&v->s),
			   v->feed.t_last, short_name, &v->s);
	uint64_t t[GUIDE_MAX_STOPS];
	replay_clock_set_stops(&v->replay, t, guide_times(&v->guide, t, GUIDE_MAX_STOPS));
	v->replaying = 1;
	return 0;
}

static void view_attach_player(struct view *v, const struct cli *c)
{
	replay_player_attach(&v->a, &v->replay);
	v->a.guide = &v->guide;
	if (c && c->speed > 0)
		replay_clock_set_speed(&v->replay, c->speed);
}

/* The last block is in: the session can replay from here on. */
static int view_loaded(struct view *v)
{
	char err[512];
	v->replay_pending = 0;
	/* the replay's feed replaces the poll: the analysis' last verdicts go
	 * to the model first */
	session_sync(&v->s);
	if (session_poll(&v->s, err, sizeof err) < 0 || replay_setup(v, 1, err, sizeof err) != 0) {
		snprintf(v->a.msg, sizeof v->a.msg, "%.*s", (int)sizeof v->a.msg - 1, err);
		return 1;
	}
	view_attach_player(v, NULL);
	return 1;
}

static int view_poll(void *ud, struct model *m)
{
	struct view *v = ud;
	char err[512];
	(void)m;
	if (v->replaying) {
		replay_clock_update(&v->replay);
		return replay_feed_to(&v->feed, v->replay.clock, err, sizeof err);
	}
	reap_child(v);
	int changed = session_poll(&v->s, err, sizeof err);
	if (changed >= 0 && v->replay_pending && !v->s.behind)
		changed |= view_loaded(v);
	if (v->s.latest_end)
		v->m.lag_ns = v->s.ended && !v->s.behind ? 0 : clock_real_ns() - v->s.latest_end;
	if (changed < 0)
		return -1;
	/* "LIVE (lag …)" keeps counting while nothing new arrives */
	if (v->m.lag_ns > v->lag_drawn + OPEN_LAG_REDRAW_NS || v->m.lag_ns < v->lag_drawn)
		changed = 1;
	if (changed)
		v->lag_drawn = v->m.lag_ns;
	return changed;
}

/* A replay reads its window in one go (its clock feeds blocks between the
 * loop's steps); a session a few chunks a call. */
static int view_detail(void *ud, struct model *m, uint64_t t0, uint64_t t1, int start)
{
	struct view *v = ud;
	(void)m;
	if (v->replaying)
		return start ? replay_feed_add_detail(&v->feed, t0, t1) : 0;
	if (start)
		session_detail_start(&v->s, t0, t1);
	return session_detail_more(&v->s, SESSION_DETAIL_CHUNKS);
}

/* The selected kernel's SMs a few chunks a call (a replay's model is cut
 * at its clock, and so is what is read), or an episode's culprits, from
 * the file. */
static int view_focus(void *ud, struct model *m, long k, long e, int start)
{
	struct view *v = ud;
	if (k < 0)
		return session_focus_event(&v->s, m, e);
	if (start && session_focus_start(&v->s, m, k) != 0)
		return -1;
	return session_focus_more(&v->s, SESSION_DETAIL_CHUNKS);
}

/* --device names a GPU the session has (a live one may list it later). */
static int view_check_device(struct view *v, char *err, size_t errlen)
{
	const struct db_session_info *in = &v->s.info;
	if (v->s.view_device < 0 || session_view_device(&v->s) || !v->s.ended)
		return 0;
	int n = snprintf(err, errlen, "%s: no GPU %d in the session (GPUs:", v->s.path, v->s.view_device);
	for (size_t i = 0; i < in->n_devices && n > 0 && (size_t)n < errlen; i++)
		n += snprintf(err + n, errlen - (size_t)n, " %u", in->devices[i].device_id);
	if (n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, "%s)", in->n_devices ? "" : " none");
	return -1;
}

/* How long the x key's exact window lasts. */
#define OPEN_EXACT_WINDOW_MS 200

/* x: the workload's collector is asked for an exact window; its answer,
 * or why not, goes to the status line. */
/* Sends line to the recorded processes (the CUDA process may be a child of
 * the one smtop started, a shell), then to the one started; 0 at the first
 * answer. */
static int view_ask(struct view *v, const char *line, char *reply, size_t len, char *err, size_t errlen)
{
	for (size_t i = 0; i < v->s.info.n_processes; i++)
		if (control_client_request((pid_t)v->s.info.processes[i].pid, line, reply, len, err, errlen) == 0)
			return 0;
	return control_client_request(v->child->pid, line, reply, len, err, errlen);
}

static void view_exact_window(void *ud, char *msg, size_t len)
{
	struct view *v = ud;
	char line[32], reply[CONTROL_PROTO_LINE_MAX], err[256];

	if (!v->child || v->child_done) {
		snprintf(msg, len, "x: the workload has ended");
		return;
	}
	snprintf(line, sizeof line, "window %d", OPEN_EXACT_WINDOW_MS);
	if (view_ask(v, line, reply, sizeof reply, err, sizeof err) != 0)
		snprintf(msg, len, "x: %s", err);
	else
		snprintf(msg, len, "x: %s", strncmp(reply, "ok ", 3) == 0 ? reply + 3 :
			 strncmp(reply, "err ", 4) == 0 ? reply + 4 : reply);
}

/* The viewer's state for v, kept from its first screen to its last. */
static void view_app(struct view *v, const struct cli *c, int replay)
{
	struct app *a = &v->a;
	app_init(a, &v->m);
	a->ascii = c->ascii;
	a->lesson = lessons_for_command(v->s.info.command);
	if (v->replaying)
		view_attach_player(v, c);
	if (replay) {
		a->lesson_panel = 1;
		replay_player_begin(a, v->replay.t_first, c->guided);
	}
	/* live: bounded work per poll, so that frames keep coming when behind */
	if (v->m.live && !v->replaying)
		v->s.budget_ns = SESSION_LIVE_BUDGET_NS;
	v->src = (struct ui_source){ .ud = v, .poll = view_poll, .detail = view_detail,
				     .focus = view_focus };
	if (v->child) {
		a->exact_window = view_exact_window;
		a->exact_window_ud = v;
	}
}

/* Opens the session of paths into v.  replay: the model is fed by the
 * replay feed, not by the poll. */
static int view_load(struct view *v, const struct cli *c, const char *const *paths, size_t n,
		     const char *label, int replay, char *err, size_t errlen)
{
	struct analysis_params p;
	const char *path = paths[0];
	cli_analysis_params(c, &p);
	if (session_open_many(&v->s, paths, n, &p, err, errlen) != 0)
		return -1;
	if (model_init(&v->m) != 0) {
		snprintf(err, errlen, "out of memory");
		session_close(&v->s);
		return -1;
	}
	v->s.model = replay ? NULL : &v->m;
	v->s.view_device = c->device;
	/* the first frame comes before the blocks: stored results and one
	 * batch, then a budget per poll as a live view has */
	v->s.show_stored = !replay;
	if (!replay)
		v->s.budget_ns = 1;
	if (label || n == 1)
		snprintf(v->label, sizeof v->label, "%s", label ? label : path);
	else
		snprintf(v->label, sizeof v->label, "%s + %zu more files", path, n - 1);
	v->m.session_label = v->label;
	if (session_poll(&v->s, err, errlen) < 0 || view_check_device(v, err, errlen) != 0)
		return -1;
	if (!replay)
		v->s.budget_ns = SESSION_LIVE_BUDGET_NS;
	if (replay && !v->s.ended)
		analysis_update(v->s.analysis, ANALYSIS_WATERMARK_ALL);
	/* a finished session can replay (a growing one is followed live) */
	if (replay)
		return replay_setup(v, 0, err, errlen);
	if (!v->s.ended || v->child)
		return 0;
	if (v->s.behind) {
		v->replay_pending = 1;
		return 0;
	}
	/* read in one poll: its verdicts first, as view_loaded */
	session_sync(&v->s);
	if (session_poll(&v->s, err, errlen) < 0)
		return -1;
	return replay_setup(v, 1, err, errlen);
}

/* The paths' session as a view, ready for the viewer; -1 with err.  v
 * needs view_end either way. */
static int view_begin(struct view *v, const struct cli *c, const char *const *paths, size_t n,
		      const char *label, int replay, char *err, size_t errlen)
{
	if (view_load(v, c, paths, n, label, replay, err, errlen) != 0)
		return -1;
	view_app(v, c, replay);
	v->began = 1;
	return 0;
}

static int wait_ms(struct record_child *child, int ms, int *status)
{
	for (int waited = 0; waited < ms; waited += 50) {
		if (record_poll(child, 0, status) == 1)
			return 1;
		struct timespec t = { 0, 50000000L };
		nanosleep(&t, NULL);
	}
	return 0;
}

/* The viewer left while the workload runs: stop it, politely first. */
static int stop_child(struct record_child *child)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGKILL };
	int status = -1;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		record_forward_signal(child, sigs[i]);
		if (wait_ms(child, OPEN_STOP_GRACE_MS, &status))
			return status;
	}
	return status;
}

/* The view's own analysis, read to the finalised session's end, is the
 * library's summary of it: nothing is read twice. */
static void store_summary(struct view *v)
{
	char err[512];
	v->s.model = NULL;
	v->s.budget_ns = 0; /* read to the end, the analysis done with it */
	v->s.progress = *progress_line_sink();
	if (session_poll(&v->s, err, sizeof err) >= 0 && v->s.ended)
		library_store_session(&v->s, err, sizeof err);
}

/* A live view first stops a workload still running and finalises its
 * session.  Returns the status smtop exits with: the workload's (128 +
 * signal for one stopped here), 0 when there was none. */
static int view_end(struct view *v)
{
	if (v->child && !v->child_done) {
		v->child_code = record_finish(v->child, stop_child(v->child));
		v->child_done = 1;
	}
	if (v->child && v->began && !v->nothing)
		store_summary(v);
	if (v->replaying)
		replay_feed_close(&v->feed);
	model_free(&v->m);
	session_close(&v->s);
	return v->child_code;
}

/* ---- one terminal: the viewer and the session list in turn ---- */

enum flow_step { FLOW_VIEWER, FLOW_LIST, FLOW_DONE };

static void flow_init(struct flow *f, const struct cli *c)
{
	memset(f, 0, sizeof *f);
	f->c = c;
	f->term = &f->own;
}

/* Reads the library; a default library not created yet is empty. */
static int flow_read_library(struct flow *f, char *err, size_t errlen)
{
	const struct cli *c = f->c;
	struct library *lib = &f->lib;
	char dir[PATH_MAX];
	struct analysis_params p;
	struct stat sb;
	int missing_ok;

	memset(lib, 0, sizeof *lib);
	f->lib_read = 1;
	cli_analysis_params(c, &p);
	if (library_dir(c->command == CLI_LS ? c->file : NULL, dir, sizeof dir, &missing_ok, err, errlen) != 0)
		return -1;
	if (missing_ok && stat(dir, &sb) != 0 && errno == ENOENT) {
		lib->dir = strdup(dir);
		lib->threshold_ns = p.blocking_threshold_ns;
		return 0;
	}
	return library_scan(lib, dir, &p, err, errlen);
}

/* The viewer until q (done) or o (the list over it). */
static enum flow_step flow_viewer(struct flow *f)
{
	struct view *v = &f->v;
	ui_run(f->term, &v->a, &v->m, &v->src);
	if (!v->a.library)
		return FLOW_DONE;
	/* a replay waits, paused, while the list is shown */
	v->a.library = v->a.quit = 0;
	if (replay_player_active(&v->a) && !v->replay.paused) {
		replay_clock_set_paused(&v->replay, 1);
		snprintf(v->a.msg, sizeof v->a.msg, "paused");
	}
	return FLOW_LIST;
}

/* A session picked in the list replaces the view; one that does not open
 * leaves the list alone on screen, saying why. */
static enum flow_step flow_open(struct flow *f, const char *path)
{
	if (f->shown)
		view_end(&f->v);
	f->shown = 0;
	memset(&f->v, 0, sizeof f->v);
	snprintf(f->path, sizeof f->path, "%s", path);
	const char *p = f->path;
	/* the list names sessions by file; so does the viewer's header */
	const char *label = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	if (view_begin(&f->v, f->c, &p, 1, label, 0, f->msg, sizeof f->msg) != 0) {
		view_end(&f->v);
		return FLOW_LIST;
	}
	f->msg[0] = 0;
	f->shown = 1;
	return FLOW_VIEWER;
}

/* The session list, over the view when one is shown (whose source keeps
 * being polled): back to it, another session in its place, or done. */
static enum flow_step flow_list(struct flow *f)
{
	struct view *v = f->shown ? &f->v : NULL;
	struct sessions_view sv;
	char err[PATH_MAX + 128], chosen[PATH_MAX];
	const char *msg = f->msg[0] ? f->msg : NULL;

	/* an unreadable library still shows, empty, with the reason */
	if (!f->lib_read && flow_read_library(f, err, sizeof err) != 0)
		msg = err;
	sessions_init(&sv, &f->lib, v ? v->s.path : NULL);
	sv.ascii = f->c->ascii;
	if (msg)
		snprintf(sv.msg, sizeof sv.msg, "%s", msg);
	f->msg[0] = 0;
	ui_run_sessions(f->term, &sv, v ? &v->m : NULL, v ? &v->src : NULL);
	if (sv.result == SESSIONS_OPEN)
		snprintf(chosen, sizeof chosen, "%s", sessions_selected(&sv)->path);
	library_free(&f->lib);
	f->lib_read = 0;
	if (sv.result == SESSIONS_OPEN)
		return flow_open(f, chosen);
	return sv.result == SESSIONS_BACK && v ? FLOW_VIEWER : FLOW_DONE;
}

/* f's view (the list when there is none) on its open terminal, then what
 * the list opens, until q. */
static void flow_loop(struct flow *f)
{
	enum flow_step step = f->shown ? FLOW_VIEWER : FLOW_LIST;
	while (step != FLOW_DONE)
		step = step == FLOW_VIEWER ? flow_viewer(f) : flow_list(f);
}

/* Ends the view shown last and frees the library; returns the status of
 * a live view's workload (0 when there was none). */
static int flow_end(struct flow *f)
{
	if (f->lib_read)
		library_free(&f->lib);
	return f->shown ? view_end(&f->v) : 0;
}

/* Opens the terminal once and shows f's view (the list when there is none)
 * until q, then ends the view shown last.  Returns the exit status. */
static int flow_run(struct flow *f)
{
	char err[512];
	int rc = 0;
	if (ui_term_open(f->term, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		rc = 1;
	} else {
		flow_loop(f);
		ui_term_close(f->term);
	}
	/* a live session's summary is read after the terminal closed, with
	 * the progress line on stderr */
	if (f->shown && f->v.child)
		progress_line_setup(f->c->quiet);
	int code = flow_end(f);
	return rc ? rc : code;
}

int open_follow_on(struct ui_term *t, const struct cli *c, const char *const *paths, size_t n,
		   const char *label, char *err, size_t errlen)
{
	struct flow f;
	flow_init(&f, c);
	f.term = t;
	if (view_begin(&f.v, c, paths, n, label, 0, err, errlen) != 0) {
		view_end(&f.v);
		return -1;
	}
	f.shown = 1;
	flow_loop(&f);
	flow_end(&f);
	return 0;
}

static int need_terminal(const char *path)
{
	if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		return 0;
	fprintf(stderr, "smtop: the viewer needs a terminal (for text, use smtop report %s)\n", path);
	return -1;
}

/* paths as one view (replay: replaying them), then whatever the session
 * list (o) opens, until q. */
static int view_saved(const struct cli *c, const char *const *paths, size_t n, const char *label,
		      int replay)
{
	char err[PATH_MAX + 128];
	struct flow f;
	if (need_terminal(paths[0]) != 0)
		return 1;
	flow_init(&f, c);
	if (view_begin(&f.v, c, paths, n, label, replay, err, sizeof err) != 0) {
		view_end(&f.v);
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	f.shown = 1;
	return flow_run(&f);
}

int open_main(const struct cli *c)
{
	if (c->n_files == 0)
		return open_browse(c);
	return view_saved(c, c->files, (size_t)c->n_files, NULL, 0);
}

int open_replay_main(const struct cli *c)
{
	const char *const *paths = c->files;
	if (c->n_files > 1)
		return view_saved(c, paths, (size_t)c->n_files, NULL, 1);
	/* the file's name: the header keeps room for the device */
	const char *base = strrchr(paths[0], '/');
	return view_saved(c, paths, 1, base && base[1] ? base + 1 : paths[0], 1);
}

int open_browse(const struct cli *c)
{
	char err[PATH_MAX + 128];
	struct flow f;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the session list needs a terminal (for text, use smtop ls | cat)\n");
		return 1;
	}
	flow_init(&f, c);
	/* before the screen opens, so the reason stays readable */
	if (flow_read_library(&f, err, sizeof err) != 0) {
		library_free(&f.lib);
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	return flow_run(&f);
}

static int log_path_for(const char *session, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s.log", session);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Records argv and shows it live, then whatever the session list (o) opens. */
static int view_live(const struct cli *c, char *const *argv, const char *label)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the live viewer needs a terminal (use smtop record to record without it)\n");
		return 1;
	}
	char session_path[PATH_MAX], log_path[PATH_MAX + 8];
	struct record_opts o = { .out_path = c->out_path, .argv = argv, .quiet = 1, .sm_mode = c->sm_mode,
				 .no_nvtx = c->no_nvtx, .exact_every_ns = c->exact_every_ns,
				 .exact_for_ns = c->exact_for_ns, .has_exact_every = c->has_exact_every,
				 .has_exact_for = c->has_exact_for };
	if (!o.out_path) {
		char err[PATH_MAX + 128];
		if (record_default_path(argv, session_path, sizeof session_path, err, sizeof err) != 0) {
			fprintf(stderr, "smtop: %s\n", err);
			return 1;
		}
		o.out_path = session_path;
	}
	if (log_path_for(o.out_path, log_path, sizeof log_path) != 0)
		return 1;
	o.log_path = log_path;
	struct record_child child;
	int rc = record_start(&o, &child);
	if (rc != 0)
		return rc == RECORD_EXEC_FAILED ? 127 : 1;
	struct flow f;
	char err[PATH_MAX + 128];
	int code;
	const char *live_path = child.session_path;
	flow_init(&f, c);
	f.v.child = &child;
	if (view_begin(&f.v, c, &live_path, 1, label, 0, err, sizeof err) == 0) {
		f.shown = 1;
		/* a session picked in the list (o) opens once this one is finalised */
		code = flow_run(&f);
	} else {
		fprintf(stderr, "smtop: %s\n", err);
		view_end(&f.v);
		code = 1;
	}
	if (f.v.nothing)
		record_drop_empty(&child, f.v.why, log_path);
	else if (!c->quiet) {
		fprintf(stderr, "smtop: session saved to %s (workload output in %s)\n", child.session_path, log_path);
		record_say_drops(child.session_path);
	}
	record_child_free(&child);
	return code;
}

int open_run_main(const struct cli *c)
{
	return view_live(c, c->argv, NULL);
}

/* The scenarios, as smtop-demo lists them, then the comparison of them all
 * that smtop itself runs. */
static int open_demo_list(const char *demo)
{
	int status;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execl(demo, demo, "--list", (char *)NULL);
		fprintf(stderr, "smtop: %s: %s\n", demo, strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	printf("paper\n"
	       "  Not a scenario but the paper's comparison (smtop demo paper): priority-vs-training,\n"
	       "  equal-priority, timeslice, mps (when a daemon runs) and green-contexts for ResNet-,\n"
	       "  VGG- and DenseNet-style models, inference turnaround alone and beside training.\n");
	return 0;
}

/* 1 when smtop-demo --list names the scenario, 0 when not, -1 (said
 * why) when the list cannot be had.  Scenario names start their lines;
 * their descriptions are indented. */
static int demo_known(const char *demo, const char *name)
{
	int fd[2], status, found = 0;
	char line[256];
	if (pipe(fd) != 0) {
		fprintf(stderr, "smtop: demo: %s\n", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(demo, demo, "--list", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	FILE *f = pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (!f)
		close(fd[0]);
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		found |= line[0] != ' ' && strcmp(line, name) == 0;
	}
	if (f)
		fclose(f);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "smtop: demo: %s --list failed\n", demo);
		return -1;
	}
	return found;
}

int open_demo_main(const struct cli *c)
{
	char demo[PATH_MAX];
	if (record_sibling_path("smtop-demo", demo, sizeof demo) != 0) {
		fprintf(stderr, "smtop: the demo workloads (smtop-demo) were not built beside smtop; run make\n");
		return 1;
	}
	if (c->demo_list)
		return open_demo_list(demo);
	/* smtop demo alone: the scenario plain smtop ran before the machine view */
	const char *name = c->demo_name ? c->demo_name : OPEN_DEFAULT_DEMO;
	int known = demo_known(demo, name);
	if (known <= 0) {
		if (known == 0)
			fprintf(stderr, "smtop: demo: no scenario '%s' (smtop demo --list shows them)\n", name);
		return known == 0 ? 2 : 1;
	}
	if (!record_have_gpu()) {
		fprintf(stderr, "smtop: demo %s needs an NVIDIA GPU (no /dev/nvidiactl and /dev/nvidia0 here)\n",
			name);
		return 1;
	}
	char secs[32];
	snprintf(secs, sizeof secs, "%g", c->demo_seconds > 0 ? c->demo_seconds : 30.0);
	char *argv[] = { demo, (char *)name, "--seconds", secs, NULL };
	char label[128];
	snprintf(label, sizeof label, "demo: %s", name);
	return view_live(c, argv, label);
}

/* The bundled session travels in the source tree beside build/. */
static int bundled_path(char *buf, size_t len)
{
	char exe[PATH_MAX];
	if (record_exe_dir(exe, sizeof exe) != 0)
		return -1;
	static const char *const rel[] = { "/../", "/../share/smtop/" };
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		int w = snprintf(buf, len, "%s%s%s", exe, rel[i], OPEN_BUNDLED);
		if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0)
			return 0;
	}
	return -1;
}

int open_default_main(const struct cli *c)
{
	char path[PATH_MAX];
	if (bundled_path(path, sizeof path) != 0) {
		fprintf(stderr, "smtop: no GPU here, and the bundled session %s is missing\n", OPEN_BUNDLED);
		return 1;
	}
	const char *p = path;
	return view_saved(c, &p, 1, "no GPU here: bundled H200 session, demo priority-vs-training", 0);
}
