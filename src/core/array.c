#include "src/core/array.h"

#include <stdlib.h>

int array_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

void array_shrink(void **p, size_t *cap, size_t n, size_t elem)
{
	size_t c = 16;
	void *q;

	if (*cap < 1024 || *cap / 4 < n)
		return;
	while (c < 2 * n)
		c *= 2;
	if (!c || !(q = realloc(*p, c * elem)))
		return;
	*p = q;
	*cap = c;
}
