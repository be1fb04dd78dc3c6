/* Points (times) grouped into clusters, for the analysis' block starts and
 * activity: pure. */
#ifndef SMTOP_CORE_CLUSTERS_H
#define SMTOP_CORE_CLUSTERS_H

#include <stddef.h>
#include <stdint.h>

struct span {
	uint64_t s, e;
};

/* Points (times) grouped into clusters: sorted, disjoint [s, e] spans whose
 * ends are points and inside which consecutive points are at most `link`
 * apart.  The clusters depend only on the set of points, not on the order
 * they came in. */
struct clusters {
	struct span *v;
	size_t n, cap, hint;
};

/* Index of the first cluster that starts after t. */
size_t clusters_after(const struct clusters *c, uint64_t t);
/* Adds point t (it only ever joins its two neighbouring clusters, so the
 * result is that of the whole set whatever the order); -1 on ENOMEM. */
int clusters_insert(struct clusters *c, uint64_t t, uint64_t link);
/* Is there a point in the open interval (r, l)?  1 yes, 0 no, -1 cannot
 * tell: (r, l) lies inside one cluster and is not longer than link. */
int clusters_any_between(const struct clusters *c, uint64_t r, uint64_t l, uint64_t link);

/* Blocks come in time order per SM: most points fall in the cluster of the
 * one before or extend the last cluster. */
static inline int clusters_add(struct clusters *c, uint64_t t, uint64_t link)
{
	if (c->n) {
		struct span *h = &c->v[c->hint], *last = &c->v[c->n - 1];
		if (t >= h->s && t <= h->e)
			return 0;
		if (t > last->e && t - last->e <= link) {
			last->e = t;
			c->hint = c->n - 1;
			return 0;
		}
	}
	return clusters_insert(c, t, link);
}

#endif
