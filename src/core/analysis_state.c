#include "src/core/analysis_state.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"

/* ---- small containers ---- */

static uint64_t mix(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

int32_t analysis_state_map_get(const struct map *m, uint64_t k1, uint64_t k2)
{
	size_t pos = 0;
	for (const uint64_t *v; (v = u64map_next(&m->idx, mix(k1, k2), &pos));)
		if (m->slots[*v].k1 == k1 && m->slots[*v].k2 == k2)
			return m->slots[*v].val;
	return -1;
}

/* Adds (k1, k2) -> val; the caller has looked it up first. */
int analysis_state_map_put(struct map *m, uint64_t k1, uint64_t k2, int32_t val)
{
	if (array_grow((void **)&m->slots, &m->cap, m->n + 1, sizeof *m->slots) ||
	    u64map_add(&m->idx, mix(k1, k2), m->n))
		return -1;
	m->slots[m->n++] = (struct slot){ k1, k2, val };
	return 0;
}

void analysis_state_map_free(struct map *m)
{
	free(m->slots);
	u64map_free(&m->idx);
	*m = (struct map){ 0 };
}

int32_t analysis_state_imap_get(const void *table, const struct imap *m, imap_key_fn key,
				uint64_t k1, uint64_t k2)
{
	size_t pos = 0;
	for (const uint64_t *v; (v = u64map_next(&m->idx, mix(k1, k2), &pos));) {
		uint64_t x1, x2;
		key(table, (int32_t)*v, &x1, &x2);
		if (x1 == k1 && x2 == k2)
			return (int32_t)*v;
	}
	return -1;
}

/* Adds entry v, whose key key() reads from the entry itself. */
int analysis_state_imap_put(const void *table, struct imap *m, imap_key_fn key, int32_t v)
{
	uint64_t k1, k2;
	key(table, v, &k1, &k2);
	return u64map_add(&m->idx, mix(k1, k2), (uint64_t)v);
}

static uint64_t launch_key(uint32_t pid, uint32_t corr)
{
	return (uint64_t)pid << 32 | corr;
}

const struct launch *analysis_state_launch_find(const struct ready_inputs *ri, uint32_t pid,
						uint32_t corr)
{
	const uint64_t *v = u64map_get(&ri->launch_idx, launch_key(pid, corr));
	return v ? &ri->launches[*v] : NULL;
}

/* Stores x, replacing the launch of the same process and correlation id. */
int analysis_state_launch_put(struct ready_inputs *ri, const struct launch *x)
{
	uint64_t key = launch_key(x->pid, x->corr), *v = u64map_get(&ri->launch_idx, key);
	if (v) {
		ri->launches[*v] = *x;
		return 0;
	}
	if (array_grow((void **)&ri->launches, &ri->cap_launches, ri->n_launches + 1, sizeof *ri->launches) ||
	    u64map_add(&ri->launch_idx, key, ri->n_launches))
		return -1;
	ri->launches[ri->n_launches++] = *x;
	return 0;
}

void analysis_state_events_clear(struct vec_event *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].culprits);
	v->n = 0;
}
