#include "ui/app/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/app/cli.h"
#include "ui/app/control_client.h"
#include "ui/app/record.h"
#include "src/core/clock.h"
#include "src/core/sm_modes.h"
#include "db/session/library.h"

#define LAUNCH_ARGS_MAX 64
/* How often a recording --attach started checks on the process. */
#define LAUNCH_POLL_NS 50000000L
/* A switch off that gave up (a call stayed inside the driver for a second)
 * leaves the process recording: asked again this many times, 0.5 s apart. */
#define LAUNCH_OFF_TRIES 5

struct launch_env {
	char injector[PATH_MAX];
	char library[PATH_MAX];      /* "" when the mode needs none or it is missing */
	const char *library_env;     /* where the collector looks for it */
	const char *sm;
	int nvtx;
};

static volatile sig_atomic_t launch_stop;

/* What the collector needs to start dormant in a program and its children. */
static int launch_env_find(const struct cli *c, struct launch_env *e)
{
	const struct sm_mode *mode;

	memset(e, 0, sizeof *e);
	if (!record_collector_cpus_ok())
		return -1;
	e->sm = c->sm_mode ? c->sm_mode : record_sm_default();
	e->nvtx = !c->no_nvtx;
	if (record_find_injector(e->injector, sizeof e->injector) != 0) {
		fprintf(stderr, "smtop: collector library libsmtop-inject.so not found beside the smtop binary"
			" (run make, or set SMTOP_INJECT)\n");
		return -1;
	}
	mode = sm_mode_named(e->sm);
	if (mode && mode->setup->library &&
	    record_find_library(mode->setup->library, e->library, sizeof e->library) == 0)
		e->library_env = mode->setup->library->env;
	else
		e->library[0] = '\0';
	return 0;
}

static void launch_env_apply(const struct launch_env *e)
{
	setenv("CUDA_INJECTION64_PATH", e->injector, 1);
	setenv("SMTOP_LAUNCH", "1", 1);
	setenv("SMTOP_SM", e->sm, 1);
	unsetenv("SMTOP_SESSION");
	if (e->library[0])
		setenv(e->library_env, e->library, 1);
	if (e->nvtx)
		setenv("NVTX_INJECTION64_PATH", e->injector, 0);
}

/* One line: the pid to attach to, and what the dormant mode costs. */
static void launch_say_dormant(const struct cli *c, const struct launch_env *e)
{
	const struct sm_mode *mode = sm_mode_named(e->sm);
	const char *cost = mode ? mode->setup->dormant : NULL;

	fprintf(stderr, "smtop: pid %d runs %s with the collector dormant", (int)getpid(), c->argv[0]);
	if (cost)
		fprintf(stderr, " (--sm %s %s)", e->sm, cost);
	fprintf(stderr, "; smtop record --attach %d records it\n", (int)getpid());
}

int launch_main(const struct cli *c)
{
	struct launch_env e;

	if (launch_env_find(c, &e) != 0)
		return 1;
	launch_env_apply(&e);
	if (!c->quiet)
		launch_say_dormant(c, &e);
	fflush(stderr);
	/* the program takes smtop's place: its pid is the one printed */
	execvp(c->argv[0], c->argv);
	fprintf(stderr, "smtop: %s: %s\n", c->argv[0], strerror(errno));
	return 127;
}

/* s in single quotes for a POSIX shell. */
static void launch_print_quoted(const char *name, const char *s)
{
	printf("export %s='", name);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	puts("'");
}

int launch_env_main(const struct cli *c)
{
	struct launch_env e;

	if (launch_env_find(c, &e) != 0)
		return 1;
	launch_print_quoted("CUDA_INJECTION64_PATH", e.injector);
	launch_print_quoted("SMTOP_LAUNCH", "1");
	launch_print_quoted("SMTOP_SM", e.sm);
	if (e.library[0])
		launch_print_quoted(e.library_env, e.library);
	if (e.nvtx)
		launch_print_quoted("NVTX_INJECTION64_PATH", e.injector);
	return 0;
}

/* ---- record --attach ---------------------------------------------------- */

/* pid's command line as an argv (for the session's name). */
static int launch_cmdline(pid_t pid, char *buf, size_t len, char **argv, size_t max)
{
	char path[64];
	ssize_t n;
	size_t k = 0;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (char *p = buf; p < buf + n && k + 1 < max; p += strlen(p) + 1)
		argv[k++] = p;
	argv[k] = NULL;
	return k ? 0 : -1;
}

int launch_session_path(pid_t pid, char *buf, size_t len, char *err, size_t errlen)
{
	char cmd[4096];
	char *argv[LAUNCH_ARGS_MAX];

	if (launch_cmdline(pid, cmd, sizeof cmd, argv, LAUNCH_ARGS_MAX) != 0) {
		snprintf(err, errlen, "no process %d", (int)pid);
		return -1;
	}
	return record_default_path(argv, buf, len, err, errlen);
}

/* -o FILE as an absolute path: the collector opens it in its own folder. */
static int launch_out_path(const char *out, char *buf, size_t len)
{
	char cwd[PATH_MAX];
	int n;

	if (out[0] == '/')
		n = snprintf(buf, len, "%s", out);
	else if (getcwd(cwd, sizeof cwd))
		n = snprintf(buf, len, "%s/%s", cwd, out);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static void launch_on_signal(int sig)
{
	launch_stop = sig;
}

static void launch_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = launch_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* line asked of pid: 0 when it answered ok, 1 when it answered otherwise
 * (reply holds the answer, not told), -1 when it could not be asked (told
 * on stderr). */
static int launch_request(pid_t pid, const char *line, char *reply, size_t len)
{
	char err[512];

	if (control_client_request(pid, line, reply, len, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return -1;
	}
	return strncmp(reply, "ok", 2) != 0;
}

/* An answer other than ok, on stderr. */
static void launch_tell_refusal(pid_t pid, const char *reply)
{
	fprintf(stderr, "smtop: process %d: %s\n", (int)pid, strncmp(reply, "err ", 4) == 0 ? reply + 4 : reply);
}

/* Sends line; an "err" answer is said as the collector put it. */
static int launch_ask(pid_t pid, const char *line, char *reply, size_t len)
{
	int r = launch_request(pid, line, reply, len);

	if (r > 0)
		launch_tell_refusal(pid, reply);
	return r ? -1 : 0;
}

/* Recording off, asked again while the process answers that it could not
 * switch (it still records then); the last answer is told. */
static int launch_switch_off(pid_t pid, char *reply, size_t len)
{
	struct timespec pause = { 0, 500000000L };

	for (int i = 1;; i++) {
		int r = launch_request(pid, "off", reply, len);

		if (r <= 0)
			return r;
		if (i == LAUNCH_OFF_TRIES || !strstr(reply, CONTROL_PROTO_STILL_RECORDING)) {
			launch_tell_refusal(pid, reply);
			return -1;
		}
		nanosleep(&pause, NULL);
	}
}

/* Until the duration is over, a signal came, or the process ended (its
 * collector then ended the session).  1 when the process is gone. */
static int launch_wait(pid_t pid, uint64_t for_ns)
{
	uint64_t until = for_ns ? clock_mono_ns() + for_ns : 0;
	struct timespec t = { 0, LAUNCH_POLL_NS };

	while (!launch_stop && (!until || clock_mono_ns() < until)) {
		uid_t owner;

		if (control_client_owner(pid, &owner) != 0)
			return 1;
		nanosleep(&t, NULL);
	}
	return 0;
}

static int launch_attach_path(const struct cli *c, pid_t pid, char *path, size_t len)
{
	char err[PATH_MAX + 128];

	if (c->out_path) {
		if (launch_out_path(c->out_path, path, len) != 0) {
			fprintf(stderr, "smtop: %s: path too long\n", c->out_path);
			return -1;
		}
		return 0;
	}
	if (launch_session_path(pid, path, len, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return -1;
	}
	return 0;
}

int launch_attach_main(const struct cli *c)
{
	pid_t pid = (pid_t)c->attach_pid;
	struct control_proto_status st;
	char path[PATH_MAX], line[PATH_MAX + 8], reply[CONTROL_PROTO_LINE_MAX], err[512];
	int gone;

	/* first the reasons it cannot be done, before a file is named */
	if (control_client_status(pid, &st, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	if (st.recording) {
		fprintf(stderr, "smtop: process %d is already recording into %s\n", (int)pid, st.session);
		return 1;
	}
	if (launch_attach_path(c, pid, path, sizeof path) != 0)
		return 1;
	launch_catch_signals();
	snprintf(line, sizeof line, "on %s", path);
	if (launch_ask(pid, line, reply, sizeof reply) != 0)
		return 1;
	if (!c->quiet)
		fprintf(stderr, "smtop: recording process %d into %s (%s)\n", (int)pid, path,
			c->attach_for_ns ? "until the time is up or Ctrl-C" : "until Ctrl-C");
	gone = launch_wait(pid, c->attach_for_ns);
	if (gone) {
		fprintf(stderr, "smtop: process %d ended; its collector ended the session\n", (int)pid);
	} else if (launch_switch_off(pid, reply, sizeof reply) != 0) {
		return 1;
	}
	if (!c->quiet)
		record_say_drops(path);
	/* the path alone on stdout, for scripts: smtop info "$(smtop record --attach ...)" */
	printf("%s\n", path);
	return 0;
}
