#include "src/view.h"

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

#include "src/analysis.h"
#include "src/model.h"
#include "src/record.h"
#include "src/session.h"
#include "ui/app.h"
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
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

static int view_poll(void *ud, struct model *m)
{
	struct view *v = ud;
	char err[512];
	(void)m;
	reap_child(v);
	int changed = session_poll(&v->s, err, sizeof err);
	if (v->s.latest_end)
		v->m.lag_ns = v->s.ended ? 0 : now_ns() - v->s.latest_end;
	if (changed < 0)
		return -1;
	/* "LIVE (lag …)" keeps counting while nothing new arrives */
	if (v->m.lag_ns > v->lag_drawn + VIEW_LAG_REDRAW_NS || v->m.lag_ns < v->lag_drawn)
		changed = 1;
	if (changed)
		v->lag_drawn = v->m.lag_ns;
	return changed;
}

static int detail_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	return model_detail_add_block(ud, b, pid, ctx) == 0 ? 0 : 1;
}

static int view_detail(void *ud, struct model *m, uint64_t t0, uint64_t t1)
{
	struct view *v = ud;
	model_detail_begin(m, t0, t1);
	int rc = db_reader_blocks(v->s.reader, t0, t1, detail_block, m);
	model_detail_end(m);
	return rc;
}

void view_params(const struct cli *c, struct analysis_params *p)
{
	analysis_params_default(p);
	p->blocking_threshold_ns = (uint64_t)(c->threshold_us * 1000.0 + 0.5);
}

static int view_begin(struct view *v, const struct cli *c, const char *path, const char *label)
{
	char err[512];
	struct analysis_params p;
	view_params(c, &p);
	if (session_open(&v->s, path, &p, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return -1;
	}
	if (model_init(&v->m) != 0) {
		fprintf(stderr, "smtop: out of memory\n");
		session_close(&v->s);
		return -1;
	}
	v->s.model = &v->m;
	snprintf(v->label, sizeof v->label, "%s", label ? label : path);
	v->m.session_label = v->label;
	if (session_poll(&v->s, err, sizeof err) < 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return -1;
	}
	return 0;
}

static void view_end(struct view *v)
{
	model_free(&v->m);
	session_close(&v->s);
}

static int view_loop(struct view *v, const struct cli *c)
{
	struct app a;
	char err[512];
	app_init(&a, &v->m);
	a.ascii = c->ascii;
	struct ui_source src = { .ud = v, .poll = view_poll, .detail = view_detail };
	if (ui_run(&a, &v->m, &src, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}

int view_open(const struct cli *c, const char *path, const char *label)
{
	struct view v;
	memset(&v, 0, sizeof v);
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the viewer needs a terminal (for text, use smtop report %s)\n", path);
		return 1;
	}
	if (view_begin(&v, c, path, label) != 0) {
		view_end(&v);
		return 1;
	}
	int rc = view_loop(&v, c);
	view_end(&v);
	return rc;
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

int view_live(const struct cli *c, char *const *argv, const char *label)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the live viewer needs a terminal (use smtop record to record without it)\n");
		return 1;
	}
	char session_path[PATH_MAX], log_path[PATH_MAX + 8];
	struct record_opts o = { .out_path = c->out_path, .argv = argv, .quiet = 1 };
	if (!o.out_path) {
		if (record_default_path(argv[0], session_path, sizeof session_path) != 0) {
			fprintf(stderr, "smtop: cannot create the sessions directory (set XDG_DATA_HOME or use -o FILE)\n");
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
	int code = 1;
	if (view_begin(&v, c, child.session_path, label) == 0)
		code = view_loop(&v, c);
	if (!v.child_done) {
		int status = stop_child(&child);
		int wcode = record_finish(&child, status);
		if (code == 0)
			code = wcode;
	}
	view_end(&v);
	fprintf(stderr, "smtop: session saved to %s (workload output in %s)\n", child.session_path, log_path);
	record_child_free(&child);
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
