/* The work `smtop record` does after its workload (the library summary) runs
 * as a skippable step: a signal sent to smtop, or one that reaches the step
 * from the terminal, ends it at once and the recording still ends cleanly. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "ui/app/record.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int step_ok(void *arg)
{
	(void)arg;
	return 0;
}

static int step_fails(void *arg)
{
	(void)arg;
	return -1;
}

/* Stands for a summary of a huge session. */
static int step_slow(void *arg)
{
	(void)arg;
	sleep(30);
	return 0;
}

/* A step that ends itself by the terminal's Ctrl-C: its own SIGINT. */
static int step_interrupted(void *arg)
{
	(void)arg;
	raise(SIGINT);
	sleep(30);
	return 0;
}

/* Sends smtop's process a SIGINT as kill(1) or timeout(1) would. */
static void *send_sigint_later(void *arg)
{
	(void)arg;
	usleep(100000);
	kill(getpid(), SIGINT);
	return NULL;
}

Test(record, a_finished_step_reports_its_result)
{
	record_install_forwarding();
	cr_expect_eq(record_skippable_step(step_ok, NULL, NULL), RECORD_STEP_DONE);
	cr_expect_eq(record_skippable_step(step_fails, NULL, NULL), RECORD_STEP_FAILED);
}

Test(record, a_signal_sent_to_smtop_skips_a_running_step)
{
	pthread_t t;
	record_install_forwarding();
	double t0 = now_s();
	cr_assert_eq(pthread_create(&t, NULL, send_sigint_later, NULL), 0);
	int r = record_skippable_step(step_slow, NULL, NULL);
	pthread_join(t, NULL);
	cr_expect_eq(r, RECORD_STEP_SKIPPED);
	cr_expect_lt(now_s() - t0, 5.0, "the step was not stopped: %.1f s", now_s() - t0);
}

Test(record, a_ctrl_c_that_reaches_the_step_skips_it)
{
	record_install_forwarding();
	double t0 = now_s();
	cr_expect_eq(record_skippable_step(step_interrupted, NULL, NULL), RECORD_STEP_SKIPPED);
	cr_expect_lt(now_s() - t0, 5.0);
}

Test(record, the_next_step_runs_after_a_skipped_one)
{
	pthread_t t;
	record_install_forwarding();
	cr_assert_eq(pthread_create(&t, NULL, send_sigint_later, NULL), 0);
	cr_expect_eq(record_skippable_step(step_slow, NULL, NULL), RECORD_STEP_SKIPPED);
	pthread_join(t, NULL);
	cr_expect_eq(record_skippable_step(step_ok, NULL, NULL), RECORD_STEP_DONE);
}
