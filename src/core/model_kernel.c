#include "src/core/model_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"
#include "src/core/binning.h"
#include "src/core/names.h"
#include "src/core/pool.h"

/* ---- interned kernel names ------------------------------------------------
 * A session launches the same few hundred kernels again and again: one copy
 * of each name (and of its short form) keeps kernels at a fixed size. */

/* The index of name among the interned names, added when new; -1 when out
 * of memory.  Kernels keep the index (4 bytes instead of two pointers). */
long model_kernel_intern_name(struct model *m, const char *name)
{
	const uint64_t *hit = strmap_get(&m->nhash, name);
	if (hit)
		return (long)*hit;
	if (m->n_names >= UINT32_MAX - 1 ||
	    array_grow((void **)&m->names, &m->cap_names, m->n_names + 1, sizeof *m->names))
		return -1;
	char *sn = names_short(name);
	if (!sn || !strmap_put(&m->nhash, name, m->n_names)) {
		free(sn);
		return -1;
	}
	m->names[m->n_names] = (struct model_name){ strmap_find(&m->nhash, name), sn };
	return (long)m->n_names++;
}

/* ---- interned launch shapes --------------------------------------------- */

static uint64_t shape_hash(const struct model_shape *sh)
{
	const unsigned char *p = (const unsigned char *)sh;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < sizeof *sh; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* The index of sh among the shapes, added when new; -1 when out of memory. */
long model_kernel_intern_shape(struct model *m, const struct model_shape *sh)
{
	uint64_t h = shape_hash(sh);
	size_t pos = 0;
	for (const uint64_t *v; (v = u64map_next(&m->shash, h, &pos));)
		if (memcmp(&m->shapes[*v], sh, sizeof *sh) == 0)
			return (long)*v;
	if (array_grow((void **)&m->shapes, &m->cap_shapes, m->n_shapes + 1, sizeof *m->shapes) ||
	    u64map_add(&m->shash, h, m->n_shapes))
		return -1;
	m->shapes[m->n_shapes] = *sh;
	return (long)m->n_shapes++;
}

/* ---- the compact kernel ----------------------------------------------------
 * Times are offsets from start while they fit in 32 bits; a kernel with one
 * that does not moves all of its values to a wide record for good. */

static const struct model_kernel_wide *kwide(const struct model *m, const struct model_kernel *k)
{
	return k->shape & MODEL_KERNEL_WIDE ? &m->wide[k->end_off] : NULL;
}

static uint64_t off_time(uint64_t start, int32_t off)
{
	return off == MODEL_OFF_NONE ? 0 : start + (uint64_t)(int64_t)off;
}

/* t as an offset from start; 0 on "unknown"; -1 when it does not fit. */
static int off_of(uint64_t start, uint64_t t, int32_t *out)
{
	if (!t) {
		*out = MODEL_OFF_NONE;
		return 0;
	}
	if (t >= start ? t - start > (uint64_t)INT32_MAX : start - t > (uint64_t)INT32_MAX)
		return -1;
	*out = (int32_t)(int64_t)(t - start);
	return 0;
}

/* A compact kernel's shape index. */
static uint32_t narrow_shape(const struct model_kernel *k)
{
	return (k->shape & (MODEL_KERNEL_WIDE - 1)) | (uint32_t)k->shape_hi << 15;
}

const struct model_shape *model_kernel_shape(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return &m->shapes[w ? w->shape : narrow_shape(k)];
}

uint64_t model_kernel_grid(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return w ? w->grid_id : k->grid;
}

uint64_t model_kernel_end(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return w ? w->end : k->start + k->end_off;
}

uint64_t model_kernel_submitted(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return w ? w->submitted : off_time(k->start, k->submitted_off);
}

uint64_t model_kernel_first_block(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return w ? w->first_block : off_time(k->start, k->first_off);
}

uint64_t model_kernel_last_block(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return w ? w->last_block : off_time(k->start, k->last_off);
}

uint64_t model_kernel_blocks_seen(const struct model *m, const struct model_kernel *k)
{
	const struct model_kernel_wide *w = kwide(m, k);
	return w ? w->blocks_seen : k->blocks_seen;
}

uint32_t model_kernel_threads(const struct model *m, const struct model_kernel *k)
{
	const struct model_shape *sh = model_kernel_shape(m, k);
	int64_t t = (int64_t)sh->block[0] * (sh->block[1] ? sh->block[1] : 1) *
		    (sh->block[2] ? sh->block[2] : 1);
	return t > 0 && t <= UINT32_MAX ? (uint32_t)t : 0;
}

const char *model_kernel_name(const struct model *m, const struct model_kernel *k)
{
	return m->names[k->name].name;
}

const char *model_kernel_short_name(const struct model *m, const struct model_kernel *k)
{
	return m->names[k->name].short_name;
}

/* k's wide record, its values moved there on first need (it stays wide);
 * NULL when out of memory (k unchanged). */
static struct model_kernel_wide *kernel_widen(struct model *m, struct model_kernel *k)
{
	if (k->shape & MODEL_KERNEL_WIDE)
		return &m->wide[k->end_off];
	if (m->n_wide >= UINT32_MAX ||
	    array_grow((void **)&m->wide, &m->cap_wide, m->n_wide + 1, sizeof *m->wide))
		return NULL;
	m->wide[m->n_wide] = (struct model_kernel_wide){
		k->grid, k->start + k->end_off, off_time(k->start, k->submitted_off),
		off_time(k->start, k->first_off), off_time(k->start, k->last_off), k->blocks_seen,
		narrow_shape(k) };
	k->end_off = (uint32_t)m->n_wide++;
	k->shape |= MODEL_KERNEL_WIDE;
	return &m->wide[k->end_off];
}

/* The values of a new kernel: compact where they fit, else wide. */
int model_kernel_encode(struct model *m, struct model_kernel *k, uint64_t grid, uint64_t end,
			uint64_t submitted, uint32_t shape)
{
	int32_t sub;
	int fits = grid <= UINT32_MAX && end >= k->start && end - k->start <= UINT32_MAX &&
		   shape < MODEL_KERNEL_SHAPES && off_of(k->start, submitted, &sub) == 0;
	k->first_off = k->last_off = MODEL_OFF_NONE;
	if (fits) {
		k->grid = (uint32_t)grid;
		k->end_off = (uint32_t)(end - k->start);
		k->submitted_off = sub;
		k->shape = (uint16_t)(shape & (MODEL_KERNEL_WIDE - 1));
		k->shape_hi = shape >> 15;
		return 0;
	}
	k->end_off = 0;
	k->submitted_off = MODEL_OFF_NONE;
	struct model_kernel_wide *w = kernel_widen(m, k);
	if (!w)
		return -1;
	w->grid_id = grid;
	w->end = end;
	w->submitted = submitted;
	w->shape = shape;
	return 0;
}

int model_kernel_put_end(struct model *m, struct model_kernel *k, uint64_t end)
{
	if (!(k->shape & MODEL_KERNEL_WIDE) && end >= k->start && end - k->start <= UINT32_MAX) {
		k->end_off = (uint32_t)(end - k->start);
		return 0;
	}
	struct model_kernel_wide *w = kernel_widen(m, k);
	if (!w)
		return -1;
	w->end = end;
	return 0;
}

/* t - start as an offset, when it is one (not MODEL_OFF_NONE). */
static int near_start(uint64_t start, uint64_t t, int32_t *out)
{
	int64_t d = (int64_t)(t - start);
	if (!t || d < -(int64_t)INT32_MAX || d > INT32_MAX)
		return 0;
	*out = (int32_t)d;
	return 1;
}

/* n more blocks of k, from first (start) to last (end): per run of blocks,
 * so the compact case comes first. */
int model_kernel_note_blocks(struct model *m, struct model_kernel *k, uint64_t first,
			     uint64_t last, uint64_t n)
{
	int32_t fo, lo;
	if (!(k->shape & MODEL_KERNEL_WIDE) && k->blocks_seen + n <= MODEL_KERNEL_BLOCKS &&
	    near_start(k->start, first, &fo) && near_start(k->start, last, &lo)) {
		if (k->first_off == MODEL_OFF_NONE || fo < k->first_off)
			k->first_off = fo;
		if (k->last_off == MODEL_OFF_NONE || lo > k->last_off)
			k->last_off = lo;
		k->blocks_seen += (uint32_t)n;
		return 0;
	}
	uint64_t f = model_kernel_first_block(m, k), l = model_kernel_last_block(m, k);
	if (!f || first < f)
		f = first;
	if (last > l)
		l = last;
	uint64_t seen = model_kernel_blocks_seen(m, k) + n;
	if (!(k->shape & MODEL_KERNEL_WIDE) && seen <= MODEL_KERNEL_BLOCKS &&
	    off_of(k->start, f, &fo) == 0 &&
	    off_of(k->start, l, &lo) == 0) {
		k->first_off = fo;
		k->last_off = lo;
		k->blocks_seen = (uint32_t)seen;
		return 0;
	}
	struct model_kernel_wide *w = kernel_widen(m, k);
	if (!w)
		return -1;
	w->first_block = f;
	w->last_block = l;
	w->blocks_seen = seen;
	return 0;
}
