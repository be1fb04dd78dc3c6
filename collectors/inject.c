#include "collectors/inject.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "collectors/backend.h"
#include "src/core/sm_modes.h"
#include "collectors/blocks.h"
#include "collectors/log.h"
#include "collectors/nvtx.h"
#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/writer.h"

static const int inject_signals[] = { SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGBUS };

static atomic_flag inject_once = ATOMIC_FLAG_INIT;
static pid_t inject_pid;
static volatile sig_atomic_t inject_forked;
static volatile sig_atomic_t inject_running;
static atomic_flag inject_in_signal = ATOMIC_FLAG_INIT;
static struct db_writer *inject_writer;
static struct ring *inject_ring;
static const struct collector_backend *inject_backend = &collector_backend_cupti;
static char inject_path[512];

/* /proc/self/cmdline with its NULs turned into spaces. */
static void inject_command(char *buf, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

/* ---- exit, fork, signals -------------------------------------------------- */

static void inject_atexit(void)
{
	if (!inject_running || inject_forked || getpid() != inject_pid)
		return;
	inject_running = 0;
	nvtx_detach();
	inject_backend->stop_threads();
	inject_backend->flush(1);
	blocks_shutdown();
	if (inject_backend->finish)
		inject_backend->finish();
	inject_backend->disable();
	writer_thread_finish(inject_writer);
	inject_writer = NULL;
}

/* A child without exec shares our session connection and pipes: it must not
 * touch them.  If it execs, CUDA injects us again and it joins on its own. */
static void inject_child_after_fork(void)
{
	inject_forked = 1;
	inject_running = 0;
	nvtx_detach();
	inject_backend->disable();
	writer_thread_forget();
}

static void inject_on_signal(int sig)
{
	int saved = errno;
	struct sigaction dfl;

	if (inject_running && !inject_forked && getpid() == inject_pid &&
	    !atomic_flag_test_and_set(&inject_in_signal))
		writer_thread_commit_from_signal(sig);
	/* SA_RESETHAND already restored SIG_DFL; say it again in case the
	 * workload chained to us from a handler of its own. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	raise(sig);
	errno = saved;
}

/* Only signals nobody claimed: a handler the workload installed, earlier or
 * later, stays in charge. */
static void inject_install_signals(void)
{
	for (size_t i = 0; i < sizeof(inject_signals) / sizeof(inject_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(inject_signals[i], NULL, &old) != 0)
			continue;
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = inject_on_signal;
		sigfillset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
		sigaction(inject_signals[i], &sa, NULL);
	}
}

/* NVTX's entry: `smtop record` points NVTX_INJECTION64_PATH at this library,
 * and NVTX calls this at the workload's first NVTX call, which may come
 * before CUDA's (then the ranges wait for inject_start).  Every copy of
 * NVTX in the process (the program's, PyTorch's) calls it with its own
 * table. */
__attribute__((visibility("default")))
int InitializeInjectionNvtx2(const void *get_export_table)
{
	return nvtx_install(get_export_table);
}

/* NVTX ranges into the ring, on the backend's timebase. */
static void inject_nvtx_sink(struct smtop_record *rec)
{
	struct smtop_nvtx *n = &rec->u.nvtx;

	n->pid = (uint32_t)inject_pid;
	if (inject_backend->push_host_timed)
		inject_backend->push_host_timed(rec);
	else
		ring_push(inject_ring, rec);
}

/* The driver loads us with RTLD_LOCAL, yet workloads find smtop_note_request
 * with dlsym(RTLD_DEFAULT): lift our own symbols into the global scope. */
static void inject_go_global(void)
{
	Dl_info info;

	if (dladdr((void *)InitializeInjection, &info) && info.dli_fname &&
	    !dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
		log_debug("smtop_note_request stays hidden: %s", dlerror());
}

/* ---- start ---------------------------------------------------------------- */

static int inject_open(const char *session)
{
	char command[4096], err[512];
	struct db_writer_options opt = { 0 };

	inject_command(command, sizeof(command));
	opt.path = session;
	opt.pid = (uint32_t)inject_pid;
	opt.ppid = (uint32_t)getppid();
	opt.command = command;
	opt.create = 0;
	opt.background_checkpoint = 1;
	if (db_writer_open(&inject_writer, &opt, err, sizeof(err)) != 0) {
		log_fail("tracing disabled: %s", err[0] ? err : session);
		inject_writer = NULL;
		return -1;
	}
	return 0;
}

static void inject_untraced(const char *reason)
{
	log_fail("tracing disabled: %s", reason);
	nvtx_detach();
	db_writer_set_process_status(inject_writer, "untraced", reason);
	db_writer_close(inject_writer);
	inject_writer = NULL;
	ring_destroy(inject_ring);
	inject_ring = NULL;
}

static void inject_start(const char *session)
{
	struct writer_thread_options wopt = { 0 };
	char reason[256] = "";

	snprintf(inject_path, sizeof(inject_path), "%s", session);
	if (inject_open(session) != 0) {
		nvtx_detach();
		return;
	}
	inject_ring = ring_create(INJECT_RING_RECORDS);
	if (!inject_ring) {
		inject_untraced("out of memory");
		return;
	}
	inject_backend = collector_backend_named(getenv("SMTOP_SM"));
	if (!inject_backend) {
		char modes[256], why[320];

		inject_backend = &collector_backend_cupti;
		snprintf(why, sizeof why, "SMTOP_SM must be %s", sm_modes_list(modes, sizeof modes));
		inject_untraced(why);
		return;
	}
	if (inject_backend->start(inject_ring, (uint32_t)inject_pid, reason, sizeof(reason)) != 0) {
		inject_untraced(reason);
		return;
	}
	db_writer_set_process_status(inject_writer, "running", NULL);
	if (blocks_init(inject_ring, (uint32_t)inject_pid) != 0)
		log_debug("thread blocks will not be traced");
	wopt.writer = inject_writer;
	wopt.ring = inject_ring;
	wopt.path = inject_path;
	wopt.blocks_released = blocks_released;
	if (writer_thread_start(&wopt) != 0) {
		inject_backend->disable();
		inject_untraced("cannot start the writer thread");
		return;
	}
	inject_running = 1;
	nvtx_attach(inject_nvtx_sink);
	inject_go_global();
	atexit(inject_atexit);
	pthread_atfork(NULL, NULL, inject_child_after_fork);
	inject_install_signals();
	log_debug("tracing pid %d into %s (--sm %s)", (int)inject_pid, session, inject_backend->name);
}

int InitializeInjection(void)
{
	const char *session;

	if (atomic_flag_test_and_set(&inject_once))
		return 1;
	log_init();
	session = getenv("SMTOP_SESSION");
	if (!session || !*session) {
		nvtx_detach();
		return 1;
	}
	inject_pid = getpid();
	inject_start(session);
	return 1;
}
