#include "src/core/residency.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"

void residency_init(struct residency *r)
{
	memset(r, 0, sizeof *r);
}

static void sm_clear(struct residency_sm *q)
{
	for (uint32_t i = 0; i < q->n; i++)
		free(q->v[i].heap);
	q->n = 0;
}

void residency_clear(struct residency *r)
{
	for (uint32_t i = 0; i < r->n_sms; i++) {
		sm_clear(&r->sms[i]);
		free(r->sms[i].v);
		r->sms[i] = (struct residency_sm){ 0 };
	}
}

void residency_free(struct residency *r)
{
	residency_clear(r);
	free(r->sms);
	residency_init(r);
}

static struct residency_sm *sm_get(struct residency *r, uint32_t sm)
{
	if (sm >= r->n_sms) {
		struct residency_sm *v = realloc(r->sms, ((size_t)sm + 1) * sizeof *v);
		if (!v)
			return NULL;
		memset(v + r->n_sms, 0, ((size_t)sm + 1 - r->n_sms) * sizeof *v);
		r->sms = v;
		r->n_sms = sm + 1;
	}
	return &r->sms[sm];
}

static void list_drop(struct residency_sm *q, uint32_t i)
{
	free(q->v[i].heap);
	q->v[i] = q->v[--q->n];
	q->last = UINT32_MAX;
}

/* A list another block on its SM shows useless: all its blocks ended
 * before a later start of their process there (see RESIDENCY_FORGET_NS). */
static int list_stale(const struct residency_list *l, uint32_t series, uint64_t s)
{
	return l->series == series ? l->last_end <= s : l->last_end + RESIDENCY_FORGET_NS < s;
}

/* owner's list on the SM (made when missing), dropping the stale on the way. */
static struct residency_list *list_get(struct residency_sm *q, uint32_t series, int32_t owner,
				       uint64_t s)
{
	/* a kernel's blocks come in runs on an SM: no look at the others */
	if (q->last < q->n && q->v[q->last].owner == owner)
		return &q->v[q->last];
	struct residency_list *found = NULL;
	for (uint32_t i = 0; i < q->n;) {
		struct residency_list *l = &q->v[i];
		if (l->owner == owner) {
			found = l;
			i++;
		} else if (list_stale(l, series, s)) {
			/* the last list moves here: found may be it */
			int moved = found == &q->v[q->n - 1];
			list_drop(q, i);
			if (moved)
				found = l;
		} else {
			i++;
		}
	}
	if (found) {
		q->last = (uint32_t)(found - q->v);
		return found;
	}
	size_t cap = q->cap;
	if (array_grow((void **)&q->v, &cap, q->n + 1, sizeof *q->v))
		return NULL;
	q->cap = (uint32_t)cap;
	struct residency_list *l = &q->v[q->n++];
	memset(l, 0, sizeof *l);
	l->owner = owner;
	l->series = series;
	q->last = q->n - 1;
	return l;
}

static struct residency_span *spans(struct residency_list *l)
{
	return l->cap ? l->heap : l->inl;
}

/* Blocks that ended by s can meet no later block of the kernel on this SM:
 * they come in start order, so what comes next starts at s or later.
 * Counts the blocks open at s and tells whether one started after s. */
static int list_retire(struct residency_list *l, uint64_t s, int *late)
{
	*late = 0;
	if (s >= l->max_s && s < l->min_e)
		return (int)l->n;
	struct residency_span *v = spans(l);
	uint32_t n = l->n;
	uint64_t max_s = 0, min_e = UINT64_MAX;
	int at_s = 0, after = 0;
	for (uint32_t i = 0; i < n;) {
		if (v[i].e <= s) {
			v[i] = v[--n];
			continue;
		}
		at_s += v[i].s <= s;
		after |= v[i].s > s;
		max_s = v[i].s > max_s ? v[i].s : max_s;
		min_e = v[i].e < min_e ? v[i].e : min_e;
		i++;
	}
	l->n = n;
	l->max_s = max_s;
	l->min_e = min_e;
	*late = after;
	return at_s;
}

/* A block [s, e) that came after later-starting blocks also raises the
 * count at their starts inside it (in start order they would have counted
 * it): the most over those instants, the block included. */
static int late_most(struct residency_list *l, uint64_t s, uint64_t e)
{
	const struct residency_span *v = spans(l);
	int most = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		uint64_t t = v[i].s;
		if (t <= s || t >= e)
			continue;
		int c = 1;
		for (uint32_t j = 0; j < l->n; j++)
			c += v[j].s <= t && t < v[j].e;
		most = c > most ? c : most;
	}
	return most;
}

static int list_keep(struct residency *r, struct residency_list *l, uint64_t s, uint64_t e)
{
	if (l->n == RESIDENCY_OPEN_MAX) {
		struct residency_span *v = spans(l);
		uint32_t first = 0;
		for (uint32_t i = 1; i < l->n; i++)
			if (v[i].e < v[first].e)
				first = i;
		v[first] = v[--l->n];
		l->max_s = 0;
		l->min_e = 0; /* the next start looks at every block again */
		r->dropped++;
	}
	if (l->n == (l->cap ? l->cap : RESIDENCY_INLINE)) {
		size_t cap = l->cap ? l->cap : RESIDENCY_INLINE;
		struct residency_span *v = l->cap ? l->heap : NULL;
		if (array_grow((void **)&v, &cap, l->n + 1, sizeof *v))
			return -1;
		if (!l->cap)
			memcpy(v, l->inl, sizeof l->inl);
		l->heap = v;
		l->cap = (uint32_t)cap;
	}
	spans(l)[l->n++] = (struct residency_span){ s, e };
	if (e > l->last_end)
		l->last_end = e;
	if (l->n == 1 || s > l->max_s)
		l->max_s = s;
	if (l->n == 1 || e < l->min_e)
		l->min_e = e;
	return 0;
}

int residency_add(struct residency *r, uint32_t sm, uint32_t series, int32_t owner, uint64_t s,
		  uint64_t e, int most)
{
	struct residency_sm *q = sm_get(r, sm);
	if (!q)
		return -1;
	struct residency_list *l = list_get(q, series, owner, s);
	if (!l)
		return -1;
	int late;
	int at = list_retire(l, s, &late) + 1;
	most = at > most ? at : most;
	if (e <= s)
		return most;
	/* a late block can raise the most only where the list could */
	if (late) {
		r->late++;
		if ((int)l->n + 1 > most) {
			int m = late_most(l, s, e);
			most = m > most ? m : most;
		}
	}
	return list_keep(r, l, s, e) ? -1 : most;
}

size_t residency_memory(const struct residency *r)
{
	size_t n = (size_t)r->n_sms * sizeof *r->sms;
	for (uint32_t i = 0; i < r->n_sms; i++) {
		const struct residency_sm *q = &r->sms[i];
		n += (size_t)q->cap * sizeof *q->v;
		for (uint32_t j = 0; j < q->n; j++)
			n += (size_t)q->v[j].cap * sizeof(struct residency_span);
	}
	return n;
}
