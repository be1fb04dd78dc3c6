/* A set of pointers of fixed size (functions or modules already handled),
 * without allocation: open addressing, and a set half full starts over, for
 * callers whose handling of a pointer twice only repeats idempotent work.
 * Not thread-safe: callers hold their own lock. */
#ifndef SMTOP_COLLECTORS_PTRSET_H
#define SMTOP_COLLECTORS_PTRSET_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

#define PTRSET_SLOTS 8192 /* a power of two */

struct ptrset {
	size_t n;
	const void *slot[PTRSET_SLOTS];
};

/* 1 when p was new (it is in the set now), 0 when it was there. */
int ptrset_add(struct ptrset *s, const void *p);

void ptrset_clear(struct ptrset *s);

#pragma GCC visibility pop

#endif
