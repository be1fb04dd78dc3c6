#include "src/core/u64map.h"

#include <stdlib.h>
#include <string.h>

/* An empty slot: its value is U64MAP_NONE, which memset can write. */
static int slot_empty(const struct u64map_entry *e)
{
	return e->val == U64MAP_NONE;
}

uint64_t *u64map_next(const struct u64map *m, uint64_t key, size_t *pos)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = (u64map_mix(key) + *pos) & mask;; i = (i + 1) & mask) {
		struct u64map_entry *e = &m->e[i];
		if (slot_empty(e))
			return NULL;
		++*pos;
		if (e->key == key)
			return &e->val;
	}
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t pos = 0;

	return u64map_next(m, key, &pos);
}

static void add_nogrow(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t mask = m->cap - 1, i = u64map_mix(key) & mask;

	while (!slot_empty(&m->e[i]))
		i = (i + 1) & mask;
	m->e[i] = (struct u64map_entry){ key, val };
	m->n++;
}

static int rehash(struct u64map *m, size_t cap)
{
	struct u64map old = *m;

	if (!(m->e = malloc(cap * sizeof *m->e))) {
		*m = old;
		return -1;
	}
	memset(m->e, 0xff, cap * sizeof *m->e);
	m->cap = cap;
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (!slot_empty(&old.e[i]))
			add_nogrow(m, old.e[i].key, old.e[i].val);
	free(old.e);
	return 0;
}

int u64map_reserve(struct u64map *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while (n * 2 > cap)
		cap *= 2;
	return cap == m->cap ? 0 : rehash(m, cap);
}

int u64map_add(struct u64map *m, uint64_t key, uint64_t val)
{
	if (u64map_reserve(m, m->n + 1))
		return -1;
	add_nogrow(m, key, val);
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	uint64_t *v = u64map_get(m, key);

	if (!v)
		return u64map_add(m, key, val);
	*v = val;
	return 0;
}

void u64map_clear(struct u64map *m)
{
	if (m->cap)
		memset(m->e, 0xff, m->cap * sizeof *m->e);
	m->n = 0;
}

void u64map_free(struct u64map *m)
{
	free(m->e);
	*m = (struct u64map){ 0 };
}
