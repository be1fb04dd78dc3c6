/* The lanes' drain threads: each copies its share of a context's lanes off
 * the GPU, keeps their complete prefix, and packs it into chunk records for
 * the writer; and the last drain of each context (collectors/blocks.c). */
#include "collectors/blocks.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/blocks_state.h"
#include "collectors/drops.h"
#include "collectors/log.h"
#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/blockcodec.h"
#include "src/core/clock.h"

#define BLOCKS_DRAIN_PERIOD_NS 5000000L
/* A claimed slot still half-written after this many drains (~0.5 s) belongs to
 * a block that died between its claim and its stores: skip it. */
#define BLOCKS_STALL_DRAINS 100
#define BLOCKS_TICK_SAMPLES 4096
#define BLOCKS_JOIN_TIMEOUT_MS 500
/* Blocks drained but not yet stored, at most (packed into chunks, 6-8 bytes
 * each in memory: 100-130 MB).  Past this the drain leaves blocks on the
 * GPU, whose full lanes then count exact drops, instead of growing the
 * workload's memory without bound; less held drains back while the writer
 * kept up on average (docs/collector.md). */
#define BLOCKS_MAX_IN_FLIGHT (16u << 20)

/* A lane's blocks wait in its stage until a chunk is full or this old, so a
 * block reaches the session within ~100 ms (drain + stage + writer period). */
#define BLOCKS_STAGE_AGE_NS 40000000ull

static _Atomic uint64_t blocks_tick;
static _Atomic size_t blocks_tick_samples;
static _Atomic int blocks_tick_stored;
static _Atomic uint64_t blocks_in_flight;
static _Atomic uint64_t blocks_most_in_flight; /* SMTOP_DEBUG */

void blocks_released(uint64_t n)
{
	atomic_fetch_sub(&blocks_in_flight, n);
}

/* ---- draining ------------------------------------------------------------- */

/* The drain's copies, on the group's stream.  A patching backend's ring
 * lives in the sanitizer's memory, which the driver's copies refuse
 * (docs/collector.md): the host's calls are the sanitizer's own there. */
static int blocks_dtoh(struct blocks_group *g, void *dst, CUdeviceptr src, size_t bytes)
{
	return blocks_host->download(dst, (const void *)(uintptr_t)src, bytes, g->copy);
}

static int blocks_htod(struct blocks_group *g, CUdeviceptr dst, const void *src, size_t bytes)
{
	return blocks_host->upload((void *)(uintptr_t)dst, src, bytes, g->copy);
}

static int blocks_sync(struct blocks_group *g)
{
	return blocks_host->sync(g->copy);
}

/* Queues the copy of lane l's slots [from, from + n) into the pinned image. */
static int blocks_copy_lane(struct blocks_group *g, unsigned l, uint64_t from, uint64_t n)
{
	struct blocks_ctx *c = g->c;
	uint64_t mask = BLOCKS_LANE_CAPACITY - 1;
	size_t slot = sizeof(struct smtop_trace_slot);
	size_t base = offsetof(struct smtop_trace_ring, slots) + (size_t)l * BLOCKS_LANE_CAPACITY * slot;

	while (n > 0) {
		uint64_t pos = from & mask;
		uint64_t len = BLOCKS_LANE_CAPACITY - pos;

		if (len > n)
			len = n;
		if (blocks_dtoh(g, &blocks_lane_slots(c, l)[pos], c->ring + base + pos * slot, len * slot) != 0)
			return -1;
		from += len;
		n -= len;
	}
	return 0;
}

static void blocks_note_tick(const struct smtop_block *b, size_t n)
{
	char value[32];
	uint64_t tick;

	if (atomic_load(&blocks_tick_stored))
		return;
	tick = blocks_timer_tick(b, n, atomic_load(&blocks_tick));
	atomic_store(&blocks_tick, tick);
	if (atomic_fetch_add(&blocks_tick_samples, n) + n < BLOCKS_TICK_SAMPLES || tick == 0)
		return;
	if (atomic_exchange(&blocks_tick_stored, 1))
		return;
	snprintf(value, sizeof(value), "%" PRIu64, tick);
	writer_thread_set_meta("globaltimer_ns_per_tick", value);
}

static void blocks_note_in_flight(uint64_t n)
{
	uint64_t most = atomic_load_explicit(&blocks_most_in_flight, memory_order_relaxed);

	while (n > most && !atomic_compare_exchange_weak(&blocks_most_in_flight, &most, n))
		;
}

/* Packs n blocks of one SM into one chunk record for the writer.  Encoding
 * here, in the drain threads, keeps the one writer thread to SQLite work:
 * that is what lets the store keep up with tens of millions of blocks/s. */
void blocks_pack(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
		 uint8_t *scratch)
{
	struct smtop_record rec = { .kind = SMTOP_REC_CHUNK };
	struct smtop_chunk *k = &rec.u.chunk;

	if (n == 0)
		return;
	blocks_note_tick(b, n);
	k->len = (uint32_t)db_blockcodec_encode(b, n, scratch);
	k->data = malloc(k->len);
	if (!k->data) {
		drops_add(DROPS_BLOCKS, n);
		return;
	}
	memcpy(k->data, scratch, k->len);
	k->pid = blocks_pid;
	k->device_id = device_id;
	k->context_id = context_id;
	k->sm = b[0].sm;
	k->count = n;
	k->start = b[0].start;
	for (uint32_t i = 0; i < n; i++)
		if (b[i].end > k->end)
			k->end = b[i].end;
	blocks_note_in_flight(atomic_fetch_add(&blocks_in_flight, n) + n);
	if (ring_push(blocks_ring, &rec) != 0) {
		atomic_fetch_sub(&blocks_in_flight, n);
		drops_add(DROPS_BLOCKS, n);
		free(k->data);
	}
}

static void blocks_pack_stage(struct blocks_group *g, unsigned l)
{
	struct blocks_ctx *c = g->c;
	struct blocks_stage *st = &c->stage[l];
	uint32_t n = st->n;

	st->n = 0;
	blocks_pack(st->b, n, c->device_id, c->context_id, g->packed);
}

static void blocks_flush_stage(struct blocks_group *g, unsigned l)
{
	uint64_t t0 = clock_mono_ns();

	blocks_pack_stage(g, l);
	g->pack_ns += clock_mono_ns() - t0;
}

/* Stages that are old enough (or all of them, at the end) become chunks. */
static void blocks_flush_stages(struct blocks_group *g, uint64_t now, int all)
{
	for (unsigned l = g->lo; l < g->hi; l++)
		if (g->c->stage[l].n && (all || now - g->c->stage[l].since >= BLOCKS_STAGE_AGE_NS))
			blocks_flush_stage(g, l);
}

static int blocks_give_back(struct blocks_group *g)
{
	struct blocks_ctx *c = g->c;
	size_t off = offsetof(struct smtop_trace_ring, limit) + g->lo * sizeof(c->host->limit[0]);

	for (unsigned l = g->lo; l < g->hi; l++)
		c->host->limit[l] = c->read[l] + BLOCKS_LANE_CAPACITY;
	if (blocks_htod(g, c->ring + off, &c->host->limit[g->lo], (g->hi - g->lo) * sizeof(c->host->limit[0])) != 0)
		return -1;
	return blocks_sync(g);
}

/* Copies the group's lane counters, then, unless the writer is too far
 * behind, its lanes' new slots, with one synchronisation for all.  Slots left
 * on the GPU fill their lanes, whose drops the GPU counts.  The last drain
 * copies whatever is there: no later drain would store or count it. */
static int blocks_fetch(struct blocks_group *g, uint64_t *total, int last)
{
	struct blocks_ctx *c = g->c;
	size_t off = offsetof(struct smtop_trace_ring, lane) + g->lo * sizeof(c->host->lane[0]);
	int copy = last || atomic_load(&blocks_in_flight) <= BLOCKS_MAX_IN_FLIGHT;
	uint64_t dropped = 0;

	if (blocks_dtoh(g, &c->host->lane[g->lo], c->ring + off, (g->hi - g->lo) * sizeof(c->host->lane[0])) != 0 ||
	    blocks_sync(g) != 0)
		return -1;
	*total = 0;
	g->busiest = 0;
	for (unsigned l = g->lo; l < g->hi; l++) {
		uint64_t head = c->host->lane[l].head, n = head > c->read[l] ? head - c->read[l] : 0;

		dropped += c->host->lane[l].dropped;
		if (n > BLOCKS_LANE_CAPACITY)
			n = BLOCKS_LANE_CAPACITY;
		if (copy && n > g->busiest)
			g->busiest = n;
		c->fresh[l] = copy ? n : 0;
		g->held_back += !copy && n;
		*total += c->fresh[l];
		if (c->fresh[l] && blocks_copy_lane(g, l, c->read[l], n) != 0)
			return -1;
	}
	if (dropped > g->dropped_seen) {
		drops_add(DROPS_BLOCKS, dropped - g->dropped_seen);
		g->dropped_seen = dropped;
	}
	return *total && blocks_sync(g) != 0 ? -1 : 0;
}

/* Moves lane l's complete prefix into its stage, a chunk at a time. */
static size_t blocks_stage_lane(struct blocks_group *g, unsigned l, uint64_t now)
{
	struct blocks_ctx *c = g->c;
	struct blocks_stage *st = &c->stage[l];
	uint64_t left = c->fresh[l];
	size_t got = 0;

	if (!st->b && !(st->b = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof(*st->b))))
		return 0; /* the slots stay on the GPU: its full lane counts the drops */
	while (left) {
		uint64_t room = DB_BLOCKCODEC_MAX_BLOCKS - st->n, want = left < room ? left : room;
		size_t k = blocks_collect(blocks_lane_slots(c, l), BLOCKS_LANE_CAPACITY, c->read[l],
					  c->read[l] + want, (uint16_t)c->device_id, st->b + st->n);

		if (k && !st->n)
			st->since = now;
		if (k && blocks_host->observer) {
			uint64_t t0 = clock_mono_ns();
			blocks_host->observer(c->context_id, st->b + st->n, k);
			g->observe_ns += clock_mono_ns() - t0;
		}
		st->n += (uint32_t)k;
		c->read[l] += k;
		got += k;
		left -= k;
		if (st->n == DB_BLOCKCODEC_MAX_BLOCKS)
			blocks_flush_stage(g, l);
		if (k < want)
			break;
	}
	return got;
}

/* Keeps each lane's complete prefix; a slot half-written for too long belongs
 * to a block that died between its claim and its stores, and is skipped. */
static size_t blocks_collect_lanes(struct blocks_group *g, uint64_t now)
{
	struct blocks_ctx *c = g->c;
	size_t got = 0;

	for (unsigned l = g->lo; l < g->hi; l++) {
		size_t k = c->fresh[l] ? blocks_stage_lane(g, l, now) : 0;

		got += k;
		c->stall[l] = (k || !c->fresh[l]) ? 0 : c->stall[l] + 1;
		if (c->stall[l] >= BLOCKS_STALL_DRAINS) {
			drops_add(DROPS_BLOCKS, 1);
			c->read[l]++;
			c->stall[l] = 0;
		}
	}
	return got;
}

/* One pass over the group's lanes; `last` flushes every stage.  -1 on a CUDA
 * error. */
static int blocks_drain_once(struct blocks_group *g, int last)
{
	uint64_t total, now = clock_mono_ns();
	int r;

	if (blocks_fetch(g, &total, last) != 0)
		return -1;
	g->fetch_ns += clock_mono_ns() - now;
	if (total)
		g->drained += blocks_collect_lanes(g, now);
	blocks_flush_stages(g, now, last);
	r = total ? blocks_give_back(g) : 0;
	now = clock_mono_ns() - now;
	g->drain_ns += now;
	if (now > g->slowest_ns)
		g->slowest_ns = now;
	return r;
}

static void blocks_drain_locked(struct blocks_group *g, int last)
{
	struct blocks_ctx *c = g->c;

	if (atomic_load(&c->state) != BLOCKS_CTX_READY)
		return;
	if (blocks_drain_once(g, last) != 0) {
		blocks_flush_stages(g, 0, 1); /* what was staged is still good */
		/* The context is going or broken: stop touching it. */
		log_debug("block drain for context %u stopped after a CUDA error", c->context_id);
		atomic_store(&c->state, BLOCKS_CTX_DEAD);
	}
}

void *blocks_drain_main(void *arg)
{
	struct blocks_group *g = arg;
	struct blocks_ctx *c = g->c;
	struct timespec period = { 0, BLOCKS_DRAIN_PERIOD_NS };

	blocks_tls_own = 1;
	if (atomic_load(&c->state) == BLOCKS_CTX_SETUP && g == &c->groups[0] &&
	    blocks_finish_patched(c) != 0) {
		log_debug("block tracing off for context %u: its drain could not start", c->context_id);
		atomic_store(&c->state, BLOCKS_CTX_DEAD);
		return NULL;
	}
	if (blocks_await_start(&c->state, &c->stop, BLOCKS_CTX_IDLE, BLOCKS_CTX_READY) &&
	    blocks_cu.ctx_set_current(c->ctx) == CUDA_SUCCESS) {
		blocks_relax();
		while (!atomic_load(&c->stop) && atomic_load(&c->state) == BLOCKS_CTX_READY) {
			/* A lane a quarter full means a burst: drain again at once,
			 * before the GPU starts dropping. */
			if (g->busiest < BLOCKS_LANE_CAPACITY / 4)
				nanosleep(&period, NULL);
			pthread_mutex_lock(&g->lock);
			if (!atomic_load(&c->stop))
				blocks_drain_locked(g, 0);
			pthread_mutex_unlock(&g->lock);
		}
	}
	return NULL;
}

/* Waits for a drain thread to leave, at most BLOCKS_JOIN_TIMEOUT_MS: it may
 * be stuck in a driver call that waits for the thread that called us. */
static int blocks_stop_group(struct blocks_group *g)
{
	struct timespec deadline;

	if (!g->thread_started)
		return 0;
	deadline = clock_mono_timespec(clock_mono_ns() + BLOCKS_JOIN_TIMEOUT_MS * 1000000ull);
	g->thread_started = 0;
	if (pthread_clockjoin_np(g->thread, NULL, CLOCK_MONOTONIC, &deadline) != 0) {
		pthread_detach(g->thread);
		return -1;
	}
	return 0;
}

static int blocks_stop_threads(struct blocks_ctx *c)
{
	int stuck = 0;

	atomic_store(&c->stop, 1);
	for (unsigned i = 0; i < c->n_groups; i++)
		stuck |= blocks_stop_group(&c->groups[i]) != 0;
	return stuck ? -1 : 0;
}

/* Drains every group twice (blocks still being written get a second
 * chance), the last time flushing every stage. */
static void blocks_drain_all(struct blocks_ctx *c)
{
	CUstreamCaptureMode mode;
	CUcontext popped;

	if (blocks_cu.ctx_push_current(c->ctx) != CUDA_SUCCESS)
		return;
	mode = blocks_relax();
	for (unsigned i = 0; i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		pthread_mutex_lock(&g->lock);
		blocks_drain_locked(g, 0);
		blocks_drain_locked(g, 1);
		pthread_mutex_unlock(&g->lock);
	}
	blocks_unrelax(mode);
	blocks_cu.ctx_pop_current(&popped);
}

/* Whatever is staged still reaches the session, even when the context broke.
 * A group whose thread is stuck keeps its lock, and its stages. */
static void blocks_flush_all_stages(struct blocks_ctx *c)
{
	uint64_t drained = 0, drain_ns = 0, fetch_ns = 0, observe_ns = 0, pack_ns = 0, slowest = 0, held = 0;

	for (unsigned i = 0; i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		if (pthread_mutex_trylock(&g->lock) != 0)
			continue;
		blocks_flush_stages(g, 0, 1);
		pthread_mutex_unlock(&g->lock);
		drained += g->drained;
		drain_ns += g->drain_ns;
		fetch_ns += g->fetch_ns;
		observe_ns += g->observe_ns;
		pack_ns += g->pack_ns;
		held += g->held_back;
		slowest = g->slowest_ns > slowest ? g->slowest_ns : slowest;
	}
	log_debug("context %u: %llu blocks drained by %u threads in %.3f s of drain time"
		  " (%.3f s copying them off the GPU, %.3f s in the kernel table, %.3f s packing chunks);"
		  " slowest drain %.1f ms; %llu lane drains held back, most blocks in flight %llu",
		  c->context_id, (unsigned long long)drained, c->n_groups, (double)drain_ns / 1e9,
		  (double)fetch_ns / 1e9, (double)observe_ns / 1e9, (double)pack_ns / 1e9, (double)slowest / 1e6,
		  (unsigned long long)held, (unsigned long long)atomic_load(&blocks_most_in_flight));
}

/* The last drain of a context, from whichever thread ends it. */
static void blocks_final_drain(struct blocks_ctx *c)
{
	int own = blocks_tls_own;
	int state = atomic_load(&c->state), stuck;

	if (state != BLOCKS_CTX_READY && state != BLOCKS_CTX_DEAD && state != BLOCKS_CTX_SETUP)
		return;
	stuck = blocks_stop_threads(c) != 0;
	blocks_tls_own = 1;
	if (!stuck && atomic_load(&c->state) == BLOCKS_CTX_READY)
		blocks_drain_all(c);
	blocks_flush_all_stages(c);
	atomic_store(&c->state, BLOCKS_CTX_FINISHED);
	blocks_tls_own = own;
}

void blocks_on_context_destroy(CUcontext ctx)
{
	struct blocks_ctx *c = blocks_find(ctx);

	if (c)
		blocks_final_drain(c);
}

void blocks_shutdown(void)
{
	size_t n = atomic_load(&blocks_n_ctxs);

	for (size_t i = 0; i < n; i++)
		blocks_final_drain(blocks_ctxs[i]);
}
