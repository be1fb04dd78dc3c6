#include "src/core/threads.h"

#include <signal.h>
#include <stdio.h>

int thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg)
{
	sigset_t all, was;
	char cut[16];
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	r = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (r == 0) {
		snprintf(cut, sizeof cut, "%s", name);
		pthread_setname_np(*t, cut);
	}
	return r;
}
