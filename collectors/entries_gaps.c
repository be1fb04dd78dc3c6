#include "collectors/entries_gaps.h"

/* g's launches counted into the gap before it in a full list: the merged
 * gap ends where the later one did. */
static void gap_merge(struct entries_gap *into, const struct entries_gap *g)
{
	into->launches += g->launches;
	into->blocks += g->blocks;
	into->before_seq = g->before_seq;
	into->to = 0;
}

/* g into list (*n of cap): one gap with the last when both follow the same
 * launch, folded into the last when the list is full, else appended. */
static void gaps_add(struct entries_gap *list, size_t *n, size_t cap, const struct entries_gap *g)
{
	struct entries_gap *last = *n ? &list[*n - 1] : NULL;

	if (last && last->after_seq == g->after_seq) {
		last->launches += g->launches;
		last->blocks += g->blocks;
	} else if (*n == cap) {
		gap_merge(last, g);
	} else {
		list[(*n)++] = *g;
	}
}

void entries_gaps_note(struct entries_gaps *g, uint64_t after_seq, uint64_t blocks)
{
	struct entries_gap next = { .after_seq = after_seq, .before_seq = after_seq + 1, .launches = 1,
				    .blocks = blocks };

	gaps_add(g->noted, &g->n_noted, ENTRIES_GAPS_NOTED, &next);
}

static uint64_t gaps_first_of(const struct entries_gaps *g, uint64_t seq)
{
	const struct entries_gap_first *f = &g->firsts[seq % ENTRIES_GAPS_FIRSTS];

	return seq && f->seq == seq ? f->first : 0;
}

void entries_gaps_collect(struct entries_gaps *g)
{
	for (size_t i = 0; i < g->n_noted; i++) {
		struct entries_gap n = g->noted[i];

		/* its launch before may have been taken already */
		n.from = gaps_first_of(g, n.after_seq);
		gaps_add(g->open, &g->n_open, ENTRIES_GAPS_OPEN, &n);
	}
	g->n_noted = 0;
}

/* A launch with no launch before it has its gap start where it ends. */
static void gap_emit(const struct entries_gap *g, entries_gap_fn *emit, void *arg)
{
	struct entries_gap out = *g;

	if (!out.from || out.from > out.to)
		out.from = out.to;
	emit(arg, &out);
}

void entries_gaps_taken(struct entries_gaps *g, uint64_t seq, uint64_t first, entries_gap_fn *emit, void *arg)
{
	size_t keep = 0;

	if (first == UINT64_MAX || first == 0)
		return;
	g->firsts[seq % ENTRIES_GAPS_FIRSTS] = (struct entries_gap_first){ .seq = seq, .first = first };
	for (size_t i = 0; i < g->n_open; i++) {
		struct entries_gap *o = &g->open[i];

		if (o->after_seq == seq)
			o->from = first;
		if (o->before_seq == seq)
			o->to = first;
		if (o->to && (o->from || !o->after_seq))
			gap_emit(o, emit, arg);
		else
			g->open[keep++] = *o;
	}
	g->n_open = keep;
}

void entries_gaps_finish(struct entries_gaps *g, uint64_t end, entries_gap_fn *emit, void *arg)
{
	entries_gaps_collect(g);
	for (size_t i = 0; i < g->n_open; i++) {
		struct entries_gap *o = &g->open[i];

		if (!o->to)
			o->to = o->from ? (end > o->from ? end : o->from) : 0;
		if (o->to)
			gap_emit(o, emit, arg);
	}
	g->n_open = 0;
}
