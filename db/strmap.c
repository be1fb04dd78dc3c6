#include "db/strmap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t strmap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h ? h : 1;
}

static struct db_strmap_entry *strmap_slot(struct db_strmap_entry *e, size_t cap,
					   uint64_t h, const char *key)
{
	size_t i = h & (cap - 1);

	while (e[i].key && (e[i].hash != h || strcmp(e[i].key, key) != 0))
		i = (i + 1) & (cap - 1);
	return &e[i];
}

int64_t *db_strmap_get(const struct db_strmap *m, const char *key)
{
	struct db_strmap_entry *s;

	if (m->cap == 0)
		return NULL;
	s = strmap_slot(m->e, m->cap, strmap_hash(key), key);
	return s->key ? s->v : NULL;
}

static int strmap_grow(struct db_strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct db_strmap_entry *e = calloc(cap, sizeof *e);

	if (!e)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].key)
			*strmap_slot(e, cap, m->e[i].hash, m->e[i].key) = m->e[i];
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

int64_t *db_strmap_put(struct db_strmap *m, const char *key, const int64_t v[3])
{
	struct db_strmap_entry *s;
	uint64_t h = strmap_hash(key);

	if ((m->n + 1) * 2 > m->cap && strmap_grow(m) != 0)
		return NULL;
	s = strmap_slot(m->e, m->cap, h, key);
	if (!s->key) {
		if (!(s->key = strdup(key)))
			return NULL;
		s->hash = h;
		m->n++;
	}
	memcpy(s->v, v, sizeof s->v);
	return s->v;
}

const char *db_strmap_find(const struct db_strmap *m, const char *key)
{
	return m->cap ? strmap_slot(m->e, m->cap, strmap_hash(key), key)->key : NULL;
}

const char *db_strmap_intern(struct db_strmap *m, const char *key)
{
	static const int64_t zero[3];
	struct db_strmap_entry *s;

	if (m->cap && (s = strmap_slot(m->e, m->cap, strmap_hash(key), key))->key)
		return s->key;
	if (!db_strmap_put(m, key, zero))
		return NULL;
	return strmap_slot(m->e, m->cap, strmap_hash(key), key)->key;
}

void db_strmap_clear(struct db_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->e[i].key);
		m->e[i].key = NULL;
	}
	m->n = 0;
}

void db_strmap_free(struct db_strmap *m)
{
	db_strmap_clear(m);
	free(m->e);
	m->e = NULL;
	m->cap = 0;
}
