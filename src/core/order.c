#include "src/core/order.h"

#include <stdlib.h>
#include <string.h>

void order_sort(void *v, size_t n, size_t size, int *sorted,
		int (*cmp)(const void *, const void *))
{
	if (!*sorted && n)
		qsort(v, n, size, cmp);
	*sorted = 1;
}

size_t order_first_at(const void *v, size_t n, size_t size, size_t offset, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t x;
		memcpy(&x, (const char *)v + mid * size + offset, sizeof x);
		if (x < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
