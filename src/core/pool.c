#include "src/core/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/core/threads.h"

struct pool {
	int threads;
	pthread_t *tids;
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	/* the job in progress, published under lock with a new generation */
	unsigned long gen;
	pool_fn fn;
	void *ud;
	size_t n;
	atomic_size_t next;
	int busy;                       /* workers still in the current job */
	int quit;
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

static void *pool_main(void *arg)
{
	struct pool_worker w = *(struct pool_worker *)arg;
	struct pool *p = w.p;
	unsigned long seen = 0;
	free(arg);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->quit)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->lock);
		pool_work(p, w.id);
		pthread_mutex_lock(&p->lock);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
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
	p->busy = p->threads - 1;
	p->gen++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pool_work(p, 0);
	pthread_mutex_lock(&p->lock);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
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

int pool_threads_beside_program(const char *env, unsigned cpus_per_thread, int max)
{
	int kept = thread_kept_cpus();

	return pool_threads_for(env, kept ? kept : pool_cpus(), kept ? 1 : cpus_per_thread, max);
}

int pool_default_threads(void)
{
	return pool_threads_for(getenv("SMTOP_THREADS"), pool_cpus(), 1, POOL_DEFAULT_MAX);
}
