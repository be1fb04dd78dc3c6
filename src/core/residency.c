#include "src/core/residency.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"

void residency_init(struct residency *r)
{
	memset(r, 0, sizeof *r);
}

void residency_free(struct residency *r)
{
	for (uint32_t i = 0; i < r->n_sms; i++)
		free(r->sms[i].v);
	free(r->sms);
	memset(r, 0, sizeof *r);
}

static struct residency_sm *sm_get(struct residency *r, uint32_t sm)
{
	if (sm >= r->n_sms) {
		uint32_t n = sm + 1;
		struct residency_sm *v = realloc(r->sms, (size_t)n * sizeof *v);
		if (!v)
			return NULL;
		memset(v + r->n_sms, 0, (size_t)(n - r->n_sms) * sizeof *v);
		r->sms = v;
		r->n_sms = n;
	}
	return &r->sms[sm];
}

/* Blocks of the series that ended by s can meet no later block of it: the
 * series comes in start order, so what it sends next starts at s or later.
 * Other series may lag behind, so their blocks stay. */
static void sm_retire(struct residency_sm *q, uint32_t series, uint64_t s)
{
	for (uint32_t i = 0; i < q->n;) {
		if (q->v[i].series == series && q->v[i].e <= s)
			q->v[i] = q->v[--q->n];
		else
			i++;
	}
}

/* owner's blocks kept open at instant t (s <= t < e). */
static int sm_count_at(const struct residency_sm *q, int32_t owner, uint64_t t)
{
	int n = 0;
	for (uint32_t i = 0; i < q->n; i++)
		n += q->v[i].owner == owner && q->v[i].s <= t && t < q->v[i].e;
	return n;
}

/* A late block [s, e) also raises the count at the starts of owner's kept
 * blocks that began inside it (in start order they would have counted it). */
static int late_most(const struct residency_sm *q, int32_t owner, uint64_t s, uint64_t e)
{
	int most = 0;
	for (uint32_t i = 0; i < q->n; i++) {
		const struct residency_open *o = &q->v[i];
		if (o->owner == owner && o->s > s && o->s < e) {
			int c = sm_count_at(q, owner, o->s) + 1;
			most = c > most ? c : most;
		}
	}
	return most;
}

static int sm_keep(struct residency *r, struct residency_sm *q, const struct residency_open *o)
{
	if (q->n == RESIDENCY_OPEN_MAX) {
		uint32_t first = 0;
		for (uint32_t i = 1; i < q->n; i++)
			if (q->v[i].e < q->v[first].e)
				first = i;
		q->v[first] = q->v[--q->n];
		r->dropped++;
	}
	size_t cap = q->cap;
	if (array_grow((void **)&q->v, &cap, q->n + 1, sizeof *q->v))
		return -1;
	q->cap = (uint32_t)cap;
	q->v[q->n++] = *o;
	return 0;
}

int residency_add(struct residency *r, uint32_t sm, uint32_t series, int32_t owner, uint64_t s,
		  uint64_t e)
{
	struct residency_sm *q = sm_get(r, sm);
	if (!q)
		return -1;
	sm_retire(q, series, s);
	if (e <= s)
		return 1;
	int late = 0;
	for (uint32_t i = 0; i < q->n && !late; i++)
		late = q->v[i].series == series && q->v[i].s > s;
	int most = sm_count_at(q, owner, s) + 1;
	if (late) {
		int m = late_most(q, owner, s, e);
		most = m > most ? m : most;
		r->late++;
	}
	struct residency_open o = { s, e, owner, series };
	if (sm_keep(r, q, &o))
		return -1;
	return most;
}

size_t residency_memory(const struct residency *r)
{
	size_t n = (size_t)r->n_sms * sizeof *r->sms;
	for (uint32_t i = 0; i < r->n_sms; i++)
		n += (size_t)r->sms[i].cap * sizeof *r->sms[i].v;
	return n;
}
