#include "src/app/view.h"

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
#include "src/app/browse.h"
#include "src/core/clock.h"
#include "src/core/guide.h"
#include "src/core/lessons.h"
#include "src/session/library.h"
#include "src/core/model.h"
#include "src/app/progress_line.h"
#include "src/app/record.h"
#include "src/core/replay.h"
#include "src/session/session.h"
#include "src/session/session_replay.h"
#include "ui/app.h"
#include "ui/player.h"
#include "ui/tty.h"
#include "ui/ui.h"

#define VIEW_DEFAULT_DEMO "priority-vs-training"
#define VIEW_BUNDLED "tests/fixtures/priority-vs-training.smtop"
/* Grace periods when the viewer quits before the workload: SIGINT first (most
 * programs clean up), then SIGTERM, then SIGKILL. */
#define VIEW_STOP_GRACE_MS 3000
/* A live view whose data stopped coming redraws when its lag moved this much. */
#define VIEW_LAG_REDRAW_NS 100000000ull

struct view {
	struct session s;
	struct model m;
	struct record_child *child;     /* live recording, or NULL */
	int child_done;
	uint64_t lag_drawn;             /* lag_ns the last reported change showed */
	char label[256];
	char next[PATH_MAX];            /* a session picked in the list (o) to show next */
	/* a saved session replays: the feed makes the model follow the clock */
	int replaying;
	struct session_replay feed;
	struct replay replay;
	struct guide guide;
	/* a saved session is shown while it loads; its replay is set up once
	 * every block is in */
	int replay_pending;
	struct app *app;
};

/* Finalises the session as soon as the workload ends, while the view stays. */
static void reap_child(struct view *v)
{
	int status;
	if (!v->child || v->child_done || record_poll(v->child, 0, &status) != 1)
		return;
	v->child_done = 1;
	record_finish(v->child, status);
	snprintf(v->label + strlen(v->label), sizeof v->label - strlen(v->label), " (workload ended)");
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
	if (session_replay_open(&v->feed, &v->s, &v->m, model_whole, err, errlen) != 0)
		return -1;
	replay_init(&v->replay, v->feed.t_first, v->feed.t_last, monotonic_ns, NULL);
	v->replay.marks = (struct replay_marks){ &v->feed, session_replay_find };
	guide_build(&v->guide, v->s.analysis, v->feed.t_last, short_name, &v->s);
	uint64_t t[GUIDE_MAX_STOPS];
	replay_set_stops(&v->replay, t, guide_times(&v->guide, t, GUIDE_MAX_STOPS));
	v->replaying = 1;
	return 0;
}

static void view_attach_player(struct view *v, struct app *a, const struct cli *c);

/* The last block is in: the session can replay from here on. */
static int view_loaded(struct view *v)
{
	char err[512];
	v->replay_pending = 0;
	/* the replay's feed replaces the poll: the analysis' last verdicts go
	 * to the model first */
	session_sync(&v->s);
	if (session_poll(&v->s, err, sizeof err) < 0 || replay_setup(v, 1, err, sizeof err) != 0) {
		if (v->app)
			snprintf(v->app->msg, sizeof v->app->msg, "%.*s", (int)sizeof v->app->msg - 1, err);
		return 1;
	}
	if (v->app)
		view_attach_player(v, v->app, NULL);
	return 1;
}

static int view_poll(void *ud, struct model *m)
{
	struct view *v = ud;
	char err[512];
	(void)m;
	if (v->replaying) {
		replay_update(&v->replay);
		return session_replay_feed(&v->feed, v->replay.clock, err, sizeof err);
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
	if (v->m.lag_ns > v->lag_drawn + VIEW_LAG_REDRAW_NS || v->m.lag_ns < v->lag_drawn)
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
		return start ? session_replay_add_detail(&v->feed, t0, t1) : 0;
	if (start)
		session_detail_start(&v->s, t0, t1);
	return session_detail_more(&v->s, SESSION_DETAIL_CHUNKS);
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

/* replay: the model is fed by the replay feed, not by the poll */
static int view_begin(struct view *v, const struct cli *c, const char *const *paths, size_t n,
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

static void view_end(struct view *v)
{
	if (v->replaying)
		session_replay_close(&v->feed);
	model_free(&v->m);
	session_close(&v->s);
}

static int view_loop(struct view *v, const struct cli *c, int replay)
{
	struct app a;
	char err[512];
	app_init(&a, &v->m);
	a.ascii = c->ascii;
	a.lesson = lessons_for_command(v->s.info.command);
	v->app = &a;
	if (v->replaying)
		view_attach_player(v, &a, c);
	if (replay) {
		a.lesson_panel = 1;
		player_begin(&a, v->replay.t_first, c->guided);
	}
	/* live: bounded work per poll, so that frames keep coming when behind */
	if (v->m.live && !v->replaying)
		v->s.budget_ns = SESSION_LIVE_BUDGET_NS;
	struct ui_source src = { .ud = v, .poll = view_poll, .detail = view_detail };
	for (;;) {
		if (ui_run(&a, &v->m, &src, err, sizeof err) != 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		if (!a.library)
			return 0;
		/* o: the session list over this view; back resumes it (a replay
		 * waits, paused, meanwhile) */
		a.library = a.quit = 0;
		if (player_active(&a) && !v->replay.paused) {
			replay_set_paused(&v->replay, 1);
			snprintf(a.msg, sizeof a.msg, "paused");
		}
		if (browse_list(c, v->s.path, &v->m, &src, NULL, v->next, sizeof v->next) != BROWSE_BACK)
			return 0;
	}
}

static void view_attach_player(struct view *v, struct app *a, const struct cli *c)
{
	player_attach(a, &v->replay);
	a->guide = &v->guide;
	if (c && c->speed > 0)
		replay_set_speed(&v->replay, c->speed);
}

/* Shows path (replay: replaying it), then whatever the session list (o)
 * opens next, until q. */
static int view_sessions(const struct cli *c, const char *path, const char *label, int replay,
			 char *err, size_t errlen)
{
	char cur[PATH_MAX], next[PATH_MAX];
	struct tty_caps caps;
	int rc = 0, tty = 0;
	snprintf(cur, sizeof cur, "%s", path);
	for (int first = 1;; first = 0) {
		struct view v;
		memset(&v, 0, sizeof v);
		const char *curp = cur;
		if (view_begin(&v, c, &curp, 1, label, first && replay, err, errlen) != 0) {
			view_end(&v);
			if (first) {
				rc = -1;
				break;
			}
			/* picked in the list but does not open: back to the list, saying why */
			rc = 0;
			if (browse_list(c, NULL, NULL, NULL, err, next, sizeof next) != BROWSE_OPEN)
				break;
		} else {
			/* one terminal for this view, the list and the views after it */
			if (!tty && tty_open(&caps, err, errlen) == 0)
				tty = 1;
			rc = view_loop(&v, c, first && replay);
			snprintf(next, sizeof next, "%s", v.next);
			view_end(&v);
			if (!next[0])
				break;
		}
		snprintf(cur, sizeof cur, "%s", next);
		/* the list names sessions by file; so does the header */
		label = strrchr(cur, '/') ? strrchr(cur, '/') + 1 : cur;
	}
	if (tty)
		tty_close();
	return rc;
}

/* Shows path, then whatever the session list (o) opens next, until q.
 * Returns the viewer's exit status, or -1 with err when path cannot be
 * opened. */
int view_session(const struct cli *c, const char *path, const char *label, char *err,
		 size_t errlen)
{
	return view_sessions(c, path, label, 0, err, errlen);
}

static int need_terminal(const char *path)
{
	if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		return 0;
	fprintf(stderr, "smtop: the viewer needs a terminal (for text, use smtop report %s)\n", path);
	return -1;
}

static int view_saved(const struct cli *c, const char *path, const char *label, int replay)
{
	char err[PATH_MAX + 128];
	if (need_terminal(path) != 0)
		return 1;
	int rc = view_sessions(c, path, label, replay, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	return rc;
}

int view_open(const struct cli *c, const char *path, const char *label)
{
	return view_saved(c, path, label, 0);
}

/* Several sessions as one view (replay: replaying them).  A session picked
 * in its session list (o) opens afterwards, on its own. */
static int view_many(const struct cli *c, const char *const *paths, size_t n, const char *label,
		     int replay)
{
	char err[PATH_MAX + 128];
	struct view v;
	if (need_terminal(paths[0]) != 0)
		return 1;
	memset(&v, 0, sizeof v);
	if (view_begin(&v, c, paths, n, label, replay, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		view_end(&v);
		return 1;
	}
	int rc = view_loop(&v, c, replay);
	view_end(&v);
	if (v.next[0])
		return view_open(c, v.next, NULL);
	return rc;
}

/* One session gets the session list's loop (view_session) too. */
int view_open_many(const struct cli *c, const char *const *paths, size_t n, const char *label)
{
	if (n == 1)
		return view_open(c, paths[0], label);
	return view_many(c, paths, n, label, 0);
}

int view_replay(const struct cli *c, const char *const *paths, size_t n)
{
	if (n > 1)
		return view_many(c, paths, n, NULL, 1);
	/* the file's name: the header keeps room for the device */
	const char *base = strrchr(paths[0], '/');
	return view_saved(c, paths[0], base && base[1] ? base + 1 : paths[0], 1);
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

/* The viewer quit while the workload runs: stop it, politely first. */
static int stop_child(struct record_child *child)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGKILL };
	int status = -1;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		record_forward_signal(child, sigs[i]);
		if (wait_ms(child, VIEW_STOP_GRACE_MS, &status))
			return status;
	}
	return status;
}

static int log_path_for(const char *session, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s.log", session);
	return n > 0 && (size_t)n < len ? 0 : -1;
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

int view_live(const struct cli *c, char *const *argv, const char *label)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the live viewer needs a terminal (use smtop record to record without it)\n");
		return 1;
	}
	char session_path[PATH_MAX], log_path[PATH_MAX + 8];
	struct record_opts o = { .out_path = c->out_path, .argv = argv, .quiet = 1, .sm_mode = c->sm_mode };
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
	struct view v;
	memset(&v, 0, sizeof v);
	v.child = &child;
	int code = 1, began;
	char err[PATH_MAX + 128];
	const char *live_path = child.session_path;
	began = view_begin(&v, c, &live_path, 1, label, 0, err, sizeof err) == 0;
	if (began)
		code = view_loop(&v, c, 0);
	else
		fprintf(stderr, "smtop: %s\n", err);
	if (!v.child_done) {
		int status = stop_child(&child);
		int wcode = record_finish(&child, status);
		if (code == 0)
			code = wcode;
	}
	progress_line_setup(c->quiet);
	if (began)
		store_summary(&v);
	view_end(&v);
	if (!c->quiet)
		fprintf(stderr, "smtop: session saved to %s (workload output in %s)\n", child.session_path, log_path);
	record_child_free(&child);
	/* a session picked in the list (o) opens once this one is finalised */
	if (v.next[0])
		return view_open(c, v.next, NULL);
	return code;
}

/* Programs that travel beside the smtop binary (the demo workloads). */
static int sibling_path(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX];
	if (record_exe_dir(exe, sizeof exe) != 0)
		return -1;
	int w = snprintf(buf, len, "%s/%s", exe, name);
	return (w > 0 && (size_t)w < len && access(buf, X_OK) == 0) ? 0 : -1;
}

int view_demo(const struct cli *c)
{
	char demo[PATH_MAX];
	if (sibling_path("smtop-demo", demo, sizeof demo) != 0) {
		fprintf(stderr, "smtop: the demo workloads (smtop-demo) were not built beside smtop; run make\n");
		return 1;
	}
	if (c->demo_list || !c->demo_name) {
		execl(demo, demo, "--list", (char *)NULL);
		fprintf(stderr, "smtop: %s: %s\n", demo, strerror(errno));
		return 1;
	}
	char secs[32];
	snprintf(secs, sizeof secs, "%g", c->demo_seconds > 0 ? c->demo_seconds : 30.0);
	char *argv[] = { demo, (char *)c->demo_name, "--seconds", secs, NULL };
	char label[128];
	snprintf(label, sizeof label, "demo: %s", c->demo_name);
	return view_live(c, argv, label);
}

static int have_gpu(void)
{
	struct stat st;
	return stat("/dev/nvidiactl", &st) == 0 && stat("/dev/nvidia0", &st) == 0;
}

/* The bundled session travels in the source tree beside build/. */
static int bundled_path(char *buf, size_t len)
{
	char exe[PATH_MAX];
	if (record_exe_dir(exe, sizeof exe) != 0)
		return -1;
	static const char *const rel[] = { "/../", "/../share/smtop/" };
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		int w = snprintf(buf, len, "%s%s%s", exe, rel[i], VIEW_BUNDLED);
		if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0)
			return 0;
	}
	return -1;
}

int view_default(const struct cli *c)
{
	if (have_gpu()) {
		struct cli d = *c;
		d.demo_name = VIEW_DEFAULT_DEMO;
		return view_demo(&d);
	}
	char path[PATH_MAX];
	if (bundled_path(path, sizeof path) != 0) {
		fprintf(stderr, "smtop: no GPU here, and the bundled session %s is missing\n", VIEW_BUNDLED);
		return 1;
	}
	return view_open(c, path, "no GPU here: bundled H200 session, demo priority-vs-training");
}
