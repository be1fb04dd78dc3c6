/* Growable arrays: one doubling rule for every module of the core. */
#ifndef SMTOP_ARRAY_H
#define SMTOP_ARRAY_H

#include <stddef.h>

/* Makes *p hold at least need elements of elem bytes, doubling *cap (from 16)
 * so that n appends cost O(n).  Returns 0, or -1 with *p and *cap unchanged. */
int array_grow(void **p, size_t *cap, size_t need, size_t elem);
/* Gives memory back when an array of *cap (at least 1024) holds no more than
 * a quarter of that, n elements: *cap becomes a power of two of twice n or
 * more.  Keeps the array as it is when realloc fails. */
void array_shrink(void **p, size_t *cap, size_t n, size_t elem);

#endif
