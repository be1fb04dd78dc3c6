#include "src/core/occupancy.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/binning.h"
#include "src/core/varint.h"

#define OCCUPANCY_MAGIC 0x636f6d73u     /* "smoc" */

/* A ring still holds everything given to it when its lowest staged bin is
 * among those in memory. */
static int level_whole(const struct model_level *l)
{
	return l->bins && l->ring && l->hi != INT64_MIN && l->first != INT64_MAX &&
	       l->first > l->hi - (int64_t)l->n;
}

static int level_copy(const struct model *m, int k, struct occupancy_level *out)
{
	const struct model_level *l = &m->levels[k];
	out->k = k;
	out->lo = l->first;
	out->n = (size_t)(l->hi - l->first + 1);
	out->bins = malloc((size_t)m->n_sm * out->n * sizeof *out->bins);
	if (!out->bins)
		return -1;
	for (uint32_t sm = 0; sm < m->n_sm; sm++)
		for (size_t i = 0; i < out->n; i++)
			out->bins[(size_t)sm * out->n + i] = *model_level_bin(l, sm, out->lo + (int64_t)i);
	return 0;
}

static int streams_copy(const struct model *m, struct occupancy *o)
{
	o->streams = calloc(m->n_streams ? m->n_streams : 1, sizeof *o->streams);
	if (!o->streams)
		return -1;
	o->n_streams = m->n_streams;
	for (size_t i = 0; i < m->n_streams; i++) {
		const struct model_stream *s = &m->streams[i];
		o->streams[i] = (struct occupancy_stream){ s->pid, s->device_id, s->context_id,
							   s->stream_id };
	}
	return 0;
}

int occupancy_from_model(const struct model *m, struct occupancy *o)
{
	memset(o, 0, sizeof *o);
	if (!m->has_device || !m->has_origin || !m->blocks)
		return 1;
	o->device_id = m->dev.device_id;
	o->n_sm = m->n_sm;
	o->origin = m->origin;
	o->t_first = m->t_first;
	o->t_last = m->t_last;
	o->peak_threads = m->peak_threads;
	if (streams_copy(m, o) != 0)
		return -1;
	for (int k = 0; k < MODEL_LEVELS; k++) {
		if (!level_whole(&m->levels[k]))
			continue;
		if (level_copy(m, k, &o->levels[o->n_levels]) != 0) {
			occupancy_free(o);
			return -1;
		}
		o->n_levels++;
	}
	if (!o->n_levels) {
		occupancy_free(o);
		return 1;
	}
	return 0;
}

void occupancy_free(struct occupancy *o)
{
	for (int i = 0; i < o->n_levels; i++)
		free(o->levels[i].bins);
	free(o->streams);
	memset(o, 0, sizeof *o);
}

/* ---- into a model ---- */

static uint16_t stream_map(const uint32_t *map, size_t n, uint16_t s)
{
	return s < n ? (uint16_t)map[s] : MODEL_NO_STREAM;
}

/* Summary stream i -> the model's index (adding the stream when missing). */
static uint32_t *streams_map(const struct occupancy *o, struct model *m)
{
	uint32_t *map = malloc((o->n_streams ? o->n_streams : 1) * sizeof *map);
	for (size_t i = 0; map && i < o->n_streams; i++) {
		const struct occupancy_stream *s = &o->streams[i];
		long j = model_find_stream(m, s->pid, s->device_id, s->context_id, s->stream_id);
		if (j < 0) {
			struct smtop_stream st = { .pid = s->pid, .device_id = s->device_id,
						   .context_id = s->context_id,
						   .stream_id = s->stream_id,
						   .priority = SMTOP_PRIORITY_UNKNOWN };
			if (model_add_stream(m, &st) != 0)
				break;
			j = model_find_stream(m, s->pid, s->device_id, s->context_id, s->stream_id);
		}
		map[i] = j < 0 || j >= MODEL_NO_STREAM ? MODEL_NO_STREAM : (uint32_t)j;
	}
	return map;
}

static int level_to_model(const struct occupancy_level *ol, const uint32_t *map, size_t n_map,
			  uint32_t n_sm, struct model_level *l)
{
	size_t count = (size_t)n_sm * ol->n;
	struct model_bin *b = malloc((count ? count : 1) * sizeof *b);
	if (!b)
		return -1;
	for (size_t i = 0; i < count; i++) {
		b[i] = ol->bins[i];
		b[i].top = stream_map(map, n_map, b[i].top);
		b[i].second = stream_map(map, n_map, b[i].second);
	}
	*l = (struct model_level){ .width = MODEL_BASE_NS << (2 * ol->k), .hi = ol->lo + (int64_t)ol->n - 1,
				   .lo = ol->lo, .used = 1, .ring = 0, .span = ol->n, .n = ol->n,
				   .stride = ol->n, .first = ol->lo, .bins = b, .own = b };
	return 0;
}

int occupancy_to_model(const struct occupancy *o, struct model *m)
{
	if (!m->has_device || m->n_sm != o->n_sm || (m->has_origin && m->origin != o->origin))
		return 1;
	model_summary_drop(m);
	uint32_t *map = streams_map(o, m);
	if (!map)
		return -1;
	for (int i = 0; i < o->n_levels; i++) {
		if (level_to_model(&o->levels[i], map, o->n_streams, o->n_sm, &m->summary[i]) != 0) {
			free(map);
			model_summary_drop(m);
			return -1;
		}
		m->n_summary = i + 1;
	}
	free(map);
	m->origin = o->origin;
	m->has_origin = 1;
	if (o->t_first && (!m->t_first || o->t_first < m->t_first))
		m->t_first = o->t_first;
	if (o->t_last > m->t_last)
		m->t_last = o->t_last;
	if (o->peak_threads > m->peak_threads)
		m->peak_threads = o->peak_threads;
	m->summary_on = 1;
	m->generation++;
	return 0;
}

/* ---- bytes ---- */

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint32_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static float bits_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static int bin_same(const struct model_bin *a, const struct model_bin *b)
{
	return a->occ == b->occ && a->top_amt == b->top_amt &&
	       float_bits(a->second_amt) == float_bits(b->second_amt) && a->top == b->top &&
	       a->second == b->second;
}

/* A stream number as stored from version 2 on: 0 for none, else one more. */
static uint64_t stream_code(uint16_t s)
{
	return s == MODEL_NO_STREAM ? 0 : (uint64_t)s + 1;
}

/* The finer level a coarser one sums (its k one less), else NULL: a bin's
 * thread-ns are the sum of the four bins it covers there. */
static const struct occupancy_level *level_below(const struct occupancy *o, int i)
{
	return i > 0 && o->levels[i - 1].k == o->levels[i].k - 1 ? &o->levels[i - 1] : NULL;
}

static uint64_t children_occ(const struct occupancy_level *f, uint32_t sm, int64_t idx)
{
	uint64_t sum = 0;
	for (int64_t c = idx * 4; f && c < idx * 4 + 4; c++)
		if (c >= f->lo && c < f->lo + (int64_t)f->n)
			sum += f->bins[(size_t)sm * f->n + (size_t)(c - f->lo)].occ;
	return sum;
}

/* Version 2: one SM's bins of a level as runs of equal bins.  A run is
 * varint (length - 1) << 1 | busy; a busy run's bin follows: its thread-ns
 * (less what the finer level's four bins hold, zigzag, when that level is
 * stored), zigzag(occ - top_amt), the top stream's code, then the
 * runner-up's code << 2 | how its thread-ns are stored: 0 none, 1 the rest
 * of the bin (occ - top_amt as a float: a bin of two streams), 2 a float's
 * bits follow. */
static uint8_t *sm_put(uint8_t *p, const struct occupancy_level *l,
		       const struct occupancy_level *below, uint32_t sm)
{
	const struct model_bin *b = &l->bins[(size_t)sm * l->n];
	for (size_t i = 0; i < l->n;) {
		size_t run = 1;
		while (i + run < l->n && bin_same(&b[i + run], &b[i]))
			run++;
		const struct model_bin *x = &b[i];
		p = varint_put(p, (uint64_t)(run - 1) << 1 | (x->occ != 0));
		if (x->occ) {
			uint64_t sum = children_occ(below, sm, l->lo + (int64_t)i);
			uint32_t second = float_bits(x->second_amt);
			int how = !second ? 0 : second == float_bits((float)(x->occ - x->top_amt)) ? 1 : 2;
			p = varint_put(p, below ? zigzag((int64_t)(x->occ - sum)) : x->occ);
			p = varint_put(p, zigzag((int64_t)(x->occ - x->top_amt)));
			p = varint_put(p, stream_code(x->top));
			p = varint_put(p, stream_code(x->second) << 2 | (uint64_t)how);
			if (how == 2)
				p = varint_put(p, second);
		}
		i += run;
	}
	return p;
}

static size_t encoded_max(const struct occupancy *o)
{
	size_t n = 16 * 10 + o->n_streams * 4 * 10;
	for (int i = 0; i < o->n_levels; i++)
		n += 3 * 10 + (size_t)o->n_sm * o->levels[i].n * 6 * 10;
	return n;
}

int occupancy_encode(const struct occupancy *o, uint8_t **out, size_t *len)
{
	uint8_t *buf = malloc(encoded_max(o)), *p = buf;
	if (!buf)
		return -2;
	p = varint_put(p, OCCUPANCY_MAGIC);
	p = varint_put(p, OCCUPANCY_VERSION);
	p = varint_put(p, o->device_id);
	p = varint_put(p, o->n_sm);
	p = varint_put(p, zigzag(o->origin));
	p = varint_put(p, o->t_first);
	p = varint_put(p, o->t_last);
	p = varint_put(p, (uint64_t)(o->peak_threads * 1000.0));
	p = varint_put(p, o->n_streams);
	for (size_t i = 0; i < o->n_streams; i++) {
		const struct occupancy_stream *s = &o->streams[i];
		p = varint_put(varint_put(varint_put(varint_put(p, s->pid), s->device_id),
					  s->context_id), s->stream_id);
	}
	p = varint_put(p, (uint64_t)o->n_levels);
	for (int i = 0; i < o->n_levels; i++) {
		const struct occupancy_level *l = &o->levels[i];
		p = varint_put(varint_put(varint_put(p, (uint64_t)l->k), zigzag(l->lo)), l->n);
		for (uint32_t sm = 0; sm < o->n_sm; sm++)
			p = sm_put(p, l, level_below(o, i), sm);
	}
	/* the worst case above is generous: give back what runs saved */
	size_t used = (size_t)(p - buf);
	uint8_t *fit = realloc(buf, used ? used : 1);
	*out = fit ? fit : buf;
	*len = used;
	return 0;
}

/* Reads one varint no larger than max into *v; 0, or -1 (damaged). */
static int get(const uint8_t **p, const uint8_t *end, uint64_t max, uint64_t *v)
{
	if (!*p)
		return -1;
	*p = varint_get(*p, end, v);
	return *p && *v <= max ? 0 : -1;
}

/* Version 1: every bin in turn; an idle one is its 0 alone. */
static int bin_get_v1(const uint8_t **p, const uint8_t *end, struct model_bin *b)
{
	uint64_t v[5] = { 0 };
	binning_bin_clear(b);
	if (get(p, end, UINT64_MAX, &v[0]) != 0)
		return -1;
	if (!v[0])
		return 0;
	if (get(p, end, UINT64_MAX, &v[1]) || get(p, end, UINT32_MAX, &v[2]) ||
	    get(p, end, MODEL_NO_STREAM, &v[3]) || get(p, end, MODEL_NO_STREAM, &v[4]))
		return -1;
	*b = (struct model_bin){ v[0], v[1], bits_float((uint32_t)v[2]), (uint16_t)v[3],
				 (uint16_t)v[4] };
	return 0;
}

/* A stream code back to its number: 0 is none. */
static uint16_t stream_of(uint64_t code)
{
	return code ? (uint16_t)(code - 1) : MODEL_NO_STREAM;
}

/* A busy bin of version 2 (sm_put). */
static int busy_get(const uint8_t **p, const uint8_t *end, const struct occupancy_level *below,
		    uint32_t sm, int64_t idx, struct model_bin *b)
{
	uint64_t occ, spare, top, second, bits = 0;
	if (get(p, end, UINT64_MAX, &occ) || get(p, end, UINT64_MAX, &spare) ||
	    get(p, end, MODEL_NO_STREAM, &top) ||
	    get(p, end, (uint64_t)MODEL_NO_STREAM << 2 | 2, &second) || (second & 3) == 3 ||
	    ((second & 3) == 2 && get(p, end, UINT32_MAX, &bits)))
		return -1;
	if (below)
		occ = children_occ(below, sm, idx) + (uint64_t)unzigzag(occ);
	if (!occ)
		return -1;
	uint64_t top_amt = occ - (uint64_t)unzigzag(spare);
	float second_amt = (second & 3) == 1 ? (float)(occ - top_amt) : bits_float((uint32_t)bits);
	*b = (struct model_bin){ occ, top_amt, second_amt, stream_of(top), stream_of(second >> 2) };
	return 0;
}

static int sm_get(const uint8_t **p, const uint8_t *end, const struct occupancy_level *l,
		  const struct occupancy_level *below, uint32_t sm)
{
	struct model_bin *b = &l->bins[(size_t)sm * l->n];
	for (size_t i = 0; i < l->n;) {
		uint64_t tag;
		if (get(p, end, (uint64_t)(l->n - i - 1) << 1 | 1, &tag) != 0)
			return -1;
		if (!(tag & 1))
			binning_bin_clear(&b[i]);
		else if (busy_get(p, end, below, sm, l->lo + (int64_t)i, &b[i]) != 0)
			return -1;
		for (size_t j = 1; j <= tag >> 1; j++)
			b[i + j] = b[i];
		i += (size_t)(tag >> 1) + 1;
	}
	return 0;
}

static int decode_streams(struct occupancy *o, const uint8_t **p, const uint8_t *end)
{
	uint64_t n, v[4];
	if (get(p, end, MODEL_NO_STREAM, &n) != 0)
		return -1;
	o->streams = calloc(n ? n : 1, sizeof *o->streams);
	if (!o->streams)
		return -2;
	o->n_streams = n;
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 4; j++)
			if (get(p, end, UINT32_MAX, &v[j]) != 0)
				return -1;
		o->streams[i] = (struct occupancy_stream){ (uint32_t)v[0], (uint32_t)v[1],
							   (uint32_t)v[2], (uint32_t)v[3] };
	}
	return 0;
}

static int decode_level(struct occupancy *o, int version, int prev_k, const uint8_t **p,
			const uint8_t *end)
{
	uint64_t k, lo, n;
	struct occupancy_level *l = &o->levels[o->n_levels];
	if (get(p, end, MODEL_LEVELS - 1, &k) || (int)k <= prev_k || get(p, end, UINT64_MAX, &lo) ||
	    get(p, end, MODEL_RING_BINS, &n) || !n)
		return -1;
	int64_t first = unzigzag(lo);
	if (first < -BINNING_REL_MAX || first > BINNING_REL_MAX)
		return -1;
	l->bins = malloc((size_t)o->n_sm * n * sizeof *l->bins);
	if (!l->bins)
		return -2;
	l->k = (int)k;
	l->lo = first;
	l->n = n;
	o->n_levels++;
	if (version == 1) {
		for (size_t j = 0; j < (size_t)o->n_sm * n; j++)
			if (bin_get_v1(p, end, &l->bins[j]) != 0)
				return -1;
		return 0;
	}
	for (uint32_t sm = 0; sm < o->n_sm; sm++)
		if (sm_get(p, end, l, level_below(o, o->n_levels - 1), sm) != 0)
			return -1;
	return 0;
}

static int decode_all(struct occupancy *o, const uint8_t *p, const uint8_t *end)
{
	uint64_t v[8], n_levels;
	static const uint64_t max[8] = { UINT32_MAX, UINT32_MAX, UINT32_MAX, MODEL_MAX_SMS,
					 UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	for (int i = 0; i < 8; i++)
		if (get(&p, end, max[i], &v[i]) != 0)
			return -1;
	if (v[0] != OCCUPANCY_MAGIC || v[1] < 1 || v[1] > OCCUPANCY_VERSION || !v[3])
		return -1;
	o->device_id = (uint32_t)v[2];
	o->n_sm = (uint32_t)v[3];
	o->origin = unzigzag(v[4]);
	o->t_first = v[5];
	o->t_last = v[6];
	o->peak_threads = (double)v[7] / 1000.0;
	int rc = decode_streams(o, &p, end);
	if (rc != 0)
		return rc;
	if (get(&p, end, MODEL_LEVELS, &n_levels) != 0 || !n_levels)
		return -1;
	for (uint64_t i = 0; i < n_levels; i++)
		if ((rc = decode_level(o, (int)v[1], i ? o->levels[i - 1].k : -1, &p, end)) != 0)
			return rc;
	return p == end ? 0 : -1;
}

int occupancy_decode(struct occupancy *o, const uint8_t *p, size_t len)
{
	memset(o, 0, sizeof *o);
	int rc = decode_all(o, p, p + len);
	if (rc != 0)
		occupancy_free(o);
	return rc;
}
