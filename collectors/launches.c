#include "collectors/launches.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/clock.h"

#define LAUNCHES_MIN_SLOTS 1024
#define LAUNCHES_MERGE 256              /* runs folded by grid at a time */

struct launch_entry {
	int used;
	struct launch_info info;        /* info.name owned */
	uint64_t expected, seen;        /* blocks of the grid, blocks come */
	uint64_t start, end;            /* first block start, last block end */
	uint64_t last_seen;             /* host monotonic ns of the last block (or the launch) */
	int held;                       /* complete, held until its function's attributes
					 * are known (launches_take_stale) */
};

struct launches {
	uint32_t pid;
	size_t n, cap;                  /* cap a power of two */
	struct launch_entry *e;
	int64_t bound[LAUNCHES_DEVICES]; /* least first-block-start minus launch, per device */
	uint32_t bound_known;           /* bit: the device slot's bound is known */
	uint64_t orphans;
	launches_fill_fn fill;
};

static size_t launches_hash(uint32_t context_id, uint64_t grid_id, size_t cap)
{
	uint64_t x = grid_id * 0x9e3779b97f4a7c15ull ^ ((uint64_t)context_id << 40 | context_id);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (size_t)x & (cap - 1);
}

struct launches *launches_create(uint32_t pid)
{
	struct launches *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->pid = pid;
	l->cap = LAUNCHES_MIN_SLOTS;
	/* not calloc: a fresh table's pages would fault at their first
	 * launch, inside the workload's launch call; touched now (a memset
	 * after malloc is compiled into calloc, explicit_bzero is not) */
	l->e = malloc(l->cap * sizeof(*l->e));
	if (!l->e) {
		free(l);
		return NULL;
	}
	explicit_bzero(l->e, l->cap * sizeof(*l->e));
	return l;
}

void launches_destroy(struct launches *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->cap; i++)
		if (l->e[i].used)
			free((char *)l->e[i].info.name);
	free(l->e);
	free(l);
}

/* The launch of (context_id, grid_id) at slot *i or after it on its probe
 * chain (*i: its slot), or NULL at the chain's end.  Start *i at the
 * grid's hash. */
static struct launch_entry *launches_next(struct launches *l, size_t *i, uint32_t context_id, uint64_t grid_id)
{
	for (;; *i = (*i + 1) & (l->cap - 1)) {
		struct launch_entry *e = &l->e[*i];

		if (!e->used)
			return NULL;
		if (e->info.grid_id == grid_id && e->info.context_id == context_id)
			return e;
	}
}

static struct launch_entry *launches_find(struct launches *l, uint32_t context_id, uint64_t grid_id)
{
	size_t i = launches_hash(context_id, grid_id, l->cap);
	struct launch_entry *e;

	while ((e = launches_next(l, &i, context_id, grid_id)) && e->held)
		i = (i + 1) & (l->cap - 1);
	return e;
}

static void launches_place(struct launch_entry *slots, size_t cap, const struct launch_entry *src)
{
	size_t i = launches_hash(src->info.context_id, src->info.grid_id, cap);

	while (slots[i].used)
		i = (i + 1) & (cap - 1);
	slots[i] = *src;
}

static int launches_grow(struct launches *l)
{
	size_t cap = l->cap * 2;
	struct launch_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < l->cap; i++)
		if (l->e[i].used)
			launches_place(e, cap, &l->e[i]);
	free(l->e);
	l->e = e;
	l->cap = cap;
	return 0;
}

/* Backward-shift deletion keeps every probe chain whole without tombstones. */
static void launches_remove(struct launches *l, struct launch_entry *gone)
{
	size_t i = (size_t)(gone - l->e), j = i;

	gone->used = 0;
	l->n--;
	for (;;) {
		j = (j + 1) & (l->cap - 1);
		if (!l->e[j].used)
			return;
		size_t home = launches_hash(l->e[j].info.context_id, l->e[j].info.grid_id, l->cap);
		/* e[j] may move to i when i lies on its way from home to j */
		if (((j - home) & (l->cap - 1)) >= ((j - i) & (l->cap - 1))) {
			l->e[i] = l->e[j];
			l->e[j].used = 0;
			i = j;
		}
	}
}

int launches_add(struct launches *l, uint64_t now, const struct launch_info *info)
{
	struct launch_entry e = { .used = 1, .info = *info };

	if ((l->n + 1) * 2 > l->cap && launches_grow(l) != 0)
		return -1;
	e.info.name = info->name ? strdup(info->name) : NULL;
	if (info->name && !e.info.name)
		return -1;
	e.expected = (uint64_t)(info->grid[0] > 0 ? info->grid[0] : 1) *
		     (uint64_t)(info->grid[1] > 0 ? info->grid[1] : 1) *
		     (uint64_t)(info->grid[2] > 0 ? info->grid[2] : 1);
	e.last_seen = now;
	/* A graph replayed launches its kernel nodes with the same grid id
	 * each time: the launches of one grid id queue up, the oldest first
	 * along the probe chain (backward-shift deletion keeps their order). */
	launches_place(l->e, l->cap, &e);
	l->n++;
	return 0;
}

void launches_set_fill(struct launches *l, launches_fill_fn fill)
{
	l->fill = fill;
}

/* 1 when nothing is left to ask fill: the registers (of a launch whose
 * function is known) and the stream's context. */
static int launches_known(const struct launch_info *i)
{
	return (i->registers || !i->function) && !i->stream_pending;
}

static void launches_to_record(struct launches *l, struct launch_entry *e, struct smtop_record *out)
{
	struct smtop_kernel *k = &out->u.kernel;

	if (l->fill && !launches_known(&e->info))
		l->fill(&e->info);

	memset(out, 0, sizeof(*out));
	out->kind = SMTOP_REC_KERNEL;
	k->start = e->seen ? e->start : 0;
	k->end = e->seen ? e->end : 0;
	k->submitted = launches_clock_bound_known(l, e->info.device_id) && e->info.launched
			       ? (uint64_t)((int64_t)e->info.launched + launches_clock_bound(l, e->info.device_id))
			       : 0;
	k->grid_id = e->info.grid_id;
	k->pid = l->pid;
	k->device_id = e->info.device_id;
	k->context_id = e->info.record_context_id ? e->info.record_context_id : e->info.context_id;
	k->stream_id = e->info.stream_id;
	k->correlation_id = e->info.correlation_id;
	memcpy(k->grid, e->info.grid, sizeof(k->grid));
	memcpy(k->block, e->info.block, sizeof(k->block));
	k->registers = e->info.registers;
	k->static_smem = e->info.static_smem;
	k->dynamic_smem = e->info.dynamic_smem;
	k->local_mem = e->info.local_mem;
	k->is_graph = e->info.is_graph;
	k->graph_node_id = e->info.graph_node_id;
	k->name = e->info.name;
	e->info.name = NULL; /* the record owns it now */
}

static void launches_note_bound(struct launches *l, const struct launch_entry *e)
{
	int64_t d;

	if (!e->seen || !e->info.launched)
		return;
	d = (int64_t)e->start - (int64_t)e->info.launched;
	launches_share_bound(l, e->info.device_id, d);
}

/* 1 when complete kernel e is held: its function's first launch, or its
 * stream's, came before anyone asked the driver about it, and fill does
 * not know yet (the host thread asks between stale sweeps). */
static int launches_hold(struct launches *l, struct launch_entry *e, uint64_t now)
{
	if (e->held || !l->fill || launches_known(&e->info))
		return e->held;
	l->fill(&e->info);
	if (launches_known(&e->info))
		return 0;
	e->held = 1;
	e->last_seen = now;
	return 1;
}

/* Adds a run of blocks of one grid to its oldest launch; a run longer than
 * that launch still lacks goes on to the next launch of the grid id (a
 * graph replayed).  Complete kernels go into out.  Returns the records
 * written. */
static size_t launches_add_run(struct launches *l, uint64_t now, uint32_t context_id,
			       uint64_t grid, uint64_t count, uint64_t start, uint64_t end,
			       struct smtop_record *out, size_t max)
{
	size_t done = 0;

	while (count) {
		struct launch_entry *e = launches_find(l, context_id, grid);
		uint64_t want, take;

		if (!e) {
			l->orphans += count;
			break;
		}
		want = e->expected > e->seen ? e->expected - e->seen : 1;
		take = count < want ? count : want;
		if (!e->seen || start < e->start)
			e->start = start;
		if (!e->seen || end > e->end)
			e->end = end;
		e->seen += take;
		e->last_seen = now;
		count -= take;
		if (e->seen < e->expected)
			break;
		if (launches_hold(l, e, now))
			continue; /* its blocks are in; a replay's come next */
		if (done == max)
			break; /* complete; the next call or the stale sweep sends it */
		launches_note_bound(l, e);
		launches_to_record(l, e, &out[done++]);
		launches_remove(l, e);
	}
	return done;
}

int launches_run_take(struct launches_run *r, const struct launches_run *x)
{
	if (x->grid_id != r->grid_id || x->start > r->end || r->start > x->end)
		return 0;
	r->count += x->count;
	r->start = x->start < r->start ? x->start : r->start;
	r->end = x->end > r->end ? x->end : r->end;
	return 1;
}

size_t launches_runs(const struct smtop_block *b, size_t n, struct launches_run *runs)
{
	size_t n_runs = 0;

	/* blocks of one lane come in runs of one grid: one lookup each */
	for (size_t i = 0; i < n; i++) {
		struct launches_run x = { .grid_id = b[i].grid_id, .count = 1, .start = b[i].start, .end = b[i].end };

		if (!n_runs || !launches_run_take(&runs[n_runs - 1], &x))
			runs[n_runs++] = x;
	}
	return n_runs;
}

/* Whether grid_id has exactly one launch in the table (a graph replayed
 * keeps its grid ids: its launches would share them). */
static int launches_only_one(struct launches *l, uint32_t context_id, uint64_t grid_id)
{
	size_t i = launches_hash(context_id, grid_id, l->cap);

	if (!launches_next(l, &i, context_id, grid_id))
		return 0;
	i = (i + 1) & (l->cap - 1);
	return launches_next(l, &i, context_id, grid_id) == NULL;
}

/* r[0..n) into m, the runs of a grid with one launch folded into its first
 * (they are of that launch, however far apart in time); a grid of several
 * launches keeps its runs apart, for launches_add_run to tell them by
 * order.  The table is asked only about a grid that comes twice.  Returns
 * the runs in m. */
static size_t launches_merge_single(struct launches *l, uint32_t context_id, const struct launches_run *r,
				    size_t n, struct launches_run *m)
{
	uint16_t slot[2 * LAUNCHES_MERGE] = { 0 }; /* index + 1 in m of a grid's first run */
	int8_t single[LAUNCHES_MERGE];             /* -1: not asked yet */
	size_t k = 0, mask = 2 * LAUNCHES_MERGE - 1;

	for (size_t i = 0; i < n; i++) {
		size_t h = launches_grid_slot(slot, mask, m, r[i].grid_id);

		if (slot[h]) {
			struct launches_run *a = &m[slot[h] - 1];

			if (single[slot[h] - 1] < 0)
				single[slot[h] - 1] = (int8_t)launches_only_one(l, context_id, a->grid_id);
			if (single[slot[h] - 1]) {
				a->count += r[i].count;
				a->start = r[i].start < a->start ? r[i].start : a->start;
				a->end = r[i].end > a->end ? r[i].end : a->end;
				continue;
			}
		} else {
			slot[h] = (uint16_t)(k + 1);
		}
		m[k] = r[i];
		single[k++] = -1;
	}
	return k;
}

size_t launches_note_runs(struct launches *l, uint64_t now, uint32_t context_id,
			  const struct launches_run *r, size_t n, struct smtop_record *out, size_t max)
{
	struct launches_run m[LAUNCHES_MERGE];
	size_t done = 0;

	for (size_t i = 0; i < n; i += LAUNCHES_MERGE) {
		size_t k = launches_merge_single(l, context_id, r + i, n - i < LAUNCHES_MERGE ? n - i : LAUNCHES_MERGE, m);

		for (size_t j = 0; j < k; j++)
			done += launches_add_run(l, now, context_id, m[j].grid_id, m[j].count, m[j].start, m[j].end,
						 out + done, max - done);
	}
	return done;
}

size_t launches_note_blocks(struct launches *l, uint64_t now, uint32_t context_id,
			    const struct smtop_block *b, size_t n, struct smtop_record *out, size_t max)
{
	struct launches_run runs[64];
	size_t done = 0;

	for (size_t i = 0; i < n; i += 64) {
		size_t take = n - i < 64 ? n - i : 64;
		size_t k = launches_runs(b + i, take, runs);

		done += launches_note_runs(l, now, context_id, runs, k, out + done, max - done);
	}
	return done;
}

/* A block or launch that came after now (another thread read its clock
 * later) makes e younger than now, not idle: read as idle, it sent kernels
 * out while their blocks still came, with no end (the analysis then waited
 * for them forever). */
static int launches_idle(const struct launch_entry *e, uint64_t now, uint64_t idle_ns)
{
	return clock_waited(now, e->last_seen, idle_ns);
}

size_t launches_take_stale(struct launches *l, uint64_t now, uint64_t idle_ns,
			   struct smtop_record *out, size_t max)
{
	size_t done = 0;

	for (size_t i = 0; i < l->cap && done < max;) {
		struct launch_entry *e = &l->e[i];

		if (e->used && e->held && l->fill)
			l->fill(&e->info);
		if (e->used && (idle_ns == 0 || launches_idle(e, now, idle_ns) ||
				(e->held && launches_known(&e->info)))) {
			launches_note_bound(l, e);
			launches_to_record(l, e, &out[done++]);
			launches_remove(l, e); /* another entry may have moved into i */
			continue;
		}
		i++;
	}
	return done;
}

unsigned launches_device_slot(uint32_t device)
{
	return device < LAUNCHES_DEVICES ? device : LAUNCHES_DEVICES - 1;
}

int64_t launches_clock_bound(const struct launches *l, uint32_t device)
{
	unsigned d = launches_device_slot(device);

	return l->bound_known >> d & 1 ? l->bound[d] : 0;
}

uint32_t launches_bound_devices(const struct launches *l)
{
	return l->bound_known;
}

int launches_clock_bound_known(const struct launches *l, uint32_t device)
{
	return l->bound_known >> launches_device_slot(device) & 1;
}

void launches_share_bound(struct launches *l, uint32_t device, int64_t bound)
{
	unsigned d = launches_device_slot(device);

	if (!(l->bound_known >> d & 1) || bound < l->bound[d]) {
		l->bound[d] = bound;
		l->bound_known |= 1u << d;
	}
}

size_t launches_pending(const struct launches *l)
{
	return l->n;
}

uint64_t launches_orphans(const struct launches *l)
{
	return l->orphans;
}
