#include "src/core/threads.h"

#include <signal.h>

int thread_start_deaf(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, was;
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	r = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return r;
}
