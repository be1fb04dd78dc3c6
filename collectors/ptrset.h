/* A set of pointers of fixed size (functions or modules already handled),
 * or a map of them to a value (a graph node's dynamic shared memory),
 * without allocation: open addressing, and a set half full starts over, for
 * callers whose handling of a pointer twice only repeats idempotent work.
 * Not thread-safe: callers hold their own lock. */
#ifndef SMTOP_COLLECTORS_PTRSET_H
#define SMTOP_COLLECTORS_PTRSET_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define PTRSET_SLOTS 8192 /* a power of two */

struct ptrset {
	size_t n;
	const void *slot[PTRSET_SLOTS];
};

/* 1 when p was new (it is in the set now), 0 when it was there. */
int ptrset_add(struct ptrset *s, const void *p);

void ptrset_clear(struct ptrset *s);

/* The same set, each pointer with a value (the same starting over). */
struct ptrmap {
	struct ptrset keys;
	uint32_t value[PTRSET_SLOTS];
};

void ptrmap_put(struct ptrmap *m, const void *p, uint32_t v);

/* 1 when p was new (it holds v now), else 0 and *v its value: a lookup and
 * an insertion in one, for callers that claim p under their lock. */
int ptrmap_add(struct ptrmap *m, const void *p, uint32_t *v);

#pragma GCC visibility pop

#endif
