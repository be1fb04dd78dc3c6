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

int ptrset_add(struct ptrset *s, const void *p)
{
	size_t i = ptrset_hash(p);

	if (s->n >= PTRSET_SLOTS / 2)
		ptrset_clear(s);
	while (s->slot[i]) {
		if (s->slot[i] == p)
			return 0;
		i = (i + 1) & (PTRSET_SLOTS - 1);
	}
	s->slot[i] = p;
	s->n++;
	return 1;
}

void ptrset_clear(struct ptrset *s)
{
	memset(s, 0, sizeof(*s));
}
