#include "src/core/analysis_state.h"

#include <stdlib.h>
#include <string.h>

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
	if (!m->cap)
		return -1;
	for (size_t i = mix(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct slot *s = &m->slots[i];
		if (s->val < 0)
			return -1;
		if (s->k1 == k1 && s->k2 == k2)
			return s->val;
	}
}

static void map_put_nogrow(struct map *m, uint64_t k1, uint64_t k2, int32_t val)
{
	size_t i = mix(k1, k2) & (m->cap - 1);
	while (m->slots[i].val >= 0)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (struct slot){ k1, k2, val };
	m->n++;
}

int analysis_state_map_put(struct map *m, uint64_t k1, uint64_t k2, int32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		struct slot *ns = malloc(nc * sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < nc; i++)
			ns[i].val = -1;
		struct map old = *m;
		m->slots = ns;
		m->cap = nc;
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].val >= 0)
				map_put_nogrow(m, old.slots[i].k1, old.slots[i].k2, old.slots[i].val);
		free(old.slots);
	}
	map_put_nogrow(m, k1, k2, val);
	return 0;
}


int32_t analysis_state_imap_get(const struct analysis *a, const struct imap *m, imap_key_fn key,
				uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return -1;
	for (size_t i = mix(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		int32_t v = m->slots[i];
		uint64_t x1, x2;
		if (v < 0)
			return -1;
		key(a, v, &x1, &x2);
		if (x1 == k1 && x2 == k2)
			return v;
	}
}

static void imap_put_nogrow(const struct analysis *a, struct imap *m, imap_key_fn key, int32_t v)
{
	uint64_t k1, k2;
	key(a, v, &k1, &k2);
	size_t i = mix(k1, k2) & (m->cap - 1);
	while (m->slots[i] >= 0)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = v;
	m->n++;
}

/* Adds entry v, whose key key() reads from the entry itself. */
int analysis_state_imap_put(const struct analysis *a, struct imap *m, imap_key_fn key, int32_t v)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		int32_t *ns = malloc(nc * sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < nc; i++)
			ns[i] = -1;
		struct imap old = *m;
		m->slots = ns;
		m->cap = nc;
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i] >= 0)
				imap_put_nogrow(a, m, key, old.slots[i]);
		free(old.slots);
	}
	imap_put_nogrow(a, m, key, v);
	return 0;
}

static size_t launch_home(const struct analysis *a, uint32_t pid, uint32_t corr)
{
	return mix(pid, corr) & (a->cap_launches - 1);
}

const struct launch *analysis_state_launch_find(const struct analysis *a, uint32_t pid, uint32_t corr)
{
	if (!a->cap_launches)
		return NULL;
	for (size_t i = launch_home(a, pid, corr);; i = (i + 1) & (a->cap_launches - 1)) {
		const struct launch *l = &a->launches[i];
		if (!l->end)
			return NULL;
		if (l->pid == pid && l->corr == corr)
			return l;
	}
}

void analysis_state_launch_put(struct analysis *a, const struct launch *x)
{
	size_t i = launch_home(a, x->pid, x->corr);
	while (a->launches[i].end && (a->launches[i].pid != x->pid || a->launches[i].corr != x->corr))
		i = (i + 1) & (a->cap_launches - 1);
	if (!a->launches[i].end)
		a->n_launches++;
	a->launches[i] = *x;
}

void analysis_state_events_clear(struct vec_event *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].culprits);
	v->n = 0;
}
