/* A hash map from 64-bit keys to 64-bit values: open addressing with linear
 * probing, a power-of-two capacity kept at most half full, every entry in
 * one allocation.  A key may also be the hash of a wider key (several
 * fields, a string, a struct): u64map_add keeps each entry under it and
 * u64map_next visits them, so the caller compares the wide key itself.  No
 * globals and no locks: callers that share a map hold their own. */
#ifndef SMTOP_CORE_U64MAP_H
#define SMTOP_CORE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The one value a map cannot hold: it marks an empty slot. */
#define U64MAP_NONE UINT64_MAX

struct u64map_entry {
	uint64_t key, val;
};

/* All zero is an empty map. */
struct u64map {
	struct u64map_entry *e;
	size_t cap, n;
};

/* Spreads a key's bits over the low ones, where the slot is taken from. */
static inline uint64_t u64map_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	return k ^ (k >> 33);
}

/* The value of key's first entry, writable in place, or NULL. */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);

/* The value of the entry after those visited under key, or NULL when there
 * is none; *pos starts at 0 and counts the slots passed.  Valid until the
 * map next grows. */
uint64_t *u64map_next(const struct u64map *m, uint64_t key, size_t *pos);

/* Stores val under key, replacing the first entry's value; 0, or -1 out of
 * memory (the map unchanged).  val must not be U64MAP_NONE. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);

/* Adds an entry under key even when key has some (a hashed wide key). */
int u64map_add(struct u64map *m, uint64_t key, uint64_t val);

/* Makes room for n entries without growing again; 0, or -1 out of memory. */
int u64map_reserve(struct u64map *m, size_t n);

/* Forgets every entry and keeps the room. */
void u64map_clear(struct u64map *m);
void u64map_free(struct u64map *m);

#pragma GCC visibility pop

#endif
