#include "collectors/ptrset.h"

#include <stdint.h>
#include <string.h>

static size_t ptrset_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x & (PTRSET_SLOTS - 1);
}

/* p's slot, or the free slot where it would go. */
static size_t ptrset_slot(const struct ptrset *s, const void *p)
{
	size_t i = ptrset_hash(p);

	while (s->slot[i] && s->slot[i] != p)
		i = (i + 1) & (PTRSET_SLOTS - 1);
	return i;
}

/* The slot p is in now; *added: it was new. */
static size_t ptrset_insert(struct ptrset *s, const void *p, int *added)
{
	size_t i;

	if (s->n >= PTRSET_SLOTS / 2)
		ptrset_clear(s);
	i = ptrset_slot(s, p);
	*added = !s->slot[i];
	if (*added) {
		s->slot[i] = p;
		s->n++;
	}
	return i;
}

int ptrset_add(struct ptrset *s, const void *p)
{
	int added;

	ptrset_insert(s, p, &added);
	return added;
}

void ptrmap_put(struct ptrmap *m, const void *p, uint32_t v)
{
	int added;

	m->value[ptrset_insert(&m->keys, p, &added)] = v;
}

int ptrmap_add(struct ptrmap *m, const void *p, uint32_t *v)
{
	int added;
	size_t i = ptrset_insert(&m->keys, p, &added);

	if (added)
		m->value[i] = *v;
	else
		*v = m->value[i];
	return added;
}

void ptrset_clear(struct ptrset *s)
{
	memset(s, 0, sizeof(*s));
}
