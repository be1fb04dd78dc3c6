#include "src/core/threads.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

struct thread_start {
	void *(*fn)(void *);
	void *arg;
	char name[16];                  /* Linux's limit, the NUL included */
};

/* The thread names itself before anything of fn runs. */
static void *thread_named(void *p)
{
	struct thread_start s = *(struct thread_start *)p;

	free(p);
	pthread_setname_np(pthread_self(), s.name);
	return s.fn(s.arg);
}

int thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg)
{
	struct thread_start *s = malloc(sizeof(*s));
	sigset_t all, was;
	int r;

	if (!s)
		return -1;
	*s = (struct thread_start){ .fn = fn, .arg = arg };
	snprintf(s->name, sizeof s->name, "%s", name);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	r = pthread_create(t, NULL, thread_named, s);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (r != 0)
		free(s);
	return r;
}
