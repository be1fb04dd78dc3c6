#include "src/core/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/core/clock.h"
#include "src/core/threads.h"

struct pool {
	int threads;
	pthread_t *tids;
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	/* the job in progress, published under lock with a new generation */
	_Atomic unsigned long gen;
	pool_fn fn;
	void *ud;
	size_t n;
	atomic_size_t next;
	_Atomic int busy;               /* workers still in the current job */
	_Atomic int quit;
	uint64_t spin_ns;               /* pool_set_spin */
};

struct pool_worker {
	struct pool *p;
	int id;
};

static void pool_work(struct pool *p, int worker)
{
	size_t t;
	while ((t = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed)) < p->n)
		p->fn(p->ud, t, worker);
}

static inline void pool_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* A worker's wait: a job after generation `seen`, or the end. */
static int pool_job_after(const struct pool *p, unsigned long seen)
{
	return atomic_load_explicit(&p->gen, memory_order_acquire) != seen || atomic_load(&p->quit);
}

/* pool_run's wait: every worker left the job. */
static int pool_idle(const struct pool *p, unsigned long unused)
{
	(void)unused;
	return !atomic_load(&p->busy);
}

/* Up to p->spin_ns for ready(p, arg): 1 when it came. */
static int pool_spin(const struct pool *p, int (*ready)(const struct pool *, unsigned long), unsigned long arg)
{
	uint64_t until;

	if (!p->spin_ns)
		return 0;
	until = clock_mono_ns() + p->spin_ns;
	do {
		for (int i = 0; i < 64; i++) {
			if (ready(p, arg))
				return 1;
			pool_relax();
		}
	} while (clock_mono_ns() < until);
	return 0;
}

/* The job's generation is seen once by each worker: pool_run publishes
 * the next only after every worker left this one. */
static void *pool_main(void *arg)
{
	struct pool_worker w = *(struct pool_worker *)arg;
	struct pool *p = w.p;
	unsigned long seen = 0;
	free(arg);
	for (;;) {
		if (!pool_spin(p, pool_job_after, seen)) {
			pthread_mutex_lock(&p->lock);
			while (!atomic_load(&p->quit) && atomic_load(&p->gen) == seen)
				pthread_cond_wait(&p->wake, &p->lock);
			pthread_mutex_unlock(&p->lock);
		}
		if (atomic_load(&p->quit))
			break;
		seen = atomic_load_explicit(&p->gen, memory_order_acquire);
		pool_work(p, w.id);
		if (atomic_fetch_sub(&p->busy, 1) == 1) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
	}
	return NULL;
}

struct pool *pool_new(int threads)
{
	struct pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (threads > POOL_MAX_THREADS)
		threads = POOL_MAX_THREADS;
	p->threads = threads > 1 ? threads : 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	if (p->threads == 1)
		return p;
	p->tids = calloc((size_t)p->threads, sizeof *p->tids);
	if (!p->tids) {
		pool_free(p);
		return NULL;
	}
	for (int i = 1; i < p->threads; i++) {
		struct pool_worker *w = malloc(sizeof *w);
		if (w)
			*w = (struct pool_worker){ p, i };
		if (!w || thread_start(&p->tids[i], "smtop-pool", pool_main, w) != 0) {
			free(w);
			p->threads = i; /* the ones started are joined by pool_free */
			pool_free(p);
			return NULL;
		}
	}
	return p;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (int i = 1; p->tids && i < p->threads; i++)
		pthread_join(p->tids[i], NULL);
	free(p->tids);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int pool_threads(const struct pool *p)
{
	return p ? p->threads : 1;
}

void pool_run(struct pool *p, size_t n, pool_fn fn, void *ud)
{
	if (!n)
		return;
	if (!p || p->threads == 1 || n == 1) {
		for (size_t t = 0; t < n; t++)
			fn(ud, t, 0);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->ud = ud;
	p->n = n;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	atomic_store(&p->busy, p->threads - 1);
	atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pool_work(p, 0);
	if (pool_spin(p, pool_idle, 0))
		return;
	pthread_mutex_lock(&p->lock);
	while (atomic_load(&p->busy))
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void pool_set_spin(struct pool *p, uint64_t spin_ns)
{
	if (p)
		p->spin_ns = spin_ns;
}

long pool_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

int pool_threads_for(const char *env, long cpus, unsigned cpus_per_thread, int max)
{
	long n = env && *env ? strtol(env, NULL, 10) : 0;

	if (n < 1)
		n = cpus / (cpus_per_thread ? cpus_per_thread : 1);
	if (n < 1)
		n = 1;
	return n > max ? max : (int)n;
}

int pool_default_threads(void)
{
	return pool_threads_for(getenv("SMTOP_THREADS"), pool_cpus(), 1, POOL_DEFAULT_MAX);
}
