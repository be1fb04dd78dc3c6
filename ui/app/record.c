#include "ui/app/record.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/files.h"
#include "db/reader.h"
#include "db/session_end.h"
#include "db/schema.h"
#include "db/writer.h"
#include "src/core/clock.h"
#include "src/core/fmt.h"
#include "src/core/sm_modes.h"
#include "src/core/threads.h"
#include "ui/app/progress_line.h"
#include "db/session/library.h"

#define INJECTOR_NAME "libsmtop-inject.so"

/* Signals that reached smtop itself through kill(), to forward to the workload.
 * Terminal-generated ones already reached the workload's process group. */
static volatile sig_atomic_t record_pending_signal;

int record_exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

int record_sibling_path(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX];
	if (record_exe_dir(exe, sizeof exe) != 0)
		return -1;
	int w = snprintf(buf, len, "%s/%s", exe, name);
	return (w > 0 && (size_t)w < len && access(buf, X_OK) == 0) ? 0 : -1;
}

int record_have_gpu(void)
{
	struct stat st;
	return stat("/dev/nvidiactl", &st) == 0 && stat("/dev/nvidia0", &st) == 0;
}

int record_find_injector(char *buf, size_t len)
{
	const char *env = getenv("SMTOP_INJECT");
	if (env && *env) {
		if (!realpath(env, buf) || access(buf, R_OK) != 0)
			return -1;
		return 0;
	}
	char exe[PATH_MAX];
	if (record_exe_dir(exe, sizeof exe) != 0)
		return -1;
	static const char *const rel[] = { "", "/../lib/smtop" };
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char cand[PATH_MAX + 64];
		snprintf(cand, sizeof cand, "%s%s/%s", exe, rel[i], INJECTOR_NAME);
		if (access(cand, R_OK) == 0 && realpath(cand, buf) && strlen(buf) < len)
			return 0;
	}
	return -1;
}

/* A toolkit folder's copy of lib, if it is there. */
static int library_in(const struct sm_mode_library *lib, const char *dir, const char *rel,
		      char *buf, size_t len)
{
	char cand[PATH_MAX + 64];
	if (!dir || !*dir)
		return -1;
	snprintf(cand, sizeof cand, "%s%s/%s/%s", dir, rel, lib->toolkit_dir, lib->file);
	if (access(cand, R_OK) != 0 || !realpath(cand, buf) || strlen(buf) >= len)
		return -1;
	return 0;
}

static int version_order(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The newest /usr/local/cuda-X.Y, by version (cuda-13.0 after cuda-12.9). */
static int library_in_newest_toolkit(const struct sm_mode_library *lib, char *buf, size_t len)
{
	char pattern[PATH_MAX];
	glob_t g;
	int found = -1;
	snprintf(pattern, sizeof pattern, "/usr/local/cuda-*/%s/%s", lib->toolkit_dir, lib->file);
	if (glob(pattern, 0, NULL, &g) != 0)
		return -1;
	qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, version_order);
	for (size_t i = g.gl_pathc; i-- > 0 && found != 0;)
		found = realpath(g.gl_pathv[i], buf) && strlen(buf) < len ? 0 : -1;
	globfree(&g);
	return found;
}

/* nvcc on PATH: its toolkit is bin/.. */
static int library_beside_nvcc(const struct sm_mode_library *lib, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char dir[PATH_MAX], nvcc[PATH_MAX + 8];
		if (n > 0 && n < sizeof dir) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			snprintf(nvcc, sizeof nvcc, "%s/nvcc", dir);
			if (access(nvcc, X_OK) == 0 && library_in(lib, dir, "/..", buf, len) == 0)
				return 0;
		}
		path = colon ? colon + 1 : NULL;
	}
	return -1;
}

int record_find_library(const struct sm_mode_library *lib, char *buf, size_t len)
{
	const char *env = getenv(lib->env);
	if (env && *env)
		return access(env, R_OK) == 0 && realpath(env, buf) && strlen(buf) < len ? 0 : -1;
	if (library_in(lib, getenv("CUDA_HOME"), "", buf, len) == 0 ||
	    library_in(lib, getenv("CUDA_PATH"), "", buf, len) == 0 ||
	    library_beside_nvcc(lib, buf, len) == 0 ||
	    library_in(lib, "/usr/local/cuda", "", buf, len) == 0)
		return 0;
	return library_in_newest_toolkit(lib, buf, len);
}

/* The workload's environment for mode: the library it needs named when
 * found (without it the collector refuses in one line and the workload
 * runs untraced), the other modes' left out. */
static void record_mode_env(const struct sm_mode *mode)
{
	const struct sm_mode_library *lib = mode ? mode->setup->library : NULL;
	char path[PATH_MAX];
	for (size_t i = 0; i < sm_modes_count; i++) {
		const struct sm_mode_library *other = sm_modes[i].setup->library;
		if (other && other != lib)
			unsetenv(other->env);
	}
	if (lib && record_find_library(lib, path, sizeof path) == 0)
		setenv(lib->env, path, 1);
	else if (lib)
		unsetenv(lib->env);
}

int record_default_path(char *const *argv, char *buf, size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	if (library_default_dir(dir, sizeof dir, err, errlen) != 0 ||
	    library_make_dir(dir, err, errlen) != 0)
		return -1;
	return library_new_path(dir, argv, time(NULL), buf, len, err, errlen);
}

static char *join_command(char *const *argv)
{
	size_t len = 1;
	for (char *const *a = argv; *a; a++)
		len += strlen(*a) + 3;
	char *s = calloc(1, len);
	if (!s)
		return NULL;
	for (char *const *a = argv; *a; a++) {
		if (a != argv)
			strcat(s, " ");
		int quote = strpbrk(*a, " \t'\"") != NULL;
		if (quote)
			strcat(s, "'");
		strcat(s, *a);
		if (quote)
			strcat(s, "'");
	}
	return s;
}

static int resolve_session_path(const struct record_opts *o, char *path, size_t len,
				char *err, size_t errlen)
{
	if (!o->out_path)
		return record_default_path(o->argv, path, len, err, errlen) == 0 ? 0 : -2;
	/* realpath needs an existing file; keep the directory's real path. */
	char dir[PATH_MAX], tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", o->out_path);
	char *slash = strrchr(tmp, '/');
	const char *file = slash ? slash + 1 : tmp;
	if (slash)
		*slash = '\0';
	if (!realpath(slash ? (tmp[0] ? tmp : "/") : ".", dir))
		return -1;
	if (!*file)
		return -1;
	int n = snprintf(path, len, "%s/%s", strcmp(dir, "/") ? dir : "", file);
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

const char *record_sm_default(void)
{
	const struct sm_mode *entry = sm_mode_named("entry");
	char lib[PATH_MAX];

	if (entry && !entry->setup->unbuilt &&
	    (!entry->setup->library || record_find_library(entry->setup->library, lib, sizeof lib) == 0))
		return entry->name;
	return RECORD_SM_DEFAULT;
}

/* The collector reads the windows' period and length in ns. */
static void record_exact_env(const struct record_opts *o)
{
	char v[32];

	snprintf(v, sizeof v, "%llu",
		 (unsigned long long)(o->has_exact_every ? o->exact_every_ns : RECORD_EXACT_EVERY_NS));
	setenv("SMTOP_EXACT_EVERY", v, 1);
	snprintf(v, sizeof v, "%llu", (unsigned long long)(o->has_exact_for ? o->exact_for_ns : RECORD_EXACT_FOR_NS));
	setenv("SMTOP_EXACT_FOR", v, 1);
}

static void child_exec(const struct record_opts *o, const char *session,
		       const char *injector, int err_fd)
{
	setenv("CUDA_INJECTION64_PATH", injector, 1);
	setenv("SMTOP_SESSION", session, 1);
	const char *sm = o->sm_mode ? o->sm_mode : record_sm_default();
	setenv("SMTOP_SM", sm, 1);
	record_exact_env(o);
	record_mode_env(sm_mode_named(sm));
	/* NVTX reads its injection path once, at its first call, which may come
	 * before CUDA loads the collector: set it from the start.  A tool of the
	 * user's own keeps its place (record_nvtx_note said so). */
	if (!o->no_nvtx)
		setenv("NVTX_INJECTION64_PATH", injector, 0);
	if (o->log_path) {
		/* The viewer owns the terminal: the workload runs in its own
		 * process group with its output in a log beside the session. */
		setpgid(0, 0);
		int fd = open(o->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (in >= 0)
			dup2(in, STDIN_FILENO);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL); /* smtop ignores it; the workload gets the default */
	execvp(o->argv[0], o->argv);
	int e = errno;
	if (write(err_fd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* NVTX loads one injection: when the user named another, the ranges go to
 * it, and the session will hold none.  Said once, before the workload runs. */
static void record_nvtx_note(const struct record_opts *o, const char *injector)
{
	const char *own = getenv("NVTX_INJECTION64_PATH");
	if (o->no_nvtx || !own || !*own || !strcmp(own, injector))
		return;
	fprintf(stderr, "smtop: NVTX_INJECTION64_PATH is set (%s): NVTX ranges go to it, not to the session\n",
		own);
}

/* Fork and exec; the close-on-exec pipe tells exec failure from success. */
static pid_t spawn_workload(const struct record_opts *o, const char *session,
			    const char *injector, int *exec_errno)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		child_exec(o, session, injector, p[1]);
	}
	close(p[1]);
	*exec_errno = 0;
	ssize_t n;
	do
		n = read(p[0], exec_errno, sizeof *exec_errno);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == (ssize_t)sizeof *exec_errno) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	*exec_errno = 0;
	return pid;
}

static int create_session(const char *path, const char *command)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		fprintf(stderr, "smtop: %s: already exists; choose another -o or remove it\n", path);
		return -1;
	}
	char err[512];
	struct db_writer *w;
	struct db_writer_options wo = {
		.path = path, .create = 1, .session_command = command,
	};
	if (db_writer_open(&w, &wo, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return -1;
	}
	db_writer_close(w);
	return 0;
}

int record_collector_cpus_ok(void)
{
	char why[160];
	cpu_set_t set;

	if (thread_collector_cpus(&set, why, sizeof why) >= 0)
		return 1;
	fprintf(stderr, "smtop: %s\n", why);
	return 0;
}

int record_start(const struct record_opts *o, struct record_child *c)
{
	memset(c, 0, sizeof *c);
	/* a mode whose backend this build lacks: refused before anything starts */
	const struct sm_mode *m = sm_mode_named(o->sm_mode);
	if (m && m->setup->unbuilt) {
		fprintf(stderr, "smtop: --sm %s: this smtop was built without %s\n", m->name, m->setup->unbuilt);
		return -1;
	}
	if (!record_collector_cpus_ok())
		return -1;
	char path[PATH_MAX], injector[PATH_MAX], err[PATH_MAX + 128];
	int rc = resolve_session_path(o, path, sizeof path, err, sizeof err);
	if (rc != 0) {
		if (rc == -2)
			fprintf(stderr, "smtop: %s\n", err);
		else
			fprintf(stderr, "smtop: %s: no such directory\n", o->out_path);
		return -1;
	}
	if (record_find_injector(injector, sizeof injector) != 0) {
		fprintf(stderr, "smtop: collector library %s not found beside the smtop binary (run make, or set SMTOP_INJECT)\n",
			INJECTOR_NAME);
		return -1;
	}
	c->command = join_command(o->argv);
	c->session_path = strdup(path);
	if (!c->command || !c->session_path || create_session(path, c->command) != 0) {
		record_child_free(c);
		return -1;
	}
	int exec_errno = 0;
	record_nvtx_note(o, injector);
	c->pid = spawn_workload(o, path, injector, &exec_errno);
	if (c->pid < 0) {
		fprintf(stderr, "smtop: %s: %s\n", o->argv[0],
			exec_errno ? strerror(exec_errno) : "cannot start");
		record_finish(c, -1);
		record_child_free(c);
		return RECORD_EXEC_FAILED;
	}
	return 0;
}

int record_poll(struct record_child *c, int block, int *status)
{
	for (;;) {
		pid_t r = waitpid(c->pid, status, block ? 0 : WNOHANG);
		if (r == c->pid)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
		if (record_pending_signal) {
			record_forward_signal(c, record_pending_signal);
			record_pending_signal = 0;
		}
	}
}

void record_forward_signal(const struct record_child *c, int sig)
{
	if (c->pid <= 0)
		return;
	/* The workload may have its own process group (viewer modes) or share ours. */
	if (getpgid(c->pid) == c->pid)
		kill(-c->pid, sig);
	else
		kill(c->pid, sig);
}

static void describe_status(int status, char *buf, size_t len, int *clean, int *code)
{
	if (status < 0) {
		snprintf(buf, len, "the workload could not be started");
		*clean = 0;
		*code = 127;
	} else if (WIFEXITED(status)) {
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
		*clean = 1;
		*code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		int s = WTERMSIG(status);
		snprintf(buf, len, "killed by signal %d (%s)", s, strsignal(s));
		*clean = 0;
		*code = 128 + s;
	} else {
		snprintf(buf, len, "ended in an unknown way");
		*clean = 0;
		*code = 1;
	}
}

/* Whether a collector already said (on stderr and in the session) that the
 * disk is full: smtop need not say it again. */
static int session_says_disk_full(const char *path)
{
	char err[256];
	struct db_reader *r;
	struct db_session_info si;
	int says = 0;
	if (db_reader_open(&r, path, err, sizeof err) != 0)
		return 0;
	if (db_reader_info(r, &si) == 0)
		for (size_t i = 0; i < si.n_processes; i++)
			says |= si.processes[i].reason &&
				strcmp(si.processes[i].reason, SCHEMA_DISK_FULL_REASON) == 0;
	db_reader_close(r);
	return says;
}

int record_finish(struct record_child *c, int status)
{
	char reason[128], err[512];
	int clean, code;
	describe_status(status, reason, sizeof reason, &clean, &code);
	snprintf(c->ended, sizeof c->ended, "%s", reason);
	struct db_writer *w;
	struct db_writer_options wo = {
		.path = c->session_path, .create = 0,
	};
	if (db_writer_open(&w, &wo, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return code ? code : 1;
	}
	if (db_session_end(w, c->session_path, clean, reason) != 0 &&
	    (!db_writer_disk_full(w) || !session_says_disk_full(c->session_path)))
		fprintf(stderr, "smtop: %s; the session keeps what was recorded but is not marked as ended\n",
			db_writer_error(w));
	db_writer_close(w);
	return code;
}

/* Why the collector never joined: the driver, the GPU, or the workload. */
static void nothing_why(char *why, size_t len)
{
	/* what libcudart itself loads: without it, CUDA calls fail with
	 * cudaErrorInsufficientDriver, which does not mean an old driver here */
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!cuda)
		snprintf(why, len, "no NVIDIA driver (libcuda.so.1 cannot be loaded)");
	else if (!record_have_gpu())
		snprintf(why, len, "no NVIDIA GPU (no /dev/nvidiactl and /dev/nvidia0)");
	else
		snprintf(why, len, "the workload never initialised CUDA, so the collector was not loaded");
	if (cuda)
		dlclose(cuda);
}

/* The counts of the session at path as the recording left it (numbers
 * only: its strings die with the reader); -1 when it cannot be read. */
static int record_session_counts(const char *path, struct db_session_info *si)
{
	struct db_reader *r;
	char err[512];
	int rc;
	if (db_reader_open(&r, path, err, sizeof err) != 0)
		return -1;
	rc = db_reader_info(r, si);
	db_reader_close(r);
	return rc;
}

/* The line record_say_drops writes, into line; 0 when there is none. */
static int record_drops_line(const char *session_path, char *line, size_t len)
{
	struct db_session_info si;
	char dropped[32], ran[32];
	if (record_session_counts(session_path, &si) != 0 || si.drops_blocks == 0)
		return 0;
	uint64_t all = si.blocks + si.drops_blocks;
	snprintf(line, len,
		 "smtop: %s of the %s blocks that ran (%.1f%%) were dropped and counted (most often "
		 "the GPU started blocks faster than the collector took them); the views and the "
		 "report miss them",
		 fmt_count(dropped, sizeof dropped, si.drops_blocks), fmt_count(ran, sizeof ran, all),
		 100.0 * (double)si.drops_blocks / (double)all);
	return 1;
}

void record_say_drops(const char *session_path)
{
	char line[320];
	if (record_drops_line(session_path, line, sizeof line))
		fprintf(stderr, "%s\n", line);
}

int record_nothing_recorded(const struct record_child *c, char *why, size_t len)
{
	struct db_session_info si;
	int nothing = record_session_counts(c->session_path, &si) == 0 && si.n_processes == 0 && si.kernels == 0;
	if (nothing)
		nothing_why(why, len);
	return nothing;
}

void record_last_line(const char *path, char *buf, size_t len)
{
	char line[512];
	FILE *f = path ? fopen(path, "r") : NULL;
	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (line[0])
			snprintf(buf, len, "%s", line);
	}
	fclose(f);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = ' ';
}

void record_drop_empty(const struct record_child *c, const char *why, const char *log_path)
{
	char said[512], err[512];
	record_last_line(log_path, said, sizeof said);
	fprintf(stderr, "smtop: nothing was recorded, so no session is kept: %s; the workload %s%s%s\n",
		why, c->ended[0] ? c->ended : "ended", said[0] ? ", saying: " : "", said);
	if (db_files_remove(c->session_path, err, sizeof err) != 0)
		fprintf(stderr, "smtop: %s\n", err);
}

void record_child_free(struct record_child *c)
{
	free(c->session_path);
	free(c->command);
	c->session_path = c->command = NULL;
}

static void on_forwardable_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
		record_pending_signal = sig;
}

void record_install_forwarding(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_forwardable_signal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: waitpid must return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

/* How often a skippable step's child is checked on, and how long it runs
 * before its note is printed. */
#define RECORD_STEP_POLL_NS 10000000L
#define RECORD_STEP_NOTE_NS 1000000000ull

static void record_step_child(int (*step)(void *), void *arg)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL); /* a Ctrl-C ends the step itself */
	_exit(step(arg) == 0 ? 0 : 1);
}

static int record_step_result(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0 ? RECORD_STEP_DONE : RECORD_STEP_FAILED;
	return RECORD_STEP_SKIPPED;
}

int record_skippable_step(int (*step)(void *), void *arg, const char *note)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return step(arg) == 0 ? RECORD_STEP_DONE : RECORD_STEP_FAILED;
	if (pid == 0)
		record_step_child(step, arg);
	uint64_t t0 = clock_mono_ns();
	struct timespec poll = { 0, RECORD_STEP_POLL_NS };
	for (;;) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return record_step_result(st);
		if (r < 0 && errno != EINTR)
			return RECORD_STEP_FAILED;
		if (record_pending_signal) {
			record_pending_signal = 0;
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return RECORD_STEP_SKIPPED;
		}
		if (note && clock_mono_ns() - t0 >= RECORD_STEP_NOTE_NS) {
			fprintf(stderr, "%s\n", note);
			note = NULL;
		}
		nanosleep(&poll, NULL);
	}
}

struct summary_job {
	const char *path;
	int quiet;
};

static int summarize_step(void *arg)
{
	const struct summary_job *j = arg;
	char err[PATH_MAX + 128];
	if (library_finalize(j->path, NULL, err, sizeof err) == 0)
		return 0;
	if (!j->quiet)
		fprintf(stderr, "smtop: summary not stored: %s\n", err);
	return -1;
}

int record_main(const struct record_opts *o)
{
	struct record_child c;
	record_install_forwarding();
	int rc = record_start(o, &c);
	if (rc != 0)
		return rc == RECORD_EXEC_FAILED ? 127 : 1;
	int status = 0;
	if (record_poll(&c, 1, &status) < 0)
		status = -1;
	int code = record_finish(&c, status);
	char why[160];
	if (record_nothing_recorded(&c, why, sizeof why)) {
		record_drop_empty(&c, why, NULL);
		record_child_free(&c);
		return code;
	}
	/* the library's summary is computed once, now, not at every ls */
	struct summary_job job = { c.session_path, o->quiet };
	const char *note = o->quiet ? NULL : "smtop: summarizing the session for the library (Ctrl-C skips it)";
	/* with a progress line the note comes first, on a line of its own */
	if (note && progress_line_sink()->fn) {
		fprintf(stderr, "%s\n", note);
		note = NULL;
	}
	if (record_skippable_step(summarize_step, &job, note) ==
	    RECORD_STEP_SKIPPED && !o->quiet)
		fprintf(stderr, "smtop: summary skipped; `smtop ls` computes it when it first lists the session\n");
	if (!o->quiet) {
		fprintf(stderr, "smtop: session saved to %s\n", c.session_path);
		record_say_drops(c.session_path);
	}
	record_child_free(&c);
	return code;
}
