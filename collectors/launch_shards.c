#include "collectors/launch_shards.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SHARDS 16                       /* a power of two */
#define SHARD_OUT 256                   /* records a slice may complete */
#define WINDOW 1024                     /* blocks sorted by shard at a time */

struct shard {
	pthread_mutex_t lock;
	struct launches *table;
};

struct launch_shards {
	struct shard shard[SHARDS];
	launch_shards_push_fn *push;
	_Atomic int64_t bound[LAUNCHES_DEVICES]; /* per device slot; INT64_MAX before the first */
	_Atomic uint32_t bounded;       /* bit: the device slot's bound is known */
};

struct launch_shards *launch_shards_create(uint32_t pid, launches_fill_fn fill, launch_shards_push_fn *push)
{
	struct launch_shards *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->push = push;
	for (size_t d = 0; d < LAUNCHES_DEVICES; d++)
		atomic_init(&s->bound[d], INT64_MAX);
	for (size_t i = 0; i < SHARDS; i++) {
		pthread_mutex_init(&s->shard[i].lock, NULL);
		if (!(s->shard[i].table = launches_create(pid))) {
			launch_shards_destroy(s);
			return NULL;
		}
		launches_set_fill(s->shard[i].table, fill);
	}
	return s;
}

void launch_shards_destroy(struct launch_shards *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < SHARDS; i++) {
		launches_destroy(s->shard[i].table);
		pthread_mutex_destroy(&s->shard[i].lock);
	}
	free(s);
}

static unsigned launch_shards_index(uint64_t grid_id)
{
	return (unsigned)((grid_id * 0x9e3779b97f4a7c15ull) >> 60) & (SHARDS - 1);
}

/* Locks shard h, whose table takes the bounds the others found, so every
 * kernel's submission time uses the least yet of its device. */
static void launch_shards_enter(struct launch_shards *s, struct shard *h)
{
	uint32_t known;

	pthread_mutex_lock(&h->lock);
	/* the drains enter a shard per window of blocks: only the devices
	 * seen, usually one */
	for (known = atomic_load_explicit(&s->bounded, memory_order_acquire); known; known &= known - 1) {
		uint32_t d = (uint32_t)__builtin_ctz(known);

		launches_share_bound(h->table, d, atomic_load_explicit(&s->bound[d], memory_order_relaxed));
	}
}

/* Gives back h's bounds and unlocks it. */
static void launch_shards_leave(struct launch_shards *s, struct shard *h)
{
	for (uint32_t known = launches_bound_devices(h->table); known; known &= known - 1) {
		uint32_t d = (uint32_t)__builtin_ctz(known);
		int64_t mine, b;

		mine = launches_clock_bound(h->table, d);
		b = atomic_load_explicit(&s->bound[d], memory_order_relaxed);
		while (mine < b && !atomic_compare_exchange_weak_explicit(&s->bound[d], &b, mine, memory_order_relaxed,
									 memory_order_relaxed))
			;
		/* once per device: not a shared write at every leave */
		if (!(atomic_load_explicit(&s->bounded, memory_order_relaxed) >> d & 1))
			atomic_fetch_or_explicit(&s->bounded, 1u << d, memory_order_release);
	}
	pthread_mutex_unlock(&h->lock);
}

int launch_shards_add(struct launch_shards *s, uint64_t now, const struct launch_info *info)
{
	struct shard *h = &s->shard[launch_shards_index(info->grid_id)];
	int r;

	pthread_mutex_lock(&h->lock);
	r = launches_add(h->table, now, info);
	pthread_mutex_unlock(&h->lock);
	return r;
}

/* Runs of one shard, in their order, a slice of at most SHARD_OUT blocks
 * under the lock at a time: no slice completes more kernels than out holds. */
static void launch_shards_note_runs(struct launch_shards *s, struct shard *h, uint64_t now, uint32_t context_id,
				    const struct launches_run *r, size_t n)
{
	struct smtop_record out[SHARD_OUT];

	for (size_t i = 0; i < n;) {
		uint64_t blocks = r[i].count;
		size_t j = i + 1, done;

		while (j < n && blocks + r[j].count <= SHARD_OUT)
			blocks += r[j++].count;
		launch_shards_enter(s, h);
		done = launches_note_runs(h->table, now, context_id, r + i, j - i, out, SHARD_OUT);
		launch_shards_leave(s, h);
		if (done)
			s->push(out, done);
		i = j;
	}
}

/* Folds each run into an earlier one of its grid in the window when their
 * times overlap: blocks running at once on one SM are of one launch, while
 * a graph's replays, which share grid ids, never overlap (a graph runs
 * after its previous launch), so a replay's blocks keep their own times.
 * Interleaved kernels leave runs of a block or two in a lane; folded, the
 * table is asked once per kernel and SM.  Returns the runs left, in order. */
static size_t launch_shards_fold(struct launches_run *r, size_t n)
{
	uint16_t seen[2 * WINDOW];       /* run index + 1 by grid; 0 empty */
	size_t kept = 0, mask = 15;

	while (mask + 1 < 2 * n)
		mask = mask * 2 + 1;
	memset(seen, 0, (mask + 1) * sizeof(seen[0]));
	for (size_t i = 0; i < n; i++) {
		size_t h = launches_grid_slot(seen, mask, r, r[i].grid_id);

		if (seen[h] && launches_run_take(&r[seen[h] - 1], &r[i]))
			continue;
		r[kept] = r[i];
		seen[h] = (uint16_t)(kept + 1); /* the grid's latest run takes the next */
		kept++;
	}
	return kept;
}

/* A window of blocks: its runs (folded first when fold), sorted by shard,
 * each shard's under its lock (where launches_note_runs folds the runs of
 * a grid that has one launch, however far apart). */
static void launch_shards_note_window(struct launch_shards *s, uint64_t now, uint32_t context_id,
				      const struct smtop_block *b, size_t n, int fold)
{
	struct launches_run runs[WINDOW], by_shard[WINDOW];
	unsigned char home[WINDOW];
	size_t first[SHARDS + 1] = { 0 }, at[SHARDS];
	size_t k = launches_runs(b, n, runs);

	if (fold)
		k = launch_shards_fold(runs, k);

	for (size_t i = 0; i < k; i++) {
		home[i] = (unsigned char)launch_shards_index(runs[i].grid_id);
		first[home[i] + 1]++;
	}
	for (size_t i = 0; i < SHARDS; i++) {
		first[i + 1] += first[i];
		at[i] = first[i];
	}
	for (size_t i = 0; i < k; i++)
		by_shard[at[home[i]]++] = runs[i];
	for (size_t i = 0; i < SHARDS; i++)
		if (first[i + 1] > first[i])
			launch_shards_note_runs(s, &s->shard[i], now, context_id, by_shard + first[i],
						first[i + 1] - first[i]);
}

static void launch_shards_note(struct launch_shards *s, uint64_t now, uint32_t context_id,
			       const struct smtop_block *b, size_t n, int fold)
{
	while (n) {
		size_t take = n < WINDOW ? n : WINDOW;

		launch_shards_note_window(s, now, context_id, b, take, fold);
		b += take;
		n -= take;
	}
}

void launch_shards_note_blocks(struct launch_shards *s, uint64_t now, uint32_t context_id,
			       const struct smtop_block *b, size_t n)
{
	launch_shards_note(s, now, context_id, b, n, 1);
}

void launch_shards_note_scattered(struct launch_shards *s, uint64_t now, uint32_t context_id,
				  const struct smtop_block *b, size_t n)
{
	launch_shards_note(s, now, context_id, b, n, 0);
}

void launch_shards_take_stale(struct launch_shards *s, uint64_t now, uint64_t idle_ns)
{
	struct smtop_record out[SHARD_OUT];

	for (size_t i = 0; i < SHARDS; i++) {
		struct shard *h = &s->shard[i];
		size_t done;

		do {
			launch_shards_enter(s, h);
			done = launches_take_stale(h->table, now, idle_ns, out, SHARD_OUT);
			launch_shards_leave(s, h);
			if (done)
				s->push(out, done);
		} while (done == SHARD_OUT);
	}
}

int launch_shards_bound_known(const struct launch_shards *s, uint32_t device)
{
	return atomic_load_explicit(&s->bound[launches_device_slot(device)], memory_order_relaxed) != INT64_MAX;
}

int64_t launch_shards_bound(const struct launch_shards *s, uint32_t device)
{
	int64_t b = atomic_load_explicit(&s->bound[launches_device_slot(device)], memory_order_relaxed);

	return b == INT64_MAX ? 0 : b;
}

/* f summed over the shards, each under its lock. */
static uint64_t launch_shards_sum(struct launch_shards *s, uint64_t (*f)(const struct launches *))
{
	uint64_t n = 0;

	for (size_t i = 0; i < SHARDS; i++) {
		pthread_mutex_lock(&s->shard[i].lock);
		n += f(s->shard[i].table);
		pthread_mutex_unlock(&s->shard[i].lock);
	}
	return n;
}

static uint64_t launch_shards_pending_of(const struct launches *l)
{
	return launches_pending(l);
}

uint64_t launch_shards_orphans(struct launch_shards *s)
{
	return launch_shards_sum(s, launches_orphans);
}

size_t launch_shards_pending(struct launch_shards *s)
{
	return (size_t)launch_shards_sum(s, launch_shards_pending_of);
}
