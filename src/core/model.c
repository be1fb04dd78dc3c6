#include "src/core/model.h"
#include "src/core/model_state.h"
#include "src/core/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "src/core/array.h"
#include "src/core/binning.h"

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* CUPTI names are mangled; the identifier is what fits in a lane. */
/* ---- bins ---------------------------------------------------------------- */

/* A batch touches every level of every SM: with 4 KiB pages that is a TLB
 * miss per level and SM, so bins live on huge pages where the kernel allows.
 * Not cleared here: a ring is cleared when it first takes data and the
 * detail level when it is filled, so the detail level's pages stay out of
 * memory until a fine zoom asks for it. */
static struct model_bin *bins_alloc(size_t count)
{
	size_t bytes = count * sizeof(struct model_bin);
	size_t huge = 2u << 20;
	bytes = (bytes + huge - 1) / huge * huge;
	struct model_bin *b = aligned_alloc(huge, bytes);
	if (!b)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(b, bytes, MADV_HUGEPAGE);
#endif
	return b;
}

static void level_init(struct model_level *l, struct model_bin *bins, size_t n, uint64_t width,
		       int ring)
{
	l->bins = bins;
	l->own = NULL;
	l->stride = n + MODEL_ROW_PAD;
	l->n = l->span = n;
	l->width = width;
	l->ring = ring;
	l->hi = INT64_MIN;
	l->first = INT64_MAX;
	l->lo = 0;
	l->used = 0;
}

static void level_reset(struct model_level *l, uint32_t n_sm)
{
	for (size_t i = 0; i < (size_t)n_sm * l->stride; i++)
		binning_bin_clear(&l->bins[i]);
	l->hi = INT64_MIN;
	l->used = 0;
}

/* A ring starts this small and doubles as its data spans more bins: the
 * coarse levels of a session of seconds hold a few bins each. */
#define RING_MIN_BINS 4

/* Bytes of one level's place in the bins' allocation. */
static size_t level_place(uint32_t n_sm)
{
	/* a few bins between levels keep the same SM of each level off one cache set */
	return (size_t)n_sm * (MODEL_RING_BINS + MODEL_ROW_PAD) + 56;
}

/* Moves ring k to n bins per SM (a power of two, n >= its current size):
 * the bins it holds keep their index, the rest are empty.  A full-size ring
 * takes its place in the shared allocation (huge pages), a smaller one
 * memory of its own, so that the places of short rings are never touched. */
static int ring_resize(struct model *m, int k, size_t n)
{
	struct model_level *l = &m->levels[k];
	size_t stride = n + MODEL_ROW_PAD;
	struct model_bin *nb = n == l->span ? m->bins + level_place(m->n_sm) * (size_t)k
					    : malloc((size_t)m->n_sm * stride * sizeof *nb);
	if (!nb)
		return -1;
	/* a ring without data yet is cleared when it takes its first */
	for (size_t i = 0; l->hi != INT64_MIN && i < (size_t)m->n_sm * stride; i++)
		binning_bin_clear(&nb[i]);
	if (l->hi != INT64_MIN && l->bins) {
		int64_t from = l->hi - (int64_t)l->n + 1;
		for (uint32_t sm = 0; sm < m->n_sm; sm++)
			for (int64_t i = from; i <= l->hi; i++)
				nb[(size_t)sm * stride + (size_t)((uint64_t)i & (n - 1))] =
					l->bins[(size_t)sm * l->stride + binning_ring_slot(l, i)];
	}
	free(l->own);
	l->own = n == l->span ? NULL : nb;
	l->bins = nb;
	l->n = n;
	l->stride = stride;
	return 0;
}

/* Before a batch over bins [lo, hi] (relative ns [smin, emax)) is binned:
 * each ring grows to hold its data from its lowest bin on, up to its span,
 * so that no bin with data ever leaves the memory while still in the span. */
int model_rings_fit(struct model *m, int64_t smin, int64_t emax)
{
	int64_t first = binning_floor_div(smin, (int64_t)MODEL_BASE_NS);
	int64_t last = binning_floor_div(emax - 1, (int64_t)MODEL_BASE_NS);
	for (int k = m->rings_off; k < MODEL_LEVELS; k++) {
		struct model_level *l = &m->levels[k];
		int64_t hi = last >> (2 * k), lo = first >> (2 * k);
		if (l->hi != INT64_MIN && l->hi > hi)
			hi = l->hi;
		if (l->first < lo)
			lo = l->first;
		l->first = lo;
		if (lo <= hi - (int64_t)l->span)
			lo = hi - (int64_t)l->span + 1;
		size_t n = l->n;
		while (n < l->span && (int64_t)n < hi - lo + 1)
			n *= 2;
		if (n != l->n && ring_resize(m, k, n))
			return -1;
	}
	return 0;
}

#define floor_div binning_floor_div
#define ring_slot binning_ring_slot

/* Adds [s, e) (relative ns) of one block with `threads` threads to the
 * detail level, bin by bin (it is filled once per window, not per frame). */
static void detail_add(struct model_level *l, uint32_t sm, uint16_t stream, int64_t s, int64_t e,
		       uint64_t threads)
{
	int64_t w = (int64_t)l->width;
	int64_t b0 = floor_div(s, w), b1 = floor_div(e - 1, w);
	if (b0 < l->lo)
		b0 = l->lo;
	if (b1 > l->lo + (int64_t)l->n - 1)
		b1 = l->lo + (int64_t)l->n - 1;
	l->used = 1;
	struct model_bin *row = &l->bins[(size_t)sm * l->stride];
	for (int64_t i = b0; i <= b1; i++) {
		int64_t bs = i * w, be = bs + w;
		int64_t os = s > bs ? s : bs, oe = e < be ? e : be;
		if (oe <= os)
			continue;
		uint64_t amt = threads * (uint64_t)(oe - os);
		struct model_bin *b = &row[i - l->lo];
		b->occ += amt;
		binning_bin_note(b, stream, amt);
	}
}

/* ---- streams and kernels ------------------------------------------------- */

static void stream_rank(struct model *m)
{
	for (size_t i = 0; i < m->n_streams; i++)
		m->stream_order[i] = (uint32_t)i;
	/* insertion sort: few streams, called when one appears or changes */
	for (size_t i = 1; i < m->n_streams; i++) {
		uint32_t x = m->stream_order[i];
		size_t j = i;
		while (j > 0) {
			const struct model_stream *a = &m->streams[m->stream_order[j - 1]];
			const struct model_stream *b = &m->streams[x];
			int64_t pa = a->priority == SMTOP_PRIORITY_UNKNOWN ? INT64_MAX : a->priority;
			int64_t pb = b->priority == SMTOP_PRIORITY_UNKNOWN ? INT64_MAX : b->priority;
			/* Streams that ran nothing (frameworks create pools of them)
			 * go last, so letters and colours go to the busy ones. */
			int ia = a->n_kernels == 0 && !a->will_run, ib = b->n_kernels == 0 && !b->will_run;
			int before = ib < ia || (ib == ia && (pb < pa || (pb == pa && (b->pid < a->pid ||
				     (b->pid == a->pid && b->stream_id < a->stream_id)))));
			if (!before)
				break;
			m->stream_order[j] = m->stream_order[j - 1];
			j--;
		}
		m->stream_order[j] = x;
	}
	for (size_t r = 0; r < m->n_streams; r++) {
		struct model_stream *s = &m->streams[m->stream_order[r]];
		s->rank = (int)r;
		s->letter = r < 26 ? (char)('A' + r) : '+';
	}
}

long model_stream_find(struct model *m, uint32_t pid, uint32_t dev, uint32_t ctx, uint32_t id,
		       int create)
{
	for (size_t i = 0; i < m->n_streams; i++) {
		struct model_stream *s = &m->streams[i];
		if (s->pid == pid && s->device_id == dev && s->context_id == ctx && s->stream_id == id)
			return (long)i;
	}
	if (!create)
		return -1;
	size_t cap = m->cap_streams;
	if (array_grow((void **)&m->streams, &m->cap_streams, m->n_streams + 1, sizeof *m->streams))
		return -1;
	if (array_grow((void **)&m->stream_order, &cap, m->n_streams + 1, sizeof *m->stream_order))
		return -1;
	struct model_stream *s = &m->streams[m->n_streams];
	memset(s, 0, sizeof *s);
	s->pid = pid;
	s->device_id = dev;
	s->context_id = ctx;
	s->stream_id = id;
	s->priority = SMTOP_PRIORITY_UNKNOWN;
	m->n_streams++;
	stream_rank(m);
	return (long)(m->n_streams - 1);
}

#define khash_key records_kernel_key

/* The kernel's stream holds its pid, device, context and stream id. */
const struct model_stream *model_kstream(const struct model *m, const struct model_kernel *k)
{
	return &m->streams[k->stream];
}

static int kernel_is(const struct model *m, const struct model_kernel *k, uint32_t pid,
		     uint32_t device_id, uint64_t grid)
{
	const struct model_stream *s = model_kstream(m, k);
	return model_kernel_grid(m, k) == grid && s->pid == pid && s->device_id == device_id;
}

/* Kernel idx under its key; a relaunch with a reused id wins. */
static int khash_put(struct model *m, uint32_t idx)
{
	const struct model_kernel *k = &m->kernels[idx];
	const struct model_stream *ks = model_kstream(m, k);
	uint64_t grid = model_kernel_grid(m, k), key = khash_key(ks->pid, ks->device_id, grid);
	size_t pos = 0;
	for (uint64_t *v; (v = u64map_next(&m->khash, key, &pos));)
		if (kernel_is(m, &m->kernels[*v], ks->pid, ks->device_id, grid)) {
			*v = idx;
			return 0;
		}
	return u64map_add(&m->khash, key, idx);
}

static struct model_grid_table *gtab_of(const struct model *m, uint32_t pid, uint32_t device_id)
{
	for (size_t i = 0; i < m->n_gtab; i++)
		if (m->gtab[i].pid == pid && m->gtab[i].device_id == device_id)
			return &m->gtab[i];
	return NULL;
}

/* Kernel idx goes to its process' and device's grid table when its grid id
 * is in the table's range or close enough after it (the table stays at
 * least half full, give or take 4 Ki slots), else to the hash. */
static int kernel_index_put(struct model *m, uint32_t idx)
{
	const struct model_kernel *k = &m->kernels[idx];
	const struct model_stream *ks = model_kstream(m, k);
	uint64_t grid = model_kernel_grid(m, k);
	struct model_grid_table *t = gtab_of(m, ks->pid, ks->device_id);
	if (!t) {
		if (array_grow((void **)&m->gtab, &m->cap_gtab, m->n_gtab + 1, sizeof *m->gtab))
			return -1;
		t = &m->gtab[m->n_gtab++];
		*t = (struct model_grid_table){ .pid = ks->pid, .device_id = ks->device_id, .lo = grid };
	}
	uint64_t off = grid - t->lo;
	if (grid < t->lo || off >= 2 * (t->used + 1) + 4096)
		return khash_put(m, idx);
	if (off >= t->n) {
		if (array_grow((void **)&t->slot, &t->cap, (size_t)off + 1, sizeof *t->slot))
			return -1;
		memset(&t->slot[t->n], 0, ((size_t)off + 1 - t->n) * sizeof *t->slot);
		t->n = (size_t)off + 1;
	}
	t->used += !t->slot[off];
	t->slot[off] = idx + 1; /* a relaunch with a reused id wins */
	return 0;
}

long model_find_kernel(const struct model *m, uint32_t pid, uint32_t device_id, uint64_t grid)
{
	const struct model_grid_table *t = gtab_of(m, pid, device_id);
	if (t && grid >= t->lo && grid - t->lo < t->n && t->slot[grid - t->lo])
		return (long)t->slot[grid - t->lo] - 1;
	size_t pos = 0;
	for (const uint64_t *v; (v = u64map_next(&m->khash, khash_key(pid, device_id, grid), &pos));)
		if (kernel_is(m, &m->kernels[*v], pid, device_id, grid))
			return (long)*v;
	return -1;
}

/* model_find_kernel for placing blocks: a chunk is short runs of a few
 * kernels' blocks, so a small table of recent grids answers most lookups
 * without probing the hash (whose slots point at kernels all over memory). */
long model_find_kernel_seen(struct model *m, uint32_t pid, uint32_t device_id, uint64_t grid)
{
	struct model_grid_seen *g = &m->grid_seen[grid % MODEL_GRID_SEEN];
	if (g->kernel >= 0 && g->grid == grid && g->pid == pid && g->device_id == device_id)
		return g->kernel;
	long k = model_find_kernel(m, pid, device_id, grid);
	if (k >= 0)
		*g = (struct model_grid_seen){ grid, pid, device_id, k };
	return k;
}

/* Times relative to the origin, clamped (binning_rel). */
#define MODEL_REL_MAX BINNING_REL_MAX

int64_t model_rel_time(const struct model *m, uint64_t t)
{
	return binning_rel(t, m->origin);
}

/* t + n * step, stopping at UINT64_MAX. */
uint64_t model_time_after(uint64_t t, uint64_t n, uint64_t step)
{
	if (step && n > (UINT64_MAX - t) / step)
		return UINT64_MAX;
	return t + n * step;
}

void model_note_time(struct model *m, uint64_t s, uint64_t e)
{
	if (!s)
		return;
	if (!m->has_origin) {
		/* whole seconds keep bin edges stable across runs */
		m->origin = (int64_t)(s - s % 1000000000ULL);
		m->has_origin = 1;
	}
	if (!m->t_first || s < m->t_first)
		m->t_first = s;
	if (e > m->t_last)
		m->t_last = e;
	if (s > m->t_last)
		m->t_last = s;
}

int model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	m->threshold_ns = 0;
	for (int i = 0; i < MODEL_LEVELS; i++)
		m->levels[i].hi = INT64_MIN;
	m->last_kernel = -1;
	for (size_t i = 0; i < MODEL_GRID_SEEN; i++)
		m->grid_seen[i].kernel = -1;
	m->focus.kernel = -1;
	m->focus.event = -1;
	m->binning = binning_new();
	if (!m->binning)
		return -1;
	return u64map_reserve(&m->khash, 512);
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->n_streams; i++)
		free(m->streams[i].kernels);
	free(m->streams);
	free(m->stream_order);
	for (size_t i = 0; i < m->n_names; i++)
		free(m->names[i].short_name);
	free(m->names);
	strmap_free(&m->nhash);
	free(m->wide);
	free(m->kevent.slots);
	free(m->most.slots);
	free(m->shapes);
	u64map_free(&m->shash);
	free(m->kernels);
	u64map_free(&m->khash);
	for (size_t i = 0; i < m->n_gtab; i++)
		free(m->gtab[i].slot);
	free(m->gtab);
	free(m->culprits);
	free(m->events);
	model_focus_culprits(m, -1, NULL, 0);
	for (size_t i = 0; i < m->n_nvtx; i++)
		free(m->nvtx[i].text);
	free(m->nvtx);
	for (int i = 0; i < MODEL_LEVELS; i++)
		free(m->levels[i].own);
	model_summary_drop(m);
	free(m->bins);
	binning_free(m->binning);
	for (size_t i = 0; i < m->n_pending_grids; i++)
		free(m->pending[i].blocks);
	free(m->pending);
	u64map_free(&m->phash);
	free(m->dev_name);
	memset(m, 0, sizeof *m);
}

/* The finest rings_off rings hold nothing: no bins in memory, a span of
 * none (binning skips them; frames read past them). */
static void rings_drop(struct model *m)
{
	for (int k = 0; k < m->rings_off && k < MODEL_LEVELS; k++) {
		struct model_level *l = &m->levels[k];
		free(l->own);
		l->own = l->bins = NULL;
		l->n = l->span = l->stride = 0;
	}
}

void model_rings_for_span(struct model *m, uint64_t span_ns)
{
	int off = 0;
	uint64_t w = MODEL_BASE_NS;
	while (off < MODEL_LEVELS - 1 && (uint64_t)MODEL_RING_BINS * w < span_ns / 4) {
		off++;
		w *= 4;
	}
	/* the finest ring finds the peak that stands for an unknown SM size */
	if (off <= m->rings_off || m->blocks || !m->has_device || !m->dev.max_threads_per_sm)
		return;
	m->rings_off = off;
	if (m->has_device)
		rings_drop(m);
	m->generation++;
}

int model_set_device(struct model *m, const struct smtop_device *d)
{
	if (m->has_device && d->sm_count == m->n_sm) {
		m->dev.max_threads_per_sm = d->max_threads_per_sm;
		return 0;
	}
	if (!d->sm_count || d->sm_count > MODEL_MAX_SMS)
		return -1;
	free(m->dev_name);
	m->dev = *d;
	m->dev_name = dup_str(d->name);
	m->dev.name = m->dev_name;
	m->dev.uuid = NULL;
	m->n_sm = d->sm_count;
	/* one allocation: huge pages are not wasted on rounding each level */
	for (int i = 0; i < MODEL_LEVELS; i++) {
		free(m->levels[i].own);
		m->levels[i].own = m->levels[i].bins = NULL;
	}
	free(m->bins);
	m->bins = NULL;
	if (binning_set_sms(m->binning, d->sm_count))
		return -1;
	size_t per_level = level_place(m->n_sm);
	m->bins = bins_alloc(per_level * MODEL_LEVELS + (size_t)m->n_sm * (MODEL_DETAIL_BINS + MODEL_ROW_PAD));
	if (!m->bins)
		return -1;
	uint64_t w = MODEL_BASE_NS;
	for (int i = 0; i < MODEL_LEVELS; i++, w *= 4) {
		level_init(&m->levels[i], NULL, MODEL_RING_BINS, w, 1);
		m->levels[i].n = 1;
		if (ring_resize(m, i, RING_MIN_BINS))
			return -1;
	}
	level_init(&m->detail, m->bins + per_level * MODEL_LEVELS, MODEL_DETAIL_BINS, 1, 0);
	m->has_device = 1;
	rings_drop(m);
	m->generation++;
	return 0;
}

int model_add_stream(struct model *m, const struct smtop_stream *s)
{
	long i = model_stream_find(m, s->pid, s->device_id, s->context_id, s->stream_id, 1);
	if (i < 0)
		return -1;
	if (m->streams[i].priority != s->priority) {
		m->streams[i].priority = s->priority;
		stream_rank(m);
	}
	m->generation++;
	return 0;
}

void model_note_gpu(struct model *m, uint32_t device_id)
{
	if (!(m->gpus_used & 1ull << (device_id % 64))) {
		m->gpus_used |= 1ull << (device_id % 64);
		m->n_gpus_used++;
	}
}

int model_add_kernel(struct model *m, const struct smtop_kernel *k)
{
	long si = model_stream_find(m, k->pid, k->device_id, k->context_id, k->stream_id, 1);
	if (si < 0 || si >= MODEL_NO_STREAM)
		return -1;
	model_note_gpu(m, k->device_id);
	if (array_grow((void **)&m->kernels, &m->cap_kernels, m->n_kernels + 1, sizeof *m->kernels))
		return -1;
	struct model_shape sh;
	memset(&sh, 0, sizeof sh); /* compared as bytes */
	memcpy(sh.grid, k->grid, sizeof sh.grid);
	memcpy(sh.block, k->block, sizeof sh.block);
	sh.registers = k->registers;
	sh.static_smem = k->static_smem;
	sh.dynamic_smem = k->dynamic_smem;
	long shape = model_kernel_intern_shape(m, &sh);
	if (shape < 0)
		return -1;
	long name = model_kernel_intern_name(m, k->name ? k->name : "?");
	if (name < 0)
		return -1;
	struct model_kernel *mk = &m->kernels[m->n_kernels];
	memset(mk, 0, sizeof *mk);
	mk->start = k->start;
	mk->stream = (uint16_t)si;
	mk->name = (uint32_t)name;
	if (model_kernel_encode(m, mk, k->grid_id, k->end, k->submitted, (uint32_t)shape))
		return -1;
	uint32_t idx = (uint32_t)m->n_kernels++;
	if (kernel_index_put(m, idx))
		return -1;
	m->last_kernel = -1; /* a relaunch with a reused grid id takes over */
	m->grid_seen[k->grid_id % MODEL_GRID_SEEN].kernel = -1;

	struct model_stream *s = &m->streams[si];
	if (array_grow((void **)&s->kernels, &s->cap_kernels, s->n_kernels + 1, sizeof *s->kernels))
		return -1;
	if (s->n_kernels && m->kernels[s->kernels[s->n_kernels - 1]].start > k->start)
		s->unsorted = 1;
	s->kernels[s->n_kernels++] = idx;
	if (k->end > k->start)
		s->busy_ns += k->end - k->start;
	model_note_time(m, k->start, k->end);
	m->generation++;
	return 0;
}

/* Whether a kernel ran on the GPU the view draws (its SM rows are that GPU's). */
int model_draws(const struct model *m, uint32_t device_id)
{
	return !m->one_gpu || device_id == m->dev.device_id;
}

/* Into the binning stage; the bins follow in batches (model_flush). */
int model_stage_block(struct model *m, const struct model_kernel *k, const struct smtop_block *b)
{
	if (!model_draws(m, model_kstream(m, k)->device_id))
		return 0;
	uint32_t threads = model_kernel_threads(m, k);
	int r = binning_push(m->binning, b->sm, model_rel_time(m, b->start), model_rel_time(m, b->end),
			     threads ? threads : 1, k->stream);
	if (r > 0)
		return model_blocks_bin_staged(m);
	return r;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* Event and culprit names are kernel names: interned with them. */
static const char *intern_name(struct model *m, const char *s)
{
	long i = model_kernel_intern_name(m, s ? s : "");
	return i >= 0 ? m->names[i].name : NULL;
}

/* The model streams of e's culprits; 0 when one of them is not known yet. */
static int culprit_streams(struct model *m, const struct smtop_event *e, uint64_t *mask)
{
	int all = 1;
	*mask = 0;
	for (size_t c = 0; c < e->n_culprits; c++) {
		const struct smtop_culprit *cu = &e->culprits[c];
		long s = model_stream_find(m, cu->pid, cu->device_id, cu->context_id, cu->stream_id, 0);
		if (s >= 0 && s < 64)
			*mask |= 1ULL << s;
		all &= s >= 0;
	}
	return all;
}

int model_add_event(struct model *m, const struct smtop_event *e)
{
	if (!model_draws(m, e->device_id))
		return 0; /* its SMs are not on screen */
	if (array_grow((void **)&m->events, &m->cap_events, m->n_events + 1, sizeof *m->events))
		return -1;
	struct model_event *me = &m->events[m->n_events];
	memset(me, 0, sizeof *me);
	me->ev = *e;
	me->ev.name = intern_name(m, e->name);
	me->ev.culprits = NULL;
	if (!me->ev.name)
		return -1;
	size_t keep = e->n_culprits;
	/* with the culprits in the file, the heaviest is enough for the events
	 * pane; the streams of all of them are taken now, for the timeline,
	 * unless one is not known yet (then all are kept, to link later) */
	if (m->culprits_stored && keep > 1 && culprit_streams(m, e, &me->culprit_streams))
		keep = 1;
	/* one array for every event's culprits: no allocation of its own each */
	if (m->n_culprits + keep > UINT32_MAX ||
	    array_grow((void **)&m->culprits, &m->cap_culprits, m->n_culprits + keep,
		       sizeof *m->culprits))
		return -1;
	me->culprits_held = (uint32_t)keep;
	me->culprits_at = (uint32_t)m->n_culprits;
	for (size_t i = 0; i < keep; i++) {
		struct smtop_culprit *c = &m->culprits[m->n_culprits + i];
		*c = e->culprits[i];
		c->name = intern_name(m, e->culprits[i].name);
		if (!c->name)
			return -1;
	}
	m->n_culprits += keep;
	me->kernel = -1;
	if (m->n_events && m->events[m->n_events - 1].ev.ready > e->ready)
		m->events_unsorted = 1;
	if (e->wait_ns > m->max_wait_ns)
		m->max_wait_ns = e->wait_ns;
	m->n_events++;
	model_note_time(m, e->ready, e->start);
	m->generation++;
	return 0;
}

int model_add_nvtx(struct model *m, const struct smtop_nvtx *n)
{
	if (array_grow((void **)&m->nvtx, &m->cap_nvtx, m->n_nvtx + 1, sizeof *m->nvtx))
		return -1;
	struct model_nvtx *x = &m->nvtx[m->n_nvtx++];
	x->start = n->start;
	x->end = n->end ? n->end : n->start;
	x->pid = n->pid;
	x->tid = n->tid;
	x->color = n->color;
	x->text = dup_or_empty(n->text);
	x->dropped = n->domain && !strcmp(n->domain, SMTOP_NVTX_DOMAIN) && n->text &&
		     !strncmp(n->text, SMTOP_DROPPED_RANGE_TEXT, strlen(SMTOP_DROPPED_RANGE_TEXT));
	m->n_dropped_ranges += x->dropped != 0;
	if (m->n_nvtx > 1 && m->nvtx[m->n_nvtx - 2].start > x->start)
		m->nvtx_unsorted = 1;
	if (x->end - x->start > m->max_nvtx_ns)
		m->max_nvtx_ns = x->end - x->start;
	m->generation++;
	return 0;
}

/* ---- flush ----------------------------------------------------------------- */

static const struct model *sort_model; /* qsort has no user pointer in C11 */

/* By start; kernels that never started (start 0) come first, by grid id,
 * as unstarted_between looks them up. */
static int cmp_kernel_idx(const void *a, const void *b)
{
	const struct model_kernel *x = &sort_model->kernels[*(const uint32_t *)a];
	const struct model_kernel *y = &sort_model->kernels[*(const uint32_t *)b];
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	uint64_t gx = model_kernel_grid(sort_model, x), gy = model_kernel_grid(sort_model, y);
	return (gx > gy) - (gx < gy);
}

static int cmp_event(const void *a, const void *b)
{
	const struct model_event *x = a, *y = b;
	return (x->ev.ready > y->ev.ready) - (x->ev.ready < y->ev.ready);
}

static int cmp_nvtx(const void *a, const void *b)
{
	const struct model_nvtx *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* ---- victims: kernel -> event ---------------------------------------------
 * Few kernels are victims (docs/performance.md, "Memory"): a hash beside
 * the kernels rather than a field in each. */

static size_t map_slot(size_t cap, uint32_t key)
{
	return (size_t)(((uint64_t)key + 1) * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
}

static int map_put(struct model_map *mp, uint32_t key, uint32_t value);

static int map_resize(struct model_map *mp, size_t cap)
{
	struct model_map old = *mp;
	mp->slots = calloc(cap, sizeof *mp->slots);
	if (!mp->slots) {
		*mp = old;
		return -1;
	}
	mp->cap = cap;
	mp->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i])
			map_put(mp, (uint32_t)((old.slots[i] >> 32) - 1), (uint32_t)old.slots[i]);
	free(old.slots);
	return 0;
}

/* key's value is value (replacing what it was). */
static int map_put(struct model_map *mp, uint32_t key, uint32_t value)
{
	/* up to 3/4 full: a slot holds its key, so a probe reads no kernel */
	if (mp->cap * 3 < 4 * (mp->n + 1) && map_resize(mp, mp->cap ? mp->cap * 2 : 256))
		return -1;
	size_t mask = mp->cap - 1, j = map_slot(mp->cap, key);
	uint64_t k = (uint64_t)key + 1;
	while (mp->slots[j] && mp->slots[j] >> 32 != k)
		j = (j + 1) & mask;
	mp->n += !mp->slots[j];
	mp->slots[j] = k << 32 | value;
	return 0;
}

/* key's value, or none. */
static uint32_t map_get(const struct model_map *mp, uint32_t key, uint32_t none)
{
	if (!mp->cap)
		return none;
	uint64_t k = (uint64_t)key + 1;
	size_t mask = mp->cap - 1;
	for (size_t j = map_slot(mp->cap, key); mp->slots[j]; j = (j + 1) & mask)
		if (mp->slots[j] >> 32 == k)
			return (uint32_t)mp->slots[j];
	return none;
}

static void map_clear(struct model_map *mp)
{
	if (mp->cap)
		memset(mp->slots, 0, mp->cap * sizeof *mp->slots);
	mp->n = 0;
}

long model_kernel_event(const struct model *m, const struct model_kernel *k)
{
	uint32_t e = map_get(&m->kevent, (uint32_t)(k - m->kernels), UINT32_MAX);
	return e == UINT32_MAX ? -1 : (long)e;
}

uint32_t model_kernel_most_per_sm(const struct model *m, const struct model_kernel *k)
{
	return map_get(&m->most, (uint32_t)(k - m->kernels), 0);
}

int model_kernel_set_most_per_sm(struct model *m, size_t i, uint32_t most)
{
	if (i >= m->n_kernels)
		return 0;
	return map_put(&m->most, (uint32_t)i, most);
}

/* Position of k in its stream's lane (the lane is sorted by start). */
static size_t lane_pos(const struct model *m, const struct model_kernel *k)
{
	const struct model_stream *s = &m->streams[k->stream];
	uint32_t idx = (uint32_t)(k - m->kernels);
	size_t i = (size_t)(model_stream_kernel_before(m, k->stream, k->start) + 1);
	while (i < s->n_kernels && s->kernels[i] != idx)
		i++;
	return i;
}

/* 1 when a kernel that never started (a launch whose blocks were all
 * dropped) was launched on the stream between the started kernel before
 * lane position i and the one there: grid ids count up in launch order,
 * and what the kernel at i waited for is not known (docs/analysis.md).
 * Such kernels (start 0) are the lane's first n0, by grid id. */
static int unstarted_between(const struct model *m, uint32_t stream, size_t i)
{
	const struct model_stream *s = &m->streams[stream];
	const struct model_kernel *k = &m->kernels[s->kernels[i]];
	size_t n0 = (size_t)(model_stream_kernel_before(m, stream, 1) + 1);
	if (!k->start || !n0)
		return 0;
	uint64_t after = i > n0 ? model_kernel_grid(m, &m->kernels[s->kernels[i - 1]]) : 0;
	size_t lo = 0, hi = n0; /* the first launched after `after` */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (model_kernel_grid(m, &m->kernels[s->kernels[mid]]) <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n0 && model_kernel_grid(m, &m->kernels[s->kernels[lo]]) < model_kernel_grid(m, k);
}

uint64_t model_stream_kernel_ready(const struct model *m, uint32_t stream, size_t i)
{
	const struct model_stream *s = &m->streams[stream];
	if (i >= s->n_kernels)
		return 0;
	const struct model_kernel *k = &m->kernels[s->kernels[i]];
	long e = model_kernel_event(m, k);
	if (e >= 0 && m->events[e].ev.ready)
		return m->events[e].ev.ready; /* the analysis said when it became ready */
	if (!s->unsorted && unstarted_between(m, stream, i))
		return 0;
	uint64_t r = model_kernel_submitted(m, k);
	if (r && i > 0 && !s->unsorted) {
		uint64_t pe = model_kernel_end(m, &m->kernels[s->kernels[i - 1]]);
		if (pe > r)
			r = pe;
	}
	return r;
}

uint64_t model_kernel_ready(const struct model *m, const struct model_kernel *k)
{
	return model_stream_kernel_ready(m, k->stream, lane_pos(m, k));
}

/* Events whose kernel is known keep their links (kernels and streams never
 * move); only new ones, or all after a re-sort, are looked up, so a live
 * flush costs what arrived, not the session. */
static void link_events(struct model *m, int all)
{
	for (size_t i = 0; i < m->n_events; i++) {
		struct model_event *e = &m->events[i];
		if (e->kernel >= 0 && !all)
			continue;
		if (e->culprits_held == e->ev.n_culprits) {
			struct smtop_event held = e->ev;
			held.culprits = &m->culprits[e->culprits_at];
			culprit_streams(m, &held, &e->culprit_streams);
		} /* else taken whole when it came */
		long k = model_find_kernel(m, e->ev.pid, e->ev.device_id, e->ev.grid_id);
		e->kernel = (int32_t)k;
		if (k >= 0 && map_put(&m->kevent, (uint32_t)k, (uint32_t)i))
			e->kernel = -1; /* out of memory: looked up again at the next flush */
	}
}

int model_flush(struct model *m)
{
	stream_rank(m);
	sort_model = m;
	for (size_t i = 0; i < m->n_streams; i++) {
		struct model_stream *s = &m->streams[i];
		if (!s->unsorted)
			continue;
		qsort(s->kernels, s->n_kernels, sizeof *s->kernels, cmp_kernel_idx);
		s->unsorted = 0;
	}
	int relink = m->events_unsorted;
	if (m->events_unsorted) {
		map_clear(&m->kevent);
		model_focus_culprits(m, -1, NULL, 0); /* its index moves */
		qsort(m->events, m->n_events, sizeof *m->events, cmp_event);
		m->events_unsorted = 0;
	}
	link_events(m, relink);
	if (m->nvtx_unsorted) {
		qsort(m->nvtx, m->n_nvtx, sizeof *m->nvtx, cmp_nvtx);
		m->nvtx_unsorted = 0;
	}
	/* retry blocks that came before their kernel, when a kernel (or the
	 * device) has come since the last try; keep the rest */
	if (m->n_kernels == m->pending_tried_kernels && m->has_device == m->pending_tried_device) {
		m->generation++;
		return model_blocks_bin_staged(m);
	}
	m->pending_tried_kernels = m->n_kernels;
	m->pending_tried_device = m->has_device;
	if (model_blocks_retry(m))
		return -1;
	m->generation++;
	return model_blocks_bin_staged(m);
}

void model_trim(struct model *m)
{
	if (m->binning && !binning_staged(m->binning))
		binning_trim(m->binning);
}

/* ---- replay: a session cut at a clock that moves on ------------------------ */

int model_extend_block(struct model *m, const struct smtop_block *b, uint32_t pid)
{
	if (!m->has_device || b->sm >= m->n_sm || b->end <= b->start)
		return 0;
	long ki = model_find_kernel(m, pid, b->device_id, b->grid_id);
	if (ki < 0)
		return 0;
	struct model_kernel *k = &m->kernels[ki];
	if (b->end > model_kernel_last_block(m, k) && model_kernel_note_blocks(m, k, b->start, b->end, 0))
		return -1;
	model_note_time(m, b->start, b->end);
	m->generation++;
	/* binned with the rest at the next model_flush */
	return model_stage_block(m, k, b) < 0 ? -1 : 0;
}

int model_stream_will_run(struct model *m, uint32_t pid, uint32_t device_id, uint32_t context_id,
			  uint32_t stream_id)
{
	long i = model_stream_find(m, pid, device_id, context_id, stream_id, 1);
	if (i < 0)
		return -1;
	if (!m->streams[i].will_run) {
		m->streams[i].will_run = 1;
		stream_rank(m);
		m->generation++;
	}
	return 0;
}

void model_kernel_set_end(struct model *m, size_t i, uint64_t end)
{
	if (i >= m->n_kernels || end <= model_kernel_end(m, &m->kernels[i]))
		return;
	struct model_kernel *k = &m->kernels[i];
	uint64_t e0 = model_kernel_end(m, k), was = e0 > k->start ? e0 - k->start : 0;
	if (model_kernel_put_end(m, k, end))
		return; /* out of memory: the end stays where it was */
	m->streams[k->stream].busy_ns += end - k->start - was;
	model_note_time(m, k->start, end);
	m->generation++;
}

void model_event_set_start(struct model *m, size_t i, uint64_t start)
{
	if (i >= m->n_events)
		return;
	struct smtop_event *e = &m->events[i].ev;
	e->start = start;
	e->wait_ns = start > e->ready ? start - e->ready : 0;
	if (e->wait_ns > m->max_wait_ns)
		m->max_wait_ns = e->wait_ns;
	model_note_time(m, e->ready, e->start);
	m->generation++;
}

/* ---- detail ---------------------------------------------------------------- */

void model_detail_begin(struct model *m, uint64_t t0, uint64_t t1)
{
	m->detail_ready = 0;
	if (!m->has_device || t1 <= t0)
		return;
	uint64_t w = (t1 - t0 + MODEL_DETAIL_BINS - 1) / MODEL_DETAIL_BINS;
	if (w < 1)
		w = 1;
	level_reset(&m->detail, m->n_sm);
	m->detail.width = w;
	m->detail.lo = floor_div(model_rel_time(m, t0), (int64_t)w);
	m->detail_t0 = t0;
	m->detail_t1 = t1;
}

int model_detail_add_block(struct model *m, const struct smtop_block *b, uint32_t pid)
{
	if (!m->has_device || b->sm >= m->n_sm || b->end <= b->start)
		return 0;
	long ki = model_find_kernel(m, pid, b->device_id, b->grid_id);
	if (ki < 0)
		return 0;
	const struct model_kernel *k = &m->kernels[ki];
	if (!model_draws(m, model_kstream(m, k)->device_id))
		return 0;
	uint32_t threads = model_kernel_threads(m, k);
	detail_add(&m->detail, b->sm, k->stream, model_rel_time(m, b->start), model_rel_time(m, b->end),
		   threads ? threads : 1);
	return 0;
}

void model_detail_end(struct model *m)
{
	m->detail_ready = m->has_device && m->detail_t1 > m->detail_t0;
	m->generation++;
}
