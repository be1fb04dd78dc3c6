/* Bounded multi-producer single-consumer queue of collector records.
 * Producers (CUPTI buffer callbacks, block drain threads) never wait for
 * space: a full ring drops the record, frees what it owns and counts it. */
#ifndef SMTOP_COLLECTORS_RING_H
#define SMTOP_COLLECTORS_RING_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

#pragma GCC visibility push(hidden)

struct ring;

/* capacity records; returns NULL when out of memory. */
struct ring *ring_create(size_t capacity);
void ring_destroy(struct ring *r);

/* Moves rec into the ring.  Returns 0, or -1 when full (rec's strings and
 * arrays are freed and the drop is counted). */
int ring_push(struct ring *r, struct smtop_record *rec);

/* Moves n records in one critical section; returns how many were stored.
 * The rest are freed and counted as drops. */
size_t ring_push_many(struct ring *r, struct smtop_record *recs, size_t n);

/* Moves up to max records, oldest first, into out; returns how many. */
size_t ring_pop(struct ring *r, struct smtop_record *out, size_t max);

size_t ring_count(struct ring *r);
size_t ring_capacity(const struct ring *r);

/* Drops since the last call (the writer adds them to the session). */
uint64_t ring_take_drops(struct ring *r);

#pragma GCC visibility pop

#endif
