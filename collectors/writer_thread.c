#include "collectors/writer_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/drops.h"
#include "collectors/log.h"
#include "collectors/ring.h"
#include "db/writer.h"
#include "src/core/clock.h"
#include "src/core/threads.h"

#define WRITER_THREAD_MAX_META 16

struct writer_thread_meta {
	char *key, *value;
};

static struct {
	struct db_writer *w;
	struct ring *ring;
	char path[512];
	int period_ms;
	void (*blocks_released)(uint64_t n);
	int end_session_on_signal;
	_Atomic uint64_t blocks;
	pthread_t thread;
	int wake[2];            /* commands in: 'c' commit (signal), 's' stop */
	int ack[2];             /* 'a' out after a signal commit */
	_Atomic int running;
	_Atomic int disk_full;
	volatile sig_atomic_t crash_sig;
	int stopped_writing;    /* disk full or a broken session: discard */
	int reported;           /* one failure line per process */
	uint64_t lost;          /* records a failed write took with it */
	uint64_t write_ns, written; /* time in the store, records stored (SMTOP_DEBUG) */
	struct smtop_record *batch;
	pthread_mutex_t meta_lock;
	size_t n_meta;
	struct writer_thread_meta meta[WRITER_THREAD_MAX_META];
} wt = { .wake = { -1, -1 }, .ack = { -1, -1 }, .meta_lock = PTHREAD_MUTEX_INITIALIZER };

/* One line per process; the writer's error already names the file. */
static void writer_thread_fail(void)
{
	const char *err = db_writer_error(wt.w);

	if (wt.reported)
		return;
	wt.reported = 1;
	if (err && *err)
		log_fail("%s", err);
	else
		log_fail("%s: write failed", wt.path);
}

static void writer_thread_discard(struct smtop_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		records_free_owned(&recs[i]);
}

/* Blocks handed over but not yet stored bound the drain (blocks.c). */
static void writer_thread_release_blocks(const struct smtop_record *recs, size_t n)
{
	uint64_t blocks = 0;
	for (size_t i = 0; i < n; i++)
		if (recs[i].kind == SMTOP_REC_BLOCKS)
			blocks += recs[i].u.blocks.count;
		else if (recs[i].kind == SMTOP_REC_CHUNK)
			blocks += recs[i].u.chunk.count;
	if (blocks && wt.blocks_released)
		wt.blocks_released(blocks);
	if (!wt.stopped_writing)
		atomic_fetch_add(&wt.blocks, blocks);
}

static void writer_thread_write(size_t n)
{
	writer_thread_release_blocks(wt.batch, n);
	if (wt.stopped_writing) {
		writer_thread_discard(wt.batch, n);
		return;
	}
	uint64_t t0 = clock_mono_ns();
	int r = db_writer_write(wt.w, wt.batch, n);

	wt.write_ns += clock_mono_ns() - t0;
	if (r == 0) {
		wt.written += n;
		return;
	}
	if (db_writer_disk_full(wt.w)) {
		atomic_store(&wt.disk_full, 1);
		wt.stopped_writing = 1;
		writer_thread_fail();
		return;
	}
	wt.lost += n;
	writer_thread_fail();
}

/* Pops until the ring is drained or a batch comes back short, so producers
 * that outpace us cannot keep this loop from ever returning. */
static void writer_thread_commit(void)
{
	for (;;) {
		size_t n = ring_pop(wt.ring, wt.batch, WRITER_THREAD_BATCH);

		if (n == 0)
			return;
		writer_thread_write(n);
		if (n < WRITER_THREAD_BATCH)
			return;
	}
}

static void writer_thread_add_drops(const char *source, uint64_t n)
{
	if (n && !wt.stopped_writing && db_writer_add_drops(wt.w, source, n) != 0)
		log_debug("recording %llu %s drops failed", (unsigned long long)n, source);
}

static void writer_thread_flush_counters(void)
{
	uint64_t ring_lost = ring_take_drops(wt.ring) + wt.lost;

	wt.lost = 0;
	writer_thread_add_drops("ring", ring_lost);
	writer_thread_add_drops(drops_name(DROPS_CUPTI), drops_take(DROPS_CUPTI));
	writer_thread_add_drops(drops_name(DROPS_BLOCKS), drops_take(DROPS_BLOCKS));
	writer_thread_add_drops(drops_name(DROPS_NVTX), drops_take(DROPS_NVTX));
}

static void writer_thread_flush_meta(void)
{
	struct writer_thread_meta meta[WRITER_THREAD_MAX_META];
	size_t n;

	pthread_mutex_lock(&wt.meta_lock);
	n = wt.n_meta;
	memcpy(meta, wt.meta, n * sizeof(meta[0]));
	wt.n_meta = 0;
	pthread_mutex_unlock(&wt.meta_lock);
	for (size_t i = 0; i < n; i++) {
		if (!wt.stopped_writing)
			db_writer_set_meta(wt.w, meta[i].key, meta[i].value);
		free(meta[i].key);
		free(meta[i].value);
	}
}

static void writer_thread_mark_crashed(int sig)
{
	char reason[64];
	const char *name = sigabbrev_np(sig);

	snprintf(reason, sizeof(reason), "killed by signal %d (SIG%s)", sig, name ? name : "?");
	if (wt.stopped_writing)
		return;
	db_writer_set_process_status(wt.w, "crashed", reason);
	if (wt.end_session_on_signal)
		db_writer_finish_session(wt.w, 0, reason);
}

/* Reads every pending command byte; returns them as flags. */
static int writer_thread_commands(void)
{
	char buf[64];
	int flags = 0;
	ssize_t n;

	while ((n = read(wt.wake[0], buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			flags |= buf[i] == 's' ? 1 : buf[i] == 'c' ? 2 : 0;
	}
	return flags;
}

static void *writer_thread_main(void *arg)
{
	struct pollfd p = { .events = POLLIN };

	(void)arg;
	p.fd = wt.wake[0];
	for (;;) {
		int cmd;

		poll(&p, 1, wt.period_ms);
		cmd = writer_thread_commands();
		writer_thread_commit();
		writer_thread_flush_meta();
		writer_thread_flush_counters();
		if (cmd & 2) {
			writer_thread_mark_crashed(wt.crash_sig);
			if (write(wt.ack[1], "a", 1) < 0)
				log_debug("signal acknowledgement failed: %s", strerror(errno));
		}
		if (cmd & 1)
			return NULL;
	}
}

static int writer_thread_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

static void writer_thread_close_pipes(void)
{
	for (int i = 0; i < 2; i++) {
		if (wt.wake[i] >= 0)
			close(wt.wake[i]);
		if (wt.ack[i] >= 0)
			close(wt.ack[i]);
		wt.wake[i] = wt.ack[i] = -1;
	}
}

int writer_thread_start(const struct writer_thread_options *opt)
{
	wt.w = opt->writer;
	wt.ring = opt->ring;
	wt.blocks_released = opt->blocks_released;
	wt.end_session_on_signal = opt->end_session_on_signal;
	atomic_store(&wt.blocks, 0);
	wt.period_ms = opt->period_ms > 0 ? opt->period_ms : WRITER_THREAD_PERIOD_MS;
	snprintf(wt.path, sizeof(wt.path), "%s", opt->path ? opt->path : "session");
	wt.stopped_writing = 0;
	wt.reported = 0;
	wt.lost = 0;
	atomic_store(&wt.disk_full, 0);
	wt.batch = malloc(WRITER_THREAD_BATCH * sizeof(*wt.batch));
	if (!wt.batch || writer_thread_pipe(wt.wake) != 0 || writer_thread_pipe(wt.ack) != 0)
		goto fail;
	if (thread_start(&wt.thread, "smtop-writer", writer_thread_main, NULL) != 0)
		goto fail;
	atomic_store(&wt.running, 1);
	return 0;
fail:
	writer_thread_close_pipes();
	free(wt.batch);
	wt.batch = NULL;
	return -1;
}

void writer_thread_stop(void)
{
	if (!atomic_exchange(&wt.running, 0))
		return;
	if (write(wt.wake[1], "s", 1) < 0)
		log_debug("stopping the writer thread: %s", strerror(errno));
	pthread_join(wt.thread, NULL);
	/* Whatever arrived after the thread's last pass. */
	writer_thread_commit();
	writer_thread_flush_meta();
	writer_thread_flush_counters();
	writer_thread_close_pipes();
	free(wt.batch);
	wt.batch = NULL;
	log_debug("writer: %llu records stored in %.3f s", (unsigned long long)wt.written,
		  (double)wt.write_ns / 1e9);
}

void writer_thread_finish(struct db_writer *w)
{
	sigset_t xfsz, old, pending;
	struct timespec now = { 0, 0 };
	int was_pending;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
	writer_thread_stop();
	db_writer_set_process_status(w, "exited", NULL);
	db_writer_close(w);
	/* discard the SIGXFSZ our writes raised, not one that was already there */
	if (!was_pending)
		sigtimedwait(&xfsz, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

uint64_t writer_thread_blocks(void)
{
	return atomic_load(&wt.blocks);
}

int writer_thread_running(void)
{
	return atomic_load(&wt.running);
}

int writer_thread_disk_full(void)
{
	return atomic_load(&wt.disk_full);
}

void writer_thread_set_meta(const char *key, const char *value)
{
	pthread_mutex_lock(&wt.meta_lock);
	if (wt.n_meta < WRITER_THREAD_MAX_META) {
		wt.meta[wt.n_meta].key = strdup(key);
		wt.meta[wt.n_meta].value = strdup(value);
		if (wt.meta[wt.n_meta].key && wt.meta[wt.n_meta].value) {
			wt.n_meta++;
		} else {
			free(wt.meta[wt.n_meta].key);
			free(wt.meta[wt.n_meta].value);
		}
	}
	pthread_mutex_unlock(&wt.meta_lock);
}

int writer_thread_commit_from_signal(int sig)
{
	struct pollfd p;
	char c;

	if (!atomic_load(&wt.running) || wt.wake[1] < 0)
		return -1;
	wt.crash_sig = sig;
	if (write(wt.wake[1], "c", 1) != 1)
		return -1;
	p.fd = wt.ack[0];
	p.events = POLLIN;
	p.revents = 0;
	if (poll(&p, 1, WRITER_THREAD_ACK_MS) != 1)
		return -1;
	return read(wt.ack[0], &c, 1) == 1 ? 0 : -1;
}

void writer_thread_forget(void)
{
	atomic_store(&wt.running, 0);
	writer_thread_close_pipes();
	wt.batch = NULL;
	wt.n_meta = 0;
}
