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
#include <sched.h>

/* pthread_create of fn(arg), with every signal blocked in the new thread
 * and the caller's mask as it was, named name (15 characters at most; a
 * longer one is cut), before fn runs, on the CPUs thread_keep_on gave.
 * 0, or pthread_create's error (-1 when out of memory). */
int thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg);

/* A CPU list as taskset -c and cpusets write it ("8-15", "0,2,4-5") into
 * set, keeping only the CPUs this machine has.  0, or -1 when list is no
 * such list or names none of them. */
int thread_cpus_parse(const char *list, cpu_set_t *set);

/* SMTOP_COLLECTOR_CPUS, the CPUs kept for the collector's threads, into
 * set: 1, or 0 when unset, or -1 with why (one line, naming the variable
 * and its value) when it is no list of this machine's CPUs. */
int thread_collector_cpus(cpu_set_t *set, char *why, size_t len);

/* Threads started from now on run on set's CPUs (NULL: on their
 * creator's): the collector's, kept off the program's cores.  A thread
 * the set cannot be given to starts where its creator runs. */
void thread_keep_on(const cpu_set_t *set);

/* The CPUs thread_keep_on gave, 0 when none. */
int thread_kept_cpus(void);

#endif
