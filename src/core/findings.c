#include "src/core/findings.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/varint.h"

#define FINDINGS_MAGIC 0x6e696673u      /* "sfin" */
#define NKINDS (SMTOP_EV_TIMESLICE + 1)

/* ---- the copy ---- */

static char *dup_str(const char *s, int *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = 1;
	return d;
}

static int event_copy(const struct smtop_event *e, struct smtop_event *out)
{
	int oom = 0;
	*out = *e;
	out->culprits = NULL;
	out->name = dup_str(e->name, &oom);
	if (e->n_culprits) {
		out->culprits = calloc(e->n_culprits, sizeof *out->culprits);
		if (!out->culprits) {
			out->n_culprits = 0;
			return -1;
		}
		for (size_t i = 0; i < e->n_culprits; i++) {
			out->culprits[i] = e->culprits[i];
			out->culprits[i].name = dup_str(e->culprits[i].name, &oom);
		}
	}
	return oom ? -1 : 0;
}

int findings_from_analysis(struct analysis *a, struct findings *f)
{
	memset(f, 0, sizeof *f);
	f->threshold_ns = analysis_get_params(a)->blocking_threshold_ns;
	analysis_totals(a, &f->totals);
	f->limits = analysis_limits(a);
	size_t ns = analysis_stream_count(a), ne = analysis_event_count(a);
	f->streams = calloc(ns ? ns : 1, sizeof *f->streams);
	f->events = calloc(ne ? ne : 1, sizeof *f->events);
	if (!f->streams || !f->events)
		goto oom;
	for (; f->n_streams < ns; f->n_streams++)
		analysis_stream_summary(a, f->n_streams, &f->streams[f->n_streams]);
	for (; f->n_events < ne; f->n_events++)
		if (event_copy(analysis_event(a, f->n_events), &f->events[f->n_events]) != 0) {
			f->n_events++; /* freed with the rest */
			goto oom;
		}
	if (occupancy_configs_build(a, &f->occ) != 0)
		goto oom;
	return 0;
oom:
	findings_free(f);
	return -1;
}

static void event_free(struct smtop_event *e)
{
	for (size_t i = 0; i < e->n_culprits; i++)
		free((char *)e->culprits[i].name);
	free(e->culprits);
	free((char *)e->name);
}

void findings_free(struct findings *f)
{
	for (size_t i = 0; f->events && i < f->n_events; i++)
		event_free(&f->events[i]);
	free(f->events);
	free(f->streams);
	occupancy_configs_free(&f->occ);
	free(f->registers_from);
	memset(f, 0, sizeof *f);
}

/* ---- bytes: varints, zigzag for signed values, doubles by their bits,
 * strings as length + 1 (0: NULL) then the bytes ---- */

struct pack {
	uint8_t *buf;
	size_t len, cap;
	int oom;
};

static uint8_t *room(struct pack *p, size_t n)
{
	if (p->oom)
		return NULL;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		while (cap < p->len + n)
			cap *= 2;
		uint8_t *b = realloc(p->buf, cap);
		if (!b) {
			p->oom = 1;
			return NULL;
		}
		p->buf = b;
		p->cap = cap;
	}
	return p->buf + p->len;
}

static void put(struct pack *p, uint64_t v)
{
	uint8_t *at = room(p, 10);
	if (at)
		p->len = (size_t)(varint_put(at, v) - p->buf);
}

static void put_signed(struct pack *p, int64_t v)
{
	put(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_double(struct pack *p, double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	put(p, bits);
}

static void put_str(struct pack *p, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put(p, s ? n + 1 : 0);
	uint8_t *at = n ? room(p, n) : NULL;
	if (at) {
		memcpy(at, s, n);
		p->len += n;
	}
}

static void put_pct(struct pack *p, const struct analysis_percentiles *q)
{
	put(p, q->n);
	put(p, q->p50);
	put(p, q->p90);
	put(p, q->p99);
	put(p, q->max);
}

static void put_kinds(struct pack *p, const size_t *events, const uint64_t *delay)
{
	for (int k = 0; k < NKINDS; k++) {
		put(p, events[k]);
		put(p, delay[k]);
	}
}

static void put_stream(struct pack *p, const struct analysis_stream_summary *s)
{
	put(p, s->pid);
	put(p, s->device_id);
	put(p, s->context_id);
	put(p, s->stream_id);
	put_signed(p, s->priority);
	put(p, s->kernels);
	put(p, s->kernels_with_blocks);
	put(p, s->waits_unknown);
	put(p, s->busy_ns);
	put(p, s->block_time_ns);
	put_double(p, s->sm_share);
	put(p, (uint64_t)s->sm_share_from_blocks);
	put_pct(p, &s->wait);
	put_pct(p, &s->turnaround);
	put_kinds(p, s->events, s->delay_ns);
}

static void put_culprit(struct pack *p, const struct smtop_culprit *c)
{
	put(p, c->pid);
	put(p, c->device_id);
	put(p, c->context_id);
	put(p, c->stream_id);
	put(p, c->correlation_id);
	put(p, c->grid_id);
	put_signed(p, c->priority);
	put(p, c->overlap_ns);
	put_double(p, c->weight);
	put(p, c->blocks);
	put_str(p, c->name);
}

static void put_event(struct pack *p, const struct smtop_event *e)
{
	put(p, (uint64_t)e->kind);
	put(p, e->pid);
	put(p, e->device_id);
	put(p, e->context_id);
	put(p, e->stream_id);
	put(p, e->correlation_id);
	put(p, e->grid_id);
	put_signed(p, e->priority);
	put(p, e->ready);
	put(p, e->start);
	put(p, e->wait_ns);
	put(p, (uint64_t)e->from_blocks);
	put_str(p, e->name);
	put(p, (uint64_t)e->ready_bound);
	put(p, e->ready_correlation_id);
	put(p, (uint64_t)e->possible);
	put(p, e->wait_min_ns);
	put(p, e->n_culprits);
	for (size_t i = 0; i < e->n_culprits; i++)
		put_culprit(p, &e->culprits[i]);
}

static void put_limit(struct pack *p, const struct occupancy_limit *l)
{
	put(p, l->blocks);
	put(p, (uint64_t)l->bound);
	put(p, l->by_threads);
	put(p, l->by_registers);
	put(p, l->by_smem);
	put(p, l->by_blocks);
	put(p, l->smem_per_block);
}

static void put_config(struct pack *p, const struct occupancy_config *c)
{
	put(p, c->device_id);
	put(p, c->threads);
	put(p, c->registers);
	put(p, c->smem);
	put(p, c->sms);
	put_str(p, c->name);
	put_limit(p, &c->limit);
	put(p, c->launches);
	put(p, c->with_blocks);
	put(p, c->full);
	put(p, c->full_at_limit);
	put(p, c->above);
	put(p, c->blocks_max);
	put(p, c->most);
	put(p, c->most_full_min);
}

static void put_occupancy(struct pack *p, const struct occupancy_configs *cs)
{
	put(p, cs->kernels);
	put(p, cs->with_blocks);
	put(p, cs->n);
	for (size_t i = 0; i < cs->n; i++)
		put_config(p, &cs->v[i]);
}

int findings_encode(const struct findings *f, uint8_t **out, size_t *len)
{
	struct pack p = { 0 };
	const struct analysis_totals *t = &f->totals;
	put(&p, FINDINGS_MAGIC);
	put(&p, FINDINGS_VERSION);
	put(&p, f->threshold_ns);
	put(&p, f->t_first);
	put(&p, t->kernels);
	put(&p, t->kernels_with_blocks);
	put(&p, t->kernels_pending);
	put(&p, t->blocks);
	put_kinds(&p, t->events, t->delay_ns);
	put(&p, f->limits);
	put(&p, f->n_streams);
	for (size_t i = 0; i < f->n_streams; i++)
		put_stream(&p, &f->streams[i]);
	put(&p, f->n_events);
	for (size_t i = 0; i < f->n_events; i++)
		put_event(&p, &f->events[i]);
	put_occupancy(&p, &f->occ);
	put_str(&p, f->registers_from);
	if (p.oom) {
		free(p.buf);
		return -2;
	}
	*out = p.buf;
	*len = p.len;
	return 0;
}

/* Reading: the first damaged value makes every later one 0 and bad set,
 * so the fields read in a row and bad is checked once at the end. */
struct unpack {
	const uint8_t *p, *end;
	int bad, oom;
};

static uint64_t get(struct unpack *u, uint64_t max)
{
	uint64_t v = 0;
	const uint8_t *q = u->bad ? NULL : varint_get(u->p, u->end, &v);
	if (!q || v > max) {
		u->bad = 1;
		return 0;
	}
	u->p = q;
	return v;
}

static uint32_t get_u32(struct unpack *u)
{
	return (uint32_t)get(u, UINT32_MAX);
}

static int32_t get_i32(struct unpack *u)
{
	uint64_t z = get(u, UINT32_MAX);
	return (int32_t)(int64_t)((z >> 1) ^ (~(z & 1) + 1));
}

static size_t get_size(struct unpack *u)
{
	return (size_t)get(u, SIZE_MAX);
}

static double get_double(struct unpack *u)
{
	uint64_t bits = get(u, UINT64_MAX);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

/* A count of items of at least min_bytes each: no more than the bytes left
 * can hold, so damaged bytes never ask for a huge allocation. */
static size_t get_count(struct unpack *u, size_t min_bytes)
{
	size_t n = get_size(u);
	if (!u->bad && n > (size_t)(u->end - u->p) / min_bytes)
		u->bad = 1;
	return u->bad ? 0 : n;
}

static const char *get_str(struct unpack *u)
{
	uint64_t n = get(u, UINT32_MAX);
	if (!n || u->bad)
		return NULL;
	if (n - 1 > (uint64_t)(u->end - u->p)) {
		u->bad = 1;
		return NULL;
	}
	char *s = malloc((size_t)n);
	if (!s) {
		u->oom = u->bad = 1;
		return NULL;
	}
	memcpy(s, u->p, (size_t)n - 1);
	s[n - 1] = 0;
	u->p += n - 1;
	return s;
}

static void get_pct(struct unpack *u, struct analysis_percentiles *q)
{
	q->n = get_size(u);
	q->p50 = get(u, UINT64_MAX);
	q->p90 = get(u, UINT64_MAX);
	q->p99 = get(u, UINT64_MAX);
	q->max = get(u, UINT64_MAX);
}

static void get_kinds(struct unpack *u, size_t *events, uint64_t *delay)
{
	for (int k = 0; k < NKINDS; k++) {
		events[k] = get_size(u);
		delay[k] = get(u, UINT64_MAX);
	}
}

static void get_stream(struct unpack *u, struct analysis_stream_summary *s)
{
	s->pid = get_u32(u);
	s->device_id = get_u32(u);
	s->context_id = get_u32(u);
	s->stream_id = get_u32(u);
	s->priority = get_i32(u);
	s->kernels = get_size(u);
	s->kernels_with_blocks = get_size(u);
	s->waits_unknown = get_size(u);
	s->busy_ns = get(u, UINT64_MAX);
	s->block_time_ns = get(u, UINT64_MAX);
	s->sm_share = get_double(u);
	s->sm_share_from_blocks = (int)get(u, 1);
	get_pct(u, &s->wait);
	get_pct(u, &s->turnaround);
	get_kinds(u, s->events, s->delay_ns);
}

static void get_culprit(struct unpack *u, struct smtop_culprit *c)
{
	c->pid = get_u32(u);
	c->device_id = get_u32(u);
	c->context_id = get_u32(u);
	c->stream_id = get_u32(u);
	c->correlation_id = get_u32(u);
	c->grid_id = get(u, UINT64_MAX);
	c->priority = get_i32(u);
	c->overlap_ns = get(u, UINT64_MAX);
	c->weight = get_double(u);
	c->blocks = get_u32(u);
	c->name = get_str(u);
}

/* The fixed fields of a culprit take at least this many bytes. */
#define CULPRIT_MIN_BYTES 11
#define EVENT_MIN_BYTES 18

static void get_event(struct unpack *u, struct smtop_event *e)
{
	e->kind = (enum smtop_event_kind)get(u, SMTOP_EV_TIMESLICE);
	e->pid = get_u32(u);
	e->device_id = get_u32(u);
	e->context_id = get_u32(u);
	e->stream_id = get_u32(u);
	e->correlation_id = get_u32(u);
	e->grid_id = get(u, UINT64_MAX);
	e->priority = get_i32(u);
	e->ready = get(u, UINT64_MAX);
	e->start = get(u, UINT64_MAX);
	e->wait_ns = get(u, UINT64_MAX);
	e->from_blocks = (int)get(u, 1);
	e->name = get_str(u);
	e->ready_bound = (enum smtop_ready_bound)get(u, SMTOP_READY_MAX);
	e->ready_correlation_id = get_u32(u);
	e->possible = (unsigned)get(u, SMTOP_POSSIBLE_ALL);
	e->wait_min_ns = get(u, UINT64_MAX);
	size_t n = get_count(u, CULPRIT_MIN_BYTES);
	if (!n)
		return;
	e->culprits = calloc(n, sizeof *e->culprits);
	if (!e->culprits) {
		u->oom = u->bad = 1;
		return;
	}
	e->n_culprits = n;
	for (size_t i = 0; i < n; i++)
		get_culprit(u, &e->culprits[i]);
}

static void get_limit(struct unpack *u, struct occupancy_limit *l)
{
	l->blocks = get_u32(u);
	l->bound = (enum occupancy_bound)get(u, OCCUPANCY_BOUND_BLOCKS);
	l->by_threads = get_u32(u);
	l->by_registers = get_u32(u);
	l->by_smem = get_u32(u);
	l->by_blocks = get_u32(u);
	l->smem_per_block = get_u32(u);
}

static void get_config(struct unpack *u, struct occupancy_config *c)
{
	c->device_id = get_u32(u);
	c->threads = get_u32(u);
	c->registers = get_u32(u);
	c->smem = get_u32(u);
	c->sms = get_u32(u);
	c->name = (char *)get_str(u);
	get_limit(u, &c->limit);
	c->launches = get_size(u);
	c->with_blocks = get_size(u);
	c->full = get_size(u);
	c->full_at_limit = get_size(u);
	c->above = get_size(u);
	c->blocks_max = get(u, UINT64_MAX);
	c->most = get_u32(u);
	c->most_full_min = get_u32(u);
}

/* A configuration takes at least 21 bytes (one a number, the name's 0). */
#define CONFIG_MIN_BYTES 21

static void get_occupancy(struct unpack *u, struct occupancy_configs *cs)
{
	cs->kernels = get_size(u);
	cs->with_blocks = get_size(u);
	size_t n = get_count(u, CONFIG_MIN_BYTES);
	cs->v = calloc(n ? n : 1, sizeof *cs->v);
	if (!cs->v) {
		u->oom = u->bad = 1;
		return;
	}
	for (; cs->n < n && !u->bad; cs->n++)
		get_config(u, &cs->v[cs->n]);
}

static void get_all(struct unpack *u, struct findings *f)
{
	struct analysis_totals *t = &f->totals;
	if (get(u, UINT32_MAX) != FINDINGS_MAGIC || get(u, UINT32_MAX) != FINDINGS_VERSION) {
		u->bad = 1;
		return;
	}
	f->threshold_ns = get(u, UINT64_MAX);
	f->t_first = get(u, UINT64_MAX);
	t->kernels = get_size(u);
	t->kernels_with_blocks = get_size(u);
	t->kernels_pending = get_size(u);
	t->blocks = get_size(u);
	get_kinds(u, t->events, t->delay_ns);
	f->limits = (unsigned)get(u, (1u << ANALYSIS_LIMIT_COUNT) - 1);
	size_t ns = get_count(u, 1);
	f->streams = calloc(ns ? ns : 1, sizeof *f->streams);
	if (!f->streams) {
		u->oom = u->bad = 1;
		return;
	}
	for (; f->n_streams < ns && !u->bad; f->n_streams++)
		get_stream(u, &f->streams[f->n_streams]);
	size_t ne = get_count(u, EVENT_MIN_BYTES);
	f->events = calloc(ne ? ne : 1, sizeof *f->events);
	if (!f->events) {
		u->oom = u->bad = 1;
		return;
	}
	for (; f->n_events < ne && !u->bad; f->n_events++)
		get_event(u, &f->events[f->n_events]);
	get_occupancy(u, &f->occ);
	f->registers_from = (char *)get_str(u);
}

int findings_decode(struct findings *f, const uint8_t *p, size_t len)
{
	struct unpack u = { p, p + len, 0, 0 };
	memset(f, 0, sizeof *f);
	get_all(&u, f);
	if (!u.bad && u.p != u.end)
		u.bad = 1;
	if (u.bad) {
		findings_free(f);
		return u.oom ? -2 : -1;
	}
	return 0;
}
