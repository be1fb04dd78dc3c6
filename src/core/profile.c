#include "src/core/profile.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/varint.h"

static uint64_t profile_umin(uint64_t x, uint64_t y) { return x < y ? x : y; }
static uint64_t profile_umax(uint64_t x, uint64_t y) { return x > y ? x : y; }

static uint64_t profile_span_overlap(uint64_t s, uint64_t e, uint64_t a, uint64_t b)
{
	uint64_t lo = profile_umax(s, a), hi = profile_umin(e, b);
	return hi > lo ? hi - lo : 0;
}

static int profile_fits(unsigned shift, uint64_t lo, uint64_t hi)
{
	return (hi >> shift) - (lo >> shift) < PROFILE_BINS;
}

/* Widens the bins until [lo, hi] fits; the smallest fitting width only
 * grows with the extent, so the result is the same in any input order. */
static void profile_cover(struct profile *p, uint64_t lo, uint64_t hi)
{
	lo = profile_umin(lo, p->lo);
	hi = profile_umax(hi, p->hi);
	unsigned ns = p->shift;
	while (!profile_fits(ns, lo, hi))
		ns++;
	uint64_t nb = lo >> ns;
	p->lo = lo;
	p->hi = hi;
	if (ns == p->shift && nb == p->base)
		return;
	uint64_t time[PROFILE_BINS] = { 0 };
	uint32_t starts[PROFILE_BINS] = { 0 };
	for (unsigned i = 0; i < PROFILE_BINS; i++) {
		if (!p->time[i] && !p->starts[i])
			continue;
		uint64_t j = (((p->base + i) << p->shift) >> ns) - nb;
		time[j] += p->time[i];
		starts[j] += p->starts[i];
	}
	memcpy(p->time, time, sizeof time);
	memcpy(p->starts, starts, sizeof starts);
	p->shift = ns;
	p->base = nb;
}

void profile_add(struct profile *p, uint64_t s, uint64_t e)
{
	uint64_t last = e > s ? e - 1 : s;
	if (s < p->lo || last > p->hi)
		profile_cover(p, s, last);
	unsigned sh = p->shift;
	p->starts[(s >> sh) - p->base]++;
	if (e <= s)
		return;
	uint64_t b0 = s >> sh, b1 = (e - 1) >> sh;
	if (b0 == b1) {
		p->time[b0 - p->base] += e - s;
		return;
	}
	/* Inner bins are covered whole; only the two ends are partial. */
	p->time[b0 - p->base] += ((b0 + 1) << sh) - s;
	for (uint64_t b = b0 + 1; b < b1; b++)
		p->time[b - p->base] += 1ull << sh;
	p->time[b1 - p->base] += e - (b1 << sh);
}

struct profile *profile_new(uint64_t s, uint64_t e)
{
	struct profile *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->shift = PROFILE_MIN_SHIFT;
	p->lo = s;
	p->hi = e > s ? e - 1 : s;
	p->base = s >> p->shift;
	profile_cover(p, p->lo, p->hi);
	return p;
}

/* Bins are assumed uniformly filled: exact for windows on bin edges. */
uint64_t profile_overlap(const struct profile *p, uint64_t a, uint64_t b, uint32_t *blocks)
{
	uint64_t width = 1ull << p->shift;
	double sum = 0, starts = 0, resident = 0;
	for (unsigned i = 0; i < PROFILE_BINS; i++) {
		uint64_t lo = (p->base + i) << p->shift, hi = lo + width;
		uint64_t cov = profile_span_overlap(lo, hi, a, b);
		if (!cov)
			continue;
		double f = (double)cov / (double)width;
		sum += (double)p->time[i] * f;
		starts += (double)p->starts[i] * f;
		if (a >= lo && a < hi)
			resident = (double)p->time[i] / (double)width;
	}
	*blocks = (uint32_t)(starts + resident + 0.5);
	return (uint64_t)(sum + 0.5);
}

/* Estimated number of block starts in the open interval (r, l). */
double profile_starts_between(const struct profile *p, uint64_t r, uint64_t l)
{
	uint64_t width = 1ull << p->shift;
	double n = 0;
	for (unsigned i = 0; i < PROFILE_BINS; i++) {
		uint64_t lo = (p->base + i) << p->shift;
		uint64_t cov = profile_span_overlap(lo, lo + width, r + 1, l);
		if (cov)
			n += (double)p->starts[i] * (double)cov / (double)width;
	}
	return n;
}

/* ---- packed profiles ----
 * shift (a byte), base, lo - (base << shift), hi - lo, the first bin that
 * is not empty and how many follow (a byte each), then time and starts of
 * those bins, then the clusters of block starts (their count, and each one's
 * start from the previous one's end, the first from lo, and its length), all
 * as LEB128 varints: about 120 bytes for a typical grid instead of 448 and
 * its clusters.  Packing is exact: profile_unpack gives the profile back. */

#define PACKED_MAX (3 + 3 * 10 + 2 * PROFILE_BINS * 10)

/* The most bytes profile_pack writes for p. */
size_t profile_packed_max(const struct profile *p)
{
	return PACKED_MAX + 10 + p->start_runs.n * 2 * 10;
}

/* Packs p into out (profile_packed_max bytes); returns the bytes used. */
size_t profile_pack(const struct profile *p, uint8_t *out)
{
	unsigned f = 0, l = PROFILE_BINS;
	while (f < PROFILE_BINS && !p->time[f] && !p->starts[f])
		f++;
	while (l > f && !p->time[l - 1] && !p->starts[l - 1])
		l--;
	uint8_t *o = out;
	*o++ = (uint8_t)p->shift;
	o = varint_put(o, p->base);
	o = varint_put(o, p->lo - (p->base << p->shift));
	o = varint_put(o, p->hi - p->lo);
	*o++ = (uint8_t)f;
	*o++ = (uint8_t)(l - f);
	for (unsigned i = f; i < l; i++) {
		o = varint_put(o, p->time[i]);
		o = varint_put(o, p->starts[i]);
	}
	const struct clusters *c = &p->start_runs;
	uint64_t prev = p->lo;
	o = varint_put(o, c->n);
	for (size_t i = 0; i < c->n; i++) {
		o = varint_put(o, c->v[i].s - prev);
		o = varint_put(o, c->v[i].e - c->v[i].s);
		prev = c->v[i].e;
	}
	return (size_t)(o - out);
}

/* Reads the bins into p (its clusters left empty); returns where the
 * clusters of starts begin. */
const uint8_t *profile_unpack_bins(const uint8_t *in, struct profile *p)
{
	uint64_t v, cnt;
	memset(p, 0, sizeof *p);
	p->shift = *in++;
	in = varint_get_fast(in, &p->base);
	in = varint_get_fast(in, &v);
	p->lo = (p->base << p->shift) + v;
	in = varint_get_fast(in, &v);
	p->hi = p->lo + v;
	unsigned f = *in++;
	cnt = *in++;
	for (unsigned i = f; i < f + cnt; i++) {
		in = varint_get_fast(in, &p->time[i]);
		in = varint_get_fast(in, &v);
		p->starts[i] = (uint32_t)v;
	}
	return in;
}

/* The next packed cluster of starts, after the one that ended at *prev. */
static const uint8_t *profile_run_next(const uint8_t *in, uint64_t *prev, struct span *x)
{
	uint64_t d, len;
	in = varint_get_fast(in, &d);
	in = varint_get_fast(in, &len);
	x->s = *prev + d;
	x->e = x->s + len;
	*prev = x->e;
	return in;
}

/* Reads the bins into p (its clusters left empty); returns the bytes the
 * packing took. */
size_t profile_unpack(const uint8_t *in, struct profile *p)
{
	const uint8_t *from = in;
	uint64_t n, prev = 0;
	struct span x;
	in = profile_unpack_bins(in, p);
	in = varint_get_fast(in, &n);
	for (uint64_t i = 0; i < n; i++)
		in = profile_run_next(in, &prev, &x);
	return (size_t)(in - from);
}

/* Reads the packed clusters of starts at in into c (allocated); returns the
 * end of the packing, NULL when out of memory. */
const uint8_t *profile_runs_unpack(const uint8_t *in, uint64_t lo, struct clusters *c)
{
	uint64_t n, prev = lo;
	in = varint_get_fast(in, &n);
	*c = (struct clusters){ 0 };
	if (n && !(c->v = malloc(n * sizeof *c->v)))
		return NULL;
	c->n = c->cap = n;
	for (uint64_t i = 0; i < n; i++)
		in = profile_run_next(in, &prev, &c->v[i]);
	return in;
}

/* clusters_any_between on packed clusters of starts. */
int profile_runs_any_between(const uint8_t *in, uint64_t lo, uint64_t r, uint64_t l,
			    uint64_t link)
{
	uint64_t n, prev = lo;
	struct span x;
	in = varint_get_fast(in, &n);
	for (uint64_t i = 0; i < n; i++) {
		in = profile_run_next(in, &prev, &x);
		if (x.e <= r)
			continue;
		if (x.s > r)
			return x.s < l;
		if (x.e < l)
			return 1;
		return l - r > link ? 1 : -1;
	}
	return 0;
}

void profile_free(struct profile *p)
{
	if (p)
		free(p->start_runs.v);
	free(p);
}
