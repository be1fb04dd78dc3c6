#include "collectors/slot_bounds.h"

#include <stdlib.h>
#include <string.h>

int slot_bounds_init(struct slot_bounds *t, uint32_t n_sm)
{
	memset(t, 0, sizeof(*t));
	t->open = calloc((size_t)n_sm * SLOT_BOUNDS_SLOTS, sizeof(*t->open));
	if (!t->open)
		return -1;
	t->n_sm = n_sm;
	return 0;
}

void slot_bounds_free(struct slot_bounds *t)
{
	free(t->open);
	t->open = NULL;
	t->n_sm = 0;
	t->n_open = 0;
}

static const struct slot_stream *slot_stream_of(const struct slot_bounds *t, uint32_t stream)
{
	const struct slot_stream *s = &t->streams[stream % SLOT_BOUNDS_STREAMS];

	return stream && s->id == stream ? s : NULL;
}

/* The least bound of o's end: limit, or its stream's later launch. */
static uint64_t slot_bound(const struct slot_bounds *t, const struct slot_open *o, uint64_t limit)
{
	const struct slot_stream *s = slot_stream_of(t, o->stream);

	if (s && s->seq > o->seq && s->first < limit)
		limit = s->first;
	return limit < o->b.start ? o->b.start : limit;
}

static void slot_close(const struct slot_bounds *t, const struct slot_open *o, uint64_t limit,
		       struct smtop_block *out)
{
	*out = o->b;
	out->end = slot_bound(t, o, limit);
	out->flags |= SMTOP_BLOCK_END_BOUND;
}

int slot_bounds_put(struct slot_bounds *t, const struct smtop_block *b, unsigned slot, uint32_t stream,
		    uint64_t seq, struct smtop_block *closed)
{
	struct slot_open in = { .b = *b, .stream = stream, .seq = seq }, *o;

	in.b.flags |= SMTOP_BLOCK_END_BOUND;
	if (b->sm >= t->n_sm || slot >= SLOT_BOUNDS_SLOTS || b->start == 0) {
		*closed = in.b;
		closed->end = closed->start;
		return 1;
	}
	o = &t->open[(size_t)b->sm * SLOT_BOUNDS_SLOTS + slot];
	if (o->b.start == 0) {
		*o = in;
		t->n_open++;
		return 0;
	}
	if (o->b.start <= b->start) {
		slot_close(t, o, b->start, closed);
		*o = in;
	} else {
		slot_close(t, &in, o->b.start, closed);
	}
	return 1;
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
	}
}

static size_t slot_close_where(struct slot_bounds *t, int all, uint64_t end, struct smtop_block *out,
			       size_t cap)
{
	size_t n = 0, slots = (size_t)t->n_sm * SLOT_BOUNDS_SLOTS;

	for (size_t i = 0; i < slots && n < cap && t->n_open; i++) {
		struct slot_open *o = &t->open[i];
		const struct slot_stream *s;

		if (o->b.start == 0)
			continue;
		s = slot_stream_of(t, o->stream);
		if (!all && !(s && s->seq > o->seq))
			continue;
		slot_close(t, o, all ? end : UINT64_MAX, &out[n++]);
		o->b.start = 0;
		t->n_open--;
	}
	return n;
}

size_t slot_bounds_sweep(struct slot_bounds *t, struct smtop_block *out, size_t cap)
{
	return slot_close_where(t, 0, 0, out, cap);
}

size_t slot_bounds_close_all(struct slot_bounds *t, uint64_t end, struct smtop_block *out, size_t cap)
{
	return slot_close_where(t, 1, end, out, cap);
}
