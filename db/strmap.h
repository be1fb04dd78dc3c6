/* A small open-addressing hash map from strings to up to three int64 values,
 * used by the writer to intern strings without a query per record. */
#ifndef SMTOP_DB_STRMAP_H
#define SMTOP_DB_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct db_strmap_entry {
	char *key;
	uint64_t hash;
	int64_t v[3];
};

struct db_strmap {
	struct db_strmap_entry *e;
	size_t cap, n;
};

/* The values stored for key, or NULL. */
int64_t *db_strmap_get(const struct db_strmap *m, const char *key);

/* Stores a copy of key with values v; returns the entry's values or NULL on ENOMEM. */
int64_t *db_strmap_put(struct db_strmap *m, const char *key, const int64_t v[3]);

/* The map's copy of key, or NULL when it has none (nothing stored). */
const char *db_strmap_find(const struct db_strmap *m, const char *key);

/* A stable copy of key owned by the map (stored on first sight); NULL on ENOMEM. */
const char *db_strmap_intern(struct db_strmap *m, const char *key);

/* Forgets every entry (keeps the map usable). */
void db_strmap_clear(struct db_strmap *m);
void db_strmap_free(struct db_strmap *m);

#endif
