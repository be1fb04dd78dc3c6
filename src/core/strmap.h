/* A hash map from strings to 64-bit values, which keeps its own copy of
 * each key: open addressing with linear probing, a power-of-two capacity
 * kept at most half full, the keys packed into a few large blocks (no
 * allocation per entry).  A key's copy stays where it is until the map is
 * cleared, so it doubles as a string interner.  No globals and no locks. */
#ifndef SMTOP_CORE_STRMAP_H
#define SMTOP_CORE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct strmap_entry {
	const char *key; /* the map's copy; NULL in an empty slot */
	uint64_t hash, val;
};

struct strmap_block;

/* All zero is an empty map. */
struct strmap {
	struct strmap_entry *e;
	size_t cap, n;
	struct strmap_block *keys;
};

/* The value stored for key, writable in place, or NULL. */
uint64_t *strmap_get(const struct strmap *m, const char *key);

/* Stores val for key (a copy of key when new); the value's place, or NULL
 * out of memory (the map unchanged). */
uint64_t *strmap_put(struct strmap *m, const char *key, uint64_t val);

/* The map's copy of key, or NULL when key is not in it. */
const char *strmap_find(const struct strmap *m, const char *key);

/* The map's copy of key, stored (with the value 0) when new; NULL out of
 * memory. */
const char *strmap_intern(struct strmap *m, const char *key);

/* Forgets every entry and frees the keys' copies; keeps the room. */
void strmap_clear(struct strmap *m);
void strmap_free(struct strmap *m);

#pragma GCC visibility pop

#endif
