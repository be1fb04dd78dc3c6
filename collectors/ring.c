#include "collectors/ring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A mutex held for a struct copy is shorter than any CUPTI callback and keeps
 * the code obviously correct; producers still never wait for space. */
struct ring {
	pthread_mutex_t lock;
	size_t capacity;
	size_t head;            /* next slot to pop */
	size_t count;
	_Atomic uint64_t drops;
	struct smtop_record *slots;
};

struct ring *ring_create(size_t capacity)
{
	struct ring *r;

	if (capacity == 0)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->slots = calloc(capacity, sizeof(*r->slots));
	if (!r->slots) {
		free(r);
		return NULL;
	}
	r->capacity = capacity;
	pthread_mutex_init(&r->lock, NULL);
	atomic_init(&r->drops, 0);
	return r;
}

void ring_destroy(struct ring *r)
{
	struct smtop_record rec;

	if (!r)
		return;
	while (ring_pop(r, &rec, 1) == 1)
		records_free_owned(&rec);
	pthread_mutex_destroy(&r->lock);
	free(r->slots);
	free(r);
}

static void ring_drop(struct ring *r, struct smtop_record *rec)
{
	records_free_owned(rec);
	atomic_fetch_add_explicit(&r->drops, 1, memory_order_relaxed);
}

size_t ring_push_many(struct ring *r, struct smtop_record *recs, size_t n)
{
	size_t stored = 0;

	pthread_mutex_lock(&r->lock);
	while (stored < n && r->count < r->capacity) {
		size_t tail = (r->head + r->count) % r->capacity;

		r->slots[tail] = recs[stored++];
		r->count++;
	}
	pthread_mutex_unlock(&r->lock);
	/* Freeing happens outside the lock: free() can be slow. */
	for (size_t i = stored; i < n; i++)
		ring_drop(r, &recs[i]);
	return stored;
}

int ring_push(struct ring *r, struct smtop_record *rec)
{
	return ring_push_many(r, rec, 1) == 1 ? 0 : -1;
}

size_t ring_pop(struct ring *r, struct smtop_record *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&r->lock);
	/* at most two copies: the writer's batches of 50,000 records held the
	 * lock the drains push under for a modulo and a copy each */
	while (n < max && r->count > 0) {
		size_t run = r->capacity - r->head;

		run = run < r->count ? run : r->count;
		run = run < max - n ? run : max - n;
		memcpy(&out[n], &r->slots[r->head], run * sizeof(*out));
		n += run;
		r->head = (r->head + run) % r->capacity;
		r->count -= run;
	}
	pthread_mutex_unlock(&r->lock);
	return n;
}

size_t ring_count(struct ring *r)
{
	size_t n;

	pthread_mutex_lock(&r->lock);
	n = r->count;
	pthread_mutex_unlock(&r->lock);
	return n;
}

size_t ring_capacity(const struct ring *r)
{
	return r->capacity;
}

uint64_t ring_take_drops(struct ring *r)
{
	return atomic_exchange_explicit(&r->drops, 0, memory_order_relaxed);
}
