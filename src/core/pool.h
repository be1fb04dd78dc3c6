/* A small pool of worker threads for data-parallel steps of the loader
 * (chunk decode, model binning).  pool_run hands out task numbers to the
 * workers and to the calling thread, and returns when every task is done, so
 * callers stay sequential code with parallel inner loops. */
#ifndef SMTOP_POOL_H
#define SMTOP_POOL_H

#include <stddef.h>

#define POOL_MAX_THREADS 16 /* a pool's participants, at most */
#define POOL_DEFAULT_MAX 8   /* pool_default_threads' cap */

struct pool;

/* fn(ud, task, worker): worker is 0 for the caller, 1..threads-1 for the
 * pool's own threads, so per-worker scratch can be indexed by it. */
typedef void (*pool_fn)(void *ud, size_t task, int worker);

/* A pool of threads participants in all (the caller counts as one): 1 or
 * less runs everything on the caller's thread.  NULL when out of memory or
 * threads cannot be started. */
struct pool *pool_new(int threads);
void pool_free(struct pool *p);
/* Participants, the caller included (1 for a NULL pool). */
int pool_threads(const struct pool *p);

/* Runs fn for tasks 0..n-1 and returns when all are done.  p may be NULL. */
void pool_run(struct pool *p, size_t n, pool_fn fn, void *ud);

/* The CPUs this process may run on. */
long pool_cpus(void);

/* Threads for a job: env's value when it is a number of 1 or more, else
 * one per cpus_per_thread of cpus; 1 to max.  Pure. */
int pool_threads_for(const char *env, long cpus, unsigned cpus_per_thread, int max);

/* Threads for a job beside a program: env's number, else one per
 * cpus_per_thread CPUs the process may run on, or one per CPU kept for
 * smtop's threads (thread_keep_on), where they take no CPU of the
 * program's; 1 to max. */
int pool_threads_beside_program(const char *env, unsigned cpus_per_thread, int max);

/* The CPUs this process may run on, capped at POOL_DEFAULT_MAX;
 * SMTOP_THREADS overrides (1 turns the workers off). */
int pool_default_threads(void);

#endif
