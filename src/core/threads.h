/* Threads of smtop's own: named, and deaf to the program's signals.
 *
 * The collector runs inside the user's program, whose signals must keep
 * going to the program's own threads: a process-directed signal goes to
 * any thread that does not block it, and a program that waits for its
 * signals on one thread (sigwait) blocks them in every thread it made.  A
 * thread inherits its creator's mask, and the collector's threads are often
 * made from the program's threads (inside a launch callback), so the mask
 * is set before the thread exists, not by the thread once it runs.  The
 * name (top -H, ps -L, a debugger) says whose a thread is, beside the
 * program's own. */
#ifndef SMTOP_THREADS_H
#define SMTOP_THREADS_H

#include <pthread.h>

/* pthread_create of fn(arg), with every signal blocked in the new thread
 * and the caller's mask as it was, named name (15 characters at most; a
 * longer one is cut), before fn runs.  0, or pthread_create's error (-1
 * when out of memory). */
int thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg);

#endif
