/* Threads of smtop's own block every signal from their first instruction
 * (inside a user's program, its signals must reach only its threads), and
 * carry a name that says they are smtop's. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>

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
