#include <criterion/criterion.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "src/core/pool.h"
#include "src/core/threads.h"

#define TASKS 64

struct seen {
	_Atomic int ran[TASKS];
	_Atomic int by[POOL_MAX_THREADS];
	_Atomic int heard;              /* tasks a pool thread ran with SIGINT unblocked */
	int pool_runs;                  /* the pool's threads may take tasks: the caller waits for one */
};

static int by_pool(struct seen *s)
{
	int n = 0;

	for (int w = 1; w < POOL_MAX_THREADS; w++)
		n += s->by[w];
	return n;
}

/* Each task waits a little; the caller's first waits until a thread of the
 * pool has taken one (at least 20 ms, at most 5 s), so that on a loaded
 * machine every thread that may take tasks does. */
static void note(void *ud, size_t task, int worker)
{
	struct seen *s = ud;
	struct timespec pause = { 0, 200000 }, tick = { 0, 1000000 };
	sigset_t mask;

	if (worker == 0 && s->pool_runs && s->by[0] == 0)
		for (int ms = 0; ms < 5000 && (ms < 20 || !by_pool(s)); ms++)
			nanosleep(&tick, NULL);
	nanosleep(&pause, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	s->heard += worker != 0 && !sigismember(&mask, SIGINT);
	s->ran[task]++;
	s->by[worker]++;
}

static void expect_each_task_once(const struct seen *s)
{
	for (int t = 0; t < TASKS; t++)
		cr_expect_eq(s->ran[t], 1, "task %d ran %d times", t, s->ran[t]);
}

Test(pool, a_run_takes_every_task_once_on_the_pools_threads)
{
	struct pool *p = pool_new(3);
	struct seen all = { .pool_runs = 1 };

	cr_assert_not_null(p);
	pool_run(p, TASKS, note, &all);
	expect_each_task_once(&all);
	cr_expect_eq(all.by[0] + all.by[1] + all.by[2], TASKS);
	cr_expect_gt(all.by[1] + all.by[2], 0, "the pool's threads took tasks");
	cr_expect_eq(all.heard, 0, "the pool's threads block the program's signals");
	pool_free(p);
}

Test(pool, threads_follow_the_cpus_unless_a_number_is_given)
{
	cr_expect_eq(pool_threads_for(NULL, 16, 2, 8), 8);
	cr_expect_eq(pool_threads_for(NULL, 6, 2, 8), 3);
	cr_expect_eq(pool_threads_for(NULL, 32, 2, 8), 8, "at most max");
	cr_expect_eq(pool_threads_for(NULL, 1, 2, 8), 1, "at least one");
	cr_expect_eq(pool_threads_for("", 6, 2, 8), 3, "empty: as unset");
	cr_expect_eq(pool_threads_for("5", 2, 2, 8), 5, "a number wins over the CPUs");
	cr_expect_eq(pool_threads_for("64", 2, 2, 8), 8);
	cr_expect_eq(pool_threads_for("0", 6, 2, 8), 3, "0: as unset");
	cr_expect_eq(pool_threads_for(NULL, 6, 0, 8), 6, "no ratio: a thread per CPU");
}

Test(pool, threads_beside_a_program_take_one_cpu_each_of_those_kept_for_them)
{
	cpu_set_t kept;

	cr_expect_eq(pool_threads_beside_program(NULL, 1, 64), (int)pool_cpus(), "nothing kept: the process's CPUs");
	CPU_ZERO(&kept);
	CPU_SET(0, &kept);
	thread_keep_on(&kept);
	cr_expect_eq(pool_threads_beside_program(NULL, 2, 8), 1, "one CPU kept: one thread");
	cr_expect_eq(pool_threads_beside_program("3", 2, 8), 3, "a number wins over the CPUs kept");
	if (sysconf(_SC_NPROCESSORS_CONF) >= 2) {
		CPU_SET(1, &kept);
		thread_keep_on(&kept);
		cr_expect_eq(pool_threads_beside_program(NULL, 4, 8), 2, "a thread per CPU kept, whatever the ratio");
	}
	thread_keep_on(NULL);
}

Test(pool, the_cpus_are_those_the_process_may_run_on)
{
	long n = pool_cpus();

	cr_expect_geq(n, 1);
	cr_expect_leq(n, sysconf(_SC_NPROCESSORS_CONF));
}
