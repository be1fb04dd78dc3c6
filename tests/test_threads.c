/* Threads of smtop's own block every signal from their first instruction
 * (inside a user's program, its signals must reach only its threads), and
 * carry a name that says they are smtop's; the collector's run on the CPUs
 * SMTOP_COLLECTOR_CPUS keeps for them. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "src/core/threads.h"

static void *mask_of_thread(void *arg)
{
	pthread_sigmask(SIG_BLOCK, NULL, arg);
	return NULL;
}

Test(threads, a_thread_of_ours_blocks_every_signal)
{
	sigset_t inside, before, after;
	pthread_t t;

	pthread_sigmask(SIG_BLOCK, NULL, &before);
	cr_assert_eq(thread_start(&t, "smtop-test", mask_of_thread, &inside), 0);
	pthread_join(t, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || (sig >= 32 && sig < SIGRTMIN))
			continue; /* cannot be blocked, or glibc's own */
		cr_expect(sigismember(&inside, sig), "signal %d reaches the thread", sig);
		cr_expect_eq(sigismember(&after, sig), sigismember(&before, sig), "the caller's mask changed for %d",
			     sig);
	}
}

Test(threads, a_caller_that_blocks_nothing_keeps_blocking_nothing)
{
	sigset_t none, inside, after;
	pthread_t t;

	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	cr_assert_eq(thread_start(&t, "smtop-test", mask_of_thread, &inside), 0);
	pthread_join(t, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	cr_expect(sigismember(&inside, SIGINT));
	cr_expect(sigismember(&inside, SIGTERM));
	cr_expect(sigismember(&inside, SIGUSR1));
	cr_expect_not(sigismember(&after, SIGINT));
	cr_expect_not(sigismember(&after, SIGUSR1));
}

static void *name_of_thread(void *arg)
{
	pthread_getname_np(pthread_self(), arg, 16);
	return NULL;
}

Test(threads, a_thread_of_ours_says_whose_it_is)
{
	char name[16] = "", cut[16] = "";
	pthread_t t;

	cr_assert_eq(thread_start(&t, "smtop-drain", name_of_thread, name), 0);
	pthread_join(t, NULL);
	cr_expect_str_eq(name, "smtop-drain");
	cr_assert_eq(thread_start(&t, "smtop-a-name-too-long-for-linux", name_of_thread, cut), 0);
	pthread_join(t, NULL);
	cr_expect_str_eq(cut, "smtop-a-name-to", "cut to Linux's 15 characters");
}

Test(threads, a_cpu_list_reads_as_taskset_writes_it)
{
	cpu_set_t set;

	cr_assert_eq(thread_cpus_parse("0", &set), 0);
	cr_expect_eq(CPU_COUNT(&set), 1);
	cr_expect(CPU_ISSET(0, &set));
	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		return;
	cr_assert_eq(thread_cpus_parse("0-1", &set), 0);
	cr_expect_eq(CPU_COUNT(&set), 2);
	cr_assert_eq(thread_cpus_parse("1,0", &set), 0);
	cr_expect(CPU_ISSET(0, &set) && CPU_ISSET(1, &set));
}

Test(threads, a_cpu_list_keeps_only_the_cpus_this_machine_has)
{
	long have = sysconf(_SC_NPROCESSORS_CONF);
	char list[64];
	cpu_set_t set;

	snprintf(list, sizeof list, "0,%ld-%ld", have, have + 7);
	cr_assert_eq(thread_cpus_parse(list, &set), 0);
	cr_expect_eq(CPU_COUNT(&set), 1, "%s: only CPU 0 is here", list);
	snprintf(list, sizeof list, "%ld-%ld", have, have + 7);
	cr_expect_eq(thread_cpus_parse(list, &set), -1, "%s names no CPU here", list);
}

Test(threads, what_is_no_cpu_list_is_refused)
{
	const char *bad[] = { "", "a", "1-", "-1", "3-1", "0,", ",0", "0,,1", "0 1", "1x", "99999999999" };
	cpu_set_t set;

	cr_expect_eq(thread_cpus_parse(NULL, &set), -1);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_expect_eq(thread_cpus_parse(bad[i], &set), -1, "'%s' taken as a CPU list", bad[i]);
}

static void *cpus_of_thread(void *arg)
{
	pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), arg);
	return NULL;
}

Test(threads, threads_started_after_keep_on_run_on_the_cpus_kept)
{
	cpu_set_t kept, inside, mine;
	pthread_t t;

	CPU_ZERO(&kept);
	CPU_SET(0, &kept);
	thread_keep_on(&kept);
	cr_expect_eq(thread_kept_cpus(), 1);
	cr_assert_eq(thread_start(&t, "smtop-test", cpus_of_thread, &inside), 0);
	pthread_join(t, NULL);
	thread_keep_on(NULL);
	cr_expect(CPU_EQUAL(&inside, &kept), "the thread runs on %d CPUs, not CPU 0 alone", CPU_COUNT(&inside));
	cr_expect_eq(thread_kept_cpus(), 0);
	/* the caller's own CPUs stay as they were */
	pthread_getaffinity_np(pthread_self(), sizeof mine, &mine);
	cr_assert_eq(thread_start(&t, "smtop-test", cpus_of_thread, &inside), 0);
	pthread_join(t, NULL);
	cr_expect(CPU_EQUAL(&inside, &mine), "after keep_on(NULL) a thread runs where its creator does");
}
