#include "collectors/ptrset.h"

#include <stdint.h>

/* p's value in s, or NULL when s does not hold it; a full set starts over
 * first. */
static uint64_t *ptrset_find(struct ptrset *s, const void *p)
{
	if (s->map.n >= PTRSET_MAX)
		ptrset_clear(s);
	return u64map_get(&s->map, (uint64_t)(uintptr_t)p);
}

/* Keeps p with value v (NULL, or out of memory: not kept). */
static void ptrset_keep(struct ptrset *s, const void *p, uint32_t v)
{
	if (p)
		u64map_put(&s->map, (uint64_t)(uintptr_t)p, v);
}

int ptrset_add(struct ptrset *s, const void *p)
{
	if (ptrset_find(s, p))
		return 0;
	ptrset_keep(s, p, 0);
	return 1;
}

void ptrmap_put(struct ptrmap *m, const void *p, uint32_t v)
{
	uint64_t *have = ptrset_find(&m->keys, p);

	if (have)
		*have = v;
	else
		ptrset_keep(&m->keys, p, v);
}

int ptrmap_add(struct ptrmap *m, const void *p, uint32_t *v)
{
	uint64_t *have = ptrset_find(&m->keys, p);

	if (have) {
		*v = (uint32_t)*have;
		return 0;
	}
	ptrset_keep(&m->keys, p, *v);
	return 1;
}

int ptrmap_get(struct ptrmap *m, const void *p, uint32_t *v)
{
	uint64_t *have = ptrset_find(&m->keys, p);

	if (have)
		*v = (uint32_t)*have;
	return have != NULL;
}

void ptrmap_clear(struct ptrmap *m)
{
	ptrset_clear(&m->keys);
}

void ptrset_clear(struct ptrset *s)
{
	u64map_clear(&s->map);
}
