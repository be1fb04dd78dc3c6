#include "tests/support/trace_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for element n of an array that grows one at a time: doubled at
 * powers of two, so a long trace (and ASan, whose realloc always moves)
 * stays linear. */
static void *grow_or_die(void *p, size_t n, size_t elem)
{
	if (n & (n - 1))
		return p;
	void *np = realloc(p, (n ? 2 * n : 1) * elem);
	if (!np) {
		fprintf(stderr, "trace_support: out of memory\n");
		abort();
	}
	return np;
}

struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof *t);
	if (!t)
		abort();
	return t;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i]);
	free(t->names);
	free(t->streams);
	free(t->devices);
	free(t->kernels);
	free(t->blocks);
	free(t->requests);
	free(t->contexts);
	free(t);
}

void trace_stream(struct trace *t, uint32_t pid, uint32_t dev, uint32_t stream, int32_t prio)
{
	t->streams = grow_or_die(t->streams, t->n_streams, sizeof *t->streams);
	t->streams[t->n_streams++] = (struct smtop_stream){
		.pid = pid, .device_id = dev, .context_id = 1, .stream_id = stream, .priority = prio
	};
}

void trace_device(struct trace *t, uint32_t dev, uint32_t sm_count)
{
	t->devices = grow_or_die(t->devices, t->n_devices, sizeof *t->devices);
	t->devices[t->n_devices++] = (struct smtop_device){ .device_id = dev, .sm_count = sm_count };
}

struct smtop_kernel *trace_kernel(struct trace *t, uint32_t pid, uint32_t dev, uint32_t stream,
				  uint64_t grid, uint64_t submitted, uint64_t start, uint64_t end)
{
	char buf[32];
	snprintf(buf, sizeof buf, "k%llu", (unsigned long long)grid);
	t->names = grow_or_die(t->names, t->n_names, sizeof *t->names);
	t->names[t->n_names] = strdup(buf);
	t->kernels = grow_or_die(t->kernels, t->n_kernels, sizeof *t->kernels);
	struct smtop_kernel *k = &t->kernels[t->n_kernels++];
	*k = (struct smtop_kernel){
		.start = start, .end = end, .submitted = submitted, .grid_id = grid, .pid = pid,
		.device_id = dev, .context_id = 1, .stream_id = stream,
		.correlation_id = (uint32_t)grid, .name = t->names[t->n_names++],
	};
	return k;
}

void trace_blocks(struct trace *t, uint32_t pid, uint32_t dev, uint64_t grid, unsigned n,
		  uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < n; i++) {
		t->blocks = grow_or_die(t->blocks, t->n_blocks, sizeof *t->blocks);
		t->blocks[t->n_blocks++] = (struct trace_block){
			pid, 1,
			{ .grid_id = grid, .start = start, .end = end, .block = i,
			  .sm = (uint16_t)(i % 132), .device_id = (uint16_t)dev },
		};
	}
}

void trace_request(struct trace *t, uint32_t pid, uint32_t stream, uint64_t start, uint64_t end)
{
	t->requests = grow_or_die(t->requests, t->n_requests, sizeof *t->requests);
	t->requests[t->n_requests++] = (struct smtop_request){ start, end, pid, stream, "req" };
}

void trace_context(struct trace *t, uint32_t pid, uint32_t dev, uint32_t ctx, int green)
{
	t->contexts = grow_or_die(t->contexts, t->n_contexts, sizeof *t->contexts);
	t->contexts[t->n_contexts++] = (struct smtop_context){
		.pid = pid, .device_id = dev, .context_id = ctx, .parent_context_id = green ? 1 : 0,
		.is_green = green,
	};
}

void trace_blocks_on(struct trace *t, uint32_t pid, uint32_t dev, uint64_t grid, unsigned n,
		     uint32_t first_sm, uint64_t start, uint64_t end)
{
	size_t from = t->n_blocks;
	trace_blocks(t, pid, dev, grid, n, start, end);
	for (unsigned i = 0; i < n; i++)
		t->blocks[from + i].b.sm = (uint16_t)(first_sm + i);
}

static void feed_static(const struct trace *t, struct analysis *a)
{
	for (size_t i = 0; i < t->n_contexts; i++)
		analysis_add_context(a, &t->contexts[i]);
	for (size_t i = 0; i < t->n_streams; i++)
		analysis_add_stream(a, &t->streams[i]);
	for (size_t i = 0; i < t->n_devices; i++)
		analysis_add_device(a, &t->devices[i]);
}

void trace_feed_all(const struct trace *t, struct analysis *a)
{
	feed_static(t, a);
	for (size_t i = 0; i < t->n_kernels; i++)
		analysis_add_kernel(a, &t->kernels[i]);
	for (size_t i = 0; i < t->n_blocks; i++)
		analysis_add_block(a, t->blocks[i].pid, t->blocks[i].context_id, &t->blocks[i].b);
	for (size_t i = 0; i < t->n_requests; i++)
		analysis_add_request(a, &t->requests[i]);
	analysis_update(a, ANALYSIS_WATERMARK_ALL);
}

enum item_kind { ITEM_KERNEL, ITEM_BLOCK, ITEM_REQUEST };

struct item {
	uint64_t t;
	enum item_kind kind;
	size_t i;
};

static int cmp_item(const void *x, const void *y)
{
	const struct item *p = x, *q = y;
	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	if (p->kind != q->kind)
		return p->kind < q->kind ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

static void feed_item(const struct trace *t, struct analysis *a, const struct item *it)
{
	switch (it->kind) {
	case ITEM_KERNEL:
		analysis_add_kernel(a, &t->kernels[it->i]);
		break;
	case ITEM_BLOCK:
		analysis_add_block(a, t->blocks[it->i].pid, t->blocks[it->i].context_id,
				   &t->blocks[it->i].b);
		break;
	case ITEM_REQUEST:
		analysis_add_request(a, &t->requests[it->i]);
		break;
	}
}

void trace_feed_pieces(const struct trace *t, struct analysis *a, unsigned seed,
		       unsigned max_piece)
{
	trace_feed_pieces_each(t, a, seed, max_piece, NULL);
}

void trace_feed_pieces_each(const struct trace *t, struct analysis *a, unsigned seed,
			    unsigned max_piece, void (*each)(struct analysis *a))
{
	size_t n = t->n_kernels + t->n_blocks + t->n_requests, m = 0;
	struct item *items = calloc(n ? n : 1, sizeof *items);
	if (!items)
		abort();
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct smtop_kernel *k = &t->kernels[i];
		uint64_t s = k->start ? k->start : k->submitted;
		items[m++] = (struct item){ s, ITEM_KERNEL, i };
	}
	for (size_t i = 0; i < t->n_blocks; i++)
		items[m++] = (struct item){ t->blocks[i].b.start, ITEM_BLOCK, i };
	/* A request is added once answered. */
	for (size_t i = 0; i < t->n_requests; i++)
		items[m++] = (struct item){ t->requests[i].end, ITEM_REQUEST, i };
	qsort(items, n, sizeof *items, cmp_item);
	feed_static(t, a);
	srand(seed);
	for (size_t i = 0; i < n;) {
		size_t piece = 1 + (size_t)rand() % (max_piece ? max_piece : 1);
		for (size_t j = 0; j < piece && i < n; j++, i++)
			feed_item(t, a, &items[i]);
		if (each)
			each(a);
		analysis_update(a, i < n ? items[i].t : ANALYSIS_WATERMARK_ALL);
	}
	analysis_update(a, ANALYSIS_WATERMARK_ALL);
	free(items);
}

static uint64_t rnd(uint64_t lo, uint64_t hi)
{
	return lo + (uint64_t)rand() % (hi - lo + 1);
}

static void random_stream(struct trace *t, uint32_t pid, uint32_t stream, uint64_t *grid,
			  int with_blocks)
{
	uint64_t sub = rnd(0, 20000), prev_end = 0;
	for (int k = 0; k < 12; k++) {
		sub += rnd(0, 60000);
		uint64_t start = (sub > prev_end ? sub : prev_end) + rnd(0, 80000);
		uint64_t end = start + rnd(0, 150000);
		uint64_t g = ++*grid;
		trace_kernel(t, pid, 0, stream, g, sub, start, end);
		unsigned nb = (unsigned)rnd(1, 70);
		for (unsigned b = 0; with_blocks && b < nb; b++) {
			uint64_t bs = b == 0 ? start : rnd(start, end);
			uint64_t be = rnd(bs, end);
			t->blocks = grow_or_die(t->blocks, t->n_blocks, sizeof *t->blocks);
			t->blocks[t->n_blocks++] = (struct trace_block){
				pid, 1, { .grid_id = g, .start = bs, .end = be, .block = b,
					  .sm = (uint16_t)(b % 16), .device_id = 0 },
			};
		}
		prev_end = end;
		if (k % 3 == 0)
			trace_request(t, pid, stream, sub, end + rnd(0, 1000));
	}
}

struct trace *trace_random(unsigned seed, int with_blocks)
{
	struct trace *t = trace_new();
	uint64_t grid = 0;
	const int32_t prios[3] = { -5, 0, SMTOP_PRIORITY_UNKNOWN };
	srand(seed);
	trace_device(t, 0, 16);
	for (uint32_t pid = 1; pid <= 2; pid++)
		for (uint32_t s = 1; s <= 3; s++) {
			if (prios[s - 1] != SMTOP_PRIORITY_UNKNOWN)
				trace_stream(t, pid, 0, s, prios[s - 1]);
			random_stream(t, pid, s, &grid, with_blocks);
		}
	return t;
}

static int culprits_equal(const struct smtop_event *p, const struct smtop_event *q)
{
	for (size_t i = 0; i < p->n_culprits; i++) {
		const struct smtop_culprit *x = &p->culprits[i], *y = &q->culprits[i];
		if (x->pid != y->pid || x->grid_id != y->grid_id || x->overlap_ns != y->overlap_ns ||
		    x->weight != y->weight || x->blocks != y->blocks || x->priority != y->priority)
			return 0;
	}
	return 1;
}

static int events_equal(const struct smtop_event *p, const struct smtop_event *q)
{
	return p->kind == q->kind && p->pid == q->pid && p->device_id == q->device_id &&
	       p->context_id == q->context_id && p->stream_id == q->stream_id &&
	       p->grid_id == q->grid_id && p->priority == q->priority && p->ready == q->ready &&
	       p->start == q->start && p->wait_ns == q->wait_ns &&
	       p->from_blocks == q->from_blocks && p->possible == q->possible &&
	       p->wait_min_ns == q->wait_min_ns && p->n_culprits == q->n_culprits &&
	       culprits_equal(p, q);
}

static int pct_equal(const struct analysis_percentiles *p, const struct analysis_percentiles *q)
{
	return p->n == q->n && p->p50 == q->p50 && p->p90 == q->p90 && p->p99 == q->p99 &&
	       p->max == q->max;
}

static int summaries_equal(const struct analysis_stream_summary *p,
			   const struct analysis_stream_summary *q)
{
	return p->pid == q->pid && p->device_id == q->device_id && p->stream_id == q->stream_id &&
	       p->priority == q->priority && p->kernels == q->kernels &&
	       p->waits_unknown == q->waits_unknown && p->busy_ns == q->busy_ns &&
	       p->block_time_ns == q->block_time_ns && p->sm_share == q->sm_share &&
	       pct_equal(&p->wait, &q->wait) && pct_equal(&p->turnaround, &q->turnaround) &&
	       memcmp(p->events, q->events, sizeof p->events) == 0 &&
	       memcmp(p->delay_ns, q->delay_ns, sizeof p->delay_ns) == 0;
}

int trace_compare(struct analysis *x, struct analysis *y, char *why, size_t len)
{
	size_t n = analysis_event_count(x);
	if (n != analysis_event_count(y)) {
		snprintf(why, len, "event counts %zu vs %zu", n, analysis_event_count(y));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!events_equal(analysis_event(x, i), analysis_event(y, i))) {
			snprintf(why, len, "event %zu differs (grid %llu vs %llu)", i,
				 (unsigned long long)analysis_event(x, i)->grid_id,
				 (unsigned long long)analysis_event(y, i)->grid_id);
			return -1;
		}
	n = analysis_stream_count(x);
	if (n != analysis_stream_count(y)) {
		snprintf(why, len, "stream counts %zu vs %zu", n, analysis_stream_count(y));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct analysis_stream_summary p, q;
		analysis_stream_summary(x, i, &p);
		analysis_stream_summary(y, i, &q);
		if (!summaries_equal(&p, &q)) {
			snprintf(why, len, "stream summary %zu differs", i);
			return -1;
		}
	}
	return 0;
}
