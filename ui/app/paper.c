#include "ui/app/paper.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/app/record.h"
#include "src/core/json.h"

/* The paper's headline figures (Gilman & Walls 2021, RTX 3090): inference
 * turnaround beside training with priority streams, over inference alone.
 * Its time-slicing and MPS figures were worse still. */
static const struct paper_model {
	const char *model, *paper_name;
	int paper_priority_pct;
} paper_models[] = {
	{ "resnet", "ResNet-50", 103 },
	{ "vgg", "VGG-19", 300 },
	{ "densenet", "DenseNet-201", 75 },
};

static const struct paper_mech {
	const char *scenario, *label;
	int needs_mps;
} paper_mechs[] = {
	{ "priority-vs-training", "priority streams", 0 },
	{ "equal-priority", "equal priority", 0 },
	{ "timeslice", "time-slicing", 0 },
	{ "mps", "MPS", 1 },
	{ "green-contexts", "green contexts", 0 },
};

#define PAPER_MODELS (sizeof paper_models / sizeof paper_models[0])
#define PAPER_MECHS (sizeof paper_mechs / sizeof paper_mechs[0])

/* One scenario's inference turnaround, from the demo's summary line. */
struct paper_row {
	const struct paper_model *model;
	const struct paper_mech *mech;
	struct paper_turnaround t;
	int ran;
	char session[PATH_MAX];
	char why[128];             /* why it did not run, when it did not */
};

/* smtop-demo's own check for a daemon: smtop never starts one. */
static int paper_mps_running(void)
{
	const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
	return access(path, F_OK) == 0;
}

static double paper_field(const char *line, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(line, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

int paper_parse_summary(const char *line, struct paper_turnaround *t)
{
	if (strncmp(line, "summary ", 8) != 0)
		return -1;
	t->p50 = paper_field(line, "median_ms");
	t->p99 = paper_field(line, "p99_ms");
	t->solo_p50 = paper_field(line, "solo_median_ms");
	t->solo_p99 = paper_field(line, "solo_p99_ms");
	t->requests = (int)paper_field(line, "requests");
	return t->p50 > 0 && t->p99 >= t->p50 && t->solo_p50 > 0 && t->solo_p99 >= t->solo_p50 ? 0 : -1;
}

/* The demo's last summary line in its output. */
static int paper_read_summary(const char *log_path, struct paper_turnaround *t)
{
	FILE *f = fopen(log_path, "r");
	if (!f)
		return -1;
	char line[1024];
	int found = 0;
	while (fgets(line, sizeof line, f))
		if (paper_parse_summary(line, t) == 0)
			found = 1;
	fclose(f);
	return found ? 0 : -1;
}

/* While an MPS daemon runs, every CUDA process becomes its client: the rows
 * of the other mechanisms run with an empty pipe directory of their own
 * (alone, made by paper_main), so that they find no daemon and run as they
 * would without one. */
static int paper_start(const struct record_opts *o, struct record_child *child, const char *alone)
{
	const char *was = getenv("CUDA_MPS_PIPE_DIRECTORY");
	char saved[PATH_MAX] = "";
	if (alone) {
		if (was)
			snprintf(saved, sizeof saved, "%s", was);
		setenv("CUDA_MPS_PIPE_DIRECTORY", alone, 1);
	}
	int rc = record_start(o, child);
	if (alone) {
		if (was)
			setenv("CUDA_MPS_PIPE_DIRECTORY", saved, 1);
		else
			unsetenv("CUDA_MPS_PIPE_DIRECTORY");
	}
	return rc;
}

static int paper_run_row(const char *demo, double seconds, const char *sm_mode, const char *alone,
			 struct paper_row *r)
{
	char secs[32], err[PATH_MAX + 128], log_path[PATH_MAX + 8];
	snprintf(secs, sizeof secs, "%g", seconds);
	char *argv[] = { (char *)demo, (char *)r->mech->scenario, "--model", (char *)r->model->model,
			 "--seconds", secs, NULL };
	char name[96];
	snprintf(name, sizeof name, "paper-%s-%s", r->model->model, r->mech->scenario);
	char *name_argv[] = { name, NULL };
	if (record_default_path(name_argv, r->session, sizeof r->session, err, sizeof err) != 0) {
		snprintf(r->why, sizeof r->why, "%.90s", err);
		return -1;
	}
	snprintf(log_path, sizeof log_path, "%s.log", r->session);
	struct record_opts o = { .out_path = r->session, .argv = argv, .log_path = log_path,
				 .sm_mode = sm_mode, .quiet = 1 };
	struct record_child child;
	int started = paper_start(&o, &child, r->mech->needs_mps ? NULL : alone);
	if (started != 0) {
		snprintf(r->why, sizeof r->why, "the demo did not start");
		return -1;
	}
	int status = 0, code = record_poll(&child, 1, &status) == 1 ? record_finish(&child, status) : 1;
	record_child_free(&child);
	if (code != 0) {
		char last[256]; /* the demo's reason, when it gave up */
		record_last_line(log_path, last, sizeof last);
		snprintf(r->why, sizeof r->why, "the demo exited with %d: %.70s", code, last);
		return code > 128 ? code : -1; /* a signal: the user stops the whole run */
	}
	if (paper_read_summary(log_path, &r->t) != 0) {
		snprintf(r->why, sizeof r->why, "no summary line in %.70s", log_path);
		return -1;
	}
	r->ran = 1;
	return 0;
}

static double paper_pct(double beside, double alone)
{
	return alone > 0 ? 100.0 * (beside - alone) / alone : 0;
}

static void paper_print_table(FILE *o, const struct paper_row *rows, size_t n)
{
	fprintf(o, "inference turnaround beside training (ms; alone = the same requests with training"
		   " not yet started)\n\n");
	fprintf(o, "%-9s %-17s %8s %8s %9s %9s %8s   %s\n", "model", "mechanism", "alone50",
		"alone99", "beside50", "beside99", "+p50", "paper, RTX 3090");
	for (size_t i = 0; i < n; i++) {
		const struct paper_row *r = &rows[i];
		if (!r->ran) {
			fprintf(o, "%-9s %-17s %s\n", r->model->model, r->mech->label,
				r->why[0] ? r->why : "not run (stopped)");
			continue;
		}
		char paper[48] = "";
		if (!strcmp(r->mech->scenario, "priority-vs-training"))
			snprintf(paper, sizeof paper, "%s +%d%%", r->model->paper_name,
				 r->model->paper_priority_pct);
		else if (!strcmp(r->mech->scenario, "timeslice") || !strcmp(r->mech->scenario, "mps"))
			snprintf(paper, sizeof paper, "worse than priority streams");
		fprintf(o, "%-9s %-17s %8.2f %8.2f %9.2f %9.2f %+7.0f%%   %s\n", r->model->model,
			r->mech->label, r->t.solo_p50, r->t.solo_p99, r->t.p50, r->t.p99,
			paper_pct(r->t.p50, r->t.solo_p50), paper);
	}
	fprintf(o, "\nsessions (smtop open / smtop replay --guided):\n");
	for (size_t i = 0; i < n; i++)
		if (rows[i].ran)
			fprintf(o, "  %-9s %-17s %s\n", rows[i].model->model, rows[i].mech->label,
				rows[i].session);
}

static void paper_print_json(FILE *o, const struct paper_row *rows, size_t n)
{
	fputs("{\"rows\":[", o);
	for (size_t i = 0; i < n; i++) {
		const struct paper_row *r = &rows[i];
		fputs(i ? ",{" : "{", o);
		fputs("\"model\":", o);
		json_write_str(o, r->model->model);
		fputs(",\"mechanism\":", o);
		json_write_str(o, r->mech->scenario);
		if (r->ran) {
			fprintf(o, ",\"alone_p50_ms\":%.3f,\"alone_p99_ms\":%.3f,\"beside_p50_ms\":%.3f,"
				   "\"beside_p99_ms\":%.3f,\"requests\":%d,\"session\":",
				r->t.solo_p50, r->t.solo_p99, r->t.p50, r->t.p99, r->t.requests);
			json_write_str(o, r->session);
		} else {
			fputs(",\"skipped\":", o);
			json_write_str(o, r->why);
		}
		if (!strcmp(r->mech->scenario, "priority-vs-training"))
			fprintf(o, ",\"paper_rtx3090_pct\":%d", r->model->paper_priority_pct);
		fputc('}', o);
	}
	fputs("]}\n", o);
}

int paper_main(double seconds, const char *sm_mode, int json)
{
	char demo[PATH_MAX];
	if (!record_have_gpu()) {
		fprintf(stderr, "smtop: demo paper needs an NVIDIA GPU (no /dev/nvidiactl and /dev/nvidia0 here)\n");
		return 1;
	}
	if (record_sibling_path("smtop-demo", demo, sizeof demo) != 0) {
		fprintf(stderr, "smtop: the demo workloads (smtop-demo) were not built beside smtop; run make\n");
		return 1;
	}
	struct paper_row rows[PAPER_MODELS * PAPER_MECHS];
	size_t n = 0, done = 0, total = 0;
	int mps = paper_mps_running();
	time_t t0 = time(NULL);
	char alone[] = "/tmp/smtop-no-mps.XXXXXX";
	if (mps && !mkdtemp(alone)) {
		fprintf(stderr, "smtop: demo paper: cannot make a folder in /tmp: %s\n", strerror(errno));
		return 1;
	}

	memset(rows, 0, sizeof rows);
	for (size_t m = 0; m < PAPER_MODELS; m++)
		for (size_t k = 0; k < PAPER_MECHS; k++) {
			rows[n].model = &paper_models[m];
			rows[n].mech = &paper_mechs[k];
			if (paper_mechs[k].needs_mps && !mps)
				snprintf(rows[n].why, sizeof rows[n].why,
					 "skipped: no MPS daemon runs (smtop never starts one)");
			else
				total++;
			n++;
		}
	record_install_forwarding();
	for (size_t i = 0; i < n; i++) {
		if (rows[i].why[0])
			continue;
		long el = (long)(time(NULL) - t0), left = done ? el * (long)(total - done) / (long)done : 0;
		fprintf(stderr, "smtop: paper [%zu/%zu] %s, %s: %lds so far", done + 1, total,
			rows[i].model->model, rows[i].mech->label, el);
		fprintf(stderr, done ? ", about %lds left\n" : "\n", left);
		int rc = paper_run_row(demo, seconds, sm_mode, mps ? alone : NULL, &rows[i]);
		if (rc != 0)
			fprintf(stderr, "smtop: paper: %s, %s: %s\n", rows[i].model->model,
				rows[i].mech->label, rows[i].why);
		if (rc > 128)
			break;
		done++;
	}
	if (mps)
		rmdir(alone);
	if (json)
		paper_print_json(stdout, rows, n);
	else
		paper_print_table(stdout, rows, n);
	for (size_t i = 0; i < n; i++)
		if (rows[i].ran)
			return 0;
	return 1;
}
