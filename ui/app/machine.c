#include "ui/app/machine.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/app/cli.h"
#include "ui/app/control_client.h"
#include "ui/app/launch.h"
#include "ui/app/nvml.h"
#include "ui/app/open.h"
#include "ui/app/record.h"
#include "db/session/session.h"
#include "src/core/machine.h"
#include "ui/machine_view.h"
#include "ui/ui.h"

struct machine_app {
	const struct cli *c;
	struct nvml *nvml;
	struct machine m;
	struct ui_term term;
};

/* Who runs pid and what, from /proc; left "" where it cannot be read (a
 * process of another container or already gone): the view says N/A. */
static void machine_proc_identity(struct machine_proc *p)
{
	char path[64], raw[2048];
	uid_t uid;
	ssize_t n;
	int fd;

	if (control_client_owner(p->pid, &uid) == 0) {
		control_client_user(uid, p->user, sizeof p->user);
		p->own = uid == getuid();
	}
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0)
		machine_command_line(raw, (size_t)n, p->command, sizeof p->command);
}

/* The collector's own account of p: its --sm mode and its session. */
static void machine_proc_status(struct machine_proc *p)
{
	struct control_proto_status st;
	char err[512];

	p->collector = 1;
	if (control_client_status(p->pid, &st, err, sizeof err) != 0)
		return;
	snprintf(p->sm_mode, sizeof p->sm_mode, "%s", st.sm);
	p->recording = st.recording;
	snprintf(p->session, sizeof p->session, "%s", st.session);
}

/* The processes with a control socket: marked where NVML lists them,
 * added on no GPU where it does not (no CUDA context yet). */
static void machine_mark_collectors(struct machine *m)
{
	pid_t pids[MACHINE_MAX_PROCS];
	size_t n = control_client_list(pids, MACHINE_MAX_PROCS);

	for (size_t k = 0; k < n; k++) {
		int found = 0;

		for (size_t i = 0; i < m->n_procs; i++) {
			if (m->procs[i].pid == pids[k]) {
				machine_proc_status(&m->procs[i]);
				found = 1;
			}
		}
		struct machine_proc *p = found ? NULL : machine_add(m, -1, pids[k]);
		if (p) {
			machine_proc_identity(p);
			machine_proc_status(p);
		}
	}
}

static int machine_sample(void *ud, struct machine *m, char *err, size_t errlen)
{
	struct machine_app *a = ud;

	if (nvml_sample(a->nvml, m, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < m->n_procs; i++)
		machine_proc_identity(&m->procs[i]);
	machine_mark_collectors(m);
	machine_sort(m);
	return 0;
}

/* The collector's answer: the text after "ok " or "err ". */
static const char *machine_reply_text(const char *reply)
{
	if (strncmp(reply, "ok ", 3) == 0)
		return reply + 3;
	return strncmp(reply, "err ", 4) == 0 ? reply + 4 : reply;
}

/* r: recording on in a new session of the library, or off. */
static void machine_toggle(struct machine_view *v, const struct machine_proc *p)
{
	char line[PATH_MAX + 8], path[PATH_MAX], reply[CONTROL_PROTO_LINE_MAX], err[PATH_MAX + 128];
	struct control_proto_status st;
	pid_t pid = p->pid;

	if (control_client_status(pid, &st, err, sizeof err) != 0) {
		snprintf(v->msg, sizeof v->msg, "r: %s", err);
		return;
	}
	if (st.recording) {
		snprintf(line, sizeof line, "off");
	} else if (launch_session_path(pid, path, sizeof path, err, sizeof err) != 0) {
		snprintf(v->msg, sizeof v->msg, "r: %s", err);
		return;
	} else {
		snprintf(line, sizeof line, "on %s", path);
	}
	if (control_client_request(pid, line, reply, sizeof reply, err, sizeof err) != 0)
		snprintf(v->msg, sizeof v->msg, "r: %s", err);
	else if (strncmp(reply, "ok", 2) != 0)
		snprintf(v->msg, sizeof v->msg, "r: process %d: %.4000s", (int)pid,
			 machine_reply_text(reply));
	else if (st.recording)
		snprintf(v->msg, sizeof v->msg, "r: process %d stopped recording; session saved to %s", (int)pid,
			 st.session);
	else
		snprintf(v->msg, sizeof v->msg, "r: process %d records into %s", (int)pid, path);
}

/* Enter: the live per-SM view of the session p records now. */
static void machine_open(struct machine_app *a, struct machine_view *v, const struct machine_proc *p)
{
	char path[PATH_MAX], label[256], prog[128], err[PATH_MAX + 128];
	const char *paths[1] = { path };

	/* the header has room for the program's name, not its arguments */
	snprintf(prog, sizeof prog, "%.127s", p->command[0] ? p->command : "N/A");
	prog[strcspn(prog, " ")] = '\0';
	snprintf(path, sizeof path, "%s", p->session);
	snprintf(label, sizeof label, "pid %d %s", (int)p->pid,
		 strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog);
	if (open_follow_on(&a->term, a->c, paths, 1, label, err, sizeof err) != 0)
		snprintf(v->msg, sizeof v->msg, "Enter: %s", err);
}

/* a: the sessions every process of the user's records now, as one live
 * view (at most SESSION_MAX_SOURCES; the status line says when more). */
static void machine_open_all(struct machine_app *a, struct machine_view *v)
{
	static char path[SESSION_MAX_SOURCES][PATH_MAX];
	const char *paths[SESSION_MAX_SOURCES];
	char label[64], err[PATH_MAX + 128];
	size_t n = 0, recording = machine_view_recording(v);

	for (size_t i = 0; i < v->m->n_procs && n < SESSION_MAX_SOURCES; i++) {
		const struct machine_proc *p = &v->m->procs[i];

		if (!p->own || !p->collector || !p->recording || !p->session[0])
			continue;
		snprintf(path[n], sizeof path[n], "%s", p->session);
		paths[n] = path[n];
		n++;
	}
	snprintf(label, sizeof label, "%zu processes recording", n);
	if (open_follow_on(&a->term, a->c, paths, n, label, err, sizeof err) != 0)
		snprintf(v->msg, sizeof v->msg, "a: %s", err);
	else if (recording > n)
		snprintf(v->msg, sizeof v->msg, "a: showed the first %zu of %zu processes recording", n, recording);
}

static const struct machine_source *machine_source_of(struct machine_app *a)
{
	static struct machine_source src;

	src = (struct machine_source){ a, machine_sample };
	return &src;
}

/* The view until q; r and Enter are carried out here, between its turns. */
static void machine_loop(struct machine_app *a)
{
	struct machine_view v;

	machine_view_init(&v, &a->m);
	v.ascii = a->c->ascii;
	for (;;) {
		ui_run_machine(&a->term, &v, machine_source_of(a));
		if (v.result == MACHINE_VIEW_OPEN_ALL) {
			machine_open_all(a, &v);
			continue;
		}
		const struct machine_proc *p = machine_view_selected(&v);
		if (v.result == MACHINE_VIEW_QUIT || !p)
			return;
		struct machine_proc sel = *p;
		if (v.result == MACHINE_VIEW_RECORD)
			machine_toggle(&v, &sel);
		else
			machine_open(a, &v, &sel);
	}
}

static int machine_run(const struct cli *c, struct nvml *n)
{
	struct machine_app *a = calloc(1, sizeof *a);
	char err[512];
	int rc = 0;

	if (!a) {
		fprintf(stderr, "smtop: out of memory\n");
		return 1;
	}
	a->c = c;
	a->nvml = n;
	if (ui_term_open(&a->term, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		rc = 1;
	} else {
		machine_loop(a);
		ui_term_close(&a->term);
	}
	free(a);
	return rc;
}

int machine_main(const struct cli *c)
{
	const char *lib = getenv("SMTOP_NVML_LIB");
	struct nvml *n = NULL;
	char err[512];
	int rc;

	if (nvml_open(&n, err, sizeof err) == 0 && nvml_count(n) == 0) {
		snprintf(err, sizeof err, "NVML sees no GPU");
		nvml_close(n);
		n = NULL;
	}
	/* no GPU at all: the bundled session, as on a first try without one */
	if (!n && !(lib && *lib) && !record_have_gpu())
		return open_default_main(c);
	if (!n) {
		fprintf(stderr, "smtop: %s; the machine view needs it (smtop demo and smtop open work without)\n",
			err);
		return 1;
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the machine view needs a terminal (nvidia-smi prints its GPUs as text)\n");
		nvml_close(n);
		return 1;
	}
	rc = machine_run(c, n);
	nvml_close(n);
	return rc;
}
