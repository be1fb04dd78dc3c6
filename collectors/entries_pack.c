#include "collectors/entries_pack.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/drops.h"
#include "db/blockcodec.h"
#include "src/core/clock.h"

#define PACK_QUEUE (1u << 16) /* blocks waiting for one packer; a power of two */
#define PACK_BATCH 4096       /* blocks a packer takes from its queue at once */
#define PACK_IDLE_NS 100000L  /* a packer with nothing to do sleeps this long */

struct pack_stage {
	struct smtop_block *b;  /* DB_BLOCKCODEC_MAX_BLOCKS, allocated at the SM's first block */
	uint32_t n;
	uint64_t since;         /* host monotonic ns of its first block */
};

struct packer {
	struct entries_packers *all;
	pthread_t thread;
	int started;
	struct smtop_block *queue;      /* PACK_QUEUE */
	_Atomic uint64_t head, tail;    /* head: the drain's; tail: the packer's */
	struct smtop_block batch[PACK_BATCH];
	uint8_t *scratch;
	uint64_t checked;               /* when its stages' ages were last looked at */
};

struct entries_packers {
	unsigned n;                     /* packer threads; 0: packer[0] is the caller */
	uint32_t device_id, context_id;
	blocks_observer_fn *observer;
	entries_pack_fn *pack;
	_Atomic int stop;
	struct pack_stage stage[ENTRIES_PACK_SMS]; /* each SM's is its packer's alone */
	struct packer packer[ENTRIES_PACKERS_MAX];
};

static unsigned pack_sm(const struct smtop_block *b)
{
	return b->sm < ENTRIES_PACK_SMS ? b->sm : ENTRIES_PACK_SMS - 1;
}

/* The packers among which SMs are shared: the threads, or the caller. */
static unsigned pack_ways(const struct entries_packers *p)
{
	return p->n ? p->n : 1;
}

static void pack_flush(struct entries_packers *p, struct packer *k, unsigned sm)
{
	struct pack_stage *st = &p->stage[sm];
	uint32_t n = st->n;

	st->n = 0;
	if (n)
		p->pack(st->b, n, p->device_id, p->context_id, k->scratch);
}

/* A block whose SM's stage has no memory is lost, and counted. */
static void pack_stage_block(struct entries_packers *p, struct packer *k, const struct smtop_block *b,
			     uint64_t now)
{
	unsigned sm = pack_sm(b);
	struct pack_stage *st = &p->stage[sm];

	if (!st->b && !(st->b = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof(*st->b)))) {
		drops_add(DROPS_BLOCKS, 1);
		return;
	}
	if (st->n && st->b[0].sm != b->sm)
		pack_flush(p, k, sm); /* one SM per chunk */
	if (!st->n)
		st->since = now;
	st->b[st->n++] = *b;
	if (st->n == DB_BLOCKCODEC_MAX_BLOCKS)
		pack_flush(p, k, sm);
}

/* The stages of k's SMs older than ENTRIES_PACK_AGE_NS (all of them: all). */
static void pack_flush_aged(struct entries_packers *p, struct packer *k, uint64_t now, int all)
{
	unsigned me = (unsigned)(k - p->packer);

	for (unsigned sm = me; sm < ENTRIES_PACK_SMS; sm += pack_ways(p))
		if (p->stage[sm].n && (all || now - p->stage[sm].since >= ENTRIES_PACK_AGE_NS))
			pack_flush(p, k, sm);
	k->checked = now;
}

/* n blocks to the observer, then to their SMs' chunks. */
static void pack_blocks(struct entries_packers *p, struct packer *k, const struct smtop_block *b, size_t n,
			uint64_t now)
{
	if (n && p->observer)
		p->observer(p->context_id, b, n);
	for (size_t i = 0; i < n; i++)
		pack_stage_block(p, k, &b[i], now);
}

/* Up to PACK_BATCH blocks from k's queue into k->batch; how many. */
static size_t pack_take(struct packer *k)
{
	uint64_t tail = atomic_load_explicit(&k->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&k->head, memory_order_acquire);
	size_t n = head - tail < PACK_BATCH ? (size_t)(head - tail) : PACK_BATCH;

	for (size_t i = 0; i < n; i++)
		k->batch[i] = k->queue[(tail + i) & (PACK_QUEUE - 1)];
	atomic_store_explicit(&k->tail, tail + n, memory_order_release);
	return n;
}

static void *pack_main(void *arg)
{
	struct packer *k = arg;
	struct entries_packers *p = k->all;
	struct timespec idle = { 0, PACK_IDLE_NS };

	for (;;) {
		int stopping = atomic_load(&p->stop);
		size_t n = pack_take(k);
		uint64_t now = clock_mono_ns();

		pack_blocks(p, k, k->batch, n, now);
		if (now - k->checked >= ENTRIES_PACK_AGE_NS / 8)
			pack_flush_aged(p, k, now, 0);
		if (!n && stopping)
			break; /* stop is set after the last put: the queue is empty for good */
		if (!n)
			nanosleep(&idle, NULL);
	}
	pack_flush_aged(p, k, clock_mono_ns(), 1);
	return NULL;
}

static void packers_free(struct entries_packers *p)
{
	for (unsigned i = 0; i < ENTRIES_PACKERS_MAX; i++) {
		free(p->packer[i].queue);
		free(p->packer[i].scratch);
	}
	for (unsigned sm = 0; sm < ENTRIES_PACK_SMS; sm++)
		free(p->stage[sm].b);
	free(p);
}

struct entries_packers *entries_packers_start(unsigned n, uint32_t device_id, uint32_t context_id,
					      blocks_observer_fn *observer, entries_pack_fn *pack)
{
	struct entries_packers *p;

	if (n > ENTRIES_PACKERS_MAX || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->n = n;
	p->device_id = device_id;
	p->context_id = context_id;
	p->observer = observer;
	p->pack = pack;
	if (!n) {
		if (!(p->packer[0].scratch = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS)))) {
			packers_free(p);
			return NULL;
		}
		return p;
	}
	for (unsigned i = 0; i < n; i++) {
		struct packer *k = &p->packer[i];

		k->all = p;
		k->queue = malloc(PACK_QUEUE * sizeof(*k->queue));
		k->scratch = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS));
		if (!k->queue || !k->scratch || pthread_create(&k->thread, NULL, pack_main, k) != 0)
			break;
		k->started = 1;
	}
	if (!p->packer[n - 1].started) {
		entries_packers_stop(p);
		return NULL;
	}
	return p;
}

/* The blocks of b that are k's (SM modulo the count) into its queue, as
 * many as it has room for from `from`; the index where it stopped. */
static size_t pack_put_some(struct entries_packers *p, unsigned me, const struct smtop_block *b, size_t from,
			    size_t n)
{
	struct packer *k = &p->packer[me];
	uint64_t head = atomic_load_explicit(&k->head, memory_order_relaxed);
	uint64_t room = PACK_QUEUE - (head - atomic_load_explicit(&k->tail, memory_order_acquire));
	size_t i = from;

	for (; i < n && room; i++) {
		if (pack_sm(&b[i]) % p->n != me)
			continue;
		k->queue[head++ & (PACK_QUEUE - 1)] = b[i];
		room--;
	}
	atomic_store_explicit(&k->head, head, memory_order_release);
	return i;
}

void entries_packers_put(struct entries_packers *p, const struct smtop_block *b, size_t n)
{
	if (!p->n) {
		pack_blocks(p, &p->packer[0], b, n, clock_mono_ns());
		return;
	}
	for (unsigned me = 0; me < p->n; me++)
		for (size_t at = 0; (at = pack_put_some(p, me, b, at, n)) < n;)
			sched_yield(); /* its packer is behind: wait for room */
}

void entries_packers_tick(struct entries_packers *p, uint64_t now)
{
	if (!p->n)
		pack_flush_aged(p, &p->packer[0], now, 0);
}

void entries_packers_stop(struct entries_packers *p)
{
	if (!p)
		return;
	if (!p->n)
		pack_flush_aged(p, &p->packer[0], clock_mono_ns(), 1);
	atomic_store(&p->stop, 1);
	for (unsigned i = 0; i < p->n; i++)
		if (p->packer[i].started)
			pthread_join(p->packer[i].thread, NULL);
	packers_free(p);
}

unsigned entries_packers_wanted(void)
{
	const char *v = getenv("SMTOP_ENTRY_PACKERS");
	long n = v && *v ? strtol(v, NULL, 10) : 0;

	return n < 0 ? 0 : n > ENTRIES_PACKERS_MAX ? ENTRIES_PACKERS_MAX : (unsigned)n;
}
