#include "src/core/strmap.h"

#include <stdlib.h>
#include <string.h>

/* Keys are copied into blocks of this size, or of one key's size when
 * larger. */
#define STRMAP_BLOCK 16384

struct strmap_block {
	struct strmap_block *next;
	size_t used, cap;
	char s[];
};

static uint64_t strmap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static struct strmap_entry *slot_of(const struct strmap_entry *e, size_t cap, uint64_t h,
				    const char *key)
{
	size_t i = h & (cap - 1);

	while (e[i].key && (e[i].hash != h || strcmp(e[i].key, key) != 0))
		i = (i + 1) & (cap - 1);
	return (struct strmap_entry *)&e[i];
}

static struct strmap_entry *strmap_slot(const struct strmap *m, const char *key)
{
	return m->cap ? slot_of(m->e, m->cap, strmap_hash(key), key) : NULL;
}

uint64_t *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry *s = strmap_slot(m, key);

	return s && s->key ? &s->val : NULL;
}

const char *strmap_find(const struct strmap *m, const char *key)
{
	struct strmap_entry *s = strmap_slot(m, key);

	return s ? s->key : NULL;
}

static int strmap_grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct strmap_entry *e = calloc(cap, sizeof *e);

	if (!e)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].key)
			*slot_of(e, cap, m->e[i].hash, m->e[i].key) = m->e[i];
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

/* A copy of key in the map's blocks, or NULL out of memory. */
static const char *strmap_copy(struct strmap *m, const char *key)
{
	size_t len = strlen(key) + 1;
	struct strmap_block *b = m->keys;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > STRMAP_BLOCK ? len : STRMAP_BLOCK;
		if (!(b = malloc(sizeof *b + cap)))
			return NULL;
		*b = (struct strmap_block){ m->keys, 0, cap };
		m->keys = b;
	}
	char *s = memcpy(b->s + b->used, key, len);
	b->used += len;
	return s;
}

uint64_t *strmap_put(struct strmap *m, const char *key, uint64_t val)
{
	if ((m->n + 1) * 2 > m->cap && strmap_grow(m) != 0)
		return NULL;
	uint64_t h = strmap_hash(key);
	struct strmap_entry *s = slot_of(m->e, m->cap, h, key);
	if (!s->key) {
		if (!(s->key = strmap_copy(m, key)))
			return NULL;
		s->hash = h;
		m->n++;
	}
	s->val = val;
	return &s->val;
}

const char *strmap_intern(struct strmap *m, const char *key)
{
	const char *own = strmap_find(m, key);

	if (own || !strmap_put(m, key, 0))
		return own;
	return strmap_find(m, key);
}

void strmap_clear(struct strmap *m)
{
	while (m->keys) {
		struct strmap_block *next = m->keys->next;
		free(m->keys);
		m->keys = next;
	}
	if (m->cap)
		memset(m->e, 0, m->cap * sizeof *m->e);
	m->n = 0;
}

void strmap_free(struct strmap *m)
{
	strmap_clear(m);
	free(m->e);
	*m = (struct strmap){ 0 };
}
