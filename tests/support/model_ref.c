#include "tests/support/model_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_ref_add(struct model_ref *r, const struct smtop_block *b, size_t n, uint32_t pid,
		   uint32_t ctx)
{
	if (r->n + n > r->cap) {
		size_t cap = r->cap ? r->cap : 1024;
		while (cap < r->n + n)
			cap *= 2;
		r->v = realloc(r->v, cap * sizeof *r->v);
		if (!r->v)
			abort();
		r->cap = cap;
	}
	for (size_t i = 0; i < n; i++)
		r->v[r->n++] = (struct model_ref_block){ b[i], pid, ctx };
}

void model_ref_free(struct model_ref *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}

static int64_t ref_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

struct placed {
	int64_t s, e;
	uint32_t sm, stream;
	uint64_t threads;
};

static size_t place(const struct model *m, const struct model_ref *r, struct placed *out,
		    int64_t *emax)
{
	size_t n = 0;
	*emax = INT64_MIN;
	for (size_t i = 0; i < r->n; i++) {
		const struct smtop_block *b = &r->v[i].b;
		if (b->sm >= m->n_sm || b->end <= b->start)
			continue;
		long k = model_find_kernel(m, r->v[i].pid, b->device_id, b->grid_id);
		if (k < 0)
			continue;
		const struct model_kernel *mk = &m->kernels[k];
		struct placed p = { (int64_t)b->start - m->origin, (int64_t)b->end - m->origin, b->sm,
				    mk->stream,
				    model_kernel_threads(m, mk) ? model_kernel_threads(m, mk) : 1 };
		out[n++] = p;
		if (p.e > *emax)
			*emax = p.e;
	}
	return n;
}

static int close_amt(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)) + 1;
}

static const struct model_bin empty = { 0, 0, 0, MODEL_NO_STREAM, MODEL_NO_STREAM };

/* One level: truth[sm][bin][stream], then bin by bin. */
static int check_level(const struct model *m, int k, const struct placed *p, size_t n,
		       int64_t hi, struct model_ref_stats *st, char *why, size_t len)
{
	const struct model_level *l = &m->levels[k];
	size_t ns = m->n_streams, nb = l->span;
	int64_t w = (int64_t)l->width, lo = hi - (int64_t)nb + 1;
	uint64_t *t = calloc((size_t)m->n_sm * nb * ns, sizeof *t);
	if (!t)
		abort();
	for (size_t i = 0; i < n; i++) {
		int64_t b0 = ref_floor_div(p[i].s, w), b1 = ref_floor_div(p[i].e - 1, w);
		if (b0 < lo)
			b0 = lo;
		for (int64_t b = b0; b <= b1; b++) {
			int64_t bs = b * w, be = bs + w;
			int64_t os = p[i].s > bs ? p[i].s : bs, oe = p[i].e < be ? p[i].e : be;
			t[((size_t)p[i].sm * nb + (size_t)(b - lo)) * ns + p[i].stream] +=
				p[i].threads * (uint64_t)(oe - os);
		}
	}
	int rc = 0;
	for (uint32_t sm = 0; sm < m->n_sm && !rc; sm++)
		for (int64_t b = lo; b <= hi && !rc; b++) {
			const uint64_t *v = &t[((size_t)sm * nb + (size_t)(b - lo)) * ns];
			const struct model_bin *mb = model_level_bin(l, sm, b);
			if (!mb)
				mb = &empty;
			uint64_t occ = 0;
			int streams = 0;
			size_t best = 0, second = 0;
			for (size_t s = 0; s < ns; s++) {
				if (!v[s])
					continue;
				occ += v[s];
				if (!streams || v[s] > v[best]) {
					second = best;
					best = s;
				} else {
					second = s;
				}
				streams++;
			}
			if (mb->occ != occ) {
				snprintf(why, len, "level %d SM %u bin %lld: occupancy %llu, reference %llu",
					 k, sm, (long long)b, (unsigned long long)mb->occ,
					 (unsigned long long)occ);
				rc = -1;
				break;
			}
			if (!occ)
				continue;
			st->bins++;
			if (streams > 2)
				continue;
			st->top2_checked++;
			int ok;
			if (streams == 1) {
				ok = mb->top == best && mb->top_amt == v[best] &&
				     mb->second == MODEL_NO_STREAM;
			} else {
				/* either order when the two amounts are (nearly) equal */
				int tie = close_amt((double)v[best], (double)v[second]);
				ok = (mb->top == best && mb->second == second &&
				      close_amt((double)mb->top_amt, (double)v[best]) &&
				      close_amt(mb->second_amt, (double)v[second])) ||
				     (tie && mb->top == second && mb->second == best);
			}
			if (!ok) {
				snprintf(why, len, "level %d SM %u bin %lld: top %u (%llu) second %u (%.0f); "
					 "reference %zu (%llu) %zu (%llu)", k, sm, (long long)b,
					 mb->top, (unsigned long long)mb->top_amt, mb->second,
					 (double)mb->second_amt, best, (unsigned long long)v[best],
					 streams > 1 ? second : (size_t)MODEL_NO_STREAM,
					 streams > 1 ? (unsigned long long)v[second] : 0ULL);
				rc = -1;
			}
		}
	free(t);
	return rc;
}

int model_ref_check(const struct model *m, const struct model_ref *r,
		    struct model_ref_stats *st, char *why, size_t len)
{
	memset(st, 0, sizeof *st);
	struct placed *p = malloc((r->n ? r->n : 1) * sizeof *p);
	if (!p)
		abort();
	int64_t emax;
	size_t n = place(m, r, p, &emax);
	st->blocks = n;
	int rc = 0;
	if (n != m->blocks) {
		snprintf(why, len, "the model placed %llu blocks, the reference %zu",
			 (unsigned long long)m->blocks, n);
		rc = -1;
	}
	for (int k = 0; k < MODEL_LEVELS && !rc && n; k++) {
		int64_t hi = ref_floor_div(ref_floor_div(emax - 1, (int64_t)MODEL_BASE_NS), (int64_t)1 << (2 * k));
		if (m->levels[k].hi != hi) {
			snprintf(why, len, "level %d ends at bin %lld, reference %lld", k,
				 (long long)m->levels[k].hi, (long long)hi);
			rc = -1;
			break;
		}
		rc = check_level(m, k, p, n, hi, st, why, len);
	}
	free(p);
	return rc;
}

/* Bin i of level x of SM sm, empty where the level holds none in memory. */
static const struct model_bin *ref_bin(const struct model_level *x, uint32_t sm, int64_t i)
{
	const struct model_bin *b = model_level_bin(x, sm, i);
	return b ? b : &empty;
}

int model_ref_same_bins(const struct model *a, const struct model *b)
{
	if (a->n_sm != b->n_sm)
		return 0;
	for (int k = 0; k < MODEL_LEVELS; k++) {
		const struct model_level *x = &a->levels[k], *y = &b->levels[k];
		if (x->hi != y->hi)
			return 0;
		/* a ring one of them does not keep (model_rings_for_span) */
		if (x->hi == INT64_MIN || !x->span || !y->span)
			continue;
		for (uint32_t sm = 0; sm < a->n_sm; sm++)
			for (int64_t i = x->hi - (int64_t)x->span + 1; i <= x->hi; i++)
				if (memcmp(ref_bin(x, sm, i), ref_bin(y, sm, i), sizeof(struct model_bin)) != 0)
					return 0;
	}
	return a->peak_threads == b->peak_threads;
}

int model_ref_same_occupancy(const struct model *a, const struct model *b)
{
	if (a->n_sm != b->n_sm)
		return 0;
	for (int k = 0; k < MODEL_LEVELS; k++) {
		const struct model_level *x = &a->levels[k], *y = &b->levels[k];
		if (x->hi != y->hi)
			return 0;
		if (x->hi == INT64_MIN)
			continue;
		for (uint32_t sm = 0; sm < a->n_sm; sm++)
			for (int64_t i = x->hi - (int64_t)x->span + 1; i <= x->hi; i++)
				if (ref_bin(x, sm, i)->occ != ref_bin(y, sm, i)->occ)
					return 0;
	}
	return 1;
}
