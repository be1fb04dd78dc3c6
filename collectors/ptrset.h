/* A set of pointers (functions or modules already handled), or a map of
 * them to a value (a graph node's dynamic shared memory), on the core's u64
 * map (src/core/u64map.h): a set that reaches PTRSET_MAX pointers starts
 * over, and one that cannot grow takes a pointer as new without keeping it,
 * for callers whose handling of a pointer twice only repeats idempotent
 * work.  NULL is never kept: it is new every time.  All zero is an empty
 * set.  Not thread-safe: callers hold their own lock. */
#ifndef SMTOP_COLLECTORS_PTRSET_H
#define SMTOP_COLLECTORS_PTRSET_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/u64map.h"

#pragma GCC visibility push(hidden)

#define PTRSET_MAX 4096 /* pointers a set holds before it starts over */

struct ptrset {
	struct u64map map;
};

/* 1 when p was new (it is in the set now), 0 when it was there. */
int ptrset_add(struct ptrset *s, const void *p);

void ptrset_clear(struct ptrset *s);

/* The same set, each pointer with a value (the same starting over). */
struct ptrmap {
	struct ptrset keys;
};

void ptrmap_put(struct ptrmap *m, const void *p, uint32_t v);

/* 1 when p was new (it holds v now), else 0 and *v its value: a lookup and
 * an insertion in one, for callers that claim p under their lock. */
int ptrmap_add(struct ptrmap *m, const void *p, uint32_t *v);

/* 1 and *v p's value when m holds p, else 0. */
int ptrmap_get(struct ptrmap *m, const void *p, uint32_t *v);

void ptrmap_clear(struct ptrmap *m);

#pragma GCC visibility pop

#endif
