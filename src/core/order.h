/* Ordering records: comparing them by several keys, and finding where a
 * time falls in an array sorted by one of their fields. */
#ifndef SMTOP_ORDER_H
#define SMTOP_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* The first of the n keys that differ decides: -1, 0 or 1, for qsort.
 * Inline, as sorts of millions of blocks call it. */
static inline int order_keys(const uint64_t *a, const uint64_t *b, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n && !c; i++)
		c = (a[i] > b[i]) - (a[i] < b[i]);
	return c;
}

/* Sorts the n elements of v (size bytes each) unless *sorted says they
 * are, and says so: arrays that take appends between reads are sorted
 * once per read, not once per append. */
void order_sort(void *v, size_t n, size_t size, int *sorted,
		int (*cmp)(const void *, const void *));

/* The index of the first of n elements (size bytes each, sorted by the
 * uint64_t at offset in each) whose field is not below t; n if none. */
size_t order_first_at(const void *v, size_t n, size_t size, size_t offset, uint64_t t);

#endif
