#include "src/core/threads.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Set once, before the collector's first thread, and read when each
 * starts. */
static cpu_set_t thread_cpus;
static int thread_n_cpus;

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

/* pthread_create on the kept CPUs; where the creator runs when the
 * system refuses them (a cpuset without them). */
static int thread_create_kept(pthread_t *t, struct thread_start *s)
{
	pthread_attr_t a;
	int r;

	if (pthread_attr_init(&a) != 0)
		return pthread_create(t, NULL, thread_named, s);
	r = pthread_attr_setaffinity_np(&a, sizeof thread_cpus, &thread_cpus);
	if (r == 0)
		r = pthread_create(t, &a, thread_named, s);
	pthread_attr_destroy(&a);
	if (r == EINVAL)
		r = pthread_create(t, NULL, thread_named, s);
	return r;
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
	r = thread_n_cpus ? thread_create_kept(t, s) : pthread_create(t, NULL, thread_named, s);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (r != 0)
		free(s);
	return r;
}

/* One number of a CPU list at *p, below CPU_SETSIZE; -1 if none. */
static long thread_cpu_at(const char **p)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)**p))
		return -1;
	n = strtol(*p, &end, 10);
	*p = end;
	return n < CPU_SETSIZE ? n : -1;
}

int thread_cpus_parse(const char *list, cpu_set_t *set)
{
	long have = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = list;

	CPU_ZERO(set);
	if (!p || !*p)
		return -1;
	for (;;) {
		long lo = thread_cpu_at(&p), hi = lo;

		if (*p == '-') {
			p++;
			hi = thread_cpu_at(&p);
		}
		if (lo < 0 || hi < lo)
			return -1;
		for (long c = lo; c <= hi && c < have; c++)
			CPU_SET((int)c, set);
		if (!*p)
			break;
		if (*p++ != ',')
			return -1;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

int thread_collector_cpus(cpu_set_t *set, char *why, size_t len)
{
	const char *list = getenv("SMTOP_COLLECTOR_CPUS");
	char shown[48];

	if (!list || !*list)
		return 0;
	if (thread_cpus_parse(list, set) == 0)
		return 1;
	snprintf(shown, sizeof shown, "%s", list);
	for (char *c = shown; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	snprintf(why, len, "SMTOP_COLLECTOR_CPUS=\"%s\" is not a list of this machine's CPUs (like 8-15 or 0,2,4)",
		 shown);
	return -1;
}

void thread_keep_on(const cpu_set_t *set)
{
	if (set)
		thread_cpus = *set;
	thread_n_cpus = set ? CPU_COUNT(set) : 0;
}

int thread_kept_cpus(void)
{
	return thread_n_cpus;
}
