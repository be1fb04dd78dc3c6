#include "db/session/replay_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reader.h"
#include "src/core/analysis.h"
#include "src/core/array.h"
#include "src/core/model.h"
#include "src/core/order.h"
#include "db/session/session.h"

#define REPLAY_SLICE_NS 1000000ULL      /* first read-ahead slice: 1 ms */
#define REPLAY_SLICE_MIN_NS 10000ULL
#define REPLAY_SLICE_MAX_NS 1000000000ULL
#define REPLAY_SLICE_FEW 8192           /* fewer blocks decoded: widen the next slice */
#define REPLAY_SLICE_MANY 65536         /* more: narrow it (a read stays a few ms) */
#define REPLAY_SLICES_MAX 4096          /* empty slices widen past the 1 s cap so that
					 * a span of any length (a damaged file's
					 * centuries) takes at most about this many */
/* Blocks of a known kernel lie within its span give or take the clock
 * offset's error (microseconds): reading from this much before the first
 * kernel skips the blocks a trimmed session keeps around it. */
#define REPLAY_READ_MARGIN_NS 1000000ULL
#define REPLAY_BACK_NS 1000000ULL       /* first window searched backwards */
#define REPLAY_ALL (UINT64_MAX - 1)     /* a clock past every record */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- kernels, looked up by (pid, device, grid id) --------------------------
 * Not by context: grid ids are unique per device, and a green context's
 * blocks come through the primary context. */

static const struct smtop_kernel *sort_kernels; /* qsort has no user pointer in C11 */

static int cmp_key(const struct smtop_kernel *a, uint32_t pid, uint32_t dev, uint64_t grid)
{
	if (a->pid != pid)
		return a->pid < pid ? -1 : 1;
	if (a->device_id != dev)
		return a->device_id < dev ? -1 : 1;
	return (a->grid_id > grid) - (a->grid_id < grid);
}

static int cmp_by_grid(const void *x, const void *y)
{
	const struct smtop_kernel *b = &sort_kernels[*(const size_t *)y];
	int c = cmp_key(&sort_kernels[*(const size_t *)x], b->pid, b->device_id, b->grid_id);
	return c ? c : (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

static long kernel_index(const struct replay_feed *p, uint32_t pid, uint32_t dev, uint64_t grid)
{
	size_t lo = 0, hi = p->n_kernels;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_key(&p->kernels[p->by_grid[mid]], pid, dev, grid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n_kernels && cmp_key(&p->kernels[p->by_grid[lo]], pid, dev, grid) == 0)
		return (long)p->by_grid[lo];
	return -1;
}

static int keep_kernel(void *ud, const struct smtop_kernel *k)
{
	struct replay_feed *p = ud;
	if (array_grow((void **)&p->kernels, &p->cap_kernels, p->n_kernels + 1, sizeof *p->kernels))
		return 1;
	p->kernels[p->n_kernels++] = *k;
	return 0;
}

static int cmp_nvtx_end(const void *x, const void *y)
{
	const struct smtop_nvtx *a = x, *b = y;
	uint64_t ea = a->end ? a->end : a->start, eb = b->end ? b->end : b->start;
	return (ea > eb) - (ea < eb);
}

static int keep_nvtx(void *ud, const struct smtop_nvtx *n)
{
	struct replay_feed *p = ud;
	if (array_grow((void **)&p->nvtx, &p->cap_nvtx, p->n_nvtx + 1, sizeof *p->nvtx))
		return 1;
	p->nvtx[p->n_nvtx] = *n;
	p->nvtx[p->n_nvtx++].domain = NULL; /* the reader frees domain names */
	return 0;
}

static int rebuild(struct replay_feed *p);

/* The first reader's error among the session's files, "" if none. */
static const char *read_error(const struct replay_feed *p)
{
	for (size_t i = 0; i < p->s->n_src; i++) {
		const char *e = db_reader_error(p->s->src[i].reader);
		if (e && e[0])
			return e;
	}
	return "";
}

/* Why reading failed: the reader's message names the file. */
static void feed_failed(const struct replay_feed *p, char *err, size_t errlen)
{
	if (read_error(p)[0])
		snprintf(err, errlen, "%s", read_error(p));
	else
		snprintf(err, errlen, "%s: out of memory", p->s->path);
}

static int cmp_kernel_start(const void *x, const void *y)
{
	const struct smtop_kernel *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return cmp_key(a, b->pid, b->device_id, b->grid_id);
}

/* Every file's kernels, by start (each file hands its own over in order),
 * and NVTX ranges. */
static int read_records(struct replay_feed *p)
{
	struct session *s = p->s;
	if (session_kernels(s, 0, INT64_MAX, keep_kernel, p) != 0)
		return -1;
	if (session_nvtx(s, 0, INT64_MAX, keep_nvtx, p) != 0)
		return -1;
	if (s->n_src > 1)
		qsort(p->kernels, p->n_kernels, sizeof *p->kernels, cmp_kernel_start);
	return 0;
}

/* The span a replay covers: that of the kernels (blocks of known kernels lie
 * within it, give or take the clock offset's error). */
static void replay_span(struct replay_feed *p)
{
	const struct db_session_info *in = &p->s->info;
	p->t_first = in->t_first;
	p->t_last = in->t_last;
	if (!p->n_kernels)
		return;
	p->t_first = p->kernels[0].start;
	p->t_last = 0;
	for (size_t i = 0; i < p->n_kernels; i++)
		if (p->kernels[i].end > p->t_last)
			p->t_last = p->kernels[i].end;
	if (p->t_last < p->t_first)
		p->t_last = p->t_first;
}

int replay_feed_open(struct replay_feed *p, struct session *s, struct model *m,
		     int model_whole, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->s = s;
	p->m = m;
	if (read_records(p) != 0) {
		feed_failed(p, err, errlen);
		replay_feed_close(p);
		return -1;
	}
	p->by_grid = malloc((p->n_kernels ? p->n_kernels : 1) * sizeof *p->by_grid);
	p->kernel_fed = calloc(p->n_kernels ? p->n_kernels : 1, 1);
	if (!p->by_grid || !p->kernel_fed) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		replay_feed_close(p);
		return -1;
	}
	for (size_t i = 0; i < p->n_kernels; i++)
		p->by_grid[i] = i;
	sort_kernels = p->kernels;
	qsort(p->by_grid, p->n_kernels, sizeof *p->by_grid, cmp_by_grid);
	if (p->n_nvtx) /* qsort takes no NULL array, even empty */
		qsort(p->nvtx, p->n_nvtx, sizeof *p->nvtx, cmp_nvtx_end);
	replay_span(p);
	p->read_from = p->t_first > REPLAY_READ_MARGIN_NS ? p->t_first - REPLAY_READ_MARGIN_NS : 0;
	if (p->read_from < s->info.t_first)
		p->read_from = s->info.t_first;
	p->read_end = p->t_last + REPLAY_READ_MARGIN_NS;
	if (p->read_end > s->info.t_last + 1)
		p->read_end = s->info.t_last + 1;
	p->read_to = p->read_from;
	p->slice_ns = REPLAY_SLICE_NS;
	p->whole = model_whole;
	p->fed = REPLAY_ALL;
	if (!model_whole && rebuild(p) != 0) {
		feed_failed(p, err, errlen);
		replay_feed_close(p);
		return -1;
	}
	return 0;
}

void replay_feed_close(struct replay_feed *p)
{
	free(p->kernels);
	free(p->by_grid);
	free(p->kernel_fed);
	free(p->open_kernels);
	free(p->open_events);
	free(p->nvtx);
	free(p->buf);
	free(p->active);
	memset(p, 0, sizeof *p);
}

/* ---- blocks, read ahead in slices ------------------------------------------ */

struct slice {
	struct replay_feed *p;
	uint64_t t0, t1;
	size_t decoded;                 /* blocks the reader handed over, kept or not */
	int failed;
};

/* Each block belongs to the one slice its start falls in, however many
 * slices its chunk overlaps. */
static int keep_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct slice *sl = ud;
	struct replay_feed *p = sl->p;
	sl->decoded++;
	if (b->start < sl->t0 || b->start >= sl->t1 || b->end <= b->start)
		return 0;
	if (kernel_index(p, pid, b->device_id, b->grid_id) < 0)
		return 0;
	if (array_grow((void **)&p->buf, &p->cap_buf, p->n_buf + 1, sizeof *p->buf)) {
		sl->failed = 1;
		return 1;
	}
	p->buf[p->n_buf++] = (struct replay_feed_block){ *b, pid, ctx, b->start };
	return 0;
}

static int cmp_block(const void *x, const void *y)
{
	const struct smtop_block *a = &((const struct replay_feed_block *)x)->b;
	const struct smtop_block *b = &((const struct replay_feed_block *)y)->b;
	return order_keys((const uint64_t[]){ a->start, a->sm, a->grid_id, a->block },
			  (const uint64_t[]){ b->start, b->sm, b->grid_id, b->block }, 4);
}

/* Appends the blocks starting in the next slice, sorted by start. */
static int read_slice(struct replay_feed *p)
{
	if (p->next_buf) {
		memmove(p->buf, p->buf + p->next_buf, (p->n_buf - p->next_buf) * sizeof *p->buf);
		p->n_buf -= p->next_buf;
		p->next_buf = 0;
	}
	size_t before = p->n_buf;
	struct slice sl = { p, p->read_to, p->read_to + p->slice_ns, 0, 0 };
	if (sl.t1 > p->read_end || sl.t1 < sl.t0)
		sl.t1 = p->read_end;
	if (session_blocks(p->s, sl.t0, sl.t1, keep_block, &sl) != 0 || sl.failed)
		return -1;
	if (p->n_buf > before)
		qsort(p->buf + before, p->n_buf - before, sizeof *p->buf, cmp_block);
	p->read_to = sl.t1;
	/* sized by what the reader decoded: blocks of unknown kernels cost
	 * as much to read as the rest */
	uint64_t widest = (p->read_end - p->t_first) / REPLAY_SLICES_MAX;
	if (widest < REPLAY_SLICE_MAX_NS)
		widest = REPLAY_SLICE_MAX_NS;
	if (sl.decoded < REPLAY_SLICE_FEW && p->slice_ns < widest)
		p->slice_ns = p->slice_ns > widest / 2 ? widest : p->slice_ns * 2;
	else if (sl.decoded > REPLAY_SLICE_MANY && p->slice_ns > REPLAY_SLICE_MIN_NS)
		p->slice_ns /= 2;
	return 0;
}

/* ---- feeding --------------------------------------------------------------- */

static int push_cut(struct replay_feed_cut **v, size_t *n, size_t *cap, size_t item,
		    size_t model)
{
	if (array_grow((void **)v, cap, *n + 1, sizeof **v))
		return -1;
	(*v)[(*n)++] = (struct replay_feed_cut){ item, model };
	return 0;
}

/* The replayed blocks come cut at the clock: a kernel's most blocks on one
 * SM is the whole session's, from its analysis (read to its end). */
static void kernel_most(struct replay_feed *p, const struct smtop_kernel *k)
{
	long ak = analysis_kernel_find(p->s->analysis, k->pid, k->device_id, k->grid_id,
				       k->correlation_id);
	long mk = model_find_kernel(p->m, k->pid, k->device_id, k->grid_id);
	if (ak < 0 || mk < 0)
		return;
	struct analysis_kernel_occupancy o;
	analysis_kernel_occupancy(p->s->analysis, (size_t)ak, &o);
	model_kernel_set_most_per_sm(p->m, (size_t)mk, o.most_per_sm);
}

static int feed_kernel(struct replay_feed *p, size_t i, uint64_t c)
{
	if (p->kernel_fed[i])
		return 0;
	struct smtop_kernel k = p->kernels[i];
	k.end = min_u64(k.end, c);
	if (k.end < k.start)
		k.end = k.start;
	if (model_add_kernel(p->m, &k) != 0)
		return -1;
	kernel_most(p, &k);
	p->kernel_fed[i] = 1;
	if (p->kernels[i].end > k.end &&
	    push_cut(&p->open_kernels, &p->n_open_kernels, &p->cap_open_kernels, i,
		     p->m->n_kernels - 1) != 0)
		return -1;
	return 0;
}

static int feed_kernels(struct replay_feed *p, uint64_t c)
{
	for (size_t i = 0; i < p->n_open_kernels;) {
		const struct replay_feed_cut *o = &p->open_kernels[i];
		uint64_t end = p->kernels[o->item].end;
		model_kernel_set_end(p->m, o->model, min_u64(end, c));
		if (end <= c)
			p->open_kernels[i] = p->open_kernels[--p->n_open_kernels];
		else
			i++;
	}
	for (; p->next_kernel < p->n_kernels && p->kernels[p->next_kernel].start <= c; p->next_kernel++)
		if (feed_kernel(p, p->next_kernel, c) != 0)
			return -1;
	return 0;
}

static void show_part(struct replay_feed *p, const struct replay_feed_block *rb,
		      const struct smtop_block *part, int first)
{
	if (first)
		model_add_block(p->m, part, rb->pid, rb->context_id);
	else
		model_extend_block(p->m, part, rb->pid);
	if (p->m->detail_ready)
		model_detail_add_block(p->m, part, rb->pid);
}

/* Blocks in flight grow up to the clock. */
static void extend_active(struct replay_feed *p, uint64_t c)
{
	for (size_t i = 0; i < p->n_active;) {
		struct replay_feed_block *a = &p->active[i];
		if (c > a->fed_to) {
			struct smtop_block part = a->b;
			part.start = a->fed_to;
			part.end = min_u64(a->b.end, c);
			show_part(p, a, &part, 0);
			a->fed_to = part.end;
		}
		if (a->fed_to >= a->b.end)
			*a = p->active[--p->n_active];
		else
			i++;
	}
}

/* A block that starts at the clock shows as just landed: 1 ns long. */
static int feed_block(struct replay_feed *p, const struct replay_feed_block *rb, uint64_t c)
{
	long ki = kernel_index(p, rb->pid, rb->b.device_id, rb->b.grid_id);
	if (ki >= 0 && feed_kernel(p, (size_t)ki, c) != 0)
		return -1;
	struct smtop_block part = rb->b;
	part.end = min_u64(rb->b.end, c);
	if (part.end <= part.start)
		part.end = part.start + 1;
	show_part(p, rb, &part, 1);
	if (rb->b.end > part.end) {
		if (array_grow((void **)&p->active, &p->cap_active, p->n_active + 1, sizeof *p->active))
			return -1;
		p->active[p->n_active] = *rb;
		p->active[p->n_active++].fed_to = part.end;
	}
	return 0;
}

static int feed_blocks(struct replay_feed *p, uint64_t c)
{
	extend_active(p, c);
	for (;;) {
		while (p->next_buf < p->n_buf && p->buf[p->next_buf].b.start <= c)
			if (feed_block(p, &p->buf[p->next_buf++], c) != 0)
				return -1;
		if (p->next_buf < p->n_buf || p->read_to > c || p->read_to >= p->read_end)
			return 0;
		if (read_slice(p) != 0)
			return -1;
	}
}

/* Victims still waiting show their wait so far; the name is the short one
 * the lanes use, as the kernel itself has not come yet. */
static int feed_events(struct replay_feed *p, uint64_t c)
{
	for (size_t i = 0; i < p->n_open_events;) {
		const struct replay_feed_cut *o = &p->open_events[i];
		uint64_t start = session_event(p->s, o->item)->start;
		model_event_set_start(p->m, o->model, min_u64(start, c));
		if (start <= c)
			p->open_events[i] = p->open_events[--p->n_open_events];
		else
			i++;
	}
	size_t n = session_event_count(p->s);
	for (; p->events_fed < n && session_event(p->s, p->events_fed)->ready <= c; p->events_fed++) {
		struct smtop_event e = *session_event(p->s, p->events_fed);
		e.name = session_short_name(p->s, e.name);
		if (e.start > c) {
			e.start = c;
			e.wait_ns = c - e.ready;
			if (push_cut(&p->open_events, &p->n_open_events, &p->cap_open_events,
				     p->events_fed, p->m->n_events) != 0)
				return -1;
		}
		if (model_add_event(p->m, &e) != 0)
			return -1;
	}
	return 0;
}

/* NVTX ranges show once they have ended (a mark at its time). */
static int feed_nvtx(struct replay_feed *p, uint64_t c)
{
	for (; p->nvtx_fed < p->n_nvtx; p->nvtx_fed++) {
		const struct smtop_nvtx *n = &p->nvtx[p->nvtx_fed];
		if ((n->end ? n->end : n->start) > c)
			break;
		if (model_add_nvtx(p->m, n) != 0)
			return -1;
	}
	return 0;
}

static int stream_to_model(void *ud, const struct smtop_stream *st)
{
	return model_add_stream(ud, st) == 0 ? 0 : 1;
}

/* An empty model with the device and streams, as a live view starts. */
static int rebuild(struct replay_feed *p)
{
	struct model *m = p->m;
	const char *label = m->session_label;
	model_free(m);
	if (model_init(m) != 0)
		return -1;
	m->session_label = label;
	if (session_model_gpu(p->s, m) < 0)
		return -1;
	for (size_t i = 0; i < p->s->n_src; i++)
		if (db_reader_streams(p->s->src[i].reader, stream_to_model, m) != 0)
			return -1;
	/* letters as the whole session has them, not shifting as streams start */
	for (size_t i = 0; i < p->n_kernels; i++) {
		const struct smtop_kernel *k = &p->kernels[i];
		if (model_stream_will_run(m, k->pid, k->device_id, k->context_id, k->stream_id) != 0)
			return -1;
		model_note_gpu(m, k->device_id); /* the header's "GPU d of N" from the start */
	}
	session_model_meta(p->s, m);
	memset(p->kernel_fed, 0, p->n_kernels ? p->n_kernels : 1);
	p->next_kernel = 0;
	p->n_open_kernels = p->n_open_events = 0;
	p->events_fed = p->nvtx_fed = 0;
	p->n_buf = p->next_buf = 0;
	p->n_active = 0;
	p->read_to = p->read_from;
	p->slice_ns = REPLAY_SLICE_NS;
	p->fed = 0;
	p->whole = 0;
	return 0;
}

int replay_feed_to(struct replay_feed *p, uint64_t clock, char *err, size_t errlen)
{
	/* the end of the replay shows everything, uncut */
	uint64_t c = clock >= p->t_last ? REPLAY_ALL : clock;
	if (c == p->fed)
		return 0;
	if (c < p->fed && rebuild(p) != 0)
		goto fail;
	if (feed_kernels(p, c) != 0 || feed_blocks(p, c) != 0 || feed_events(p, c) != 0 ||
	    feed_nvtx(p, c) != 0)
		goto fail;
	p->m->live = 0;
	model_flush(p->m);
	p->fed = c;
	return 1;
fail:
	feed_failed(p, err, errlen);
	/* start again from nothing at the next feed */
	p->fed = REPLAY_ALL;
	p->whole = 0;
	return -1;
}

/* ---- the detail level, cut at the fed clock --------------------------------- */

static int detail_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct replay_feed *p = ud;
	(void)ctx; /* blocks join by device: see cmp_key */
	if (b->start > p->fed || kernel_index(p, pid, b->device_id, b->grid_id) < 0)
		return 0;
	struct smtop_block part = *b;
	part.end = min_u64(b->end, p->fed);
	if (part.end <= part.start)
		part.end = part.start + 1;
	return model_detail_add_block(p->m, &part, pid) == 0 ? 0 : 1;
}

int replay_feed_add_detail(struct replay_feed *p, uint64_t t0, uint64_t t1)
{
	return session_blocks(p->s, t0, t1, detail_block, p);
}

int replay_feed_detail(struct replay_feed *p, uint64_t t0, uint64_t t1)
{
	model_detail_begin(p->m, t0, t1);
	int rc = replay_feed_add_detail(p, t0, t1);
	model_detail_end(p->m);
	return rc;
}

/* ---- marks: where stepping goes ----------------------------------------------- */

static int event_mark(const struct replay_feed *p, int dir, uint64_t t, uint64_t *out)
{
	size_t n = session_event_count(p->s);
	if (dir > 0) {
		for (size_t i = 0; i < n; i++)
			if (session_event(p->s, i)->ready > t) {
				*out = session_event(p->s, i)->ready;
				return 0;
			}
		return -1;
	}
	for (size_t i = n; i-- > 0;)
		if (session_event(p->s, i)->ready < t) {
			*out = session_event(p->s, i)->ready;
			return 0;
		}
	return -1;
}

/* The next block start on the SMs asked for, reading ahead as needed. */
static int next_dispatch(struct replay_feed *p, uint64_t t, uint32_t sm0, uint32_t sm1,
			 uint64_t *out)
{
	size_t i = p->next_buf;
	for (;;) {
		for (; i < p->n_buf; i++) {
			const struct smtop_block *b = &p->buf[i].b;
			if (b->start > t && b->sm >= sm0 && b->sm < sm1) {
				*out = b->start;
				return 0;
			}
		}
		if (p->read_to >= p->read_end)
			return -1;
		size_t kept = i - p->next_buf; /* read_slice moves the unfed blocks down */
		if (read_slice(p) != 0)
			return -1;
		i = kept;
	}
}

struct back {
	struct replay_feed *p;
	uint64_t t;
	uint32_t sm0, sm1;
	uint64_t best;
	int found;
};

static int back_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct back *k = ud;
	(void)ctx;
	if (b->start < k->t && b->sm >= k->sm0 && b->sm < k->sm1 && (!k->found || b->start > k->best) &&
	    kernel_index(k->p, pid, b->device_id, b->grid_id) >= 0) {
		k->best = b->start;
		k->found = 1;
	}
	return 0;
}

/* The last block start before t: windows that double backwards. */
static int prev_dispatch(struct replay_feed *p, uint64_t t, uint32_t sm0, uint32_t sm1,
			 uint64_t *out)
{
	struct back k = { p, t, sm0, sm1, 0, 0 };
	for (uint64_t w = REPLAY_BACK_NS;; w *= 2) {
		uint64_t t0 = t > p->read_from + w ? t - w : p->read_from;
		if (session_blocks(p->s, t0, t, back_block, &k) != 0)
			return -1;
		if (k.found) {
			*out = k.best;
			return 0;
		}
		if (t0 <= p->read_from)
			return -1;
	}
}

int replay_feed_find(void *ud, enum replay_clock_mark kind, int dir, uint64_t t, uint32_t sm0,
		     uint32_t sm1, uint64_t *out)
{
	struct replay_feed *p = ud;
	if (kind == REPLAY_CLOCK_MARK_EVENT)
		return event_mark(p, dir, t, out);
	return dir > 0 ? next_dispatch(p, t, sm0, sm1, out) : prev_dispatch(p, t, sm0, sm1, out);
}
