/* Scheduling analysis; the definitions live in docs/analysis.md.
 *
 * Blocks are never stored one by one beyond ANALYSIS_EXACT_BLOCKS per grid:
 * each grid keeps its first/last block start, last end, total block time and
 * either its few blocks or a fixed-size time profile, so a session of 1e8
 * blocks costs memory per grid, not per block.  A profile whose blocks have
 * stopped coming is packed (varints, about a third of its size) and read
 * back when a verdict asks; a kernel keeps only what verdicts and summaries
 * read (about 370 bytes a kernel in all).  Kernel verdicts are made at
 * analysis_update once everything they depend on is complete, so the answer
 * does not depend on how the input was cut into pieces. */
#include "src/core/analysis.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"
#include "src/core/clusters.h"
#include "src/core/profile.h"
#include "src/core/varint.h"

#define NB ANALYSIS_PROFILE_BINS
_Static_assert(ANALYSIS_PROFILE_BINS == PROFILE_BINS, "the analysis' profiles are src/core/profile.h's");
#define NKINDS (SMTOP_EV_TIMESLICE + 1)
#define START_LINK_MIN_NS 1024

/* What a grid's data pointer holds. */
enum grid_form {
	GRID_EXACT,             /* struct span[n], while n <= ANALYSIS_EXACT_BLOCKS */
	GRID_PROFILE,           /* struct profile, while blocks come */
	GRID_PACKED,            /* the profile packed (profile_pack) at offset data in packs */
};

struct grid {
	uint64_t grid_id;
	uint64_t first_start, last_start, last_end, block_time;
	void *data;             /* as form says */
	uint32_t pid, device_id;
	uint32_t n;
	int32_t kernel;         /* -1 until its kernel record arrives */
	int32_t dev;            /* index into devices */
	uint8_t form;           /* enum grid_form */
	uint8_t exact_cap;
	uint16_t act;           /* index into its device's activities */
};

/* A kernel as verdicts need it; pid and context are its stream's. */
struct kern {
	uint64_t start, end;
	uint64_t sub;           /* submission: CUPTI's submitted, else queued; 0 unknown */
	uint64_t grid_id;
	const char *name;
	uint32_t correlation_id, stream_id, device_id;
	int32_t stream, grid;
	uint32_t pos : 30;      /* index in its stream's start order */
	uint32_t decided : 1;
	uint32_t sub_queued : 1; /* sub is CUPTI's queued: the launch call's end comes first */
};

/* A copy or memset, as stream order needs it. */
struct memop {
	uint64_t start, end;
	uint32_t pid, ctx, dev, sid, corr;
	uint32_t kind;          /* SMTOP_READY_AFTER_MEMCPY or _MEMSET */
};

/* A cudaStreamWaitEvent on a stream (sync records carry no device: a
 * context belongs to one). */
struct swait {
	uint64_t end;
	uint32_t pid, ctx, sid, corr;
};

/* The end of a launch call, by pid and correlation id; end 0: empty slot. */
struct launch {
	uint64_t end;
	uint32_t pid, corr;
};

struct stream {
	struct smtop_stream s;
	int32_t dev;            /* index into devices, -1 until a kernel comes */
	int32_t *kernels;
	size_t n_kernels, cap_kernels;
	int sorted;
	uint64_t *waits;
	size_t n_waits, cap_waits;
	int waits_sorted;
	size_t waits_unknown;
	size_t events[NKINDS];
	uint64_t delay[NKINDS];
};

/* A kernel's resident extent, for finding culprits by time. */
struct ext {
	uint64_t s, e;
	int32_t k;
};

/* A process's block events (starts and ends) on one device, clustered by
 * ANALYSIS_SLICE_GAP_NS: what the time-slicing test reads. */
struct activity {
	uint32_t pid;
	struct clusters ev;
};

struct device {
	uint32_t id;
	uint32_t sm_count;      /* 0 unless analysis_add_device told us */
	uint32_t sm_seen;       /* highest SM index seen + 1 */
	uint64_t t_min, t_max;
	struct ext *order;      /* ended kernels sorted by start */
	size_t n_order, cap_order;
	uint64_t maxlen;
	struct ext *running;    /* kernels still running at the watermark */
	size_t n_running, cap_running;
	struct activity *acts;  /* per process */
	size_t n_acts, cap_acts;
};

struct request {
	uint32_t pid, stream_id;
	uint64_t turnaround;
};

struct slot {
	uint64_t k1, k2;
	int32_t val;            /* -1: empty */
};

struct map {
	struct slot *slots;
	size_t cap, n;
};

/* A hash of indices into kerns or grids, keyed by what the entry holds:
 * 4 bytes a slot instead of a copy of the key. */
struct imap {
	int32_t *slots;         /* -1: empty */
	size_t cap, n;
};

struct vec_event {
	struct smtop_event *v;
	size_t n, cap;
};

struct analysis {
	struct analysis_params p;
	uint64_t watermark;
	struct grid *grids;
	size_t n_grids, cap_grids;
	struct kern *kerns;
	size_t n_kerns, cap_kerns;
	struct stream *streams;
	size_t n_streams, cap_streams;
	size_t *stream_order;
	struct device *devs;
	size_t n_devs, cap_devs;
	struct request *reqs;
	size_t n_reqs, cap_reqs;
	struct imap grid_map, kern_map;
	struct map stream_map;
	int32_t *undecided;
	size_t n_undecided, cap_undecided;
	struct vec_event events, prov;
	int events_sorted;
	int32_t last_grid;      /* cache: blocks come in runs of one grid */
	uint64_t blocks;
	size_t kernels_with_blocks_cache;
	/* grids whose profile is unpacked, and when to look at them again */
	int32_t *hot;
	size_t n_hot, cap_hot;
	uint64_t blocks_at_sweep;
	uint64_t block_end_max; /* latest block end added */
	/* packed profiles, one after the other (no allocation of their own);
	 * those unpacked again leave dead bytes, dropped when they are many */
	uint8_t *packs;
	size_t packs_len, packs_cap, packs_dead;
	/* what ready times read besides kernels, sorted at update */
	struct memop *memops;
	size_t n_memops, cap_memops;
	int memops_sorted;
	struct swait *swaits;
	size_t n_swaits, cap_swaits;
	int swaits_sorted;
	struct launch *launches; /* open addressing, cap a power of 2 */
	size_t n_launches, cap_launches;
};

/* ---- small containers ---- */

static uint64_t mix(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static int32_t map_get(const struct map *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return -1;
	for (size_t i = mix(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct slot *s = &m->slots[i];
		if (s->val < 0)
			return -1;
		if (s->k1 == k1 && s->k2 == k2)
			return s->val;
	}
}

static void map_put_nogrow(struct map *m, uint64_t k1, uint64_t k2, int32_t val)
{
	size_t i = mix(k1, k2) & (m->cap - 1);
	while (m->slots[i].val >= 0)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (struct slot){ k1, k2, val };
	m->n++;
}

static int map_put(struct map *m, uint64_t k1, uint64_t k2, int32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		struct slot *ns = malloc(nc * sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < nc; i++)
			ns[i].val = -1;
		struct map old = *m;
		m->slots = ns;
		m->cap = nc;
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].val >= 0)
				map_put_nogrow(m, old.slots[i].k1, old.slots[i].k2, old.slots[i].val);
		free(old.slots);
	}
	map_put_nogrow(m, k1, k2, val);
	return 0;
}

typedef void (*imap_key_fn)(const struct analysis *a, int32_t i, uint64_t *k1, uint64_t *k2);

static int32_t imap_get(const struct analysis *a, const struct imap *m, imap_key_fn key,
			uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return -1;
	for (size_t i = mix(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		int32_t v = m->slots[i];
		uint64_t x1, x2;
		if (v < 0)
			return -1;
		key(a, v, &x1, &x2);
		if (x1 == k1 && x2 == k2)
			return v;
	}
}

static void imap_put_nogrow(const struct analysis *a, struct imap *m, imap_key_fn key, int32_t v)
{
	uint64_t k1, k2;
	key(a, v, &k1, &k2);
	size_t i = mix(k1, k2) & (m->cap - 1);
	while (m->slots[i] >= 0)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = v;
	m->n++;
}

/* Adds entry v, whose key key() reads from the entry itself. */
static int imap_put(const struct analysis *a, struct imap *m, imap_key_fn key, int32_t v)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		int32_t *ns = malloc(nc * sizeof *ns);
		if (!ns)
			return -1;
		for (size_t i = 0; i < nc; i++)
			ns[i] = -1;
		struct imap old = *m;
		m->slots = ns;
		m->cap = nc;
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i] >= 0)
				imap_put_nogrow(a, m, key, old.slots[i]);
		free(old.slots);
	}
	imap_put_nogrow(a, m, key, v);
	return 0;
}

static uint64_t umin(uint64_t x, uint64_t y) { return x < y ? x : y; }
static uint64_t umax(uint64_t x, uint64_t y) { return x > y ? x : y; }

static uint64_t overlap(uint64_t s, uint64_t e, uint64_t a, uint64_t b)
{
	uint64_t lo = umax(s, a), hi = umin(e, b);
	return hi > lo ? hi - lo : 0;
}

static const uint8_t *grid_packed(const struct analysis *a, const struct grid *g)
{
	return a->packs + (uintptr_t)g->data;
}

/* The grid's profile, unpacked into tmp when packed; NULL for exact grids. */
static const struct profile *grid_profile(const struct analysis *a, const struct grid *g,
					  struct profile *tmp)
{
	if (g->form == GRID_PROFILE)
		return g->data;
	if (g->form != GRID_PACKED)
		return NULL;
	profile_unpack(grid_packed(a, g), tmp);
	return tmp;
}

/* ---- grids ---- */

static const struct span *grid_exact(const struct grid *g)
{
	return g->data;
}

static uint64_t grid_overlap(const struct analysis *an, const struct grid *g, uint64_t a,
			     uint64_t b, uint32_t *blocks)
{
	struct profile tmp;
	const struct profile *p = grid_profile(an, g, &tmp);
	if (p)
		return profile_overlap(p, a, b, blocks);
	const struct span *exact = grid_exact(g);
	uint64_t sum = 0;
	*blocks = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t o = overlap(exact[i].s, exact[i].e, a, b);
		int resident = exact[i].s < b && exact[i].e > a;
		sum += o;
		*blocks += resident;
	}
	return sum;
}

/* Block starts of a profiled grid are clustered this close: a question
 * about an interval longer than the link is answered exactly (see
 * grid_started_between).  The floor bounds the clusters of a grid when the
 * threshold is tiny. */
static uint64_t start_link(const struct analysis *a)
{
	return umax(a->p.blocking_threshold_ns, START_LINK_MIN_NS);
}

/* Did the grid start a block after r and before l (both exclusive)?  First
 * and last starts answer most cases, the clusters of starts the rest; only
 * an interval not longer than the link inside one cluster falls back on the
 * profile's estimate. */
static int grid_started_between(const struct analysis *a, const struct grid *g, uint64_t r,
				uint64_t l)
{
	if (g->last_start <= r || g->first_start >= l)
		return 0;
	if (g->first_start > r || g->last_start < l)
		return 1;
	struct profile tmp;
	const struct profile *p = NULL;
	int known = -1;
	if (g->form == GRID_PROFILE) {
		p = g->data;
		known = clusters_any_between(&p->start_runs, r, l, start_link(a));
	} else if (g->form == GRID_PACKED) {
		const uint8_t *runs = profile_unpack_bins(grid_packed(a, g), &tmp);
		p = &tmp;
		known = profile_runs_any_between(runs, tmp.lo, r, l, start_link(a));
	}
	if (p)
		return known >= 0 ? known : profile_starts_between(p, r, l) >= 0.5;
	const struct span *exact = grid_exact(g);
	for (uint32_t i = 0; i < g->n; i++)
		if (exact[i].s > r && exact[i].s < l)
			return 1;
	return 0;
}


/* An unpacked profile is hot: it is packed once its blocks have stopped
 * coming (hot_sweep). */
static int hot_push(struct analysis *a, int32_t gi)
{
	if (array_grow((void **)&a->hot, &a->cap_hot, a->n_hot + 1, sizeof *a->hot))
		return -1;
	a->hot[a->n_hot++] = gi;
	return 0;
}

static int grid_to_profile(struct analysis *a, int32_t gi)
{
	struct grid *g = &a->grids[gi];
	const struct span *exact = grid_exact(g);
	if (hot_push(a, gi))
		return -1;
	struct profile *p = profile_new(exact[0].s, exact[0].e);
	if (!p) {
		a->n_hot--;
		return -1;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		profile_add(p, exact[i].s, exact[i].e);
		if (clusters_add(&p->start_runs, exact[i].s, start_link(a))) {
			profile_free(p);
			a->n_hot--;
			return -1;
		}
	}
	free(g->data);
	g->data = p;
	g->form = GRID_PROFILE;
	g->exact_cap = 0;
	return 0;
}

/* A packed grid whose blocks came again (late or out of order). */
static int grid_unpack(struct analysis *a, int32_t gi)
{
	struct grid *g = &a->grids[gi];
	if (hot_push(a, gi))
		return -1;
	struct profile *p = malloc(sizeof *p);
	if (!p) {
		a->n_hot--;
		return -1;
	}
	const uint8_t *from = grid_packed(a, g);
	const uint8_t *runs = profile_unpack_bins(from, p);
	const uint8_t *end = profile_runs_unpack(runs, p->lo, &p->start_runs);
	if (!end) {
		free(p);
		a->n_hot--;
		return -1;
	}
	a->packs_dead += (size_t)(end - from);
	g->data = p;
	g->form = GRID_PROFILE;
	return 0;
}

/* Blocks of a kernel come within a flush period or two of its end (the
 * collector's writer commits every 50 ms); a profile that has not grown
 * this long behind the latest block is packed. */
#define PACK_AFTER_NS 100000000ull
#define SWEEP_BLOCKS 65536u

static int cmp_packed_at(const void *x, const void *y, void *ctx)
{
	const struct analysis *a = ctx;
	uintptr_t p = (uintptr_t)a->grids[*(const int32_t *)x].data;
	uintptr_t q = (uintptr_t)a->grids[*(const int32_t *)y].data;
	return (p > q) - (p < q);
}

/* Drops the dead bytes of profiles unpacked again: the live ones move down
 * in the order they lie.  Only when out of memory does it leave them. */
static void packs_squeeze(struct analysis *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_grids; i++)
		n += a->grids[i].form == GRID_PACKED;
	int32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return;
	n = 0;
	for (size_t i = 0; i < a->n_grids; i++)
		if (a->grids[i].form == GRID_PACKED)
			order[n++] = (int32_t)i;
	qsort_r(order, n, sizeof *order, cmp_packed_at, a);
	size_t to = 0;
	for (size_t i = 0; i < n; i++) {
		struct grid *g = &a->grids[order[i]];
		struct profile tmp;
		size_t from = (uintptr_t)g->data, len = profile_unpack(a->packs + from, &tmp);
		memmove(a->packs + to, a->packs + from, len);
		g->data = (void *)(uintptr_t)to;
		to += len;
	}
	free(order);
	a->packs_len = to;
	a->packs_dead = 0;
}

static int grid_pack(struct analysis *a, struct grid *g)
{
	struct profile *p = g->data;
	if (a->packs_dead > a->packs_len / 2 && a->packs_dead > (1u << 16))
		packs_squeeze(a);
	if (array_grow((void **)&a->packs, &a->packs_cap, a->packs_len + profile_packed_max(p), 1))
		return -1;
	size_t len = profile_pack(p, a->packs + a->packs_len);
	profile_free(p);
	g->data = (void *)(uintptr_t)a->packs_len;
	g->form = GRID_PACKED;
	a->packs_len += len;
	return 0;
}

/* Packs the hot profiles that ended before `before` (all with UINT64_MAX). */
static void hot_sweep_before(struct analysis *a, uint64_t before)
{
	size_t keep = 0;
	a->blocks_at_sweep = a->blocks;
	for (size_t i = 0; i < a->n_hot; i++) {
		struct grid *g = &a->grids[a->hot[i]];
		if (g->form != GRID_PROFILE)
			continue;
		if ((g->last_end < before || before == UINT64_MAX) && grid_pack(a, g) == 0)
			continue;
		a->hot[keep++] = a->hot[i];
	}
	a->n_hot = keep;
	array_shrink((void **)&a->hot, &a->cap_hot, a->n_hot, sizeof *a->hot);
}

static void hot_sweep(struct analysis *a)
{
	if (a->block_end_max > PACK_AFTER_NS)
		hot_sweep_before(a, a->block_end_max - PACK_AFTER_NS);
	else
		a->blocks_at_sweep = a->blocks;
}

static int32_t device_index(struct analysis *a, uint32_t id)
{
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].id == id)
			return (int32_t)i;
	if (array_grow((void **)&a->devs, &a->cap_devs, a->n_devs + 1, sizeof *a->devs))
		return -1;
	struct device *d = &a->devs[a->n_devs];
	memset(d, 0, sizeof *d);
	d->id = id;
	d->t_min = UINT64_MAX;
	return (int32_t)a->n_devs++;
}

static void device_extend(struct device *d, uint64_t s, uint64_t e)
{
	if (s && s < d->t_min)
		d->t_min = s;
	if (e > d->t_max)
		d->t_max = e;
}

static int32_t activity_index(struct device *d, uint32_t pid)
{
	for (size_t i = 0; i < d->n_acts; i++)
		if (d->acts[i].pid == pid)
			return (int32_t)i;
	if (array_grow((void **)&d->acts, &d->cap_acts, d->n_acts + 1, sizeof *d->acts))
		return -1;
	d->acts[d->n_acts] = (struct activity){ .pid = pid };
	return (int32_t)d->n_acts++;
}

static const struct activity *activity_find(const struct device *d, uint32_t pid)
{
	for (size_t i = 0; i < d->n_acts; i++)
		if (d->acts[i].pid == pid)
			return &d->acts[i];
	return NULL;
}

static uint64_t key2_of(uint64_t grid_id, uint32_t correlation_id)
{
	return grid_id ? grid_id : (correlation_id | (1ull << 63));
}

static uint64_t key1(uint32_t pid, uint32_t ctx_or_device)
{
	return (uint64_t)pid << 32 | ctx_or_device;
}

/* Kernels and grids meet on (process, device, grid id), not on the context:
 * grid ids are unique per device, and the blocks of a green context's
 * kernels come through the primary context, which owns the module. */
static void kern_key(const struct analysis *a, int32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct kern *k = &a->kerns[i];
	const struct smtop_stream *s = &a->streams[k->stream].s;
	*k1 = key1(s->pid, k->device_id);
	*k2 = key2_of(k->grid_id, k->correlation_id);
}

static void grid_key(const struct analysis *a, int32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct grid *g = &a->grids[i];
	*k1 = key1(g->pid, g->device_id);
	*k2 = g->grid_id;
}

static uint32_t kern_pid(const struct analysis *a, const struct kern *k)
{
	return a->streams[k->stream].s.pid;
}

static uint32_t kern_ctx(const struct analysis *a, const struct kern *k)
{
	return a->streams[k->stream].s.context_id;
}

static int32_t kern_dev(const struct analysis *a, const struct kern *k)
{
	return a->streams[k->stream].dev;
}

static int32_t grid_create(struct analysis *a, uint32_t pid, const struct smtop_block *b)
{
	int32_t dev = device_index(a, b->device_id);
	int32_t act = dev < 0 ? -1 : activity_index(&a->devs[dev], pid);
	if (act < 0 || act > UINT16_MAX || array_grow((void **)&a->grids, &a->cap_grids, a->n_grids + 1, sizeof *a->grids))
		return -1;
	int32_t gi = (int32_t)a->n_grids;
	struct grid *g = &a->grids[gi];
	memset(g, 0, sizeof *g);
	g->pid = pid;
	g->device_id = b->device_id;
	g->grid_id = b->grid_id;
	g->dev = dev;
	g->form = GRID_EXACT;
	g->act = (uint16_t)act;
	g->first_start = UINT64_MAX;
	if (imap_put(a, &a->grid_map, grid_key, gi))
		return -1;
	a->n_grids++;
	g->kernel = imap_get(a, &a->kern_map, kern_key, key1(pid, b->device_id), b->grid_id);
	if (g->kernel >= 0) {
		a->kerns[g->kernel].grid = gi;
		a->kernels_with_blocks_cache++;
	}
	return gi;
}

/* One block of a grid with an unpacked profile (GRID_PROFILE). */
static int grid_add_profiled(struct analysis *a, struct grid *g, uint64_t s, uint64_t e)
{
	struct profile *p = g->data;
	if (clusters_add(&p->start_runs, s, start_link(a)))
		return -1;
	g->n++;
	profile_add(p, s, e);
	return 0;
}

/* One block of a grid still keeping its blocks (GRID_EXACT); the block
 * past ANALYSIS_EXACT_BLOCKS turns it into a profile. */
static int grid_add_exact(struct analysis *a, int32_t gi, uint64_t s, uint64_t e)
{
	struct grid *g = &a->grids[gi];
	g->n++;
	if (g->n > ANALYSIS_EXACT_BLOCKS) {
		g->n--;
		if (grid_to_profile(a, gi)) {
			g->n++;
			return -1;
		}
		return grid_add_profiled(a, g, s, e);
	}
	size_t cap = g->exact_cap;
	if (array_grow(&g->data, &cap, g->n, sizeof(struct span))) {
		g->n--;
		return -1;
	}
	g->exact_cap = (uint8_t)cap;
	((struct span *)g->data)[g->n - 1] = (struct span){ s, e };
	return 0;
}

/* Blocks b[0..n) of grid gi (a chunk's run of one grid): the device's and
 * the grid's extents and the grid's blocks or profile. */
static int grid_add_run(struct analysis *a, int32_t gi, const struct smtop_block *b, size_t n)
{
	struct grid *g = &a->grids[gi];
	struct device *d = &a->devs[g->dev];
	if (g->form == GRID_PACKED && grid_unpack(a, gi))
		return -1;
	uint64_t smin = UINT64_MAX, emax = 0;
	uint32_t sm_top = d->sm_seen;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = b[i].start, e = b[i].end < s ? s : b[i].end;
		if ((uint32_t)b[i].sm + 1 > sm_top)
			sm_top = (uint32_t)b[i].sm + 1;
		if (s && s < smin)
			smin = s;
		if (e > emax)
			emax = e;
		if (s < g->first_start)
			g->first_start = s;
		if (s > g->last_start)
			g->last_start = s;
		if (e > g->last_end)
			g->last_end = e;
		g->block_time += e - s;
		struct clusters *ev = &d->acts[g->act].ev;
		int err = clusters_add(ev, s, ANALYSIS_SLICE_GAP_NS) ||
			  clusters_add(ev, e, ANALYSIS_SLICE_GAP_NS);
		if (!err)
			err = g->form == GRID_PROFILE ? grid_add_profiled(a, g, s, e)
						      : grid_add_exact(a, gi, s, e);
		if (err) {
			d->sm_seen = sm_top;
			device_extend(d, smin, emax);
			return -1;
		}
	}
	d->sm_seen = sm_top;
	device_extend(d, smin == UINT64_MAX ? 0 : smin, emax);
	if (emax > a->block_end_max)
		a->block_end_max = emax;
	return 0;
}

/* ---- public: construction ---- */

void analysis_params_default(struct analysis_params *p)
{
	p->blocking_threshold_ns = ANALYSIS_DEFAULT_THRESHOLD_NS;
}

struct analysis *analysis_new(const struct analysis_params *p)
{
	struct analysis *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	if (p)
		a->p = *p;
	else
		analysis_params_default(&a->p);
	a->last_grid = -1;
	return a;
}

static void events_clear(struct vec_event *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].culprits);
	v->n = 0;
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_grids; i++)
		if (a->grids[i].form == GRID_PROFILE)
			profile_free(a->grids[i].data);
		else if (a->grids[i].form == GRID_EXACT)
			free(a->grids[i].data);
	free(a->packs);
	for (size_t i = 0; i < a->n_streams; i++) {
		free(a->streams[i].kernels);
		free(a->streams[i].waits);
	}
	for (size_t i = 0; i < a->n_devs; i++) {
		free(a->devs[i].order);
		free(a->devs[i].running);
		for (size_t j = 0; j < a->devs[i].n_acts; j++)
			free(a->devs[i].acts[j].ev.v);
		free(a->devs[i].acts);
	}
	events_clear(&a->events);
	events_clear(&a->prov);
	free(a->events.v);
	free(a->prov.v);
	free(a->grids);
	free(a->kerns);
	free(a->streams);
	free(a->stream_order);
	free(a->devs);
	free(a->reqs);
	free(a->grid_map.slots);
	free(a->kern_map.slots);
	free(a->stream_map.slots);
	free(a->undecided);
	free(a->hot);
	free(a->memops);
	free(a->swaits);
	free(a->launches);
	free(a);
}

const struct analysis_params *analysis_get_params(const struct analysis *a)
{
	return &a->p;
}

/* ---- public: input ---- */

static int32_t stream_find_or_add(struct analysis *a, uint32_t pid, uint32_t dev,
				  uint32_t ctx, uint32_t sid)
{
	uint64_t k2 = (uint64_t)dev << 32 | sid;
	int32_t si = map_get(&a->stream_map, key1(pid, ctx), k2);
	if (si >= 0)
		return si;
	if (array_grow((void **)&a->streams, &a->cap_streams, a->n_streams + 1, sizeof *a->streams))
		return -1;
	size_t cap = a->n_streams;
	size_t *order = realloc(a->stream_order, (cap + 1) * sizeof *order);
	if (!order)
		return -1;
	a->stream_order = order;
	si = (int32_t)a->n_streams;
	if (map_put(&a->stream_map, key1(pid, ctx), k2, si))
		return -1;
	struct stream *s = &a->streams[a->n_streams++];
	memset(s, 0, sizeof *s);
	s->s.pid = pid;
	s->s.device_id = dev;
	s->s.context_id = ctx;
	s->s.stream_id = sid;
	s->s.priority = SMTOP_PRIORITY_UNKNOWN;
	s->dev = -1;
	s->sorted = 1;
	return si;
}

int analysis_add_stream(struct analysis *a, const struct smtop_stream *s)
{
	int32_t si = stream_find_or_add(a, s->pid, s->device_id, s->context_id, s->stream_id);
	if (si < 0)
		return -1;
	a->streams[si].s = *s;
	return 0;
}

int analysis_add_device(struct analysis *a, const struct smtop_device *d)
{
	int32_t di = device_index(a, d->device_id);
	if (di < 0)
		return -1;
	if (d->sm_count)
		a->devs[di].sm_count = d->sm_count;
	return 0;
}

/* The record's fields a verdict reads (pid and context are the stream's). */
static void kern_set(struct kern *kn, const struct smtop_kernel *k)
{
	kn->start = k->start;
	kn->end = k->end;
	kn->sub = k->submitted ? k->submitted : k->queued;
	kn->sub_queued = !k->submitted && k->queued;
	kn->grid_id = k->grid_id;
	kn->name = k->name;
	kn->correlation_id = k->correlation_id;
	kn->stream_id = k->stream_id;
	kn->device_id = k->device_id;
}

static int kern_create(struct analysis *a, const struct smtop_kernel *k)
{
	int32_t si = stream_find_or_add(a, k->pid, k->device_id, k->context_id, k->stream_id);
	int32_t dev = device_index(a, k->device_id);
	if (si < 0 || dev < 0)
		return -1;
	struct stream *s = &a->streams[si];
	if (array_grow((void **)&a->kerns, &a->cap_kerns, a->n_kerns + 1, sizeof *a->kerns) ||
	    array_grow((void **)&s->kernels, &s->cap_kernels, s->n_kernels + 1, sizeof *s->kernels) ||
	    array_grow((void **)&a->undecided, &a->cap_undecided, a->n_undecided + 1,
		 sizeof *a->undecided))
		return -1;
	int32_t ki = (int32_t)a->n_kerns;
	struct kern *kn = &a->kerns[ki];
	memset(kn, 0, sizeof *kn);
	kern_set(kn, k);
	kn->stream = si;
	if (imap_put(a, &a->kern_map, kern_key, ki))
		return -1;
	a->n_kerns++;
	if (s->dev < 0)
		s->dev = dev;
	kn->grid = k->grid_id ? imap_get(a, &a->grid_map, grid_key, key1(k->pid, k->device_id),
					 k->grid_id) : -1;
	if (kn->grid >= 0) {
		a->grids[kn->grid].kernel = ki;
		a->kernels_with_blocks_cache++;
	}
	s->kernels[s->n_kernels++] = ki;
	s->sorted = 0;
	a->undecided[a->n_undecided++] = ki;
	device_extend(&a->devs[dev], k->start, k->end);
	return 0;
}

int analysis_add_kernel(struct analysis *a, const struct smtop_kernel *k)
{
	int32_t ki = imap_get(a, &a->kern_map, kern_key, key1(k->pid, k->device_id),
			      key2_of(k->grid_id, k->correlation_id));
	if (ki < 0)
		return kern_create(a, k);
	/* A kernel seen running comes again once it ended. */
	struct kern *kn = &a->kerns[ki];
	if (kn->decided)
		return 0;
	if (kn->start != k->start)
		a->streams[kn->stream].sorted = 0;
	kern_set(kn, k);
	device_extend(&a->devs[kern_dev(a, kn)], k->start, k->end);
	return 0;
}

int analysis_add_blocks(struct analysis *a, uint32_t pid, uint32_t context_id,
			const struct smtop_block *b, size_t n)
{
	(void)context_id; /* the join does not use it: see kern_key */
	for (size_t i = 0, j; i < n; i = j) {
		int32_t gi = a->last_grid;
		if (gi < 0 || a->grids[gi].grid_id != b[i].grid_id || a->grids[gi].pid != pid ||
		    a->grids[gi].device_id != b[i].device_id) {
			gi = imap_get(a, &a->grid_map, grid_key, key1(pid, b[i].device_id), b[i].grid_id);
			if (gi < 0 && (gi = grid_create(a, pid, &b[i])) < 0)
				return -1;
			a->last_grid = gi;
		}
		for (j = i + 1; j < n && b[j].grid_id == b[i].grid_id && b[j].device_id == b[i].device_id; j++)
			;
		if (grid_add_run(a, gi, b + i, j - i))
			return -1;
		a->blocks += j - i;
	}
	if (a->blocks - a->blocks_at_sweep >= SWEEP_BLOCKS)
		hot_sweep(a);
	return 0;
}

int analysis_add_block(struct analysis *a, uint32_t pid, uint32_t context_id,
		       const struct smtop_block *b)
{
	return analysis_add_blocks(a, pid, context_id, b, 1);
}

int analysis_add_request(struct analysis *a, const struct smtop_request *r)
{
	if (!r->end || r->end < r->start)
		return 0; /* still pending: add it again once answered */
	if (array_grow((void **)&a->reqs, &a->cap_reqs, a->n_reqs + 1, sizeof *a->reqs))
		return -1;
	a->reqs[a->n_reqs++] = (struct request){ r->pid, r->stream_id, r->end - r->start };
	return 0;
}

static int memop_add(struct analysis *a, const struct memop *m)
{
	if (!m->start || m->end < m->start)
		return 0; /* times unknown: bounds nothing */
	if (array_grow((void **)&a->memops, &a->cap_memops, a->n_memops + 1, sizeof *a->memops))
		return -1;
	a->memops[a->n_memops++] = *m;
	a->memops_sorted = 0;
	return 0;
}

int analysis_add_memcpy(struct analysis *a, const struct smtop_memcpy *m)
{
	return memop_add(a, &(struct memop){ m->start, m->end, m->pid, m->context_id, m->device_id,
					     m->stream_id, m->correlation_id,
					     SMTOP_READY_AFTER_MEMCPY });
}

int analysis_add_memset(struct analysis *a, const struct smtop_memset *m)
{
	return memop_add(a, &(struct memop){ m->start, m->end, m->pid, m->context_id, m->device_id,
					     m->stream_id, m->correlation_id,
					     SMTOP_READY_AFTER_MEMSET });
}

int analysis_add_sync(struct analysis *a, const struct smtop_sync *y)
{
	/* other types are the host waiting for the GPU: the host's next
	 * launch call already bounds what it submits afterwards */
	if (y->type != ANALYSIS_SYNC_STREAM_WAIT_EVENT || !y->end || !y->correlation_id)
		return 0;
	if (array_grow((void **)&a->swaits, &a->cap_swaits, a->n_swaits + 1, sizeof *a->swaits))
		return -1;
	a->swaits[a->n_swaits++] = (struct swait){ y->end, y->pid, y->context_id, y->stream_id,
						   y->correlation_id };
	a->swaits_sorted = 0;
	return 0;
}

static size_t launch_home(const struct analysis *a, uint32_t pid, uint32_t corr)
{
	return mix(pid, corr) & (a->cap_launches - 1);
}

static const struct launch *launch_find(const struct analysis *a, uint32_t pid, uint32_t corr)
{
	if (!a->cap_launches)
		return NULL;
	for (size_t i = launch_home(a, pid, corr);; i = (i + 1) & (a->cap_launches - 1)) {
		const struct launch *l = &a->launches[i];
		if (!l->end)
			return NULL;
		if (l->pid == pid && l->corr == corr)
			return l;
	}
}

static void launch_put_nogrow(struct analysis *a, const struct launch *x)
{
	size_t i = launch_home(a, x->pid, x->corr);
	while (a->launches[i].end && (a->launches[i].pid != x->pid || a->launches[i].corr != x->corr))
		i = (i + 1) & (a->cap_launches - 1);
	if (!a->launches[i].end)
		a->n_launches++;
	a->launches[i] = *x;
}

int analysis_add_api(struct analysis *a, const struct smtop_api *c)
{
	/* Only a kernel's launch call bounds it; the rest would cost memory
	 * for every cudaGetDevice of a framework. */
	if (!c->end || !c->correlation_id || (c->name && !strstr(c->name, "Launch")))
		return 0;
	if ((a->n_launches + 1) * 2 > a->cap_launches) {
		size_t nc = a->cap_launches ? a->cap_launches * 2 : 64;
		struct launch *nl = calloc(nc, sizeof *nl);
		if (!nl)
			return -1;
		struct launch *old = a->launches;
		size_t oc = a->cap_launches;
		a->launches = nl;
		a->cap_launches = nc;
		a->n_launches = 0;
		for (size_t i = 0; i < oc; i++)
			if (old[i].end)
				launch_put_nogrow(a, &old[i]);
		free(old);
	}
	launch_put_nogrow(a, &(struct launch){ c->end, c->pid, c->correlation_id });
	return 0;
}

/* ---- update: indexes ---- */

static uint64_t start_key(const struct analysis *a, int32_t ki)
{
	uint64_t s = a->kerns[ki].start;
	return s ? s : UINT64_MAX;
}

static int cmp_stream_kernel(const void *x, const void *y, void *ctx)
{
	const struct analysis *sort_ctx = ctx;
	int32_t i = *(const int32_t *)x, j = *(const int32_t *)y;
	uint64_t si = start_key(sort_ctx, i), sj = start_key(sort_ctx, j);
	if (si != sj)
		return si < sj ? -1 : 1;
	uint32_t ci = sort_ctx->kerns[i].correlation_id, cj = sort_ctx->kerns[j].correlation_id;
	if (ci != cj)
		return ci < cj ? -1 : 1;
	return (sort_ctx->kerns[i].grid_id > sort_ctx->kerns[j].grid_id) -
	       (sort_ctx->kerns[i].grid_id < sort_ctx->kerns[j].grid_id);
}

static void sort_streams(struct analysis *a)
{
	for (size_t i = 0; i < a->n_streams; i++) {
		struct stream *s = &a->streams[i];
		if (s->sorted)
			continue;
		qsort_r(s->kernels, s->n_kernels, sizeof *s->kernels, cmp_stream_kernel, a);
		for (size_t j = 0; j < s->n_kernels; j++)
			a->kerns[s->kernels[j]].pos = (uint32_t)j;
		s->sorted = 1;
	}
}

static int cmp_ext(const void *x, const void *y)
{
	const struct ext *p = x, *q = y;
	if (p->s != q->s)
		return p->s < q->s ? -1 : 1;
	return (p->k > q->k) - (p->k < q->k);
}

static const struct grid *kern_grid(const struct analysis *a, const struct kern *k)
{
	return k->grid >= 0 && a->grids[k->grid].n ? &a->grids[k->grid] : NULL;
}

static int kern_running(const struct kern *k, uint64_t w)
{
	return !k->end || k->end > w;
}

/* Resident extent: blocks when known, else the kernel's own interval. */
static struct ext kern_ext(const struct analysis *a, int32_t ki, uint64_t w)
{
	const struct kern *k = &a->kerns[ki];
	const struct grid *g = kern_grid(a, k);
	struct ext x = { k->start, k->end ? k->end : w, ki };
	if (g) {
		x.s = g->first_start;
		x.e = kern_running(k, w) ? umax(g->last_end, w) : g->last_end;
	} else if (kern_running(k, w)) {
		x.e = umax(x.e, w);
	}
	if (x.e < x.s)
		x.e = x.s;
	return x;
}

static int cmp_u32(uint32_t x, uint32_t y)
{
	return (x > y) - (x < y);
}

static int cmp_memop(const void *x, const void *y)
{
	const struct memop *p = x, *q = y;
	int c;
	if ((c = cmp_u32(p->pid, q->pid)) || (c = cmp_u32(p->ctx, q->ctx)) ||
	    (c = cmp_u32(p->dev, q->dev)) || (c = cmp_u32(p->sid, q->sid)))
		return c;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return cmp_u32(p->corr, q->corr);
}

static int cmp_swait(const void *x, const void *y)
{
	const struct swait *p = x, *q = y;
	int c;
	if ((c = cmp_u32(p->pid, q->pid)) || (c = cmp_u32(p->ctx, q->ctx)) ||
	    (c = cmp_u32(p->sid, q->sid)))
		return c;
	return cmp_u32(p->corr, q->corr);
}

static void sort_ready_inputs(struct analysis *a)
{
	if (!a->memops_sorted && a->n_memops)
		qsort(a->memops, a->n_memops, sizeof *a->memops, cmp_memop);
	if (!a->swaits_sorted && a->n_swaits)
		qsort(a->swaits, a->n_swaits, sizeof *a->swaits, cmp_swait);
	a->memops_sorted = a->swaits_sorted = 1;
}

static int build_device_index(struct analysis *a)
{
	for (size_t i = 0; i < a->n_devs; i++) {
		a->devs[i].n_order = a->devs[i].n_running = 0;
		a->devs[i].maxlen = 0;
	}
	for (size_t i = 0; i < a->n_kerns; i++) {
		const struct kern *k = &a->kerns[i];
		struct device *d = &a->devs[kern_dev(a, k)];
		if (!k->start && !kern_grid(a, k))
			continue; /* never started: cannot hold SMs */
		struct ext x = kern_ext(a, (int32_t)i, a->watermark);
		if (kern_running(k, a->watermark)) {
			if (array_grow((void **)&d->running, &d->cap_running, d->n_running + 1, sizeof x))
				return -1;
			d->running[d->n_running++] = x;
			continue;
		}
		if (array_grow((void **)&d->order, &d->cap_order, d->n_order + 1, sizeof x))
			return -1;
		d->order[d->n_order++] = x;
		if (x.e - x.s > d->maxlen)
			d->maxlen = x.e - x.s;
	}
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].n_order)
			qsort(a->devs[i].order, a->devs[i].n_order, sizeof(struct ext), cmp_ext);
	return 0;
}

/* ---- update: verdicts ---- */

struct verdict {
	int ready_known;
	uint64_t ready, first;
	int first_known;
};

static int32_t stream_prio(const struct analysis *a, int32_t ki)
{
	return a->streams[a->kerns[ki].stream].s.priority;
}

/* A ready time and the bound that set it. */
struct ready {
	uint64_t t;
	enum smtop_ready_bound bound;
	uint32_t corr;
};

/* Ties keep the bound found first, in the order of docs/analysis.md. */
static void ready_raise(struct ready *r, uint64_t t, enum smtop_ready_bound b, uint32_t corr)
{
	if (t > r->t)
		*r = (struct ready){ t, b, corr };
}

/* The copy or memset just before k on its stream in (start, correlation id)
 * order, or NULL. */
static const struct memop *memop_before(const struct analysis *a, const struct kern *k)
{
	/* a kernel not started yet (live) comes after everything on its stream */
	struct memop key = { k->start ? k->start : UINT64_MAX, 0, kern_pid(a, k), kern_ctx(a, k),
			     k->device_id, k->stream_id, k->correlation_id, 0 };
	size_t lo = 0, hi = a->n_memops;
	while (lo < hi) { /* first one not before k */
		size_t m = (lo + hi) / 2;
		if (cmp_memop(&a->memops[m], &key) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo)
		return NULL;
	const struct memop *p = &a->memops[lo - 1];
	return p->pid == key.pid && p->ctx == key.ctx && p->dev == key.dev && p->sid == key.sid
		? p : NULL;
}

/* Waits of k's stream called after its previous operation's call (after
 * correlation id `after`) and before k's own. */
static void ready_waits(const struct analysis *a, const struct kern *k, uint32_t after,
			struct ready *r)
{
	struct swait key = { 0, kern_pid(a, k), kern_ctx(a, k), k->stream_id, after };
	size_t lo = 0, hi = a->n_swaits;
	while (lo < hi) { /* first one past key */
		size_t m = (lo + hi) / 2;
		if (cmp_swait(&a->swaits[m], &key) <= 0)
			lo = m + 1;
		else
			hi = m;
	}
	for (; lo < a->n_swaits; lo++) {
		const struct swait *w = &a->swaits[lo];
		if (w->pid != key.pid || w->ctx != key.ctx || w->sid != key.sid ||
		    w->corr >= k->correlation_id)
			break;
		ready_raise(r, w->end, SMTOP_READY_EVENT_WAIT, w->corr);
	}
}

/* Ready = the latest of stream order, event waits and the host (see
 * docs/analysis.md).  Returns 0 if unknown, -1 if it depends on a kernel
 * still running. */
static int ready_time(const struct analysis *a, int32_t ki, struct ready *r)
{
	const struct kern *k = &a->kerns[ki];
	const struct stream *s = &a->streams[k->stream];
	uint32_t after = 0;
	*r = (struct ready){ 0, SMTOP_READY_UNKNOWN, 0 };
	if (k->pos > 0) {
		const struct kern *p = &a->kerns[s->kernels[k->pos - 1]];
		if (kern_running(p, a->watermark))
			return -1;
		ready_raise(r, p->end, SMTOP_READY_AFTER_KERNEL, p->correlation_id);
		after = p->correlation_id;
	}
	const struct memop *m = memop_before(a, k);
	if (m) {
		ready_raise(r, m->end, (enum smtop_ready_bound)m->kind, m->corr);
		after = m->corr > after ? m->corr : after;
	}
	ready_waits(a, k, after, r);
	const struct launch *l = k->sub && !k->sub_queued ? NULL
				 : launch_find(a, kern_pid(a, k), k->correlation_id);
	if (l)
		ready_raise(r, l->end, SMTOP_READY_LAUNCH_CALL, k->correlation_id);
	else
		ready_raise(r, k->sub, SMTOP_READY_HOST_SUBMIT, k->correlation_id);
	return r->t != 0;
}

struct cand {
	int32_t k;
	uint64_t overlap;
	uint32_t blocks;
	int from_blocks;
};

struct cands {
	struct cand *v;
	size_t n, cap;
	int incomplete;
};

static int same_stream(const struct kern *x, const struct kern *y)
{
	return x->stream == y->stream;
}

static int cand_consider(struct analysis *a, struct cands *c, const struct kern *v,
			 const struct ext *x, uint64_t lo, uint64_t hi)
{
	const struct kern *k = &a->kerns[x->k];
	if (k == v || same_stream(k, v) || x->s >= hi || x->e <= lo)
		return 0;
	if (kern_running(k, a->watermark))
		c->incomplete = 1;
	const struct grid *g = kern_grid(a, k);
	struct cand cd = { x->k, 0, 0, g != NULL };
	cd.overlap = g ? grid_overlap(a, g, lo, hi, &cd.blocks) : overlap(x->s, x->e, lo, hi);
	if (!cd.overlap)
		return 0;
	if (array_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v))
		return -1;
	c->v[c->n++] = cd;
	return 0;
}

/* Kernels on v's device resident during [lo, hi). */
static int find_culprits(struct analysis *a, const struct kern *v, uint64_t lo, uint64_t hi,
			 struct cands *c)
{
	const struct device *d = &a->devs[kern_dev(a, v)];
	c->n = 0;
	c->incomplete = 0;
	uint64_t from = lo > d->maxlen ? lo - d->maxlen : 0;
	size_t l = 0, r = d->n_order;
	while (l < r) {
		size_t m = (l + r) / 2;
		if (d->order[m].s < from)
			l = m + 1;
		else
			r = m;
	}
	for (size_t i = l; i < d->n_order && d->order[i].s < hi; i++)
		if (cand_consider(a, c, v, &d->order[i], lo, hi))
			return -1;
	for (size_t i = 0; i < d->n_running; i++)
		if (cand_consider(a, c, v, &d->running[i], lo, hi))
			return -1;
	return 0;
}

static int cmp_cand(const void *x, const void *y)
{
	const struct smtop_culprit *p = x, *q = y;
	if (p->overlap_ns != q->overlap_ns)
		return p->overlap_ns > q->overlap_ns ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->context_id != q->context_id)
		return p->context_id < q->context_id ? -1 : 1;
	return (p->grid_id > q->grid_id) - (p->grid_id < q->grid_id);
}

static int lower_priority(int32_t culprit, int32_t victim)
{
	return culprit != SMTOP_PRIORITY_UNKNOWN && victim != SMTOP_PRIORITY_UNKNOWN &&
	       culprit > victim;
}

/* ---- time-slicing ---- */

/* Index of the first cluster whose activity [s, e + gap) reaches past t. */
static size_t clusters_reaching(const struct clusters *c, uint64_t t, uint64_t gap)
{
	size_t l = 0, r = c->n;
	if (t < gap)
		return 0;
	while (l < r) {
		size_t m = (l + r) / 2;
		if (c->v[m].e + gap <= t)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* Is the process active somewhere in [lo, hi): a block event less than the
 * gap before some time of it? */
static int activity_in(const struct clusters *x, uint64_t lo, uint64_t hi)
{
	size_t i = clusters_reaching(x, lo, ANALYSIS_SLICE_GAP_NS);
	return i < x->n && x->v[i].s < hi;
}

/* Do the activities of two processes ([t, t + gap) around each block event)
 * meet inside [lo, hi)? */
static int activities_meet(const struct clusters *x, const struct clusters *y, uint64_t lo,
			   uint64_t hi)
{
	const uint64_t gap = ANALYSIS_SLICE_GAP_NS;
	size_t i = clusters_reaching(x, lo, gap), j = clusters_reaching(y, lo, gap);
	while (i < x->n && j < y->n && x->v[i].s < hi && y->v[j].s < hi) {
		uint64_t xe = x->v[i].e + gap, ye = y->v[j].e + gap;
		if (overlap(umax(x->v[i].s, lo), umin(xe, hi), umax(y->v[j].s, lo), umin(ye, hi)))
			return 1;
		if (xe < ye)
			i++;
		else
			j++;
	}
	return 0;
}

/* Could v's episode be time-slicing judged from block events: v and every
 * culprit have block records and every culprit is another process's. */
static int slice_by_events(const struct analysis *a, const struct kern *v, const struct cands *c)
{
	if (!kern_grid(a, v) || !c->n)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (kern_pid(a, &a->kerns[c->v[i].k]) == kern_pid(a, v) || !c->v[i].from_blocks)
			return 0;
	return 1;
}

/* The end of the window the time-slicing test reads: a gap past v's last
 * block end. */
static uint64_t slice_window_end(const struct analysis *a, const struct kern *v)
{
	return kern_grid(a, v)->last_end + ANALYSIS_SLICE_GAP_NS;
}

/* Every block event before the window's end is in: blocks that ended before
 * the watermark are, and a block still running belongs to a kernel still
 * running.  So wait while a kernel of v's or a culprit's process that began
 * before the window's end (plus a gap for clock slack) still runs. */
static int slice_data_complete(const struct analysis *a, const struct kern *v,
			       const struct cands *c)
{
	if (a->watermark == ANALYSIS_WATERMARK_ALL || !slice_by_events(a, v, c))
		return 1;
	uint64_t hi = slice_window_end(a, v) + ANALYSIS_SLICE_GAP_NS;
	if (a->watermark < hi)
		return 0;
	const struct device *d = &a->devs[kern_grid(a, v)->dev];
	for (size_t i = 0; i < d->n_running; i++) {
		const struct kern *k = &a->kerns[d->running[i].k];
		if (d->running[i].s >= hi)
			continue;
		if (kern_pid(a, k) == kern_pid(a, v))
			return 0;
		for (size_t j = 0; j < c->n; j++)
			if (kern_pid(a, &a->kerns[c->v[j].k]) == kern_pid(a, k))
				return 0;
	}
	return 1;
}

/* Time-sliced contexts take turns on the whole device: block events (starts
 * and ends) of one process never come within a context switch of the
 * other's, though a preempted block's recorded interval stays open across
 * the other's slice.  docs/analysis.md states the rule and its limits. */
static int looks_timesliced(struct analysis *a, const struct kern *v, uint64_t ready,
			    uint64_t first, const struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (kern_pid(a, &a->kerns[c->v[i].k]) == kern_pid(a, v))
			return 0;
	if (!slice_by_events(a, v, c)) {
		/* Kernel intervals only: other processes never overlap v's run. */
		struct ext vx = kern_ext(a, (int32_t)(v - a->kerns), a->watermark);
		vx.s = first;
		for (size_t i = 0; i < c->n; i++) {
			struct ext x = kern_ext(a, c->v[i].k, a->watermark);
			if (overlap(x.s, x.e, vx.s, vx.e))
				return 0;
		}
		return 1;
	}
	const struct grid *vg = kern_grid(a, v);
	const struct device *d = &a->devs[vg->dev];
	const struct activity *own = activity_find(d, kern_pid(a, v));
	uint64_t hi = slice_window_end(a, v);
	int other_active = 0;
	uint32_t done = kern_pid(a, v);
	for (size_t i = 0; i < c->n; i++) {
		uint32_t pid = kern_pid(a, &a->kerns[c->v[i].k]);
		const struct activity *x = pid == done ? NULL : activity_find(d, pid);
		if (!x)
			continue;
		done = pid;
		if (own && activities_meet(&own->ev, &x->ev, ready, hi))
			return 0;
		other_active |= activity_in(&x->ev, ready, hi);
	}
	return other_active;
}

static enum smtop_event_kind classify(struct analysis *a, const struct kern *v,
				      uint64_t ready, uint64_t first, int started,
				      const struct cands *c)
{
	if (started && looks_timesliced(a, v, ready, first, c))
		return SMTOP_EV_TIMESLICE;
	int32_t pv = stream_prio(a, (int32_t)(v - a->kerns));
	const struct grid *vg = kern_grid(a, v);
	uint64_t last = vg ? vg->last_start : (started ? first : a->watermark);
	if (!started)
		last = a->watermark;
	int resident = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct kern *k = &a->kerns[c->v[i].k];
		if (!lower_priority(stream_prio(a, c->v[i].k), pv))
			continue;
		const struct grid *g = kern_grid(a, k);
		int dispatched = g ? grid_started_between(a, g, ready, last)
				   : (k->start > ready && k->start < last);
		if (dispatched)
			return SMTOP_EV_INVERSION_DISPATCH;
		resident = 1;
	}
	return resident ? SMTOP_EV_INVERSION_RESIDENT : SMTOP_EV_BLOCKING;
}

static int make_event(struct analysis *a, const struct kern *v, const struct ready *r,
		      uint64_t first, int started, uint64_t wait, const struct cands *c,
		      struct smtop_event *ev)
{
	uint64_t ready = r->t;
	memset(ev, 0, sizeof *ev);
	ev->culprits = calloc(c->n, sizeof *ev->culprits);
	if (!ev->culprits)
		return -1;
	ev->kind = classify(a, v, ready, first, started, c);
	ev->pid = kern_pid(a, v);
	ev->device_id = v->device_id;
	ev->context_id = kern_ctx(a, v);
	ev->stream_id = v->stream_id;
	ev->correlation_id = v->correlation_id;
	ev->grid_id = v->grid_id;
	ev->priority = stream_prio(a, (int32_t)(v - a->kerns));
	ev->ready = ready;
	ev->ready_bound = r->bound;
	ev->ready_correlation_id = r->corr;
	ev->start = started ? first : 0;
	ev->wait_ns = wait;
	ev->name = v->name;
	ev->from_blocks = kern_grid(a, v) != NULL;
	uint64_t total = 0;
	for (size_t i = 0; i < c->n; i++)
		total += c->v[i].overlap;
	for (size_t i = 0; i < c->n; i++) {
		const struct kern *k = &a->kerns[c->v[i].k];
		struct smtop_culprit *cu = &ev->culprits[i];
		cu->pid = kern_pid(a, k);
		cu->device_id = k->device_id;
		cu->context_id = kern_ctx(a, k);
		cu->stream_id = k->stream_id;
		cu->correlation_id = k->correlation_id;
		cu->grid_id = k->grid_id;
		cu->priority = stream_prio(a, c->v[i].k);
		cu->overlap_ns = c->v[i].overlap;
		cu->weight = (double)c->v[i].overlap / (double)total;
		cu->blocks = c->v[i].blocks;
		cu->name = k->name;
		if (!c->v[i].from_blocks)
			ev->from_blocks = 0;
	}
	ev->n_culprits = c->n;
	qsort(ev->culprits, c->n, sizeof *ev->culprits, cmp_cand);
	return 0;
}

static int events_push(struct vec_event *v, const struct smtop_event *ev)
{
	if (array_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
		return -1;
	v->v[v->n++] = *ev;
	return 0;
}

static void stream_record_wait(struct analysis *a, struct stream *s, uint64_t wait)
{
	if (array_grow((void **)&s->waits, &s->cap_waits, s->n_waits + 1, sizeof *s->waits) == 0) {
		s->waits[s->n_waits++] = wait;
		s->waits_sorted = 0;
	}
	(void)a;
}

/* Victim's first start: its first block, else its kernel start. */
static int first_start(const struct analysis *a, const struct kern *v, uint64_t *first)
{
	const struct grid *g = kern_grid(a, v);
	*first = g ? g->first_start : v->start;
	return *first != 0;
}

/* Returns 1 when decided, 0 when it must wait for more data, -1 on OOM. */
static int decide(struct analysis *a, int32_t ki, struct cands *c)
{
	struct kern *v = &a->kerns[ki];
	struct stream *s = &a->streams[v->stream];
	struct ready r;
	uint64_t ready, first;
	if (kern_running(v, a->watermark))
		return 0;
	int rk = ready_time(a, ki, &r);
	ready = r.t;
	if (rk < 0)
		return 0;
	if (rk == 0 || !first_start(a, v, &first)) {
		s->waits_unknown++;
		return 1;
	}
	uint64_t wait = first > ready ? first - ready : 0;
	if (wait > a->p.blocking_threshold_ns) {
		if (find_culprits(a, v, ready, first, c))
			return -1;
		if (c->incomplete || !slice_data_complete(a, v, c))
			return 0;
		if (c->n) {
			struct smtop_event ev;
			if (make_event(a, v, &r, first, 1, wait, c, &ev))
				return -1;
			if (events_push(&a->events, &ev)) {
				free(ev.culprits);
				return -1;
			}
			a->events_sorted = 0;
			s->events[ev.kind]++;
			s->delay[ev.kind] += wait;
		}
	}
	stream_record_wait(a, s, wait);
	return 1;
}

/* A kernel not yet decided but already waiting longer than the threshold. */
static int provisional(struct analysis *a, int32_t ki, struct cands *c)
{
	const struct kern *v = &a->kerns[ki];
	struct ready r;
	uint64_t ready, first;
	if (ready_time(a, ki, &r) <= 0)
		return 0;
	ready = r.t;
	int started = first_start(a, v, &first) && first < a->watermark;
	uint64_t end = started ? first : a->watermark;
	uint64_t wait = end > ready ? end - ready : 0;
	if (wait <= a->p.blocking_threshold_ns)
		return 0;
	if (find_culprits(a, v, ready, end, c))
		return -1;
	if (!c->n)
		return 0;
	struct smtop_event ev;
	if (make_event(a, v, &r, first, started, wait, c, &ev))
		return -1;
	if (events_push(&a->prov, &ev)) {
		free(ev.culprits);
		return -1;
	}
	return 0;
}

static int cmp_event(const void *x, const void *y)
{
	const struct smtop_event *p = x, *q = y;
	if (p->ready != q->ready)
		return p->ready < q->ready ? -1 : 1;
	if (p->device_id != q->device_id)
		return p->device_id < q->device_id ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->context_id != q->context_id)
		return p->context_id < q->context_id ? -1 : 1;
	if (p->grid_id != q->grid_id)
		return p->grid_id < q->grid_id ? -1 : 1;
	return (p->correlation_id > q->correlation_id) - (p->correlation_id < q->correlation_id);
}

static int cmp_stream_order(const void *x, const void *y, void *ctx)
{
	const struct analysis *sort_ctx = ctx;
	const struct smtop_stream *p = &sort_ctx->streams[*(const size_t *)x].s;
	const struct smtop_stream *q = &sort_ctx->streams[*(const size_t *)y].s;
	if (p->device_id != q->device_id)
		return p->device_id < q->device_id ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->context_id != q->context_id)
		return p->context_id < q->context_id ? -1 : 1;
	return (p->stream_id > q->stream_id) - (p->stream_id < q->stream_id);
}

static int decide_all(struct analysis *a, struct cands *c)
{
	size_t keep = 0;
	for (size_t i = 0; i < a->n_undecided; i++) {
		int32_t ki = a->undecided[i];
		int r = decide(a, ki, c);
		if (r < 0) {
			/* Keep the rest so a later update can finish them. */
			memmove(&a->undecided[keep], &a->undecided[i],
				(a->n_undecided - i) * sizeof *a->undecided);
			a->n_undecided = keep + a->n_undecided - i;
			return -1;
		}
		if (r)
			a->kerns[ki].decided = 1;
		else
			a->undecided[keep++] = ki;
	}
	a->n_undecided = keep;
	return 0;
}

int analysis_update(struct analysis *a, uint64_t watermark)
{
	struct cands c = { 0 };
	int rc = 0;
	a->watermark = watermark;
	/* every block is in: no profile grows any more */
	if (watermark == ANALYSIS_WATERMARK_ALL)
		analysis_compact(a);
	sort_streams(a);
	sort_ready_inputs(a);
	for (size_t i = 0; i < a->n_streams; i++)
		a->stream_order[i] = i;
	if (a->n_streams)
		qsort_r(a->stream_order, a->n_streams, sizeof *a->stream_order, cmp_stream_order, a);
	if (build_device_index(a) || decide_all(a, &c))
		rc = -1;
	events_clear(&a->prov);
	for (size_t i = 0; rc == 0 && i < a->n_undecided; i++)
		if (provisional(a, a->undecided[i], &c))
			rc = -1;
	free(c.v);
	if (!a->events_sorted && a->events.n) {
		qsort(a->events.v, a->events.n, sizeof *a->events.v, cmp_event);
		a->events_sorted = 1;
	}
	if (a->prov.n)
		qsort(a->prov.v, a->prov.n, sizeof *a->prov.v, cmp_event);
	return rc;
}

/* ---- public: results ---- */

size_t analysis_event_count(const struct analysis *a)
{
	return a->events.n;
}

const struct smtop_event *analysis_event(const struct analysis *a, size_t i)
{
	return i < a->events.n ? &a->events.v[i] : NULL;
}

size_t analysis_provisional_count(const struct analysis *a)
{
	return a->prov.n;
}

const struct smtop_event *analysis_provisional(const struct analysis *a, size_t i)
{
	return i < a->prov.n ? &a->prov.v[i] : NULL;
}

size_t analysis_stream_count(const struct analysis *a)
{
	return a->n_streams;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
	return (p > q) - (p < q);
}

/* Nearest-rank percentiles of sorted values. */
static struct analysis_percentiles percentiles(const uint64_t *v, size_t n)
{
	struct analysis_percentiles p = { n, 0, 0, 0, 0 };
	if (!n)
		return p;
	const unsigned pct[3] = { 50, 90, 99 };
	uint64_t *out[3] = { &p.p50, &p.p90, &p.p99 };
	for (int i = 0; i < 3; i++) {
		size_t rank = (pct[i] * n + 99) / 100;
		*out[i] = v[rank ? rank - 1 : 0];
	}
	p.max = v[n - 1];
	return p;
}

static struct analysis_percentiles turnaround(const struct analysis *a, const struct smtop_stream *s)
{
	struct analysis_percentiles none = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < a->n_reqs; i++)
		n += a->reqs[i].pid == s->pid && a->reqs[i].stream_id == s->stream_id;
	if (!n)
		return none;
	uint64_t *v = malloc(n * sizeof *v);
	if (!v)
		return none;
	n = 0;
	for (size_t i = 0; i < a->n_reqs; i++)
		if (a->reqs[i].pid == s->pid && a->reqs[i].stream_id == s->stream_id)
			v[n++] = a->reqs[i].turnaround;
	qsort(v, n, sizeof *v, cmp_u64);
	struct analysis_percentiles p = percentiles(v, n);
	free(v);
	return p;
}

static void stream_usage(const struct analysis *a, const struct stream *s,
			 struct analysis_stream_summary *out)
{
	for (size_t j = 0; j < s->n_kernels; j++) {
		const struct kern *k = &a->kerns[s->kernels[j]];
		const struct grid *g = kern_grid(a, k);
		if (k->end > k->start && k->start)
			out->busy_ns += k->end - k->start;
		if (g) {
			out->kernels_with_blocks++;
			out->block_time_ns += g->block_time;
		}
	}
}

int analysis_stream_summary(struct analysis *a, size_t i, struct analysis_stream_summary *out)
{
	if (i >= a->n_streams)
		return -1;
	struct stream *s = &a->streams[a->stream_order ? a->stream_order[i] : i];
	memset(out, 0, sizeof *out);
	out->pid = s->s.pid;
	out->device_id = s->s.device_id;
	out->context_id = s->s.context_id;
	out->stream_id = s->s.stream_id;
	out->priority = s->s.priority;
	out->kernels = s->n_kernels;
	out->waits_unknown = s->waits_unknown;
	stream_usage(a, s, out);
	int32_t di = -1;
	for (size_t d = 0; d < a->n_devs; d++)
		if (a->devs[d].id == s->s.device_id)
			di = (int32_t)d;
	if (di >= 0 && a->devs[di].t_max > a->devs[di].t_min) {
		const struct device *d = &a->devs[di];
		double span = (double)(d->t_max - d->t_min);
		uint32_t sms = d->sm_count ? d->sm_count : d->sm_seen;
		out->sm_share_from_blocks = out->kernels_with_blocks == out->kernels &&
					    out->kernels && sms;
		if (out->sm_share_from_blocks)
			out->sm_share = (double)out->block_time_ns / ((double)sms * span);
		else
			out->sm_share = (double)out->busy_ns / span;
	}
	if (!s->waits_sorted && s->n_waits) {
		qsort(s->waits, s->n_waits, sizeof *s->waits, cmp_u64);
		s->waits_sorted = 1;
	}
	out->wait = percentiles(s->waits, s->n_waits);
	out->turnaround = turnaround(a, &s->s);
	memcpy(out->events, s->events, sizeof out->events);
	memcpy(out->delay_ns, s->delay, sizeof out->delay_ns);
	return 0;
}

void analysis_compact(struct analysis *a)
{
	hot_sweep_before(a, UINT64_MAX);
}

void analysis_memory(const struct analysis *a, struct analysis_memory *out)
{
	memset(out, 0, sizeof *out);
	out->kernels = a->n_kerns * sizeof *a->kerns + a->cap_undecided * sizeof *a->undecided;
	for (size_t i = 0; i < a->n_streams; i++)
		out->kernels += a->streams[i].n_kernels * sizeof(int32_t) +
				a->streams[i].n_waits * sizeof(uint64_t);
	out->kernels += a->cap_memops * sizeof *a->memops + a->cap_swaits * sizeof *a->swaits +
			a->cap_launches * sizeof *a->launches;
	out->grids = a->n_grids * sizeof *a->grids;
	for (size_t i = 0; i < a->n_grids; i++)
		if (a->grids[i].form == GRID_EXACT)
			out->grids += a->grids[i].exact_cap * sizeof(struct span);
		else if (a->grids[i].form == GRID_PROFILE)
			out->profiles += sizeof(struct profile) +
					 ((struct profile *)a->grids[i].data)->start_runs.cap *
						 sizeof(struct span);
	out->packed = a->packs_len;
	out->index = (a->kern_map.cap + a->grid_map.cap) * sizeof(int32_t) +
		     a->stream_map.cap * sizeof(struct slot) + a->cap_hot * sizeof *a->hot;
	for (size_t i = 0; i < a->n_devs; i++) {
		const struct device *d = &a->devs[i];
		out->index += (d->cap_order + d->cap_running) * sizeof(struct ext) +
			      d->cap_acts * sizeof *d->acts;
		for (size_t j = 0; j < d->n_acts; j++)
			out->index += d->acts[j].ev.cap * sizeof(struct span);
	}
	const struct vec_event *ev[2] = { &a->events, &a->prov };
	for (int k = 0; k < 2; k++) {
		out->events += ev[k]->n * sizeof *ev[k]->v;
		for (size_t i = 0; i < ev[k]->n; i++)
			out->events += ev[k]->v[i].n_culprits * sizeof(struct smtop_culprit);
	}
	out->total = out->kernels + out->grids + out->profiles + out->packed + out->index +
		     out->events + a->n_streams * sizeof *a->streams + a->cap_reqs * sizeof *a->reqs;
}

void analysis_totals(const struct analysis *a, struct analysis_totals *out)
{
	memset(out, 0, sizeof *out);
	out->kernels = a->n_kerns;
	out->kernels_with_blocks = a->kernels_with_blocks_cache;
	out->kernels_pending = a->n_undecided;
	out->blocks = a->blocks;
	for (size_t i = 0; i < a->events.n; i++) {
		out->events[a->events.v[i].kind]++;
		out->delay_ns[a->events.v[i].kind] += a->events.v[i].wait_ns;
	}
}

int analysis_has_blocks(const struct analysis *a)
{
	return a->blocks > 0;
}

unsigned analysis_limits(const struct analysis *a)
{
	unsigned l = 0;
	if (a->kernels_with_blocks_cache < a->n_kerns)
		l |= ANALYSIS_LIMIT_WAIT_FROM_KERNELS | ANALYSIS_LIMIT_DISPATCH_UNTOLD |
		     ANALYSIS_LIMIT_SM_SHARE_ESTIMATE | ANALYSIS_LIMIT_CULPRIT_WEIGHT_KERNEL;
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].sm_seen && !a->devs[i].sm_count)
			l |= ANALYSIS_LIMIT_SM_COUNT_GUESSED;
	return l;
}

const char *analysis_limit_text(enum analysis_limit l)
{
	switch (l) {
	case ANALYSIS_LIMIT_WAIT_FROM_KERNELS:
		return "waits of kernels without block records end at the kernel's CUPTI start, "
		       "not its first block";
	case ANALYSIS_LIMIT_DISPATCH_UNTOLD:
		return "without block records a low-priority kernel that was already running "
		       "cannot be seen dispatching new blocks: dispatch inversions may be "
		       "reported as resident";
	case ANALYSIS_LIMIT_SM_SHARE_ESTIMATE:
		return "SM share of streams without block records is kernel busy time over the "
		       "span, not SM-time";
	case ANALYSIS_LIMIT_CULPRIT_WEIGHT_KERNEL:
		return "culprits without block records are weighted by kernel-interval overlap, "
		       "not block-time";
	case ANALYSIS_LIMIT_SM_COUNT_GUESSED:
		return "SM count of a device is the highest SM index seen plus one (no device "
		       "record)";
	}
	return "unknown limit";
}

const char *analysis_kind_name(enum smtop_event_kind k)
{
	switch (k) {
	case SMTOP_EV_BLOCKING:
		return "blocking";
	case SMTOP_EV_INVERSION_RESIDENT:
		return "inversion_resident";
	case SMTOP_EV_INVERSION_DISPATCH:
		return "inversion_dispatch";
	case SMTOP_EV_TIMESLICE:
		return "timeslice";
	}
	return "unknown";
}

const char *analysis_bound_name(enum smtop_ready_bound b)
{
	switch (b) {
	case SMTOP_READY_AFTER_KERNEL:
	case SMTOP_READY_AFTER_MEMCPY:
	case SMTOP_READY_AFTER_MEMSET:
		return "stream_order";
	case SMTOP_READY_EVENT_WAIT:
		return "event_wait";
	case SMTOP_READY_HOST_SUBMIT:
		return "host_submit";
	case SMTOP_READY_LAUNCH_CALL:
		return "launch_call";
	case SMTOP_READY_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *analysis_bound_op(enum smtop_ready_bound b)
{
	switch (b) {
	case SMTOP_READY_AFTER_KERNEL:
		return "kernel";
	case SMTOP_READY_AFTER_MEMCPY:
		return "memcpy";
	case SMTOP_READY_AFTER_MEMSET:
		return "memset";
	default:
		return NULL;
	}
}
