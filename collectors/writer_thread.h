/* The one thread that owns the process's db_writer: pops record batches from
 * the ring (up to WRITER_THREAD_BATCH records, at least every 50 ms), commits
 * them, and adds the drop counters.  A full disk stops recording, never the
 * workload. */
#ifndef SMTOP_COLLECTORS_WRITER_THREAD_H
#define SMTOP_COLLECTORS_WRITER_THREAD_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

struct db_writer;
struct ring;

#define WRITER_THREAD_BATCH 50000
#define WRITER_THREAD_PERIOD_MS 50
#define WRITER_THREAD_ACK_MS 500

struct writer_thread_options {
	struct db_writer *writer;
	struct ring *ring;
	const char *path;       /* for messages */
	int period_ms;          /* 0: WRITER_THREAD_PERIOD_MS */
	/* Told how many blocks each write stored or dropped (the block drains
	 * bound what they hand over by it); may be NULL. */
	void (*blocks_released)(uint64_t n);
	/* A signal that ends the process also ends the session (the collector
	 * of a launched process owns it; no smtop will). */
	int end_session_on_signal;
};

/* 0, or -1 (no thread; the caller still owns the writer). */
int writer_thread_start(const struct writer_thread_options *opt);

/* Commits everything in the ring, writes the drop counts and joins.  The
 * caller owns the writer again afterwards. */
void writer_thread_stop(void);

int writer_thread_running(void);

/* At exit, on the workload's own thread: writer_thread_stop, then marks the
 * process exited and closes w.  A file-size limit reached by these last
 * writes fails them (reported as a full disk) instead of killing the
 * workload with SIGXFSZ. */
void writer_thread_finish(struct db_writer *w);

/* Blocks stored since writer_thread_start. */
uint64_t writer_thread_blocks(void);

/* Set when a write failed because the disk is full. */
int writer_thread_disk_full(void);

/* Queues a session meta value for the writer thread to store. */
void writer_thread_set_meta(const char *key, const char *value);

/* Async-signal-safe: asks the writer to commit what it holds and to mark
 * the process crashed by sig, and waits at most WRITER_THREAD_ACK_MS for it.
 * Returns 0 when acknowledged. */
int writer_thread_commit_from_signal(int sig);

/* In a forked child: forget the parent's thread without touching it. */
void writer_thread_forget(void);

#pragma GCC visibility pop

#endif
