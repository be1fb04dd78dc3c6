#include "collectors/inject.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>


#include "collectors/backend.h"
#include "src/core/control_proto.h"
#include "src/core/sm_modes.h"
#include "src/core/threads.h"
#include "collectors/blocks.h"
#include "collectors/control.h"
#include "collectors/drops.h"
#include "collectors/log.h"
#include "collectors/nvtx.h"
#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/session_end.h"
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
static char inject_path[4096];
/* Started by `smtop launch`: dormant until the control channel switches
 * recording on, each time into a session of the collector's own. */
static int inject_launched;
static _Atomic int inject_recording;
static pthread_mutex_t inject_switch_lock = PTHREAD_MUTEX_INITIALIZER;
/* Why recording cannot be switched on here (set once, at the start). */
static char inject_unavailable[256];

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

static void inject_end_session(int clean, const char *status, const char *reason);

/* A launched process ends its own session: no smtop need be there. */
static void inject_atexit_launched(void)
{
	control_stop();
	pthread_mutex_lock(&inject_switch_lock);
	inject_running = 0;
	nvtx_detach();
	if (!inject_unavailable[0]) {
		inject_backend->stop_threads();
		if (atomic_load(&inject_recording))
			inject_backend->flush(1);
		blocks_shutdown();
		if (inject_backend->finish)
			inject_backend->finish();
		inject_backend->disable();
	}
	if (atomic_load(&inject_recording))
		inject_end_session(1, "exited", NULL);
	pthread_mutex_unlock(&inject_switch_lock);
}

static void inject_atexit(void)
{
	if (!inject_running || inject_forked || getpid() != inject_pid)
		return;
	if (inject_launched) {
		inject_atexit_launched();
		return;
	}
	control_stop();
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
	control_forget();
	nvtx_detach();
	inject_backend->disable();
	writer_thread_forget();
}

/* SMTOP_DEBUG: a crash's stack on stderr, to tell whether it was ours.
 * backtrace() was called once at install, so that its library is loaded
 * and it allocates nothing here.  backtrace() cannot unwind past a frame
 * without unwind data (a call through a null pointer lands at pc 0; the
 * driver's and the sanitizer's libraries have none), so the faulting pc
 * and the words near the top of the stack that point into a loaded
 * library (among them the return addresses of the callers) come first. */
#define INJECT_STACK_WORDS 1024
#define INJECT_STACK_NAMED 24

static uintptr_t inject_page = 4096; /* taken at install: sysconf is no call for a handler */

/* How many of the INJECT_STACK_WORDS words from sp on can be read: the
 * stack may end a few words above a frame near its top, and a read past
 * it would fault inside the handler.  mincore fails on a page not mapped. */
static size_t inject_stack_words(const void *const *sp)
{
	uintptr_t from = (uintptr_t)sp, to = from + INJECT_STACK_WORDS * sizeof(void *), p;
	unsigned char resident;

	for (p = from & ~(inject_page - 1); p < to; p += inject_page)
		if (mincore((void *)p, inject_page, &resident) != 0)
			break;
	return p > from ? ((p < to ? p : to) - from) / sizeof(void *) : 0;
}

static void inject_debug_words(const ucontext_t *uc)
{
#if defined(__x86_64__)
	static const char head[] = "smtop[debug]: fault at pc, then words on the stack that point into libraries:\n";
	const void *const *sp = (const void *const *)uc->uc_mcontext.gregs[REG_RSP];
	size_t n_words = sp ? inject_stack_words(sp) : 0;
	void *at[1 + INJECT_STACK_NAMED];
	int n = 0;
	Dl_info info;

	at[n++] = (void *)uc->uc_mcontext.gregs[REG_RIP];
	for (size_t i = 0; i < n_words && n < 1 + INJECT_STACK_NAMED; i++)
		if (sp[i] && dladdr(sp[i], &info) && info.dli_fname)
			at[n++] = (void *)sp[i];
	if (write(2, head, sizeof(head) - 1) < 0)
		return;
	backtrace_symbols_fd(at, n, 2);
#else
	(void)uc;
#endif
}

/* The faulting thread's name: smtop's own threads are named smtop-*, the
 * workload's are not (its threads run smtop's code only in callbacks). */
static void inject_debug_thread(void)
{
	char name[17] = { 0 }, line[64] = "smtop[debug]: in thread ";
	size_t n = strlen(line);

	if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
		return;
	for (size_t i = 0; name[i] && n + 2 < sizeof(line); i++)
		line[n++] = name[i];
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		return;
}

static void inject_debug_stack(int sig, const ucontext_t *uc)
{
	void *frames[48];
	int n;

	if (sig == SIGTERM || sig == SIGINT || !log_debug_enabled())
		return;
	inject_debug_thread();
	if (uc)
		inject_debug_words(uc);
	n = backtrace(frames, 48);
	backtrace_symbols_fd(frames, n, 2);
}

static void inject_on_signal(int sig, siginfo_t *info, void *context)
{
	int saved = errno;
	struct sigaction dfl;

	(void)info;
	if (inject_running && !inject_forked && getpid() == inject_pid &&
	    !atomic_flag_test_and_set(&inject_in_signal)) {
		control_unlink_from_signal();
		writer_thread_commit_from_signal(sig);
	}
	inject_debug_stack(sig, context); /* after the commit: a fault in it loses nothing */
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
	void *frame;

	if (log_debug_enabled()) {
		backtrace(&frame, 1);
		inject_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	}
	for (size_t i = 0; i < sizeof(inject_signals) / sizeof(inject_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(inject_signals[i], NULL, &old) != 0)
			continue;
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = inject_on_signal;
		sigfillset(&sa.sa_mask);
		sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
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
	/* a dormant process keeps no ranges: they would only fill the ring */
	if (inject_launched && !atomic_load(&inject_recording)) {
		records_free_owned(rec);
		return;
	}
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

/* Creates the session a launched process records into, as `smtop record`
 * would have. */
static int inject_create(const char *session, char *reason, size_t len)
{
	char command[4096];
	struct db_writer *w;
	struct db_writer_options opt = { .path = session, .create = 1, .session_command = command };

	if (access(session, F_OK) == 0) {
		snprintf(reason, len, "%s: already exists", session);
		return -1;
	}
	inject_command(command, sizeof(command));
	if (db_writer_open(&w, &opt, reason, len) != 0)
		return -1;
	db_writer_close(w);
	return 0;
}

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

static void inject_serve_control(void);

/* Tracing is set up: NVTX ranges, exit, fork and signals, and the control
 * channel. */
static void inject_hook_process(void)
{
	inject_running = 1;
	nvtx_attach(inject_nvtx_sink);
	inject_go_global();
	atexit(inject_atexit);
	pthread_atfork(NULL, NULL, inject_child_after_fork);
	inject_install_signals();
	inject_serve_control();
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
	inject_hook_process();
	log_debug("tracing pid %d into %s (--sm %s)", (int)inject_pid, session, inject_backend->name);
}

/* ---- recording switched on and off (smtop launch) --------------------------- */

/* Records that arrived while nothing was recorded (block drains, late
 * buffers) belong to no session. */
static void inject_discard_ring(void)
{
	struct smtop_record recs[256];
	size_t n;

	while ((n = ring_pop(inject_ring, recs, sizeof recs / sizeof recs[0])) > 0)
		for (size_t i = 0; i < n; i++)
			records_free_owned(&recs[i]);
	ring_take_drops(inject_ring);
	for (int d = 0; d < DROPS_NSOURCES; d++)
		drops_take((enum drops_source)d);
}

/* Stops the writer and ends the session: its process status (the process
 * itself may run on), the session's end and its clock.  Under the lock. */
static void inject_end_session(int clean, const char *status, const char *reason)
{
	writer_thread_stop();
	atomic_store(&inject_recording, 0);
	db_writer_set_process_status(inject_writer, status, reason);
	if (db_session_end(inject_writer, inject_path, clean, reason) != 0)
		log_fail("%s", db_writer_error(inject_writer));
	db_writer_close(inject_writer);
	inject_writer = NULL;
	log_debug("session %s ended", inject_path);
}

static int inject_begin_session(const char *session, char *reason, size_t len)
{
	struct writer_thread_options wopt = { 0 };

	if (inject_create(session, reason, len) != 0)
		return -1;
	snprintf(inject_path, sizeof(inject_path), "%s", session);
	if (inject_open(session) != 0) {
		snprintf(reason, len, "%s: cannot open the new session", session);
		return -1;
	}
	inject_discard_ring();
	db_writer_set_process_status(inject_writer, "running", NULL);
	wopt.writer = inject_writer;
	wopt.ring = inject_ring;
	wopt.path = inject_path;
	wopt.blocks_released = blocks_released;
	wopt.end_session_on_signal = 1;
	if (writer_thread_start(&wopt) != 0) {
		snprintf(reason, len, "cannot start the writer thread");
		db_writer_set_process_status(inject_writer, "untraced", reason);
		db_session_end(inject_writer, inject_path, 0, reason);
		db_writer_close(inject_writer);
		inject_writer = NULL;
		return -1;
	}
	return 0;
}

static int inject_on(const char *session, char *reason, size_t len)
{
	int rc = -1;

	if (!inject_launched) {
		snprintf(reason, len, "this process records from start to end for smtop record");
		return -1;
	}
	pthread_mutex_lock(&inject_switch_lock);
	if (inject_unavailable[0])
		snprintf(reason, len, "%s", inject_unavailable);
	else if (!inject_running)
		snprintf(reason, len, "the process is exiting");
	else if (atomic_load(&inject_recording))
		snprintf(reason, len, "already recording into %s", inject_path);
	else if (inject_begin_session(session, reason, len) == 0) {
		atomic_store(&inject_recording, 1);
		rc = inject_backend->set_recording(1, reason, len);
		if (rc != 0)
			inject_end_session(0, "untraced", reason);
	}
	pthread_mutex_unlock(&inject_switch_lock);
	return rc;
}

static int inject_off(char *reason, size_t len)
{
	int rc = 0;

	if (!inject_launched) {
		snprintf(reason, len, "this process records from start to end for smtop record");
		return -1;
	}
	pthread_mutex_lock(&inject_switch_lock);
	if (!atomic_load(&inject_recording)) {
		snprintf(reason, len, "not recording");
		rc = -1;
	} else if ((rc = inject_backend->set_recording(0, reason, len)) != 0) {
		/* still recording, the session and the backend alike: ending
		 * the session here would leave the backend recording for none */
		size_t n = strlen(reason);

		snprintf(reason + n, len - n, CONTROL_PROTO_STILL_RECORDING "%s", inject_path);
	} else {
		/* the backend handed over what it held before the writer stops */
		inject_end_session(1, "detached", "recording switched off");
		snprintf(reason, len, "%s", inject_path);
	}
	pthread_mutex_unlock(&inject_switch_lock);
	return rc;
}

static int inject_window(uint64_t ms, char *reason, size_t len)
{
	if (!inject_backend->exact_window) {
		snprintf(reason, len, "--sm %s has no exact windows (--sm entry has)", inject_backend->name);
		return -1;
	}
	if (!inject_running || (inject_launched && !atomic_load(&inject_recording))) {
		snprintf(reason, len, "not recording");
		return -1;
	}
	if (inject_backend->exact_window(ms * 1000000ull, reason, len) != 0)
		return -1;
	snprintf(reason, len, "exact block ends for %llu ms", (unsigned long long)ms);
	return 0;
}

static void inject_status(struct control_proto_status *st)
{
	int on = inject_launched ? atomic_load(&inject_recording) : inject_running;

	st->pid = inject_pid;
	snprintf(st->sm, sizeof st->sm, "%s", inject_backend->name);
	st->recording = on;
	st->blocks = on ? writer_thread_blocks() : 0;
	if (on)
		snprintf(st->session, sizeof st->session, "%s", inject_path);
	inject_command(st->command, sizeof st->command);
}

static void inject_serve_control(void)
{
	static const struct control_handlers h = {
		.status = inject_status, .on = inject_on, .off = inject_off, .window = inject_window,
	};
	char reason[512];

	/* a process that cannot be reached is still traced (or runs on) */
	if (control_start(&h, reason, sizeof reason) != 0)
		log_fail("no control channel: %s", reason);
}

/* The backend started and at once told to record nothing, before any
 * kernel runs: the workload runs as if alone until `on`. */
static void inject_start_dormant(void)
{
	char reason[256] = "";

	if (!inject_backend->set_recording) {
		snprintf(inject_unavailable, sizeof inject_unavailable,
			 "--sm %s cannot switch recording on and off", inject_backend->name);
		return;
	}
	if (inject_backend->start(inject_ring, (uint32_t)inject_pid, reason, sizeof(reason)) != 0) {
		snprintf(inject_unavailable, sizeof inject_unavailable, "%s", reason);
		return;
	}
	if (inject_backend->set_recording(0, reason, sizeof reason) != 0) {
		inject_backend->disable();
		snprintf(inject_unavailable, sizeof inject_unavailable, "%s", reason);
		return;
	}
	if (blocks_init(inject_ring, (uint32_t)inject_pid) != 0)
		log_debug("thread blocks will not be traced");
}

static void inject_launch(void)
{
	inject_ring = ring_create(INJECT_RING_RECORDS);
	inject_backend = collector_backend_named(getenv("SMTOP_SM"));
	if (!inject_ring || !inject_backend) {
		char modes[256];

		if (!inject_ring)
			log_fail("tracing disabled: out of memory");
		else
			log_fail("tracing disabled: SMTOP_SM must be %s", sm_modes_list(modes, sizeof modes));
		ring_destroy(inject_ring);
		inject_ring = NULL;
		inject_backend = &collector_backend_cupti;
		nvtx_detach();
		return;
	}
	inject_launched = 1;
	inject_start_dormant();
	if (inject_unavailable[0])
		log_fail("recording cannot be switched on: %s", inject_unavailable);
	inject_hook_process();
	log_debug("pid %d dormant (--sm %s)", (int)inject_pid, inject_backend->name);
}

/* SMTOP_COLLECTOR_CPUS: the collector's threads (drains, writer, control)
 * run on those CPUs, apart from the program's, whose own stay where they
 * were.  Read before the first of them starts; a list that names no CPU
 * here is said once and the threads run where the program's do. */
static void inject_keep_threads(void)
{
	char why[160];
	cpu_set_t set;
	int r = thread_collector_cpus(&set, why, sizeof why);

	if (r < 0)
		log_fail("pid %d: %s: the collector's threads run where the program's do", (int)getpid(), why);
	if (r <= 0)
		return;
	thread_keep_on(&set);
	log_debug("pid %d: the collector's threads run on %d CPUs of their own", (int)getpid(), CPU_COUNT(&set));
}

int InitializeInjection(void)
{
	const char *session, *launch;

	if (atomic_flag_test_and_set(&inject_once))
		return 1;
	log_init();
	inject_keep_threads();
	session = getenv("SMTOP_SESSION");
	launch = getenv("SMTOP_LAUNCH");
	inject_pid = getpid();
	if (session && *session) {
		inject_start(session);
	} else if (launch && !strcmp(launch, "1")) {
		inject_launch();
	} else {
		nvtx_detach();
	}
	return 1;
}
