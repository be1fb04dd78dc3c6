#include "src/core/clusters.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"

/* Index of the first cluster that starts after t. */
size_t clusters_after(const struct clusters *c, uint64_t t)
{
	if (!c->n || t >= c->v[c->n - 1].s)
		return c->n;
	size_t l = 0, r = c->n;
	while (l < r) {
		size_t m = (l + r) / 2;
		if (c->v[m].s <= t)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* Adds point t.  A point only ever joins its two neighbouring clusters, so
 * the result is that of the whole set whatever the order. */
int clusters_insert(struct clusters *c, uint64_t t, uint64_t link)
{
	size_t i = clusters_after(c, t);
	struct span *p = i ? &c->v[i - 1] : NULL;
	if (p && t <= p->e) {
		c->hint = i - 1;
		return 0;
	}
	int to_prev = p && t - p->e <= link;
	int to_next = i < c->n && c->v[i].s - t <= link;
	if (to_prev && to_next) {
		p->e = c->v[i].e;
		memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof *c->v);
		c->n--;
		c->hint = i - 1;
	} else if (to_prev) {
		p->e = t;
		c->hint = i - 1;
	} else if (to_next) {
		c->v[i].s = t;
		c->hint = i;
	} else {
		if (c->n == c->cap) {
			/* Most grids keep one or two clusters: start small. */
			size_t cap = c->cap ? 2 * c->cap : 2;
			struct span *v = realloc(c->v, cap * sizeof *v);
			if (!v)
				return -1;
			c->v = v;
			c->cap = cap;
		}
		memmove(&c->v[i + 1], &c->v[i], (c->n - i) * sizeof *c->v);
		c->v[i] = (struct span){ t, t };
		c->n++;
		c->hint = i;
	}
	return 0;
}


/* Is there a point in the open interval (r, l)?  1 yes, 0 no, -1 cannot
 * tell: (r, l) lies inside one cluster and is not longer than link (a
 * longer interval inside a cluster must hold a point). */
int clusters_any_between(const struct clusters *c, uint64_t r, uint64_t l, uint64_t link)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) { /* first cluster ending after r */
		size_t m = (lo + hi) / 2;
		if (c->v[m].e <= r)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == c->n)
		return 0;
	const struct span *x = &c->v[lo];
	if (x->s > r)
		return x->s < l;
	if (x->e < l)
		return 1;
	return l - r > link ? 1 : -1;
}
