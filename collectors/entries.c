#include "collectors/entries.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/drops.h"
#include "collectors/entries_gaps.h"
#include "collectors/entries_pack.h"
#include "collectors/entries_share.h"
#include "collectors/log.h"
#include "collectors/slot_bounds.h"
#include "collectors/writer_thread.h"
#include "src/core/clock.h"
#include "src/core/pool.h"
#include "src/core/threads.h"

#define ENTRIES_MAX_CONTEXTS 64
#define ENTRIES_QUEUE (1u << 16)        /* launches waiting for their entries, per context */
#define ENTRIES_PERIOD_NS 1000000L
#define ENTRIES_SMS 256                 /* %smid below this is bounded by its slots */
#define ENTRIES_CLOSED 4096             /* closed blocks handed on together */
/* A launch none of whose missing blocks entered for this long is taken as
 * it is (its kernel died, or the patch never saw its data). */
#define ENTRIES_STALE_NS 10000000000ull
#define ENTRIES_STREAMS 1024            /* streams whose last launch taken is known, direct-mapped */
#define ENTRIES_WINDOW (1u << 20)       /* entries of one launch copied in a pass, at most */
#define ENTRIES_COPY_GAP (1u << 16)     /* entries between two launches' stretches one copy spans */
/* A pass with fewer blocks to take than this is taken by the drain thread
 * alone, every share in turn: waking the team every millisecond would cost
 * the program's own threads more than it saves (SMTOP_ENTRY_TEAM_FROM). */
#define ENTRIES_TEAM_FROM 32768u
/* The team lists and takes a pass's blocks this many at a time. */
#define ENTRIES_ROUND (1u << 18)
#define ENTRIES_SHARES_MOST 4u          /* SMTOP_ENTRY_SHARES: shares per team thread, at most */
/* A launch of an exact window whose ends are not all in this long after
 * its last block entered is taken with what came (a block that never
 * exits, or a launch that ran before its module was patched). */
#define ENTRIES_ENDS_WAIT_NS 500000000ull

struct entries_pending {
	uint64_t off;                   /* its first entry's index, counting every lap */
	uint64_t n, seen;
	uint64_t grid_id, seq;
	uint64_t progress;              /* host monotonic ns of the last entry seen */
	uint64_t first;                 /* the earliest start among the entries seen, UINT64_MAX: none */
	uint32_t stream_id;             /* its stream bound (0: none) */
	uint32_t order_stream, corr;
	uint32_t threads;               /* per block */
	uint32_t warps;                 /* entries per block: 1, or its warps */
	uint64_t blocks;
	uint64_t kernel;                /* its function */
	uint64_t epoch;                 /* entries_epoch at its launch: odd, its exits were patched */
	uint64_t whole_at;              /* host monotonic ns when its last block entered */
	uint64_t looked_pass;           /* the pass that looked at it side by side (entries_look_team) */
	uint64_t seen_before;           /* seen before that look */
	int ends_ready;                 /* its ends were all in at the last pass */
	int ends_fresh;                 /* and again in this one: the host copy is current */
	_Atomic int dead;               /* its launch never got the data */
};

/* The latest launches of a stream whose blocks have all entered: seq1 (of
 * graph launch or call corr1) and seq2, the latest of another corr.  Once
 * a later launch of its stream, from another call, has entered whole, a
 * launch's blocks have all ended: what it lacks will never come.  Launch
 * order is the order of the launch callbacks, which two host threads
 * launching on one stream may not keep: a launch is given up only
 * ENTRIES_PASSED_NS after the later one was found whole. */
#define ENTRIES_PASSED_NS 200000000ull
struct entries_order {
	uint32_t stream, corr1;
	uint64_t seq1, seq2;
	uint64_t at1, at2;              /* host monotonic ns when each was found whole */
};

/* Launches of one stream run in order: while one has blocks yet to enter,
 * the stream's later launches (of other calls: a graph's nodes run side by
 * side) have none, and their entries are not copied in this pass. */
struct entries_waiting {
	uint32_t stream, corr;
	uint64_t pass;
};

/* A synchronize call's return, on the host's clock, until the drain maps
 * it onto the GPU's. */
struct entries_sync {
	uint32_t stream;
	uint64_t seq, host_ns;
};
#define ENTRIES_SYNCS 64

/* The latest synchronize call that returned for a stream (0: the whole
 * context): its launches up to seq had ended by `mono` (host monotonic
 * ns), so a copy made after that has every entry they will ever write. */
struct entries_ended {
	uint32_t stream;
	uint64_t seq, mono;
};

/* Why blocks were lost, for the debug log. */
enum entries_loss { ENTRIES_NO_ROOM, ENTRIES_NO_DATA, ENTRIES_NEVER_ENTERED, ENTRIES_LOSSES };

/* A launch to take in this pass, as the drain thread found it; its
 * blocks as the shares read them are in entries_ctx.blocks at the same
 * index. */
struct entries_taking {
	struct entries_pending *p;
	uint64_t first;                 /* its first block's start, UINT64_MAX: none entered */
	int with_ends;                  /* its exact ends are copied */
};

/* A pass takes at most the arena's entries, so a block's position in the
 * pass fits the shares' lists. */
_Static_assert(ENTRIES_ARENA <= UINT32_MAX, "a pass's positions fit 32 bits");

/* One share of a context's SMs (those equal to it modulo the count): their
 * warp slots' bounds and their chunks, worked on by one thread of the team
 * at a time. */
struct entries_shard {
	struct slot_bounds bounds;
	struct smtop_block closed[ENTRIES_CLOSED];
	size_t n_closed;
	struct entries_packer *packer;
	uint64_t exact;                 /* blocks whose end was measured */
	uint64_t now;                   /* host monotonic ns of the pass */
	size_t begun;                   /* the pass's launches begun for it, in order */
	uint64_t list_ns, take_ns;      /* on the team: listing range (its index), taking */
};

struct entries_ctx {
	CUcontext ctx;
	uint32_t context_id, device_id;
	void *dev;
	struct smtop_entry *host;
	struct smtop_entry_end *host_ends;   /* the arena's second half */
	uint64_t dirty_until;           /* ends may be written below this arena index (counting laps) */
	pthread_mutex_t lock;           /* head, tail, q_begin, q_end, seq */
	uint64_t head, tail, seq;
	uint64_t q_begin, q_end;
	struct entries_pending *q;
	pthread_t thread;
	int started;
	_Atomic int failed;             /* read by entries_settle and launches, off the drain thread */
	_Atomic int stop;
	/* entries_settle's asks, and the last one the drain thread carried out */
	_Atomic uint64_t settle_asked, settle_done;
	void *copy_stream;
	struct entries_shard *shard;
	unsigned n_shards;
	unsigned n_threads;             /* the team's, the drain thread's own included */
	struct pool *team;              /* works on the shares side by side (SMTOP_ENTRY_WORKERS) */
	uint64_t team_from;             /* blocks a pass takes that wake the team */
	uint64_t team_passes;           /* passes the team worked on */
	uint64_t look_passes;           /* passes whose launches the team looked at side by side */
	int look_team;                  /* SMTOP_ENTRY_LOOK_TEAM */
	struct entries_taking *taking;  /* ENTRIES_QUEUE */
	struct entries_share_launch *blocks; /* ENTRIES_QUEUE, the taking launches' blocks */
	size_t n_taking;
	uint64_t n_blocks;              /* blocks of the taking launches, laid end to end */
	uint64_t round;                 /* blocks the team takes in a round */
	uint64_t round_from, round_to;  /* the team's round of them */
	/* with more than one share: range r's blocks of share s, at r * n_shards + s */
	struct entries_share_list *lists;
	struct entries_order order[ENTRIES_STREAMS];
	struct entries_waiting waiting[ENTRIES_STREAMS];
	uint64_t lost[ENTRIES_LOSSES];
	_Atomic uint64_t missed[ENTRIES_END_STATES]; /* window blocks given up without their ends */
	_Atomic uint64_t drains;        /* passes */
	uint64_t busiest;               /* most entries copied in one pass */
	/* the drain thread's wall time: copying and listing (its own work),
	 * then taking the listed launches (the team's, when it wakes) */
	uint64_t scan_ns, take_ns;
	uint64_t copy_ns;               /* of scan_ns, in the copies themselves */
	uint64_t team_ns;               /* the team's rounds' wall time, times its size */
	uint64_t rounds;
	uint64_t copied;                /* entries copied in this pass */
	_Atomic uint64_t copies;        /* the copy calls of every pass */
	struct entries_sync syncs[ENTRIES_SYNCS]; /* under lock */
	size_t n_syncs;
	struct entries_gaps gaps;       /* noted under lock; collected and placed by the drain */
	struct entries_ended ended[ENTRIES_STREAMS], ended_all; /* under lock */
};

static struct blocks_host entries_mem;
static struct entries_hooks entries_hook;
static int entries_per_warp;
static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entries_ctx *entries_ctxs[ENTRIES_MAX_CONTEXTS];
static size_t entries_n_ctxs;
static _Atomic uint64_t entries_no_room; /* blocks of launches the arena had no room for */
/* Odd while block exits may be patched: raised before a switch patches
 * them and after a switch has removed them, so a launch made at an even
 * value and taken at the same value wrote no ends. */
static _Atomic uint64_t entries_epoch;

size_t entries_taken(const struct smtop_entry *e, size_t from, size_t n, uint32_t grid)
{
	size_t i = from;

	while (i < n && entries_share_entered(&e[i], grid))
		i++;
	return i - from;
}

/* As entries_taken over p's entries, the earliest start among those taken
 * kept in p->first: a launch found whole needs no other look at them
 * before the shares take it. */
static size_t entries_taken_first(struct entries_pending *p, const struct smtop_entry *e, size_t from, size_t n)
{
	uint32_t grid = (uint32_t)p->grid_id;
	uint64_t first = p->first;
	size_t i = from;

	for (; i < n && entries_share_entered(&e[i], grid); i++)
		if (e[i].start < first)
			first = e[i].start;
	p->first = first;
	return i - from;
}

/* SMTOP_ENTRY_ARENA=host: the arena is pinned host memory that the patch
 * writes across the bus, and the drain reads it where it lies: no copy,
 * so outside exact windows no driver call of the drain's meets the
 * workload's launch calls (a window's ends are zeroed by the GPU). */
static int entries_in_host;

void entries_start(const struct blocks_host *mem, const struct entries_hooks *hooks, int per_warp)
{
	const char *arena = getenv("SMTOP_ENTRY_ARENA");

	entries_in_host = arena && strcmp(arena, "host") == 0;
	entries_per_warp = per_warp;
	entries_mem = *mem;
	entries_hook = *hooks;
}

int entries_arena_in_host(void)
{
	return entries_in_host;
}

/* ---- the drain ------------------------------------------------------------ */

/* The closed blocks to the observer (kernel records) and their SMs'
 * chunks. */
static void entries_hand_on(struct entries_shard *s)
{
	entries_packer_put(s->packer, s->closed, s->n_closed, s->now);
	s->n_closed = 0;
}

static void entries_close(struct entries_shard *s, const struct smtop_block *b)
{
	s->closed[s->n_closed++] = *b;
	if (s->n_closed == ENTRIES_CLOSED)
		entries_hand_on(s);
}

static struct entries_pending *entries_at(struct entries_ctx *c, uint64_t i)
{
	return &c->q[i % ENTRIES_QUEUE];
}

static const struct smtop_entry *entries_of(const struct entries_ctx *c, const struct entries_pending *p)
{
	return &c->host[p->off % ENTRIES_ARENA];
}

static const struct smtop_entry_end *entries_ends_of(const struct entries_ctx *c, const struct entries_pending *p)
{
	return &c->host_ends[p->off % ENTRIES_ARENA];
}

static int entries_in_window(const struct entries_pending *p)
{
	return (int)(p->epoch & 1);
}

static int entries_may_have_ends(const struct entries_pending *p)
{
	return entries_in_window(p) || p->epoch != atomic_load(&entries_epoch);
}

/* Block i's exact end, or 0 while some of its threads have not left. */
static uint64_t entries_exact_end(const struct entries_pending *p, const struct smtop_entry_end *e, uint64_t start)
{
	if (e->grid != (uint32_t)p->grid_id || e->threads != p->threads || e->end < start)
		return 0;
	return e->end;
}

static int entries_copy(struct entries_ctx *c, uint64_t from, uint64_t to, int ends);

static int entries_copy_ends(struct entries_ctx *c, const struct entries_pending *p)
{
	return entries_copy(c, p->off, p->off + p->blocks, 1);
}

/* The first launches that lost blocks, for the debug log: none entered
 * means its kernel ran unpatched. */
static void entries_note_unentered(struct entries_ctx *c, const struct entries_pending *p, uint64_t got)
{
	static _Atomic int told;

	if (atomic_fetch_add(&told, 1) < 16)
		log_debug("context %u: launch %" PRIu64 " of function %#" PRIx64 " (grid %" PRIu64
			  "): %" PRIu64 " of its %" PRIu64 " blocks entered",
			  c->context_id, p->seq, p->kernel, p->grid_id, got, p->blocks);
}

/* b on its warp slots: thread 0's (slot), or each of its warps' that
 * entered (w, its entries). */
static void entries_put(struct entries_shard *s, const struct entries_pending *p, const struct smtop_block *b,
			uint8_t slot, const struct smtop_entry *w)
{
	struct smtop_block out[32];
	uint8_t slots[32];
	unsigned n = 0;
	size_t k;

	if (p->warps == 1) {
		if (slot_bounds_put(&s->bounds, b, slot, p->stream_id, p->order_stream, p->seq, out))
			entries_close(s, out);
		return;
	}
	for (uint32_t j = 0; j < p->warps && n < 32; j++)
		if (entries_taken(w, j, j + 1, (uint32_t)p->grid_id))
			slots[n++] = w[j].slot;
	k = slot_bounds_put_warps(&s->bounds, b, slots, n, p->stream_id, p->order_stream, p->seq, out);
	for (size_t i = 0; i < k; i++)
		entries_close(s, &out[i]);
}

/* Launches dropped for want of room, placed between the kernels around
 * them (collectors/entries_gaps.h), to the backend's timeline. */
static void entries_emit_gap(void *arg, const struct entries_gap *g)
{
	(void)arg;
	if (entries_hook.dropped)
		entries_hook.dropped(g->from, g->to, g->launches, g->blocks);
}

/* A launch given up before every block entered: its first start from the
 * blocks that did, and the others counted as lost. */
static void entries_count_entered(struct entries_ctx *c, struct entries_pending *p,
				  const struct entries_share_launch *l, struct entries_taking *t)
{
	uint64_t got = 0;

	for (uint64_t i = 0; i < p->blocks; i++) {
		uint64_t start;
		uint16_t sm;

		if (!entries_share_block(l, l->e + i * p->warps, &start, &sm))
			continue;
		got++;
		if (start < t->first)
			t->first = start;
	}
	if (got < p->blocks) {
		drops_add(DROPS_BLOCKS, p->blocks - got);
		c->lost[ENTRIES_NEVER_ENTERED] += p->blocks - got;
		entries_note_unentered(c, p, got);
	}
}

/* Every block of p has entered (or p is given up): what it lacks is
 * counted, and it is listed for the team to take in this pass.  A launch
 * whose entries were all seen taken is not looked at again here. */
static void entries_take_launch(struct entries_ctx *c, struct entries_pending *p)
{
	struct entries_taking *t = &c->taking[c->n_taking];
	struct entries_share_launch *l = &c->blocks[c->n_taking++];

	*t = (struct entries_taking){ .p = p, .first = UINT64_MAX, .with_ends = entries_may_have_ends(p) };
	*l = (struct entries_share_launch){ .e = entries_of(c, p), .blocks = p->blocks, .at = c->n_blocks,
					    .warps = p->warps, .grid = (uint32_t)p->grid_id,
					    .whole = p->seen == p->n };
	c->n_blocks += p->blocks;
	if (t->with_ends) {
		if (p->off + p->n > c->dirty_until)
			c->dirty_until = p->off + p->n;
		if (!p->ends_fresh && entries_copy_ends(c, p) != 0)
			t->with_ends = 0;
	}
	if (l->whole)
		t->first = p->first;
	else
		entries_count_entered(c, p, l, t);
	entries_gaps_taken(&c->gaps, p->seq, t->first, entries_emit_gap, c);
}

/* A launch to take begins for share s: its stream's later bound, its kernel. */
static void entries_shard_begin(struct entries_shard *s, const struct entries_taking *t)
{
	if (t->first != UINT64_MAX)
		slot_bounds_launch_started(&s->bounds, t->p->stream_id, t->p->seq, t->first);
	slot_bounds_kernel(&s->bounds, t->p->kernel);
}

/* Block it of launch k, which entered, put on its SM's warp slot. */
static void entries_shard_put(struct entries_ctx *c, struct entries_shard *s, size_t k,
			      const struct entries_share_item *it)
{
	const struct entries_taking *t = &c->taking[k];
	const struct entries_share_launch *l = &c->blocks[k];
	const struct entries_pending *p = t->p;
	uint64_t i = it->pos - l->at;
	struct smtop_block b = { .grid_id = p->grid_id, .start = it->start, .block = (uint32_t)i, .sm = it->sm,
				 .device_id = (uint8_t)c->device_id };

	if (t->with_ends && (b.end = entries_exact_end(p, &entries_ends_of(c, p)[i], b.start)))
		s->exact++;
	/* a block's warps' entries are read again only when it has several */
	entries_put(s, p, &b, it->slot, l->warps == 1 ? NULL : l->e + i * l->warps);
}

/* A pass too small to wake the team: the drain thread takes every launch,
 * each block on its own share, in launch order. */
static void entries_take_inline(struct entries_ctx *c)
{
	for (size_t k = 0; k < c->n_taking; k++) {
		const struct entries_share_launch *l = &c->blocks[k];
		struct entries_share_item it;

		for (unsigned s = 0; s < c->n_shards; s++)
			entries_shard_begin(&c->shard[s], &c->taking[k]);
		for (uint64_t i = 0; i < l->blocks; i++)
			if (entries_share_item_of(l, i, &it))
				entries_shard_put(c, &c->shard[it.sm % c->n_shards], k, &it);
	}
}

/* Range `range` of the round's blocks, those that entered listed by share. */
static void entries_split_work(void *arg, size_t range, int worker)
{
	struct entries_ctx *c = arg;
	struct entries_share_list *lists = &c->lists[range * c->n_shards];
	uint64_t span = c->round_to - c->round_from;
	uint64_t from = c->round_from + span * range / c->n_shards;
	uint64_t to = c->round_from + span * (range + 1) / c->n_shards;
	uint64_t t0 = clock_mono_ns();

	(void)worker;
	for (unsigned s = 0; s < c->n_shards; s++)
		lists[s].n = 0;
	drops_add(DROPS_BLOCKS, entries_share_split(c->blocks, c->n_taking, from, to, c->n_shards, lists));
	c->shard[range].list_ns += clock_mono_ns() - t0;
}

/* Share me's next listed block, range after range (*r, *j: where it is
 * read); NULL past the last. */
static const struct entries_share_item *entries_shard_next(const struct entries_ctx *c, unsigned me, unsigned *r,
							   size_t *j)
{
	for (; *r < c->n_shards; ++*r, *j = 0) {
		const struct entries_share_list *list = &c->lists[*r * c->n_shards + me];

		if (*j < list->n)
			return &list->item[*j];
	}
	return NULL;
}

/* Share me's blocks of the round, from its lists: each launch begins for
 * it once, before its first block, in order. */
static void entries_shard_take_listed(struct entries_ctx *c, struct entries_shard *s, unsigned me)
{
	unsigned r = 0;
	size_t j = 0;

	for (const struct entries_share_item *it = entries_shard_next(c, me, &r, &j); it;
	     j++, it = entries_shard_next(c, me, &r, &j)) {
		while (!s->begun || it->pos >= c->blocks[s->begun - 1].at + c->blocks[s->begun - 1].blocks)
			entries_shard_begin(s, &c->taking[s->begun++]);
		entries_shard_put(c, s, s->begun - 1, it);
	}
}

/* What a pass leaves for share me once its blocks are in: the blocks a
 * later launch or a synchronize call bounds, then the chunks grown old. */
static void entries_shard_finish(struct entries_shard *s)
{
	size_t k;

	do {
		k = slot_bounds_sweep(&s->bounds, s->closed + s->n_closed, ENTRIES_CLOSED - s->n_closed);
		s->n_closed += k;
		entries_hand_on(s);
	} while (k);
	entries_packer_tick(s->packer, s->now);
}

/* A round's work for share me on the team: its listed blocks, then, after
 * the pass's last round, the launches left to begin and the rest.  One
 * thread of the team at a time works on a share. */
static void entries_shard_work(void *arg, size_t share, int worker)
{
	struct entries_ctx *c = arg;
	struct entries_shard *s = &c->shard[share];
	uint64_t t0 = clock_mono_ns();

	(void)worker;
	entries_shard_take_listed(c, s, (unsigned)share);
	if (c->round_to == c->n_blocks) {
		while (s->begun < c->n_taking)
			entries_shard_begin(s, &c->taking[s->begun++]);
		entries_shard_finish(s);
	}
	s->take_ns += clock_mono_ns() - t0;
}

/* The pass's launches taken and the shares swept: by the team, each share
 * its SMs side by side, when the pass has blocks enough to wake it. */
static void entries_take_listed(struct entries_ctx *c, uint64_t now)
{
	for (unsigned i = 0; i < c->n_shards; i++)
		c->shard[i].now = now;
	if (c->n_shards > 1 && c->n_taking && c->n_blocks >= c->team_from) {
		c->team_passes++;
		for (unsigned i = 0; i < c->n_shards; i++)
			c->shard[i].begun = 0;
		/* each share reads only its own blocks: listed first, side by
		 * side, a round at a time, so that what a round lists is still in
		 * the caches when the shares read it */
		for (c->round_from = 0; c->round_from < c->n_blocks; c->round_from = c->round_to) {
			uint64_t t0 = clock_mono_ns();

			c->round_to = c->n_blocks - c->round_from > c->round ? c->round_from + c->round : c->n_blocks;
			pool_run(c->team, c->n_shards, entries_split_work, c);
			pool_run(c->team, c->n_shards, entries_shard_work, c);
			c->team_ns += (clock_mono_ns() - t0) * c->n_threads;
			c->rounds++;
		}
	} else {
		entries_take_inline(c);
		for (unsigned i = 0; i < c->n_shards; i++)
			entries_shard_finish(&c->shard[i]);
	}
	for (size_t i = 0; i < c->n_taking; i++)
		c->taking[i].p->seen = c->taking[i].p->n = 0; /* done */
	c->n_taking = 0;
	c->n_blocks = 0;
}

static struct entries_order *entries_order_of(struct entries_ctx *c, uint32_t stream)
{
	return &c->order[stream % ENTRIES_STREAMS];
}

/* p entered whole: a later bound for its stream's earlier launches. */
static void entries_order_taken(struct entries_ctx *c, const struct entries_pending *p, uint64_t now)
{
	struct entries_order *o = entries_order_of(c, p->order_stream);

	if (o->stream != p->order_stream)
		*o = (struct entries_order){ .stream = p->order_stream };
	if (p->corr == o->corr1) {
		if (p->seq > o->seq1) {
			o->seq1 = p->seq;
			o->at1 = now;
		}
	} else if (p->seq > o->seq1) {
		o->seq2 = o->seq1;
		o->at2 = o->at1;
		o->seq1 = p->seq;
		o->at1 = now;
		o->corr1 = p->corr;
	} else if (p->seq > o->seq2) {
		o->seq2 = p->seq;
		o->at2 = now;
	}
}

/* Whether a later launch of p's stream, from another call, entered whole
 * long enough ago. */
static int entries_passed(struct entries_ctx *c, const struct entries_pending *p, uint64_t now)
{
	const struct entries_order *o = entries_order_of(c, p->order_stream);
	int other = o->corr1 != p->corr;

	if (o->stream != p->order_stream)
		return 0;
	return (other ? o->seq1 : o->seq2) > p->seq && now - (other ? o->at1 : o->at2) > ENTRIES_PASSED_NS;
}

/* Whether a synchronize call that waited for p returned before `now`, the
 * start of this pass, whose copies came after: p's missing blocks never
 * entered (a kernel that ran unpatched).  Without this only a later launch
 * of its stream, or ENTRIES_STALE_NS, gives it up, and meanwhile it holds
 * the arena's tail. */
static int entries_ended(struct entries_ctx *c, const struct entries_pending *p, uint64_t now)
{
	const struct entries_ended *s = &c->ended[p->order_stream % ENTRIES_STREAMS];
	int ended;

	pthread_mutex_lock(&c->lock);
	ended = (c->ended_all.seq >= p->seq && c->ended_all.mono < now) ||
		(s->stream == p->order_stream && s->seq >= p->seq && s->mono < now);
	pthread_mutex_unlock(&c->lock);
	return ended;
}

/* Copies entries [from, to) of the arena (one lap: no wrap inside), or
 * with `ends` their ends. */
static int entries_copy(struct entries_ctx *c, uint64_t from, uint64_t to, int ends)
{
	size_t at = from % ENTRIES_ARENA;

	if (to <= from)
		return 0;
	if (!ends)
		c->copied += to - from;
	if (entries_in_host)
		return 0; /* read where the patch wrote it */
	uint64_t t0 = clock_mono_ns();
	int r = ends ? entries_mem.download(&c->host_ends[at],
					    (const char *)c->dev + SMTOP_ENTRIES_ENDS + at * sizeof(struct smtop_entry_end),
					    (to - from) * sizeof(struct smtop_entry_end), c->copy_stream)
		     : entries_mem.download(&c->host[at], (const char *)c->dev + at * sizeof(struct smtop_entry),
					    (to - from) * sizeof(struct smtop_entry), c->copy_stream);

	c->copies++;
	c->copy_ns += clock_mono_ns() - t0;
	return r;
}

/* Stretches of the arena to copy, taken in the order they were reserved:
 * those that lie close together in one lap go in one copy. */
struct entries_run {
	uint64_t from, to;
	int ends;
};

static int entries_run_add(struct entries_ctx *c, struct entries_run *r, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return 0;
	if (r->to > r->from && lo / ENTRIES_ARENA == r->from / ENTRIES_ARENA && lo - r->to <= ENTRIES_COPY_GAP) {
		r->to = hi;
		return 0;
	}
	if (entries_copy(c, r->from, r->to, r->ends) != 0)
		return -1;
	r->from = lo;
	r->to = hi;
	return 0;
}

static int entries_run_end(struct entries_ctx *c, struct entries_run *r)
{
	return entries_copy(c, r->from, r->to, r->ends);
}

/* No entry of p came for ENTRIES_STALE_NS before now (a launch reserved
 * after now, its entries still being written, is not stale). */
static int entries_stale(const struct entries_pending *p, uint64_t now)
{
	return clock_waited(now, p->progress, ENTRIES_STALE_NS);
}

static int entries_done(const struct entries_pending *p)
{
	return p->n == 0;
}

static int entries_behind(struct entries_ctx *c, const struct entries_pending *p)
{
	const struct entries_waiting *w = &c->waiting[p->order_stream % ENTRIES_STREAMS];

	return w->pass == c->drains && w->stream == p->order_stream && w->corr != p->corr;
}

static void entries_wait_for(struct entries_ctx *c, const struct entries_pending *p)
{
	struct entries_waiting *w = &c->waiting[p->order_stream % ENTRIES_STREAMS];

	if (w->pass != c->drains)
		*w = (struct entries_waiting){ .stream = p->order_stream, .corr = p->corr, .pass = c->drains };
}

/* The end of p's stretch that a pass looks at: its next entries, at most
 * ENTRIES_WINDOW (all at the end). */
static uint64_t entries_look_to(const struct entries_pending *p, int last)
{
	return !last && p->n - p->seen > ENTRIES_WINDOW ? p->seen + ENTRIES_WINDOW : p->n;
}

/* Copies in what the pass will look at, before it looks: each launch's
 * next stretch, and the stretches that lie close together in one lap of
 * the arena in one copy.  Each copy is a round trip through the driver,
 * which a copy per launch paid tens of thousands of times a second.  The
 * launches' stretches lie in the order they were reserved, so a launch is
 * still copied no later than the launches after it.  -1 on a CUDA error. */
static int entries_copy_pass(struct entries_ctx *c, uint64_t b, uint64_t e, int last)
{
	struct entries_run r = { 0 };

	for (uint64_t i = b; i < e; i++) {
		const struct entries_pending *p = entries_at(c, i);

		if (!entries_done(p) && !atomic_load(&p->dead) &&
		    entries_run_add(c, &r, p->off + p->seen, p->off + entries_look_to(p, last)) != 0)
			return -1;
	}
	return entries_run_end(c, &r);
}

/* The same for the ends of the launches of an exact window that entered
 * whole, which wait for their ends pass after pass. */
static int entries_copy_ends_pass(struct entries_ctx *c, uint64_t b, uint64_t e, int last)
{
	struct entries_run r = { .ends = 1 };

	for (uint64_t i = b; i < e && !last; i++) {
		const struct entries_pending *p = entries_at(c, i);

		if (!entries_done(p) && p->seen == p->n && entries_in_window(p) &&
		    entries_run_add(c, &r, p->off, p->off + p->blocks) != 0)
			return -1;
	}
	return entries_run_end(c, &r);
}

/* Counts p's entries now in, from the pass's copy. */
static void entries_look(struct entries_ctx *c, struct entries_pending *p, uint64_t now, int last)
{
	uint64_t k = entries_taken_first(p, entries_of(c, p), p->seen, entries_look_to(p, last));

	p->seen += k;
	if (k)
		p->progress = now;
}

/* Why e, which is not p's block's exact end, is not. */
static enum entries_end_state entries_end_state(const struct entries_pending *p, const struct smtop_entry_end *e)
{
	if (!e->grid && !e->threads)
		return ENTRIES_END_NONE;
	return e->grid == (uint32_t)p->grid_id && e->threads < p->threads ? ENTRIES_END_PARTIAL : ENTRIES_END_STALE;
}

/* p, a launch of a window, is given up: why its blocks lack their ends,
 * for the debug log (a window whose launches mostly end here measures few
 * blocks). */
static void entries_note_missed(struct entries_ctx *c, const struct entries_pending *p,
				const struct smtop_entry_end *ends, const struct smtop_entry *e)
{
	for (uint64_t i = 0; i < p->blocks; i++)
		if (!entries_exact_end(p, &ends[i], e[i * p->warps].start))
			atomic_fetch_add_explicit(&c->missed[entries_end_state(p, &ends[i])], 1, memory_order_relaxed);
}

/* Whether every block of p, which has entered whole, has its exact end
 * (seen so in the copies of two passes: a copy may read a block's count
 * before its end), or will never get it; 1 at once for a launch outside
 * the windows. */
static int entries_ends_ready(struct entries_ctx *c, struct entries_pending *p, uint64_t now, int last)
{
	const struct smtop_entry_end *ends = entries_ends_of(c, p);
	const struct smtop_entry *e = entries_of(c, p);
	uint64_t i;

	if (!entries_in_window(p) || last)
		return 1;
	if (!p->whole_at)
		p->whole_at = now;
	if (now - p->whole_at > ENTRIES_ENDS_WAIT_NS || entries_passed(c, p, now)) {
		p->ends_fresh = 1; /* entries_copy_ends_pass copied its ends in this pass */
		entries_note_missed(c, p, ends, e);
		return 1;
	}
	for (i = 0; i < p->blocks && entries_exact_end(p, &ends[i], e[i * p->warps].start); i++)
		;
	if (i < p->blocks) {
		p->ends_ready = 0;
		return 0;
	}
	p->ends_fresh = p->ends_ready++ > 0;
	return p->ends_fresh;
}

/* One pass's look by the team: launches b..e in tasks, the pass's time. */
struct entries_look_job {
	struct entries_ctx *c;
	uint64_t b, e, now, pass;
	int last;
	size_t tasks;
};

/* Task t of the team's look: its share of the pass's launches, each
 * looked at as the drain thread would (entries_look) and marked so. */
static void entries_look_work(void *arg, size_t t, int worker)
{
	const struct entries_look_job *j = arg;
	uint64_t span = j->e - j->b;
	uint64_t from = j->b + span * t / j->tasks, to = j->b + span * (t + 1) / j->tasks;

	(void)worker;
	for (uint64_t i = from; i < to; i++) {
		struct entries_pending *p = entries_at(j->c, i);

		if (entries_done(p) || atomic_load(&p->dead))
			continue;
		p->seen_before = p->seen;
		entries_look(j->c, p, j->now, j->last);
		p->looked_pass = j->pass;
	}
}

/* A pass that copied enough entries to wake the team has the team look at
 * its launches side by side: the drain thread alone read every entry of it
 * once while the team waited (a quarter of its time on the H200's host,
 * copies included).  Launches a pass would skip, behind others of their
 * stream, are looked at too: their entries are copied all the same. */
static void entries_look_team(struct entries_ctx *c, uint64_t b, uint64_t e, uint64_t now, int last)
{
	if (!c->look_team || c->n_threads < 2 || !c->team || e - b < 2 || c->copied < c->team_from)
		return;
	struct entries_look_job j = { .c = c, .b = b, .e = e, .now = now, .pass = atomic_load(&c->drains),
				      .last = last, .tasks = e - b < 8u * c->n_threads ? e - b : 8u * c->n_threads };

	pool_run(c->team, j.tasks, entries_look_work, &j);
	c->look_passes++;
}

/* Takes the launches whose blocks have all entered, and those whose
 * missing blocks never will: passed by a later launch of their stream (as
 * known before this pass: a launch found whole in this pass's copies may
 * have been copied after this one's last entries were), stale, or at the
 * end.  -1 on a CUDA error. */
static int entries_scan(struct entries_ctx *c, uint64_t b, uint64_t e, uint64_t now, int last)
{
	if (entries_copy_pass(c, b, e, last) != 0)
		return -1;
	entries_look_team(c, b, e, now, last);
	for (uint64_t i = b; i < e; i++) {
		struct entries_pending *p = entries_at(c, i);
		int copied_all, looked;

		if (entries_done(p))
			continue;
		if (atomic_load(&p->dead)) {
			drops_add(DROPS_BLOCKS, p->blocks);
			c->lost[ENTRIES_NO_DATA] += p->blocks;
			p->seen = p->n = 0;
			continue;
		}
		if (!last && entries_behind(c, p) && !entries_passed(c, p, now)) {
			p->progress = now; /* waiting its turn is not going stale */
			continue;
		}
		looked = p->looked_pass == atomic_load(&c->drains);
		copied_all = last || p->n - (looked ? p->seen_before : p->seen) <= ENTRIES_WINDOW;
		if (!looked)
			entries_look(c, p, now, last);
		if (p->seen == p->n)
			continue;
		if (last || entries_stale(p, now) || entries_passed(c, p, now) ||
		    (copied_all && entries_ended(c, p, now)))
			entries_take_launch(c, p);
		else
			entries_wait_for(c, p);
	}
	if (entries_copy_ends_pass(c, b, e, last) != 0)
		return -1;
	for (uint64_t i = b; i < e; i++) {
		struct entries_pending *p = entries_at(c, i);

		if (entries_done(p) || p->seen != p->n || !entries_ends_ready(c, p, now, last))
			continue;
		entries_order_taken(c, p, now);
		entries_take_launch(c, p);
	}
	return 0;
}

/* The synchronize calls whose return the GPU clock's bound can place now
 * bound their launches' blocks; the others wait. */
static void entries_apply_syncs(struct entries_ctx *c)
{
	size_t keep = 0;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n_syncs; i++) {
		const struct entries_sync *y = &c->syncs[i];
		uint64_t at = entries_hook.clock ? entries_hook.clock(c->device_id, y->host_ns) : 0;

		for (unsigned k = 0; at && k < c->n_shards; k++)
			slot_bounds_synced(&c->shard[k].bounds, y->stream, y->seq, at);
		if (!at)
			c->syncs[keep++] = *y;
	}
	c->n_syncs = keep;
	pthread_mutex_unlock(&c->lock);
}

/* By the GPU on either arena: in host memory too, the counts the exit
 * patch adds to must be zero as the GPU sees them, not only as the host
 * does. */
static int entries_zero_ends(struct entries_ctx *c, uint64_t from, uint64_t n)
{
	return entries_mem.memset((char *)c->dev + SMTOP_ENTRIES_ENDS + from * sizeof(struct smtop_entry_end), 0,
				  n * sizeof(struct smtop_entry_end), c->copy_stream);
}

/* Ends written into [from, to) of the arena, which launches to come will
 * reuse, are zeroed first (only ends count up, entries carry their grid). */
static int entries_clear_ends(struct entries_ctx *c, uint64_t from, uint64_t to)
{
	uint64_t a = from % ENTRIES_ARENA, z = to % ENTRIES_ARENA;
	int r;

	if (c->dirty_until <= from || to <= from)
		return 0;
	if (to - from >= ENTRIES_ARENA)
		r = entries_zero_ends(c, 0, ENTRIES_ARENA);
	else if (a < z)
		r = entries_zero_ends(c, a, z - a);
	else
		r = entries_zero_ends(c, a, ENTRIES_ARENA - a) || entries_zero_ends(c, 0, z);
	return r || entries_mem.sync(c->copy_stream) ? -1 : 0;
}

/* One pass: copy what is new, take the complete launches, free their
 * stretch of the arena, close what a later launch or a synchronize call
 * bounds. */
static int entries_drain(struct entries_ctx *c, int last)
{
	uint64_t b, e, head, tail, now, taken;

	/* the pass's time after its launches were listed: none of them was
	 * reserved after it (entries_stale) */
	pthread_mutex_lock(&c->lock);
	b = c->q_begin;
	e = c->q_end;
	head = c->head;
	entries_gaps_collect(&c->gaps);
	pthread_mutex_unlock(&c->lock);
	now = clock_mono_ns();
	c->copied = 0;
	c->drains++;
	if (entries_scan(c, b, e, now, last) != 0) {
		entries_take_listed(c, now);
		return -1;
	}
	entries_apply_syncs(c);
	taken = clock_mono_ns();
	c->scan_ns += taken - now;
	entries_take_listed(c, now);
	c->take_ns += clock_mono_ns() - taken;
	if (c->copied > c->busiest)
		c->busiest = c->copied;
	while (b < e && entries_done(entries_at(c, b)))
		b++;
	/* With every listed launch taken, the tail is the head as it was when
	 * they were listed: the head now is past launches reserved since,
	 * which this pass has not taken, and their stretch would be reserved
	 * again over their entries. */
	tail = b < e ? entries_at(c, b)->off : head;
	if (entries_clear_ends(c, c->tail, tail) != 0)
		return -1;
	pthread_mutex_lock(&c->lock);
	c->q_begin = b;
	c->tail = tail;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* At the end every open block closes at the GPU's clock now, the latest
 * its block can have ended. */
static void entries_close_all(struct entries_ctx *c)
{
	uint64_t end = entries_hook.clock ? entries_hook.clock(c->device_id, clock_real_ns()) : 0;

	pthread_mutex_lock(&c->lock);
	entries_gaps_finish(&c->gaps, end, entries_emit_gap, c);
	pthread_mutex_unlock(&c->lock);
	for (unsigned i = 0; i < c->n_shards; i++) {
		struct entries_shard *s = &c->shard[i];
		size_t k;

		s->now = clock_mono_ns();
		do {
			k = slot_bounds_close_all(&s->bounds, end, s->closed + s->n_closed, ENTRIES_CLOSED - s->n_closed);
			s->n_closed += k;
			entries_hand_on(s);
		} while (k);
	}
}

/* entries_settle sleeps on this until a drain thread it waits for settles,
 * stops or fails. */
static pthread_mutex_t entries_settle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t entries_settled_cond = PTHREAD_COND_INITIALIZER;

/* The predicate changed before the lock is taken: a waiter between its
 * check and its wait holds the lock, so the broadcast comes after it waits. */
static void entries_wake_settlers(void)
{
	pthread_mutex_lock(&entries_settle_lock);
	pthread_cond_broadcast(&entries_settled_cond);
	pthread_mutex_unlock(&entries_settle_lock);
}

static void *entries_main(void *arg)
{
	struct entries_ctx *c = arg;
	struct timespec period = { 0, ENTRIES_PERIOD_NS };

	blocks_set_own_code(1);
	if (!(c->copy_stream = entries_hook.copy_stream(c->ctx))) {
		log_debug("entry tracing off for context %u: no stream for its copies", c->context_id);
		c->failed = 1;
		entries_wake_settlers();
		return NULL;
	}
	while (!atomic_load(&c->stop)) {
		uint64_t asked = atomic_load(&c->settle_asked);
		int settle = asked != atomic_load(&c->settle_done);

		/* half a window copied means a burst: drain again at once */
		if (c->copied < ENTRIES_WINDOW / 2 && !settle)
			nanosleep(&period, NULL);
		if (entries_drain(c, settle) != 0) {
			log_debug("entry drain for context %u stopped after a CUDA error", c->context_id);
			c->failed = 1;
			entries_wake_settlers();
			break;
		}
		if (settle) {
			entries_close_all(c);
			/* every staged chunk packed: the writer stops next */
			for (unsigned i = 0; i < c->n_shards; i++)
				entries_packer_tick(c->shard[i].packer, UINT64_MAX);
			atomic_store(&c->settle_done, asked);
			entries_wake_settlers();
		}
	}
	return NULL;
}

/* ---- contexts and launches ---------------------------------------------- */

/* The shares a context's drain is cut into, and its team's threads:
 * SMTOP_ENTRY_WORKERS (1 to POOL_MAX_THREADS), else one per
 * blocks_host.cpus_per_drain CPUs the process may run on (or per CPU kept
 * for the collector), at most POOL_DEFAULT_MAX: the workload keeps the
 * rest. */
static unsigned entries_workers_wanted(void)
{
	const char *env = getenv("SMTOP_ENTRY_WORKERS");

	return (unsigned)pool_threads_beside_program(env, entries_mem.cpus_per_drain,
						     env && atoi(env) > 0 ? POOL_MAX_THREADS : POOL_DEFAULT_MAX);
}

/* A count from the environment variable name, or fallback when unset. */
static uint64_t entries_env(const char *name, uint64_t fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 10) : fallback;
}

/* The count name gives, when from least to most; else fallback. */
static unsigned entries_env_in(const char *name, unsigned fallback, unsigned least, unsigned most)
{
	uint64_t v = entries_env(name, fallback);

	return v >= least && v <= most ? (unsigned)v : fallback;
}

/* c's shares of SMs (one per worker, or SMTOP_ENTRY_SHARES per worker),
 * each with its bounds and its packer,
 * and the team that works on them; 0, or -1 when out of memory. */
static int entries_shares_start(struct entries_ctx *c)
{
	unsigned n = entries_workers_wanted();

	if (!(c->team = pool_new((int)n)) && n > 1) {
		log_debug("context %u drains on one thread: no team of %u", c->context_id, n);
		n = 1;
		c->team = pool_new(1);
	}
	/* more shares than threads: a thread slowed by the program's (or
	 * another's) on its core takes fewer of them, as pool_run hands them
	 * out one at a time */
	c->n_threads = n;
	if (n > 1)
		n *= entries_env_in("SMTOP_ENTRY_SHARES", 1, 1, ENTRIES_SHARES_MOST);
	c->n_shards = n; /* what entries_shares_stop frees, should this fail */
	/* the blocks a pass takes that wake the team; those it lists and
	 * takes at a time (never none) */
	c->team_from = entries_env("SMTOP_ENTRY_TEAM_FROM", ENTRIES_TEAM_FROM);
	c->round = entries_env("SMTOP_ENTRY_ROUND", ENTRIES_ROUND);
	/* SMTOP_ENTRY_LOOK_TEAM=0: the drain thread looks at every launch alone */
	c->look_team = entries_env_in("SMTOP_ENTRY_LOOK_TEAM", 1, 0, 1);
	if (!c->round)
		c->round = ENTRIES_ROUND;
	if (!c->team || !(c->shard = calloc(n, sizeof(*c->shard))) ||
	    !(c->taking = calloc(ENTRIES_QUEUE, sizeof(*c->taking))) ||
	    !(c->blocks = calloc(ENTRIES_QUEUE, sizeof(*c->blocks))) ||
	    (n > 1 && !(c->lists = calloc((size_t)n * n, sizeof(*c->lists)))))
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (slot_bounds_init(&c->shard[i].bounds, ENTRIES_SMS) != 0 ||
		    !(c->shard[i].packer = entries_packer_start(c->device_id, c->context_id, entries_hook.observer,
								entries_hook.pack)))
			return -1;
	return 0;
}

/* Everything of c's shares is packed and sent on; the team ends. */
static void entries_shares_stop(struct entries_ctx *c)
{
	pool_free(c->team);
	c->team = NULL;
	for (size_t i = 0; c->lists && i < (size_t)c->n_shards * c->n_shards; i++)
		entries_share_list_free(&c->lists[i]);
	for (unsigned i = 0; c->shard && i < c->n_shards; i++) {
		entries_packer_stop(c->shard[i].packer);
		c->shard[i].packer = NULL;
	}
}

/* The arena on the GPU and its host image, zeroed; or, in host memory,
 * one arena that is both. */
static int entries_arena_alloc(struct entries_ctx *c, const struct entries_launch_info *l, size_t bytes)
{
	if (entries_mem.alloc_host(l->ctx, (void **)&c->host, bytes) != 0)
		return -1;
	if (entries_in_host) {
		c->dev = c->host;
		memset(c->host, 0, bytes);
		return 0;
	}
	if (entries_mem.alloc(l->ctx, &c->dev, bytes) != 0 || entries_mem.memset(c->dev, 0, bytes, l->stream) != 0)
		return -1;
	return entries_mem.sync(l->stream) != 0 ? -1 : 0;
}

/* Inside a launch callback: the arena from the sanitizer's memory calls. */
static struct entries_ctx *entries_create(const struct entries_launch_info *l)
{
	struct entries_ctx *c = calloc(1, sizeof(*c));
	/* entries, then their ends (struct smtop_entry_end, the same size) */
	size_t bytes = 2 * (size_t)SMTOP_ENTRIES_ENDS;

	if (!c)
		return NULL;
	c->ctx = l->ctx;
	c->context_id = l->context_id;
	c->device_id = l->device_id;
	pthread_mutex_init(&c->lock, NULL);
	if (!(c->q = calloc(ENTRIES_QUEUE, sizeof(*c->q))) || entries_arena_alloc(c, l, bytes) != 0) {
		c->failed = 1;
		return c;
	}
	c->host_ends = (struct smtop_entry_end *)(c->host + ENTRIES_ARENA);
	if (entries_shares_start(c) == 0 && thread_start(&c->thread, "smtop-entries", entries_main, c) == 0) {
		c->started = 1;
		return c;
	}
	entries_shares_stop(c);
	c->failed = 1;
	return c;
}

/* ctx's entries, under entries_lock; NULL when it has none yet. */
static struct entries_ctx *entries_lookup(CUcontext ctx)
{
	for (size_t i = 0; i < entries_n_ctxs; i++)
		if (entries_ctxs[i]->ctx == ctx)
			return entries_ctxs[i];
	return NULL;
}

static struct entries_ctx *entries_get(const struct entries_launch_info *l)
{
	struct entries_ctx *c;

	pthread_mutex_lock(&entries_lock);
	c = entries_lookup(l->ctx);
	if (!c && entries_n_ctxs < ENTRIES_MAX_CONTEXTS && (c = entries_create(l)))
		entries_ctxs[entries_n_ctxs++] = c;
	pthread_mutex_unlock(&entries_lock);
	return c && !c->failed ? c : NULL;
}

/* Room for n entries from the arena's head, in one lap; the index of the
 * launch's place in the queue, or -1. */
static int64_t entries_reserve(struct entries_ctx *c, const struct entries_launch_info *l)
{
	uint32_t warps = entries_per_warp ? (l->threads + 31u) / 32u : 1u;
	uint64_t n = l->blocks * (warps ? warps : 1u), off;
	struct entries_pending *p;
	int64_t at = -1;

	pthread_mutex_lock(&c->lock);
	off = c->head;
	if (off % ENTRIES_ARENA + n > ENTRIES_ARENA)
		off = (off / ENTRIES_ARENA + 1) * ENTRIES_ARENA;
	if (n && n <= ENTRIES_ARENA && off + n - c->tail <= ENTRIES_ARENA && c->q_end - c->q_begin < ENTRIES_QUEUE) {
		p = entries_at(c, c->q_end);
		p->off = off;
		p->n = n;
		p->seen = 0;
		p->grid_id = l->grid_id;
		p->seq = ++c->seq;
		p->progress = clock_mono_ns();
		p->first = UINT64_MAX;
		p->stream_id = l->stream_id;
		p->order_stream = l->order_stream;
		p->corr = l->correlation_id;
		p->threads = l->threads;
		p->warps = warps ? warps : 1u;
		p->blocks = l->blocks;
		p->kernel = l->kernel;
		p->epoch = atomic_load(&entries_epoch);
		p->whole_at = 0;
		p->looked_pass = 0;
		p->ends_ready = 0;
		p->ends_fresh = 0;
		atomic_store(&p->dead, 0);
		c->head = off + n;
		at = (int64_t)c->q_end++;
	} else if (l->blocks) {
		entries_gaps_note(&c->gaps, c->seq, l->blocks);
	}
	pthread_mutex_unlock(&c->lock);
	return at;
}

int entries_on_launch(const struct entries_launch_info *l)
{
	struct entries_ctx *c = entries_get(l);
	int64_t at;
	struct entries_pending *p;

	if (!c || (at = entries_reserve(c, l)) < 0) {
		drops_add(DROPS_BLOCKS, l->blocks);
		atomic_fetch_add_explicit(&entries_no_room, l->blocks, memory_order_relaxed);
		return -1;
	}
	p = entries_at(c, (uint64_t)at);
	if (entries_hook.set_data(l->launch, l->function, l->stream,
			     (const char *)c->dev + (p->off % ENTRIES_ARENA) * sizeof(struct smtop_entry)) != 0) {
		atomic_store(&p->dead, 1);
		return -1;
	}
	return 0;
}

static struct entries_ctx *entries_find(CUcontext ctx)
{
	struct entries_ctx *c;

	pthread_mutex_lock(&entries_lock);
	c = entries_lookup(ctx);
	pthread_mutex_unlock(&entries_lock);
	return c;
}

void entries_passes(CUcontext ctx, uint64_t *passes, uint64_t *copies)
{
	struct entries_ctx *c = entries_find(ctx);

	*passes = c ? atomic_load(&c->drains) : 0;
	*copies = c ? atomic_load(&c->copies) : 0;
}

void entries_window_misses(CUcontext ctx, uint64_t out[ENTRIES_END_STATES])
{
	struct entries_ctx *c = entries_find(ctx);

	for (int k = 0; k < ENTRIES_END_STATES; k++)
		out[k] = c ? atomic_load(&c->missed[k]) : 0;
}

uint64_t entries_launched(CUcontext ctx)
{
	struct entries_ctx *c = entries_find(ctx);
	uint64_t seq = 0;

	if (c) {
		pthread_mutex_lock(&c->lock);
		seq = c->seq;
		pthread_mutex_unlock(&c->lock);
	}
	return seq;
}

static void entries_note_ended(struct entries_ended *e, uint32_t stream, uint64_t seq)
{
	if (e->stream != stream || seq > e->seq)
		*e = (struct entries_ended){ .stream = stream, .seq = seq, .mono = clock_mono_ns() };
}

void entries_synced(CUcontext ctx, uint32_t stream, uint64_t seq, uint64_t host_ns)
{
	struct entries_ctx *c = entries_find(ctx);

	if (!c || !seq)
		return;
	pthread_mutex_lock(&c->lock);
	if (c->n_syncs == ENTRIES_SYNCS) /* the oldest gives way: only a bound is lost */
		memmove(c->syncs, c->syncs + 1, (ENTRIES_SYNCS - 1) * sizeof(c->syncs[0]));
	c->syncs[c->n_syncs < ENTRIES_SYNCS ? c->n_syncs++ : ENTRIES_SYNCS - 1] =
		(struct entries_sync){ .stream = stream, .seq = seq, .host_ns = host_ns };
	entries_note_ended(stream ? &c->ended[stream % ENTRIES_STREAMS] : &c->ended_all, stream, seq);
	pthread_mutex_unlock(&c->lock);
}

void entries_exits(int on)
{
	uint64_t e = atomic_load(&entries_epoch);

	if ((int)(e & 1) != on)
		atomic_fetch_add(&entries_epoch, 1);
}

/* How long the blocks measured in windows held their SMs by their
 * inferred ends, against their exact ends: over all SMs, and the least and
 * most of the SMs'. */
static void entries_note_residency(const struct slot_error *e)
{
	uint64_t exact = 0, inferred = 0;
	double lo = 0, hi = 0;
	unsigned sms = 0;
	char v[160];

	for (size_t k = 0; k < SLOT_ERROR_SMS; k++) {
		double r;

		if (!e->sm_exact_ns[k])
			continue;
		exact += e->sm_exact_ns[k];
		inferred += e->sm_inferred_ns[k];
		r = (double)e->sm_inferred_ns[k] / (double)e->sm_exact_ns[k];
		lo = sms && lo < r ? lo : r;
		hi = sms && hi > r ? hi : r;
		sms++;
	}
	if (!sms)
		return;
	snprintf(v, sizeof v, "sms=%u ratio=%.4f min=%.4f max=%.4f", sms, (double)inferred / (double)exact, lo, hi);
	writer_thread_set_meta("inferred_residency", v);
}

/* s's measured errors added to all; its count of exact ends. */
static uint64_t entries_shard_error(struct slot_error *all, const struct entries_shard *s)
{
	const struct slot_error *e = &s->bounds.error;

	all->n += e->n;
	all->under += e->under;
	for (size_t k = 0; k < SLOT_ERROR_BUCKETS; k++)
		all->buckets[k] += e->buckets[k];
	for (size_t k = 0; k < SLOT_ERROR_SMS; k++) {
		all->sm_exact_ns[k] += e->sm_exact_ns[k];
		all->sm_inferred_ns[k] += e->sm_inferred_ns[k];
	}
	return s->exact;
}

/* How the inferred ends compared with the exact ends of the same blocks,
 * for smtop info and docs/performance.md. */
static void entries_note_accuracy(void)
{
	struct slot_error all = { 0 };
	uint64_t exact = 0;
	char v[160];

	for (size_t i = 0; i < entries_n_ctxs; i++)
		for (unsigned k = 0; k < entries_ctxs[i]->n_shards; k++)
			exact += entries_shard_error(&all, &entries_ctxs[i]->shard[k]);
	snprintf(v, sizeof v, "%" PRIu64, exact);
	writer_thread_set_meta("exact_ends", v);
	if (!all.n)
		return;
	snprintf(v, sizeof v, "n=%" PRIu64 " p50=%" PRIu64 " p90=%" PRIu64 " p99=%" PRIu64 " under=%" PRIu64, all.n,
		 slot_error_quantile(&all, 0.5), slot_error_quantile(&all, 0.9), slot_error_quantile(&all, 0.99),
		 all.under);
	writer_thread_set_meta("inferred_end_error_ns", v);
	entries_note_residency(&all);
}

/* The team's time, for SMTOP_DEBUG: where the drain's blocks went once
 * listed, summed over the shares. */
static void entries_log_team(const struct entries_ctx *c)
{
	uint64_t list = 0, take = 0, observe = 0, pack = 0;

	for (unsigned k = 0; c->shard && k < c->n_shards; k++) {
		list += c->shard[k].list_ns;
		take += c->shard[k].take_ns;
		entries_packer_times(c->shard[k].packer, &observe, &pack);
	}
	log_debug("entries of context %u: %" PRIu64 " rounds by the team, its threads' time summed: %.1f ms listing,"
		  " %.1f ms taking, %.1f ms waiting for a round's slowest; every pass's blocks: %.1f ms in the"
		  " kernel table, %.1f ms packing",
		  c->context_id, c->rounds, list / 1e6, take / 1e6,
		  c->team_ns > list + take ? (c->team_ns - list - take) / 1e6 : 0.0, observe / 1e6, pack / 1e6);
}

/* Whether every context asked to settle has, or cannot (stopped, failed). */
static int entries_settled(struct entries_ctx *const *cs, const uint64_t *asked, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct entries_ctx *c = cs[i];

		if (c->started && !c->failed && !atomic_load(&c->stop) && atomic_load(&c->settle_done) < asked[i])
			return 0;
	}
	return 1;
}

int entries_settle(uint64_t wait_ns)
{
	struct entries_ctx *cs[ENTRIES_MAX_CONTEXTS];
	uint64_t asked[ENTRIES_MAX_CONTEXTS], until = clock_mono_ns() + wait_ns;
	struct timespec at = clock_mono_timespec(until);
	size_t n;
	int done, r = 0;

	/* contexts live until entries_shutdown; the lock is not held while
	 * waiting: the program's synchronize callbacks take it */
	pthread_mutex_lock(&entries_lock);
	n = entries_n_ctxs;
	for (size_t i = 0; i < n; i++) {
		cs[i] = entries_ctxs[i];
		asked[i] = atomic_fetch_add(&cs[i]->settle_asked, 1) + 1;
	}
	pthread_mutex_unlock(&entries_lock);
	pthread_mutex_lock(&entries_settle_lock);
	while (!(done = entries_settled(cs, asked, n)) && r != ETIMEDOUT)
		r = pthread_cond_clockwait(&entries_settled_cond, &entries_settle_lock, CLOCK_MONOTONIC, &at);
	pthread_mutex_unlock(&entries_settle_lock);
	return done ? 0 : -1;
}

void entries_shutdown(void)
{
	pthread_mutex_lock(&entries_lock);
	for (size_t i = 0; i < entries_n_ctxs; i++) {
		struct entries_ctx *c = entries_ctxs[i];

		if (!c->started)
			continue;
		atomic_store(&c->stop, 1);
		entries_wake_settlers();
		pthread_join(c->thread, NULL);
		c->started = 0;
		blocks_set_own_code(1);
		if (!c->failed && entries_drain(c, 1) != 0)
			log_debug("last entry drain for context %u failed", c->context_id);
		entries_close_all(c);
		entries_log_team(c);
		entries_shares_stop(c);
		blocks_set_own_code(0);
		log_debug("entries of context %u: %" PRIu64 " launches, %" PRIu64 " entries reserved, %s;"
			  " %" PRIu64 " drains (%" PRIu64 " by a team of %u in %u shares, %" PRIu64
			  " looked at side by side), at most %" PRIu64
			  " entries copied in one, %" PRIu64 " copies, %.1f ms copying and listing (%.1f ms in the"
			  " copies), %.1f ms taking; lost: %" PRIu64 " without data, %" PRIu64 " never entered;"
			  " window blocks given up without their ends: %" PRIu64 " never exited, %" PRIu64
			  " partly, %" PRIu64 " stale",
			  c->context_id, c->seq, c->head, c->failed ? "drain failed" : "drained", (uint64_t)c->drains,
			  c->team_passes, c->n_threads, c->n_shards, c->look_passes, c->busiest, (uint64_t)c->copies, c->scan_ns / 1e6,
			  c->copy_ns / 1e6, c->take_ns / 1e6,
			  c->lost[ENTRIES_NO_DATA], c->lost[ENTRIES_NEVER_ENTERED], (uint64_t)c->missed[ENTRIES_END_NONE],
			  (uint64_t)c->missed[ENTRIES_END_PARTIAL], (uint64_t)c->missed[ENTRIES_END_STALE]);
	}
	entries_note_accuracy();
	pthread_mutex_unlock(&entries_lock);
	if (atomic_load(&entries_no_room))
		log_debug("entries: %" PRIu64 " blocks of launches the arena had no room for",
			  (uint64_t)atomic_load(&entries_no_room));
}
