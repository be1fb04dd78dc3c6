#include "src/core/binning.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"
#include "src/core/pool.h"

/* Bins one sweep covers at its base level: a level's ring window (1024 bins,
 * plus a partial one) at the next finer level, so that every pass after the
 * first bins two levels at least. */
#define BINNING_SPAN (4 * (MODEL_RING_BINS + 1))
/* Streams one sweep tells apart; an SM whose batch holds more takes a
 * sweep per group of them (occupancy stays exact, top-2 is merged). */
#define BINNING_SLOTS 16

/* 16 bytes: a full stage (BINNING_STAGE_MAX blocks) takes 8 MB. */
struct binning_item {
	int64_t s;
	uint32_t dur;                   /* ns; longer blocks are staged in pieces */
	uint16_t threads;               /* per block: at most 1024 on CUDA */
	uint16_t stream;
};

/* Each SM's staged blocks are a chain of 4 KiB segments taken from one pool,
 * which a batch hands back whole: the stage takes what it holds plus at most
 * a segment per SM, however unevenly the SMs fill (per-SM arrays each grew
 * to the most their SM ever held: twice the stage). */
#define SEG_ITEMS 255
struct binning_seg {
	int32_t next;                   /* the SM's next segment, -1 */
	uint32_t n;
	struct binning_item items[SEG_ITEMS];
};

/* A bin of one stream during a sweep: the change of the resident threads
 * at its start (a difference array), and a correction in thread-ns for the
 * blocks that start or end inside it. */
struct binning_cell {
	int64_t direct, diff;
};

/* One worker's scratch; sized before the workers start. */
struct binning_scratch {
	struct binning_cell *cells;     /* BINNING_SPAN * BINNING_SLOTS, kept zero */
	struct binning_item *items;     /* the SM's items, gathered from its segments */
	struct binning_item *pass[2];   /* items still wanted by finer levels */
	size_t pass_cap;
	int16_t *slot_of;               /* model stream -> slot in this SM's batch, -1 */
	uint16_t *slot_stream;          /* slot -> model stream */
	size_t streams_cap;
	double peak;
};

struct binning {
	struct binning_seg *segs;       /* the pool; segments [0, n_segs) are in use */
	size_t n_segs, cap_segs;
	size_t most_segs;               /* the most in use at once */
	uint32_t *sm_n;                 /* items staged per SM */
	int32_t *sm_first, *sm_last;    /* each SM's first and last segment, -1 */
	uint32_t n_sm;
	size_t n;                       /* staged, all SMs */
	size_t sm_max;                  /* staged on one SM before the stage is full */
	size_t peak_bytes;              /* the most binning_memory said */
	int64_t smin, emax;             /* earliest start, latest end staged */
	struct binning_scratch *scratch;
	int n_scratch;
};

struct binning *binning_new(void)
{
	struct binning *b = calloc(1, sizeof *b);
	if (b) {
		b->smin = INT64_MAX;
		b->emax = INT64_MIN;
	}
	return b;
}

static void scratch_free(struct binning_scratch *w)
{
	free(w->cells);
	free(w->items);
	free(w->pass[0]);
	free(w->pass[1]);
	free(w->slot_of);
	free(w->slot_stream);
}

void binning_free(struct binning *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n_scratch; i++)
		scratch_free(&b->scratch[i]);
	free(b->scratch);
	free(b->segs);
	free(b->sm_n);
	free(b->sm_first);
	free(b->sm_last);
	free(b);
}

static void binning_drop(struct binning *b)
{
	for (uint32_t i = 0; i < b->n_sm; i++) {
		b->sm_n[i] = 0;
		b->sm_first[i] = b->sm_last[i] = -1;
	}
	if (b->n_segs > b->most_segs)
		b->most_segs = b->n_segs;
	b->n = b->n_segs = 0;
	b->smin = INT64_MAX;
	b->emax = INT64_MIN;
}

/* An SM may take twice its share of the stage before the batch is binned,
 * which bounds the workers' scratch at that. */
int binning_set_sms(struct binning *b, uint32_t n_sm)
{
	if (n_sm > b->n_sm) {
		uint32_t *c = realloc(b->sm_n, n_sm * sizeof *c);
		if (c)
			b->sm_n = c;
		int32_t *f = realloc(b->sm_first, n_sm * sizeof *f);
		if (f)
			b->sm_first = f;
		int32_t *l = realloc(b->sm_last, n_sm * sizeof *l);
		if (l)
			b->sm_last = l;
		if (!c || !f || !l)
			return -1;
		b->n_sm = n_sm;
	}
	binning_drop(b);
	b->sm_max = n_sm ? 2 * BINNING_STAGE_MAX / n_sm : BINNING_STAGE_MAX;
	if (b->sm_max < 1024)
		b->sm_max = 1024;
	return 0;
}

/* A segment of SM sm with room for an item, NULL when out of memory. */
static struct binning_seg *seg_with_room(struct binning *b, uint32_t sm)
{
	int32_t last = b->sm_last[sm];
	if (last >= 0 && b->segs[last].n < SEG_ITEMS)
		return &b->segs[last];
	if (b->n_segs == b->cap_segs &&
	    array_grow((void **)&b->segs, &b->cap_segs, b->n_segs + 1, sizeof *b->segs))
		return NULL;
	int32_t i = (int32_t)b->n_segs++;
	b->segs[i].next = -1;
	b->segs[i].n = 0;
	if (last >= 0)
		b->segs[last].next = i;
	else
		b->sm_first[sm] = i;
	b->sm_last[sm] = i;
	return &b->segs[i];
}

static int push_one(struct binning *b, uint32_t sm, int64_t s, uint32_t dur, uint16_t threads,
		    uint16_t stream)
{
	struct binning_seg *g = seg_with_room(b, sm);
	if (!g)
		return -1;
	g->items[g->n++] = (struct binning_item){ s, dur, threads, stream };
	b->sm_n[sm]++;
	b->n++;
	return 0;
}

static int stage_full(const struct binning *b, uint32_t sm)
{
	return b->n >= BINNING_STAGE_MAX || b->sm_n[sm] >= b->sm_max;
}

int binning_push(struct binning *b, uint32_t sm, int64_t s, int64_t e, uint32_t threads,
		 uint16_t stream)
{
	uint16_t th = threads > UINT16_MAX ? UINT16_MAX : (uint16_t)threads;
	int64_t s0 = s;
	if (e - s > BINNING_BLOCK_MAX_NS)
		e = s + BINNING_BLOCK_MAX_NS;
	/* pieces of a block add up to the block: bins are sums */
	for (; e - s > (int64_t)UINT32_MAX; s += (int64_t)1 << 31)
		if (push_one(b, sm, s, 1u << 31, th, stream))
			return -1;
	if (push_one(b, sm, s, (uint32_t)(e - s), th, stream))
		return -1;
	if (s0 < b->smin)
		b->smin = s0;
	if (e > b->emax)
		b->emax = e;
	return stage_full(b, sm);
}

/* Stages blocks into g until it is full or the first one too long for an
 * item; returns how many. */
static size_t push_stretch(struct binning *b, struct binning_seg *g, uint32_t sm,
			   const struct smtop_block *blk, size_t n, int64_t origin, uint16_t th,
			   uint16_t stream)
{
	struct binning_item *out = &g->items[g->n];
	int64_t smin = b->smin, emax = b->emax;
	size_t i = 0, room = SEG_ITEMS - g->n;
	if (n > room)
		n = room;
	for (; i < n; i++) {
		int64_t s = binning_rel(blk[i].start, origin), e = binning_rel(blk[i].end, origin);
		if (e - s > (int64_t)UINT32_MAX)
			break;
		out[i] = (struct binning_item){ s, (uint32_t)(e - s), th, stream };
		smin = s < smin ? s : smin;
		emax = e > emax ? e : emax;
	}
	g->n += (uint32_t)i;
	b->sm_n[sm] += (uint32_t)i;
	b->n += i;
	b->smin = smin;
	b->emax = emax;
	return i;
}

int binning_push_blocks(struct binning *b, uint32_t sm, const struct smtop_block *blk, size_t n,
			int64_t origin, uint32_t threads, uint16_t stream)
{
	uint16_t th = threads > UINT16_MAX ? UINT16_MAX : (uint16_t)threads;
	for (size_t i = 0; i < n;) {
		struct binning_seg *g = seg_with_room(b, sm);
		if (!g)
			return -1;
		i += push_stretch(b, g, sm, blk + i, n - i, origin, th, stream);
		/* stopped with room left: a block over 4 s, which goes in pieces */
		if (i < n && g->n < SEG_ITEMS) {
			if (binning_push(b, sm, binning_rel(blk[i].start, origin),
					 binning_rel(blk[i].end, origin), threads, stream) < 0)
				return -1;
			i++;
		}
	}
	return stage_full(b, sm);
}

void binning_trim(struct binning *b)
{
	if (b->n)
		return;
	for (int i = 0; i < b->n_scratch; i++)
		scratch_free(&b->scratch[i]);
	free(b->scratch);
	b->scratch = NULL;
	b->n_scratch = 0;
	free(b->segs);
	b->segs = NULL;
	b->cap_segs = b->most_segs = 0;
}

size_t binning_staged(const struct binning *b)
{
	return b->n;
}

size_t binning_memory_peak(const struct binning *b)
{
	size_t now = binning_memory(b);
	return now > b->peak_bytes ? now : b->peak_bytes;
}

size_t binning_memory(const struct binning *b)
{
	size_t most = b->n_segs > b->most_segs ? b->n_segs : b->most_segs;
	size_t bytes = most * sizeof *b->segs +
		       b->n_sm * (sizeof *b->sm_n + sizeof *b->sm_first + sizeof *b->sm_last);
	for (int i = 0; i < b->n_scratch; i++) {
		const struct binning_scratch *w = &b->scratch[i];
		bytes += (w->cells ? (size_t)BINNING_SPAN * BINNING_SLOTS * sizeof *w->cells : 0) +
			 3 * w->pass_cap * sizeof(struct binning_item) +
			 w->streams_cap * (sizeof *w->slot_of + sizeof *w->slot_stream);
	}
	return bytes;
}

void binning_extent(const struct binning *b, int64_t *smin, int64_t *emax)
{
	*smin = b->smin;
	*emax = b->emax;
}

/* ---- preparing a batch ------------------------------------------------------ */

static int scratch_ready(struct binning_scratch *w, size_t items, uint32_t n_streams)
{
	if (!w->cells) {
		w->cells = calloc((size_t)BINNING_SPAN * BINNING_SLOTS, sizeof *w->cells);
		if (!w->cells)
			return -1;
	}
	if (items > w->pass_cap) {
		struct binning_item **bufs[3] = { &w->items, &w->pass[0], &w->pass[1] };
		for (int i = 0; i < 3; i++) {
			void *p = realloc(*bufs[i], items * sizeof **bufs[i]);
			if (!p)
				return -1;
			*bufs[i] = p;
		}
		w->pass_cap = items;
	}
	if (n_streams > w->streams_cap) {
		int16_t *so = realloc(w->slot_of, n_streams * sizeof *so);
		if (!so)
			return -1;
		w->slot_of = so;
		uint16_t *ss = realloc(w->slot_stream, n_streams * sizeof *ss);
		if (!ss)
			return -1;
		w->slot_stream = ss;
		for (size_t i = w->streams_cap; i < n_streams; i++)
			so[i] = -1;
		w->streams_cap = n_streams;
	}
	w->peak = 0;
	return 0;
}

static int scratch_all_ready(struct binning *b, int workers, size_t items, uint32_t n_streams)
{
	if (workers > b->n_scratch) {
		struct binning_scratch *s = realloc(b->scratch, (size_t)workers * sizeof *s);
		if (!s)
			return -1;
		memset(s + b->n_scratch, 0, (size_t)(workers - b->n_scratch) * sizeof *s);
		b->scratch = s;
		b->n_scratch = workers;
	}
	for (int i = 0; i < workers; i++)
		if (scratch_ready(&b->scratch[i], items, n_streams))
			return -1;
	return 0;
}

/* ---- one SM --------------------------------------------------------------- */

struct apply_job {
	struct binning *b;
	struct model_level *levels;
	int64_t old_hi[MODEL_LEVELS];
	int want_peak;
};

/* Clears the bins of SM sm that the ring's move from old_hi to l->hi reuses. */
static void advance_row(struct model_level *l, uint32_t sm, int64_t old_hi)
{
	if (!l->n)
		return; /* a ring not kept (model_rings_for_span) */
	struct model_bin *row = &l->bins[(size_t)sm * l->stride];
	if (old_hi == INT64_MIN || l->hi - old_hi >= (int64_t)l->n) {
		for (size_t i = 0; i < l->n; i++)
			binning_bin_clear(&row[i]);
		return;
	}
	for (int64_t i = old_hi + 1; i <= l->hi; i++)
		binning_bin_clear(&row[binning_ring_slot(l, i)]);
}

/* Adds one bin's amounts (per slot) to the ring, when the ring still holds
 * bin idx: exact occupancy, and the batch's two heaviest streams merged into
 * the bin's top-2. */
static void emit(const struct apply_job *j, struct binning_scratch *w, int level, uint32_t sm,
		 int64_t idx, const int64_t *amt, int ns, int g)
{
	struct model_level *l = &j->levels[level];
	if (idx <= l->hi - (int64_t)l->n)
		return;
	int64_t total = 0;
	int best = -1, second = -1;
	for (int s = 0; s < ns; s++) {
		if (amt[s] <= 0)
			continue;
		total += amt[s];
		if (best < 0 || amt[s] > amt[best]) {
			second = best;
			best = s;
		} else if (second < 0 || amt[s] > amt[second]) {
			second = s;
		}
	}
	if (total <= 0)
		return;
	struct model_bin *bin = &l->bins[(size_t)sm * l->stride + binning_ring_slot(l, idx)];
	bin->occ += (uint64_t)total;
	binning_bin_note(bin, w->slot_stream[g + best], (uint64_t)amt[best]);
	if (second >= 0)
		binning_bin_note(bin, w->slot_stream[g + second], (uint64_t)amt[second]);
	if (level == 0 && j->want_peak) {
		double mean = (double)bin->occ / (double)l->width;
		if (mean > w->peak)
			w->peak = mean;
	}
}

/* One pass: the items of slots [g, g + ns), clipped to start at r0 or later,
 * into levels base..top over base-level bins b0..b1 (at most BINNING_SPAN).
 * Each item costs four cell updates whatever its length; the sweep then
 * walks the bins once, and coarser bins are sums of the finer ones. */
static void sweep(const struct apply_job *j, struct binning_scratch *w, uint32_t sm,
		  const struct binning_item *it, size_t n, int g, int ns, int64_t r0, int base,
		  int top, int64_t b0, int64_t b1)
{
	const int64_t width = (int64_t)MODEL_BASE_NS << (2 * base);
	const int sh = 2 * base;
	struct binning_cell *c = w->cells;
	for (size_t i = 0; i < n; i++) {
		int slot = w->slot_of[it[i].stream] - g;
		if (slot < 0 || slot >= ns)
			continue;
		int64_t e = it[i].s + it[i].dur, s = it[i].s > r0 ? it[i].s : r0;
		if (e <= s)
			continue;
		/* resident from bin i0 to bin i1 (a rate of th over [i0, i1)),
		 * less what bin i0 misses before s, plus what bin i1 holds before
		 * e: two cells, no branch, whatever the length */
		int64_t th = it[i].threads;
		int64_t i0 = binning_floor_div(s, (int64_t)MODEL_BASE_NS) >> sh;
		int64_t i1 = binning_floor_div(e - 1, (int64_t)MODEL_BASE_NS) >> sh;
		struct binning_cell *c0 = &c[(i0 - b0) * ns + slot];
		struct binning_cell *c1 = &c[(i1 - b0) * ns + slot];
		c0->direct -= th * (s - i0 * width);
		c0->diff += th;
		c1->direct += th * (e - i1 * width);
		c1->diff -= th;
	}
	int64_t rate[BINNING_SLOTS] = { 0 }, amt[BINNING_SLOTS];
	int64_t acc[MODEL_LEVELS][BINNING_SLOTS];
	for (int k = base + 1; k <= top; k++)
		memset(acc[k], 0, (size_t)ns * sizeof acc[k][0]);
	for (int64_t i = b0; i <= b1; i++) {
		struct binning_cell *row = &c[(i - b0) * ns];
		int any = 0;
		for (int s = 0; s < ns; s++) {
			rate[s] += row[s].diff;
			amt[s] = row[s].direct + rate[s] * width;
			any |= amt[s] != 0;
			row[s] = (struct binning_cell){ 0, 0 };
		}
		if (any) {
			emit(j, w, base, sm, i, amt, ns, g);
			if (base < top)
				for (int s = 0; s < ns; s++)
					acc[base + 1][s] += amt[s];
		}
		/* a coarser bin is complete when its last child is (or the sweep ends) */
		int64_t idx = i;
		for (int k = base; k < top; k++) {
			if (((idx + 1) & 3) != 0 && i != b1)
				break;
			idx >>= 2;
			emit(j, w, k + 1, sm, idx, acc[k + 1], ns, g);
			for (int s = 0; s < ns; s++) {
				if (k + 2 <= top)
					acc[k + 2][s] += acc[k + 1][s];
				acc[k + 1][s] = 0;
			}
		}
	}
}

/* The first ns of a ring's span (the bins in memory hold all its data). */
static int64_t window_start(const struct model_level *l)
{
	return (l->hi - (int64_t)l->span + 1) * (int64_t)l->width;
}

/* All levels for the items of slots [g, g + ns): a first pass from the
 * finest level whose bins cover the batch's span in one sweep up to the
 * coarsest, then passes for the finer levels over their ring windows only
 * (older time has already left them). */
/* Keeps the items of slots [g, g + ns) that end after r0 (all of them when
 * keep is NULL: only the span is wanted); their span, clipped at r0, in
 * *smin and *emax (INT64_MAX, INT64_MIN when none).  Returns how many. */
static size_t group_filter(const struct binning_scratch *w, const struct binning_item *it,
			   size_t n, int g, int ns, int64_t r0, struct binning_item *keep,
			   int64_t *smin, int64_t *emax)
{
	size_t nk = 0;
	*smin = INT64_MAX;
	*emax = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		int slot = w->slot_of[it[i].stream] - g;
		int64_t e = it[i].s + it[i].dur, s = it[i].s > r0 ? it[i].s : r0;
		if (slot < 0 || slot >= ns || e <= s)
			continue;
		if (keep)
			keep[nk] = it[i];
		nk++;
		if (s < *smin)
			*smin = s;
		if (e > *emax)
			*emax = e;
	}
	return nk;
}

/* All levels for the items of slots [g, g + ns), whose span is [smin, emax):
 * a first pass from the finest level whose bins cover the span in one sweep
 * up to the coarsest, then passes for the finer levels over their ring
 * windows only (older time has already left them). */
static void sweep_group(const struct apply_job *j, struct binning_scratch *w, uint32_t sm,
			const struct binning_item *it, size_t n, int g, int ns, int64_t smin,
			int64_t emax)
{
	int top = MODEL_LEVELS - 1, buf = 0;
	int64_t r0 = INT64_MIN;
	while (smin < emax) {
		int64_t f0 = binning_floor_div(smin, (int64_t)MODEL_BASE_NS);
		int64_t f1 = binning_floor_div(emax - 1, (int64_t)MODEL_BASE_NS);
		int base = 0;
		while (base < top && (f1 >> (2 * base)) - (f0 >> (2 * base)) >= BINNING_SPAN)
			base++;
		if ((f1 >> (2 * base)) - (f0 >> (2 * base)) < BINNING_SPAN) {
			sweep(j, w, sm, it, n, g, ns, r0, base, top, f0 >> (2 * base),
			      f1 >> (2 * base));
			if (base == 0)
				return;
			top = base - 1;
		}
		/* else longer than the coarsest ring: only its window matters */
		int64_t win = window_start(&j->levels[top]);
		if (win <= r0)
			return; /* cannot happen: a window holds 1024 bins */
		r0 = win;
		/* keep only what reaches the finer levels' windows */
		n = group_filter(w, it, n, g, ns, r0, w->pass[buf], &smin, &emax);
		it = w->pass[buf];
		buf ^= 1;
	}
}

static void apply_sm(void *ud, size_t task, int worker)
{
	const struct apply_job *j = ud;
	struct binning *b = j->b;
	struct binning_scratch *w = &b->scratch[worker];
	uint32_t sm = (uint32_t)task;
	for (int k = 0; k < MODEL_LEVELS; k++)
		advance_row(&j->levels[k], sm, j->old_hi[k]);
	if (sm >= b->n_sm)
		return;
	/* the SM's items, from its segments in the order they came */
	struct binning_item *it = w->items;
	size_t n = 0;
	for (int32_t g = b->sm_first[sm]; g >= 0; g = b->segs[g].next) {
		memcpy(it + n, b->segs[g].items, b->segs[g].n * sizeof *it);
		n += b->segs[g].n;
	}
	int ns = 0;
	int64_t smin = INT64_MAX, emax = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		if (w->slot_of[it[i].stream] < 0) {
			w->slot_of[it[i].stream] = (int16_t)ns;
			w->slot_stream[ns++] = it[i].stream;
		}
		smin = it[i].s < smin ? it[i].s : smin;
		emax = it[i].s + it[i].dur > emax ? it[i].s + it[i].dur : emax;
	}
	for (int g = 0; g < ns; g += BINNING_SLOTS) {
		int gs = ns - g < BINNING_SLOTS ? ns - g : BINNING_SLOTS;
		if (ns > BINNING_SLOTS)
			group_filter(w, it, n, g, gs, INT64_MIN, NULL, &smin, &emax);
		sweep_group(j, w, sm, it, n, g, gs, smin, emax);
	}
	for (int s = 0; s < ns; s++)
		w->slot_of[w->slot_stream[s]] = -1;
}

int binning_apply(struct binning *b, struct model_level *levels, uint32_t n_sm,
		  uint32_t n_streams, struct pool *p, double *peak)
{
	if (!b->n)
		return 0;
	size_t most = 0;
	for (uint32_t i = 0; i < b->n_sm; i++)
		if (b->sm_n[i] > most)
			most = b->sm_n[i];
	int workers = pool_threads(p);
	if (scratch_all_ready(b, workers, most, n_streams))
		return -1;
	struct apply_job j = { .b = b, .levels = levels, .want_peak = peak != NULL };
	/* every level moves to the latest end staged (the same bin at each
	 * level, so the rings stay aligned), then each SM clears what its
	 * rings reuse and bins its blocks */
	int64_t last = binning_floor_div(b->emax - 1, (int64_t)MODEL_BASE_NS);
	for (int k = 0; k < MODEL_LEVELS; k++) {
		j.old_hi[k] = levels[k].hi;
		int64_t hi = last >> (2 * k);
		if (levels[k].hi == INT64_MIN || hi > levels[k].hi)
			levels[k].hi = hi;
		levels[k].used = 1;
	}
	pool_run(p, n_sm, apply_sm, &j);
	b->peak_bytes = binning_memory_peak(b);
	for (int i = 0; peak && i < workers; i++)
		if (b->scratch[i].peak > *peak)
			*peak = b->scratch[i].peak;
	binning_drop(b);
	return 0;
}
