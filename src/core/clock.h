/* Monotonic time in nanoseconds: how long a step took or may still take
 * (never when something happened); and the wall clock, when something
 * happened (the epoch of CUPTI's timestamps and of %globaltimer). */
#ifndef SMTOP_CORE_CLOCK_H
#define SMTOP_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A clock_mono_ns() time as the timespec of waits that end at a
 * CLOCK_MONOTONIC time (pthread_cond_clockwait, pthread_clockjoin_np): a
 * step of the wall clock must not lengthen or cut short their limits. */
static inline struct timespec clock_mono_timespec(uint64_t at)
{
	return (struct timespec){ (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) };
}

/* Whether more than ns passed from since to now, on the monotonic clock.
 * A since read after now (by another thread, later) has not passed at
 * all: unsigned, now - since would wrap around to a long wait. */
static inline int clock_waited(uint64_t now, uint64_t since, uint64_t ns)
{
	return now > since && now - since > ns;
}

#endif
