#include "collectors/slot_bounds.h"

#include <stdlib.h>
#include <string.h>

int slot_bounds_init(struct slot_bounds *t, uint32_t n_sm)
{
	size_t n = (size_t)n_sm * SLOT_BOUNDS_SLOTS;

	memset(t, 0, sizeof(*t));
	t->open = calloc(n, sizeof(*t->open));
	t->groups = calloc(n, sizeof(*t->groups));
	t->open_on = calloc(n_sm ? n_sm : 1, sizeof(*t->open_on));
	if (!t->open || !t->groups || !t->open_on) {
		slot_bounds_free(t);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		t->groups[i].next_free = i + 1 < n ? (uint32_t)(i + 2) : 0;
	t->free_group = n ? 1 : 0;
	t->n_sm = n_sm;
	return 0;
}

void slot_bounds_free(struct slot_bounds *t)
{
	free(t->open);
	free(t->groups);
	free(t->open_on);
	t->open = NULL;
	t->groups = NULL;
	t->open_on = NULL;
	t->n_sm = 0;
	t->n_open = 0;
}

static const struct slot_stream *slot_stream_of(const struct slot_bounds *t, uint32_t stream)
{
	const struct slot_stream *s = &t->streams[stream % SLOT_BOUNDS_STREAMS];

	return stream && s->id == stream ? s : NULL;
}

static const struct slot_sync *slot_sync_of(const struct slot_bounds *t, uint32_t stream)
{
	const struct slot_sync *s = &t->syncs[stream % SLOT_BOUNDS_STREAMS];

	return stream && s->stream == stream ? s : NULL;
}

/* The least of limit and what bounds o's end besides its slot: a later
 * launch of its stream, a synchronize call that waited for it; UINT64_MAX
 * when nothing does. */
static uint64_t slot_bound(const struct slot_bounds *t, const struct slot_open *o, uint64_t limit)
{
	const struct slot_stream *s = slot_stream_of(t, o->stream);
	const struct slot_sync *y = slot_sync_of(t, o->order);

	if (s && s->seq > o->seq && s->first < limit)
		limit = s->first;
	if (y && y->seq >= o->seq && y->at < limit)
		limit = y->at;
	if (t->all.seq >= o->seq && t->all.at && t->all.at < limit)
		limit = t->all.at;
	return limit;
}

static struct slot_kernel *slot_kernel_of(struct slot_bounds *t, uint64_t kernel)
{
	return &t->kernels[(kernel ^ (kernel >> 17)) % SLOT_BOUNDS_KERNELS];
}

/* The kernel's longest block measured so far, or UINT64_MAX. */
static uint64_t slot_longest(struct slot_bounds *t, uint64_t kernel)
{
	const struct slot_kernel *k = slot_kernel_of(t, kernel);

	return kernel && k->kernel == kernel ? k->longest : UINT64_MAX;
}

static void slot_learn(struct slot_bounds *t, const struct slot_open *o)
{
	struct slot_kernel *k = slot_kernel_of(t, o->kernel);
	uint64_t d = o->b.end - o->b.start;

	if (!o->kernel)
		return;
	if (k->kernel != o->kernel)
		*k = (struct slot_kernel){ .kernel = o->kernel };
	if (d > k->longest)
		k->longest = d;
}

static unsigned slot_error_bucket(uint64_t v)
{
	unsigned msb;

	if (v < 8)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	return msb * 8u + (unsigned)((v >> (msb - 3)) & 7u);
}

static uint64_t slot_error_edge(unsigned bucket)
{
	unsigned msb = bucket / 8u;

	return bucket < 8 ? bucket : (uint64_t)(8u | (bucket & 7u)) << (msb - 3);
}

uint64_t slot_error_quantile(const struct slot_error *e, double q)
{
	uint64_t want = (uint64_t)(q * (double)e->n), seen = 0;

	for (unsigned i = 0; i < SLOT_ERROR_BUCKETS && e->n; i++) {
		seen += e->buckets[i];
		if (seen > want)
			return slot_error_edge(i);
	}
	return 0;
}

/* b has its exact end; inferred is the end it would have had. */
static void slot_error_add(struct slot_error *e, const struct smtop_block *b, uint64_t inferred)
{
	uint64_t exact = b->end, d = inferred >= exact ? inferred - exact : exact - inferred;
	unsigned sm = b->sm < SLOT_ERROR_SMS ? b->sm : SLOT_ERROR_SMS - 1;

	e->n++;
	e->under += inferred < exact;
	e->buckets[slot_error_bucket(d)]++;
	e->sm_exact_ns[sm] += exact - b->start;
	e->sm_inferred_ns[sm] += inferred - b->start;
}

/* The end o would be given without its exact one: its bounds, tightened
 * by its kernel's longest block. */
static uint64_t slot_end(struct slot_bounds *t, const struct slot_open *o, uint64_t limit)
{
	uint64_t end = slot_bound(t, o, limit), longest = slot_longest(t, o->kernel);

	if (longest != UINT64_MAX && o->b.start + longest < end)
		end = o->b.start + longest;
	return end < o->b.start ? o->b.start : end;
}

/* The block o, whose end would be inferred as `inferred`, to out: with
 * its exact end when it has one (measured: what bounded it is what bounds
 * blocks between windows, not the end of the process, so the two are
 * compared), else the inferred end, flagged. */
static void slot_emit(struct slot_bounds *t, const struct slot_open *o, uint64_t inferred, int measured,
		      struct smtop_block *out)
{
	*out = o->b;
	if (o->b.end) {
		if (measured)
			slot_error_add(&t->error, &o->b, inferred);
		slot_learn(t, o);
		return;
	}
	out->end = inferred;
	out->flags |= SMTOP_BLOCK_END_BOUND;
}

static void slot_group_free(struct slot_bounds *t, uint32_t group)
{
	struct slot_group *g = &t->groups[group - 1];

	g->left = 0;
	g->next_free = t->free_group;
	t->free_group = group;
}

/* One warp of a group closes; its block goes to out with its last. */
static int slot_close_warp(struct slot_bounds *t, const struct slot_open *o, uint64_t inferred, int measured,
			   struct smtop_block *out)
{
	struct slot_group *g = &t->groups[o->group - 1];
	struct slot_open whole;

	if (inferred > g->inferred)
		g->inferred = inferred;
	g->measured &= measured;
	if (--g->left)
		return 0;
	whole = (struct slot_open){ .b = g->b, .kernel = g->kernel };
	slot_emit(t, &whole, g->inferred, g->measured, out);
	slot_group_free(t, o->group);
	return 1;
}

/* Closes o (a block, or a warp of one) at the least of its bounds below
 * limit; returns how many blocks that put in out (0 or 1). */
static int slot_close(struct slot_bounds *t, const struct slot_open *o, uint64_t limit, int measured,
		      struct smtop_block *out)
{
	uint64_t inferred = slot_end(t, o, limit);

	if (o->group)
		return slot_close_warp(t, o, inferred, measured, out);
	slot_emit(t, o, inferred, measured, out);
	return 1;
}

void slot_bounds_kernel(struct slot_bounds *t, uint64_t kernel)
{
	t->kernel = kernel;
}

/* in, on its SM's warp slot: what it closes goes to closed. */
static int slot_put_one(struct slot_bounds *t, const struct slot_open *in, unsigned slot, struct smtop_block *closed)
{
	struct slot_open *o;
	int n;

	if (in->b.sm >= t->n_sm || slot >= SLOT_BOUNDS_SLOTS || in->b.start == 0)
		return slot_close(t, in, in->b.start, 0, closed); /* nothing bounds it: end = start */
	o = &t->open[(size_t)in->b.sm * SLOT_BOUNDS_SLOTS + slot];
	if (o->b.start == 0) {
		*o = *in;
		t->n_open++;
		t->open_on[in->b.sm]++;
		/* launches complete out of order: a bound may be there already */
		t->changed |= slot_bound(t, in, UINT64_MAX) != UINT64_MAX;
		return 0;
	}
	if (o->b.start <= in->b.start) {
		n = slot_close(t, o, in->b.start, 1, closed);
		*o = *in;
	} else {
		n = slot_close(t, in, o->b.start, 1, closed);
	}
	return n;
}

static struct slot_open slot_open_of(const struct slot_bounds *t, const struct smtop_block *b, uint32_t stream,
				     uint32_t order, uint64_t seq)
{
	struct slot_open in = { .b = *b, .stream = stream, .order = order, .seq = seq, .kernel = t->kernel };

	in.b.flags &= (uint8_t)~SMTOP_BLOCK_END_BOUND;
	return in;
}

int slot_bounds_put(struct slot_bounds *t, const struct smtop_block *b, unsigned slot, uint32_t stream,
		    uint32_t order, uint64_t seq, struct smtop_block *closed)
{
	struct slot_open in = slot_open_of(t, b, stream, order, seq);

	return slot_put_one(t, &in, slot, closed);
}

size_t slot_bounds_put_warps(struct slot_bounds *t, const struct smtop_block *b, const uint8_t *slots,
			     unsigned n, uint32_t stream, uint32_t order, uint64_t seq, struct smtop_block *closed)
{
	struct slot_open in = slot_open_of(t, b, stream, order, seq);
	uint32_t group = t->free_group;
	size_t out = 0;

	if (!n)
		return 0;
	if (!group) /* more blocks open than warp slots: cannot be, but stay whole */
		return (size_t)slot_put_one(t, &in, slots[0], closed);
	t->free_group = t->groups[group - 1].next_free;
	t->groups[group - 1] = (struct slot_group){ .b = in.b, .kernel = in.kernel, .left = n, .measured = 1 };
	in.group = group;
	for (unsigned i = 0; i < n; i++)
		out += (size_t)slot_put_one(t, &in, slots[i], closed + out);
	return out;
}

void slot_bounds_launch_started(struct slot_bounds *t, uint32_t stream, uint64_t seq, uint64_t first)
{
	struct slot_stream *s = &t->streams[stream % SLOT_BOUNDS_STREAMS];

	if (!stream)
		return;
	/* A later launch of another stream takes the slot: that stream's
	 * earlier blocks lose a bound, never get a wrong one. */
	if (s->id != stream || seq > s->seq) {
		s->id = stream;
		s->seq = seq;
		s->first = first;
		t->changed = 1;
	}
}

void slot_bounds_synced(struct slot_bounds *t, uint32_t stream, uint64_t seq, uint64_t at)
{
	struct slot_sync *y = stream ? &t->syncs[stream % SLOT_BOUNDS_STREAMS] : &t->all;

	/* the latest call: earlier blocks are mostly closed already */
	if ((stream && y->stream != stream) || seq >= y->seq) {
		*y = (struct slot_sync){ .stream = stream, .seq = seq, .at = at };
		t->changed = 1;
	}
}

/* Closes the open blocks of SMs with any (all, at end; else those a bound
 * came for), while out has room.  An SM is looked at only when it has
 * open blocks: a share's table holds every SM and opens only its own. */
static size_t slot_close_where(struct slot_bounds *t, int all, uint64_t end, struct smtop_block *out,
			       size_t cap)
{
	size_t n = 0;

	for (uint32_t sm = 0; sm < t->n_sm && n < cap && t->n_open; sm++) {
		struct slot_open *o = &t->open[(size_t)sm * SLOT_BOUNDS_SLOTS];

		for (unsigned i = 0; i < SLOT_BOUNDS_SLOTS && t->open_on[sm] && n < cap; i++, o++) {
			if (o->b.start == 0)
				continue;
			if (!all && slot_bound(t, o, UINT64_MAX) == UINT64_MAX)
				continue;
			n += (size_t)slot_close(t, o, all ? end : UINT64_MAX, !all, &out[n]);
			o->b.start = 0;
			t->n_open--;
			t->open_on[sm]--;
		}
	}
	return n;
}

size_t slot_bounds_sweep(struct slot_bounds *t, struct smtop_block *out, size_t cap)
{
	size_t n;

	/* every open block is looked at: only when a bound came */
	if (!t->changed)
		return 0;
	n = slot_close_where(t, 0, 0, out, cap);
	if (n < cap)
		t->changed = 0;
	return n;
}

size_t slot_bounds_close_all(struct slot_bounds *t, uint64_t end, struct smtop_block *out, size_t cap)
{
	return slot_close_where(t, 1, end, out, cap);
}
