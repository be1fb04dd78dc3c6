#include "src/session/session.h"

#include <pthread.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/blockcodec.h"
#include "db/events.h"
#include "src/core/analysis.h"
#include "src/core/findings.h"
#include "src/core/array.h"
#include "src/core/clock.h"
#include "src/core/model.h"
#include "src/core/pool.h"
#include "src/core/residency.h"
#include "src/session/results.h"

/* Kernel records reach the file up to a flush period late and out of order
 * across streams; a live session's verdicts wait this long behind the data. */
#define SESSION_LIVE_SLACK_NS 500000000ull
/* Blocks read and decoded together: enough to keep the pool busy, few enough
 * that a poll with a budget looks at the clock often (about 1.5 ms of work at
 * 25 M blocks/s) and that the batches in flight stay small (1 MB each; twice
 * as many blocks loaded no faster). */
#define SESSION_BATCH_BLOCKS (1u << 15)
/* Batches between the reader and the analysis: how far the analysis may fall
 * behind before the reader waits for it. */
#define SESSION_BATCHES 3
#define SESSION_OPS 64
/* A finished session shown before its blocks reads its kernels this many a
 * poll: 806 k kernels (a 1 G-block session) took two seconds in one. */
#define SESSION_KERNEL_SLICE 32768
/* Updates of the analysis while a finished session is read with a budget. */
#define SESSION_UPDATES 32
/* Held kernels past this are released through an index by start. */
#define SESSION_HELD_INDEXED 65536

/* One chunk of a batch: where its bytes and its decoded blocks are. */
struct session_chunk {
	uint32_t pid, context_id;
	uint16_t device_id, sm;
	uint32_t count;
	int64_t id;
	struct gpu_clock clock;
	size_t raw, len;                /* bytes in the batch's raw buffer */
	size_t first;                   /* its first block in the batch's blocks */
	size_t src;                     /* the file it came from */
	long n;                         /* blocks decoded, -1 damaged */
	uint64_t max_end;
};

struct session_batch {
	struct session_chunk *chunks;
	size_t n_chunks, cap_chunks;
	uint8_t *raw;
	size_t raw_len, raw_cap;
	struct smtop_block *blocks;
	size_t n_blocks, cap_blocks;
	size_t src;                     /* the file chunks are being taken from */
	int busy;                       /* the analysis has not finished it */
};

/* A kernel read but waiting for its file's blocks to reach its start. */
struct session_held {
	struct smtop_kernel k;
	size_t src;
	int in_model;                   /* given to the model when read (show_stored) */
};

/* Work for the analysis, in the order the loader read it. */
enum session_op_kind {
	OP_KERNELS, OP_STREAMS, OP_CONTEXTS, OP_REQUESTS, OP_DEVICE, OP_BATCH, OP_UPDATE,
	OP_MEMCPYS, OP_MEMSETS, OP_SYNCS, OP_CUDA_EVENTS, OP_GRAPH_DEPS, OP_APIS,
};

struct session_op {
	enum session_op_kind kind;
	void *v;                        /* records (owned by the op), or the batch */
	size_t n;
	uint64_t mark;
	struct smtop_device dev;
};

struct session_loader {
	struct pool *pool;
	int threads;
	struct session_batch batches[SESSION_BATCHES];
	size_t next_batch;
	/* the analysis' thread; with one thread in all, ops run at once */
	int athread_on;
	pthread_t athread;
	pthread_mutex_t qlock;          /* ops, busy flags, a_busy, a_failed, a_seconds */
	pthread_cond_t work, idle, freed;
	struct session_op ops[SESSION_OPS];
	size_t op_head, op_n;
	int a_busy, quit, a_failed;
	double a_seconds;
	pthread_mutex_t alock;          /* the analysis itself */
	struct analysis *analysis;
	/* kernels read but held back while the blocks are behind them, and
	 * those released this poll, bound for the analysis */
	struct session_held *held;
	size_t n_held, cap_held;
	size_t cur_src;                 /* the file kernels are being read from */
	uint64_t edge;                  /* the earliest block end of the files not read
					 * to their end (UINT64_MAX: all were) */
	struct smtop_kernel *kern;
	size_t n_kern, cap_kern;
	void *small;                    /* streams or requests being collected */
	size_t n_small, cap_small;
	uint64_t last_mark;
	int marked;
	int trimmed;                    /* a finished session's loading memory went back */
	uint64_t kernels_read;          /* by hold_kernel, all files */
	/* many held kernels of one file: by start, and which went out */
	uint32_t *order;
	size_t n_order, cursor, n_released;
	unsigned char *released;
};

static double clock_s(clockid_t which)
{
	struct timespec ts;
	clock_gettime(which, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* The analysis' cost as CPU time of its thread: true on a busy machine too. */
static double thread_cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* ---- the analysis' side --------------------------------------------------- */

static int op_run(struct analysis *a, struct session_op *op)
{
	int rc = 0;
	switch (op->kind) {
	case OP_KERNELS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_kernel(a, &((struct smtop_kernel *)op->v)[i]);
		break;
	case OP_STREAMS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_stream(a, &((struct smtop_stream *)op->v)[i]);
		break;
	case OP_CONTEXTS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_context(a, &((struct smtop_context *)op->v)[i]);
		break;
	case OP_REQUESTS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_request(a, &((struct smtop_request *)op->v)[i]);
		break;
	case OP_DEVICE:
		rc = analysis_add_device(a, &op->dev);
		break;
	case OP_MEMCPYS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_memcpy(a, &((struct smtop_memcpy *)op->v)[i]);
		break;
	case OP_MEMSETS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_memset(a, &((struct smtop_memset *)op->v)[i]);
		break;
	case OP_SYNCS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_sync(a, &((struct smtop_sync *)op->v)[i]);
		break;
	case OP_CUDA_EVENTS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_cuda_event(a, &((struct smtop_cuda_event *)op->v)[i]);
		break;
	case OP_GRAPH_DEPS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_graph_dep(a, &((struct smtop_graph_dep *)op->v)[i]);
		break;
	case OP_APIS:
		for (size_t i = 0; i < op->n && !rc; i++)
			rc = analysis_add_api(a, &((struct smtop_api *)op->v)[i]);
		break;
	case OP_BATCH: {
		const struct session_batch *b = op->v;
		for (size_t i = 0; i < b->n_chunks && !rc; i++) {
			const struct session_chunk *c = &b->chunks[i];
			if (c->n > 0)
				rc = analysis_add_blocks(a, c->pid, c->context_id, &b->blocks[c->first],
							 (size_t)c->n);
		}
		break;
	}
	case OP_UPDATE:
		rc = analysis_update(a, op->mark);
		break;
	}
	if (op->kind != OP_BATCH)
		free(op->v);
	return rc;
}

static void *analysis_main(void *arg)
{
	struct session_loader *L = arg;
	pthread_mutex_lock(&L->qlock);
	for (;;) {
		while (!L->quit && !L->op_n)
			pthread_cond_wait(&L->work, &L->qlock);
		if (L->quit)
			break;
		struct session_op op = L->ops[L->op_head];
		L->op_head = (L->op_head + 1) % SESSION_OPS;
		L->op_n--;
		L->a_busy = 1;
		pthread_cond_broadcast(&L->freed); /* a slot in the queue */
		pthread_mutex_unlock(&L->qlock);
		pthread_mutex_lock(&L->alock);
		double t = thread_cpu_s();
		int rc = op_run(L->analysis, &op);
		t = thread_cpu_s() - t;
		pthread_mutex_unlock(&L->alock);
		pthread_mutex_lock(&L->qlock);
		L->a_seconds += t;
		if (rc)
			L->a_failed = 1;
		if (op.kind == OP_BATCH)
			((struct session_batch *)op.v)->busy = 0;
		L->a_busy = 0;
		pthread_cond_broadcast(&L->freed);
		if (!L->op_n)
			pthread_cond_broadcast(&L->idle);
	}
	pthread_mutex_unlock(&L->qlock);
	return NULL;
}

/* Hands op to the analysis (or runs it now, without its thread). */
static int op_submit(struct session *s, struct session_op op)
{
	struct session_loader *L = s->loader;
	if (s->analysis_off) {
		if (op.kind == OP_BATCH)
			((struct session_batch *)op.v)->busy = 0;
		else
			free(op.v);
		return 0;
	}
	if (!L->athread_on) {
		double t = thread_cpu_s();
		int rc = op_run(s->analysis, &op);
		L->a_seconds += thread_cpu_s() - t;
		if (op.kind == OP_BATCH)
			((struct session_batch *)op.v)->busy = 0;
		return rc;
	}
	pthread_mutex_lock(&L->qlock);
	while (L->op_n == SESSION_OPS)
		pthread_cond_wait(&L->freed, &L->qlock);
	if (op.kind == OP_BATCH)
		((struct session_batch *)op.v)->busy = 1;
	L->ops[(L->op_head + L->op_n) % SESSION_OPS] = op;
	L->op_n++;
	pthread_cond_signal(&L->work);
	pthread_mutex_unlock(&L->qlock);
	return 0;
}

void session_sync(struct session *s)
{
	struct session_loader *L = s->loader;
	if (!L || !L->athread_on)
		return;
	pthread_mutex_lock(&L->qlock);
	while (L->op_n || L->a_busy)
		pthread_cond_wait(&L->idle, &L->qlock);
	pthread_mutex_unlock(&L->qlock);
}

static void loader_stop(struct session_loader *L)
{
	if (!L->athread_on)
		return;
	pthread_mutex_lock(&L->qlock);
	L->quit = 1;
	pthread_cond_broadcast(&L->work);
	pthread_mutex_unlock(&L->qlock);
	pthread_join(L->athread, NULL);
	L->athread_on = 0;
	L->quit = 0;
	for (; L->op_n; L->op_n--, L->op_head = (L->op_head + 1) % SESSION_OPS) {
		struct session_op *op = &L->ops[L->op_head];
		if (op->kind == OP_BATCH)
			((struct session_batch *)op->v)->busy = 0;
		else
			free(op->v);
	}
}

static void loader_free(struct session_loader *L)
{
	if (!L)
		return;
	loader_stop(L);
	pool_free(L->pool);
	for (int i = 0; i < SESSION_BATCHES; i++) {
		free(L->batches[i].chunks);
		free(L->batches[i].raw);
		free(L->batches[i].blocks);
	}
	free(L->held);
	free(L->order);
	free(L->released);
	free(L->kern);
	free(L->small);
	pthread_cond_destroy(&L->freed);
	pthread_cond_destroy(&L->idle);
	pthread_cond_destroy(&L->work);
	pthread_mutex_destroy(&L->alock);
	pthread_mutex_destroy(&L->qlock);
	free(L);
}

int session_set_threads(struct session *s, int n)
{
	struct session_loader *L = s->loader;
	if (n < 1)
		n = 1;
	/* one thread is the analysis' own; the pool has the rest, the caller's
	 * among them */
	struct pool *p = pool_new(n > 1 ? n - 1 : 1);
	if (!p)
		return -1;
	session_sync(s);
	loader_stop(L);
	pool_free(L->pool);
	L->pool = p;
	L->threads = n;
	if (s->model)
		model_set_pool(s->model, p);
	if (n > 1 && pthread_create(&L->athread, NULL, analysis_main, L) == 0)
		L->athread_on = 1;
	return 0;
}

static struct session_loader *loader_new(struct analysis *a)
{
	struct session_loader *L = calloc(1, sizeof *L);
	if (!L)
		return NULL;
	L->analysis = a;
	pthread_mutex_init(&L->qlock, NULL);
	pthread_mutex_init(&L->alock, NULL);
	pthread_cond_init(&L->work, NULL);
	pthread_cond_init(&L->idle, NULL);
	pthread_cond_init(&L->freed, NULL);
	return L;
}

/* A session read to its end takes no more blocks: the batches and the
 * model's binning stage go back (about 15 MB), so that what the view needs
 * next (the detail level of a zoom) fits in what loading took. */
static void loader_trim(struct session *s)
{
	struct session_loader *L = s->loader;
	session_sync(s);
	for (int i = 0; i < SESSION_BATCHES; i++) {
		struct session_batch *b = &L->batches[i];
		free(b->chunks);
		free(b->raw);
		free(b->blocks);
		memset(b, 0, sizeof *b);
	}
	if (!L->n_held) {
		free(L->held);
		free(L->order);
		free(L->released);
		L->held = NULL;
		L->order = NULL;
		L->released = NULL;
		L->cap_held = L->n_order = L->cursor = L->n_released = 0;
	}
	if (s->model)
		model_trim(s->model);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	L->trimmed = 1;
}

/* ---- reading ---------------------------------------------------------------- */

static int submit_collected(struct session *s, enum session_op_kind kind, void **v, size_t *n,
			    size_t *cap);

/* Kernels wait in the loader until the blocks read from their file reach
 * their start, so that a loader behind the data shows kernels and blocks up
 * to one edge (and the analysis' watermark never passes blocks not yet
 * read). */
static int all_ended(const struct session *s);

/* A finished session's lanes show whole at once (show_stored): its
 * kernels go to the model as read, and wait only for the analysis. */
static int hold_kernel(void *ud, const struct smtop_kernel *k)
{
	struct session *s = ud;
	struct session_loader *L = s->loader;
	int now = s->model && s->show_stored && all_ended(s);
	if (now && model_add_kernel(s->model, k) != 0)
		return 1;
	/* held only for the analysis */
	if (s->analysis_off) {
		L->kernels_read++;
		return 0;
	}
	if (array_grow((void **)&L->held, &L->cap_held, L->n_held + 1, sizeof *L->held))
		return 1;
	L->held[L->n_held++] = (struct session_held){ .k = *k, .src = L->cur_src, .in_model = now };
	L->kernels_read++;
	return 0;
}

/* How far a file's kernels may go: to its blocks read, or anywhere once all
 * of them were read. */
static uint64_t source_edge(const struct session_source *src)
{
	return src->drained ? UINT64_MAX : src->blocks_end;
}

/* One held kernel to the model and the analysis' queue. */
static int release_one(struct session *s, const struct session_held *h, uint64_t upto)
{
	struct session_loader *L = s->loader;
	const struct smtop_kernel *k = &h->k;
	/* a long kernel's end does not carry the edge past the blocks */
	uint64_t end = k->end < upto ? k->end : upto;
	if (end > s->latest_end)
		s->latest_end = end;
	if (s->model && !h->in_model && model_add_kernel(s->model, k) != 0)
		return -1;
	if (array_grow((void **)&L->kern, &L->cap_kern, L->n_kern + 1, sizeof *L->kern))
		return -1;
	L->kern[L->n_kern++] = *k;
	return 0;
}

static const struct session_held *held_sort_base;

static int held_by_start(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t sa = held_sort_base[a].k.start, sb = held_sort_base[b].k.start;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return (a > b) - (a < b);
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

/* Drops the released kernels and sorts the rest by start (their place in
 * the held array, the order read, kept). */
static int held_reindex(struct session_loader *L)
{
	size_t keep = 0;
	for (size_t i = 0; i < L->n_held; i++)
		if (i >= L->n_order || !L->released[i])
			L->held[keep++] = L->held[i];
	L->n_held = keep;
	array_shrink((void **)&L->held, &L->cap_held, L->n_held, sizeof *L->held);
	free(L->order);
	free(L->released);
	L->order = malloc((keep ? keep : 1) * sizeof *L->order);
	L->released = calloc(keep ? keep : 1, 1);
	L->n_order = L->cursor = L->n_released = 0;
	if (!L->order || !L->released)
		return -1;
	for (size_t i = 0; i < keep; i++)
		L->order[i] = (uint32_t)i;
	held_sort_base = L->held;
	qsort(L->order, keep, sizeof *L->order, held_by_start);
	L->n_order = keep;
	return 0;
}

/* Drops the released kernels; the rest keep their order by start (no sort:
 * their indices move down by the released ones before them). */
static int held_compact(struct session_loader *L)
{
	uint32_t *map = malloc((L->n_held ? L->n_held : 1) * sizeof *map);
	if (!map)
		return -1;
	size_t keep = 0;
	for (size_t i = 0; i < L->n_held; i++) {
		if (L->released[i])
			continue;
		map[i] = (uint32_t)keep;
		L->held[keep++] = L->held[i];
	}
	size_t left = L->n_order - L->cursor;
	for (size_t j = 0; j < left; j++)
		L->order[j] = map[L->order[L->cursor + j]];
	free(map);
	L->n_held = L->n_order = keep;
	L->cursor = L->n_released = 0;
	memset(L->released, 0, keep);
	array_shrink((void **)&L->held, &L->cap_held, L->n_held, sizeof *L->held);
	return 0;
}

/* One file's many held kernels (a finished session read before its blocks):
 * those due are a prefix of the kernels by start, so a poll costs what it
 * releases, not a pass over every held kernel (806 k of them, thousands of
 * polls).  They go out in the order read, as in release_kernels. */
static int release_indexed(struct session *s)
{
	struct session_loader *L = s->loader;
	if (L->n_order != L->n_held && held_reindex(L) != 0)
		return -1;
	uint64_t upto = source_edge(&s->src[0]);
	size_t from = L->cursor;
	while (L->cursor < L->n_order && L->held[L->order[L->cursor]].k.start <= upto)
		L->cursor++;
	qsort(L->order + from, L->cursor - from, sizeof *L->order, u32_cmp);
	for (size_t j = from; j < L->cursor; j++) {
		if (release_one(s, &L->held[L->order[j]], upto) != 0)
			return -1;
		L->released[L->order[j]] = 1;
	}
	L->n_released += L->cursor - from;
	/* their memory goes back as they are released, an eighth at a time */
	if (L->n_released > L->n_held / 8 && held_compact(L) != 0)
		return -1;
	return submit_collected(s, OP_KERNELS, (void **)&L->kern, &L->n_kern, &L->cap_kern);
}

/* Feeds the held kernels that start at or before their file's edge to the
 * model and queues them for the analysis.  Returns 0, or -1 when out of
 * memory. */
static int release_kernels(struct session *s)
{
	struct session_loader *L = s->loader;
	if (s->n_src == 1 && (L->n_order || L->n_held >= SESSION_HELD_INDEXED))
		return release_indexed(s);
	size_t keep = 0;
	for (size_t i = 0; i < L->n_held; i++) {
		uint64_t upto = source_edge(&s->src[L->held[i].src]);
		if (L->held[i].k.start > upto) {
			L->held[keep++] = L->held[i];
			continue;
		}
		if (release_one(s, &L->held[i], upto) != 0)
			return -1;
	}
	L->n_held = keep;
	/* a saved session's kernels are all read at once and held while its
	 * blocks are read: their memory goes back as they are released */
	array_shrink((void **)&L->held, &L->cap_held, L->n_held, sizeof *L->held);
	return submit_collected(s, OP_KERNELS, (void **)&L->kern, &L->n_kern, &L->cap_kern);
}

static int feed_stream(void *ud, const struct smtop_stream *st)
{
	struct session *s = ud;
	struct session_loader *L = s->loader;
	if (s->model && model_add_stream(s->model, st) != 0)
		return 1;
	if (array_grow(&L->small, &L->cap_small, (L->n_small + 1) * sizeof *st, 1))
		return 1;
	((struct smtop_stream *)L->small)[L->n_small++] = *st;
	return 0;
}

static int feed_context(void *ud, const struct smtop_context *c)
{
	struct session_loader *L = ((struct session *)ud)->loader;
	if (array_grow(&L->small, &L->cap_small, (L->n_small + 1) * sizeof *c, 1))
		return 1;
	((struct smtop_context *)L->small)[L->n_small++] = *c;
	return 0;
}

static int feed_request(void *ud, const struct smtop_request *r)
{
	struct session_loader *L = ((struct session *)ud)->loader;
	if (array_grow(&L->small, &L->cap_small, (L->n_small + 1) * sizeof *r, 1))
		return 1;
	((struct smtop_request *)L->small)[L->n_small++] = *r;
	return 0;
}

/* Copies, memsets, waits and API calls go to the analysis as read: what
 * bounds a kernel's ready time started before it, so it never runs ahead of
 * the kernels. */
static int collect(struct session_loader *L, const void *rec, size_t size)
{
	if (array_grow(&L->small, &L->cap_small, (L->n_small + 1) * size, 1))
		return 1;
	memcpy((char *)L->small + L->n_small * size, rec, size);
	L->n_small++;
	return 0;
}

static int feed_memcpy(void *ud, const struct smtop_memcpy *m)
{
	return collect(((struct session *)ud)->loader, m, sizeof *m);
}

static int feed_memset(void *ud, const struct smtop_memset *m)
{
	return collect(((struct session *)ud)->loader, m, sizeof *m);
}

static int feed_sync(void *ud, const struct smtop_sync *y)
{
	return collect(((struct session *)ud)->loader, y, sizeof *y);
}

static int feed_cuda_event(void *ud, const struct smtop_cuda_event *e)
{
	return collect(((struct session *)ud)->loader, e, sizeof *e);
}

static int feed_graph_dep(void *ud, const struct smtop_graph_dep *d)
{
	return collect(((struct session *)ud)->loader, d, sizeof *d);
}

static int feed_api(void *ud, const struct smtop_api *c)
{
	return collect(((struct session *)ud)->loader, c, sizeof *c);
}

/* The records collected for the analysis become one op it owns. */
static int submit_collected(struct session *s, enum session_op_kind kind, void **v, size_t *n,
			    size_t *cap)
{
	if (!*n)
		return 0;
	struct session_op op = { .kind = kind, .v = *v, .n = *n };
	*v = NULL;
	*n = *cap = 0;
	return op_submit(s, op);
}

const struct smtop_device *session_view_device(const struct session *s)
{
	for (size_t i = 0; i < s->info.n_devices; i++)
		if (s->view_device < 0 || s->info.devices[i].device_id == (uint32_t)s->view_device)
			return &s->info.devices[i];
	return NULL;
}

int session_model_gpu(const struct session *s, struct model *m)
{
	const struct smtop_device *d = session_view_device(s);
	m->one_gpu = !s->info.is_nsys;
	if (!d)
		return 0;
	return model_set_device(m, d) == 0 ? 1 : -1;
}

static void feed_devices(struct session *s, struct session_source *src)
{
	for (size_t i = src->devices_seen; i < src->info.n_devices; i++) {
		struct session_op op = { .kind = OP_DEVICE, .dev = src->info.devices[i] };
		op.dev.name = op.dev.uuid = NULL; /* the analysis keeps numbers only */
		op_submit(s, op);
	}
	src->devices_seen = src->info.n_devices;
	if (s->model && !s->model_device_set) {
		s->model_device_set = session_model_gpu(s, s->model) == 1;
		/* before any kernel or block: the stored bins count from the origin
		 * they were made with */
		if (s->model_device_set && s->show_stored)
			s->stored_shown = results_show(s);
		/* read from its start to its end: the rings that would hold only
		 * its last moments are left out (docs/performance.md, "Memory") */
		if (s->model_device_set && s->show_stored && all_ended(s) &&
		    s->info.t_last > s->info.t_first)
			model_rings_for_span(s->model, s->info.t_last - s->info.t_first);
		s->analysis_off = (s->stored_shown & RESULTS_EVENTS) != 0;
	}
}

static struct progress_sink session_default_progress;

void session_set_default_progress(const struct progress_sink *sink)
{
	session_default_progress = sink ? *sink : (struct progress_sink){ 0 };
}

static int all_ended(const struct session *s)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (!s->src[i].info.ended && !s->src[i].info.is_nsys)
			return 0;
	return 1;
}

/* Only a finished session has a total to count against: a live one grows
 * as it is read. */
static void load_report(struct session *s, int done)
{
	if (!s->info.blocks || s->load.finished)
		return;
	if (!s->load.begun_ns) {
		if (!all_ended(s))
			return;
		const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
		snprintf(s->load_what, sizeof s->load_what, "reading %s%s", base,
			 s->n_src > 1 ? " and more" : "");
		progress_begin(&s->load, s->load_what, s->info.blocks, clock_mono_ns());
	}
	if (done)
		progress_finish(&s->load, &s->progress, clock_mono_ns());
	else
		progress_report(&s->load, &s->progress, s->stats.blocks, clock_mono_ns());
}

/* The polls' big buffers (a batch of kernels, blocks or episodes) come and
 * go while the model's and the analysis' arrays grow between them.  glibc
 * raises its mmap threshold with every big buffer freed, so that later ones
 * come from the heap, where what they leave between long-lived allocations
 * stays resident: a fixed threshold keeps them mapped, given back when
 * freed (3 MiB of the viewer's peak at 100 M blocks, no slower). */
static void malloc_policy(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	static int set;
	if (!set)
		mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	set = 1;
#endif
}

int session_open_many(struct session *s, const char *const *paths, size_t n,
		      const struct analysis_params *p, char *err, size_t errlen)
{
	malloc_policy();
	memset(s, 0, sizeof *s);
	s->view_device = -1;
	s->progress = session_default_progress;
	if (n < 1 || n > SESSION_MAX_SOURCES) {
		snprintf(err, errlen, "between 1 and %d session files can be opened together",
			 SESSION_MAX_SOURCES);
		return -1;
	}
	s->path = paths[0];
	for (size_t i = 0; i < n; i++) {
		s->src[i].path = paths[i];
		if (db_reader_open(&s->src[i].reader, paths[i], err, errlen) != 0) {
			session_close(s);
			return -1;
		}
		s->n_src = i + 1;
	}
	s->reader = s->src[0].reader;
	s->analysis = analysis_new(p);
	if (s->analysis)
		s->loader = loader_new(s->analysis);
	if (!s->analysis || !s->loader || session_set_threads(s, pool_default_threads()) != 0) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		session_close(s);
		return -1;
	}
	return 0;
}

int session_open(struct session *s, const char *path, const struct analysis_params *p,
		 char *err, size_t errlen)
{
	return session_open_many(s, &path, 1, p, err, errlen);
}

static int read_error(struct session_source *src, char *err, size_t errlen)
{
	/* the reader's message already names the file */
	snprintf(err, errlen, "%s", db_reader_error(src->reader));
	return -1;
}

static int out_of_memory(struct session *s, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: out of memory", s->path);
	return -1;
}

/* The new rows of the tables ready times read, when their counts moved (a
 * synchronisation record comes with an API call). */
static int poll_ready_tables(struct session *s, struct session_source *src, int *changed)
{
	struct session_loader *L = s->loader;
	struct db_reader *r = src->reader;
	int rc = 0;
	if (src->info.memcpys != src->memcpys_seen) {
		L->n_small = 0;
		rc |= db_reader_new_memcpys(r, &src->memcpy_mark, feed_memcpy, s) ||
		      submit_collected(s, OP_MEMCPYS, &L->small, &L->n_small, &L->cap_small);
		src->memcpys_seen = src->info.memcpys;
		*changed = 1;
	}
	if (!rc && src->info.memsets != src->memsets_seen) {
		L->n_small = 0;
		rc |= db_reader_new_memsets(r, &src->memset_mark, feed_memset, s) ||
		      submit_collected(s, OP_MEMSETS, &L->small, &L->n_small, &L->cap_small);
		src->memsets_seen = src->info.memsets;
		*changed = 1;
	}
	if (!rc && (src->info.api_calls != src->apis_seen || src->info.syncs != src->syncs_seen)) {
		L->n_small = 0;
		rc |= db_reader_new_syncs(r, &src->sync_mark, feed_sync, s) ||
		      submit_collected(s, OP_SYNCS, &L->small, &L->n_small, &L->cap_small);
		L->n_small = 0;
		rc |= rc || db_reader_new_cuda_events(r, &src->cuda_event_mark, feed_cuda_event, s) ||
		      submit_collected(s, OP_CUDA_EVENTS, &L->small, &L->n_small, &L->cap_small);
		L->n_small = 0;
		rc |= rc || db_reader_new_graph_deps(r, &src->graph_dep_mark, feed_graph_dep, s) ||
		      submit_collected(s, OP_GRAPH_DEPS, &L->small, &L->n_small, &L->cap_small);
		L->n_small = 0;
		rc |= rc || db_reader_new_apis(r, &src->api_mark, feed_api, s) ||
		      submit_collected(s, OP_APIS, &L->small, &L->n_small, &L->cap_small);
		src->apis_seen = src->info.api_calls;
		src->syncs_seen = src->info.syncs;
		*changed = 1;
	}
	return rc ? -1 : 0;
}

/* Streams, contexts and requests are few; re-read them only when their
 * counts move.  Contexts tell the analysis which are green, before the
 * kernels of their streams are judged. */
static int poll_small_tables(struct session *s, struct session_source *src, int *changed)
{
	struct session_loader *L = s->loader;
	if (src->info.contexts != src->contexts_seen) {
		L->n_small = 0;
		if (db_reader_contexts(src->reader, feed_context, s) != 0 ||
		    submit_collected(s, OP_CONTEXTS, &L->small, &L->n_small, &L->cap_small))
			return -1;
		src->contexts_seen = src->info.contexts;
		*changed = 1;
	}
	if (src->info.streams != src->streams_seen) {
		L->n_small = 0;
		if (db_reader_streams(src->reader, feed_stream, s) != 0 ||
		    submit_collected(s, OP_STREAMS, &L->small, &L->n_small, &L->cap_small))
			return -1;
		src->streams_seen = src->info.streams;
		*changed = 1;
	}
	if (src->info.requests != src->requests_seen) {
		L->n_small = 0;
		if (db_reader_requests(src->reader, feed_request, s) != 0 ||
		    submit_collected(s, OP_REQUESTS, &L->small, &L->n_small, &L->cap_small))
			return -1;
		src->requests_seen = src->info.requests;
		*changed = 1;
	}
	return poll_ready_tables(s, src, changed);
}

/* ---- session info ------------------------------------------------------------ */

static int has_device(const struct db_session_info *m, uint32_t id)
{
	for (size_t i = 0; i < m->n_devices; i++)
		if (m->devices[i].device_id == id)
			return 1;
	return 0;
}

/* Folds one file's info into the session's: counts add up, spans join, the
 * session has ended when every file has. */
static int merge_info(struct session *s, const struct db_session_info *f, size_t *dcap,
		      size_t *pcap)
{
	struct db_session_info *m = &s->info;
	m->kernels += f->kernels;
	m->blocks += f->blocks;
	m->memcpys += f->memcpys;
	m->memsets += f->memsets;
	m->api_calls += f->api_calls;
	m->syncs += f->syncs;
	m->nvtx += f->nvtx;
	m->streams += f->streams;
	m->contexts += f->contexts;
	m->requests += f->requests;
	m->drops_cupti += f->drops_cupti;
	m->drops_ring += f->drops_ring;
	m->drops_blocks += f->drops_blocks;
	m->ended = m->ended && f->ended;
	m->ended_clean = m->ended_clean && f->ended_clean;
	m->is_nsys = m->is_nsys && f->is_nsys;
	if (f->t_first && (!m->t_first || f->t_first < m->t_first))
		m->t_first = f->t_first;
	if (f->t_last > m->t_last)
		m->t_last = f->t_last;
	for (size_t i = 0; i < f->n_devices; i++) {
		if (has_device(m, f->devices[i].device_id))
			continue;
		if (array_grow((void **)&s->devices, dcap, m->n_devices + 1, sizeof *s->devices))
			return -1;
		s->devices[m->n_devices++] = f->devices[i];
		m->devices = s->devices;
	}
	if (f->n_processes && array_grow((void **)&s->processes, pcap, m->n_processes + f->n_processes,
				   sizeof *s->processes))
		return -1;
	for (size_t i = 0; i < f->n_processes; i++)
		s->processes[m->n_processes++] = f->processes[i];
	m->processes = s->processes;
	return 0;
}

/* Each file's info, then the session's: the first file names it (path,
 * command, clock), the counts and spans are over every file. */
static int session_read_info(struct session *s, char *err, size_t errlen)
{
	size_t dcap = 0, pcap = 0;
	free(s->devices);
	free(s->processes);
	s->devices = NULL;
	s->processes = NULL;
	for (size_t i = 0; i < s->n_src; i++) {
		struct session_source *src = &s->src[i];
		if (db_reader_info(src->reader, &src->info) != 0)
			return read_error(src, err, errlen);
	}
	const struct db_session_info *first = &s->src[0].info;
	struct db_session_info *m = &s->info;
	memset(m, 0, sizeof *m);
	m->schema_version = first->schema_version;
	m->path = first->path;
	m->command = first->command;
	m->created_ns = first->created_ns;
	m->end_reason = first->end_reason;
	m->clock = first->clock;
	m->clock_known = first->clock_known;
	m->nsys_schema = first->nsys_schema;
	m->nsys_product = first->nsys_product;
	m->nsys_before_3 = first->nsys_before_3;
	m->ended = m->ended_clean = m->is_nsys = 1;
	for (size_t i = 0; i < s->n_src; i++)
		if (merge_info(s, &s->src[i].info, &dcap, &pcap) != 0)
			return out_of_memory(s, err, errlen);
	return 0;
}

/* ---- blocks ----------------------------------------------------------------- */

static int batch_take_chunk(void *ud, const struct db_chunk *c)
{
	struct session_batch *b = ud;
	if (array_grow((void **)&b->chunks, &b->cap_chunks, b->n_chunks + 1, sizeof *b->chunks) ||
	    array_grow((void **)&b->raw, &b->raw_cap, b->raw_len + c->len, 1)) {
		b->n_chunks = (size_t)-1; /* out of memory: stop, and say so */
		return 1;
	}
	memcpy(b->raw + b->raw_len, c->data, c->len);
	b->chunks[b->n_chunks++] = (struct session_chunk){
		.pid = c->pid, .context_id = c->context_id, .device_id = c->device_id, .sm = c->sm,
		.count = c->count, .id = c->id, .clock = c->clock,
		.raw = b->raw_len, .len = c->len, .first = b->n_blocks, .src = b->src,
	};
	b->raw_len += c->len;
	b->n_blocks += c->count;
	return b->n_blocks >= SESSION_BATCH_BLOCKS;
}

static void batch_decode_chunk(void *ud, size_t i, int worker)
{
	struct session_batch *b = ud;
	struct session_chunk *c = &b->chunks[i];
	struct smtop_block *out = &b->blocks[c->first];
	(void)worker;
	c->n = db_blockcodec_decode(b->raw + c->raw, c->len, c->sm, c->device_id, out, c->count);
	uint64_t end = 0;
	for (long k = 0; k < c->n; k++) {
		out[k].start = gpu_clock_cupti(&c->clock, out[k].start);
		out[k].end = gpu_clock_cupti(&c->clock, out[k].end);
		if (out[k].end > end)
			end = out[k].end;
	}
	c->max_end = end;
}

/* The next batch, once the analysis is done with it. */
static struct session_batch *batch_next(struct session *s)
{
	struct session_loader *L = s->loader;
	struct session_batch *b = &L->batches[L->next_batch];
	L->next_batch = (L->next_batch + 1) % SESSION_BATCHES;
	if (L->athread_on) {
		pthread_mutex_lock(&L->qlock);
		if (b->busy) {
			double t = now_s();
			while (b->busy)
				pthread_cond_wait(&L->freed, &L->qlock);
			s->stats.wait_s += now_s() - t;
		}
		pthread_mutex_unlock(&L->qlock);
	}
	b->n_chunks = b->raw_len = b->n_blocks = 0;
	return b;
}

/* Decodes a batch on the pool, feeds the model, hands it to the analysis.
 * Returns 1 if a chunk was damaged (reported in err), 0, or -1. */
static int batch_feed(struct session *s, struct session_batch *b, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	int damaged = 0;
	double t = now_s();
	if (array_grow((void **)&b->blocks, &b->cap_blocks, b->n_blocks, sizeof *b->blocks))
		return -1;
	pool_run(L->pool, b->n_chunks, batch_decode_chunk, b);
	double t2 = now_s();
	s->stats.decode_s += t2 - t;
	for (size_t i = 0; i < b->n_chunks; i++) {
		struct session_source *src = &s->src[b->chunks[i].src];
		if (b->chunks[i].n > 0 && b->chunks[i].max_end > src->blocks_end)
			src->blocks_end = b->chunks[i].max_end;
	}
	if (release_kernels(s))
		return -1;
	for (size_t i = 0; i < b->n_chunks; i++) {
		const struct session_chunk *c = &b->chunks[i];
		if (c->n < 0) {
			if (!damaged)
				snprintf(err, errlen, "%s: block chunk %lld is damaged",
					 s->src[c->src].path, (long long)c->id);
			damaged = 1;
			continue;
		}
		if (c->max_end > s->latest_end)
			s->latest_end = c->max_end;
		s->stats.blocks += (uint64_t)c->n;
		if (s->model && c->n &&
		    model_add_blocks(s->model, &b->blocks[c->first], (size_t)c->n, c->pid,
				     c->context_id) != 0)
			return -1;
	}
	s->stats.chunks += b->n_chunks;
	s->stats.model_s += now_s() - t2;
	if (op_submit(s, (struct session_op){ .kind = OP_BATCH, .v = b }))
		return -1;
	return damaged;
}

/* The file to read blocks from next: of those with blocks left, the one
 * whose blocks read end earliest, so that several files advance together in
 * time.  n_src when every file was read to its end. */
static size_t next_source(const struct session *s)
{
	size_t best = s->n_src;
	for (size_t i = 0; i < s->n_src; i++)
		if (!s->src[i].drained &&
		    (best == s->n_src || s->src[i].blocks_end < s->src[best].blocks_end))
			best = i;
	return best;
}

/* Fills b from the files furthest behind until it is full or every file
 * was read to its end.  Returns 0, or -1 (err set). */
static int batch_fill(struct session *s, struct session_batch *b, char *err, size_t errlen)
{
	size_t i;
	double t = now_s();
	while (b->n_blocks < SESSION_BATCH_BLOCKS && (i = next_source(s)) < s->n_src) {
		struct session_source *src = &s->src[i];
		b->src = i;
		if (db_reader_new_chunks(src->reader, &src->block_mark, batch_take_chunk, b) != 0)
			return read_error(src, err, errlen);
		if (b->n_chunks == (size_t)-1)
			return out_of_memory(s, err, errlen);
		/* the walk stopped short of a full batch: nothing is left in this file */
		if (b->n_blocks < SESSION_BATCH_BLOCKS)
			src->drained = 1;
	}
	s->stats.read_s += now_s() - t;
	return 0;
}

/* Reads, decodes and feeds new chunks batch by batch until none is left or
 * the poll's budget is spent (then s->behind says more is waiting). */
static int poll_blocks(struct session *s, double start, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	int rc = 0;
	s->behind = 0;
	for (size_t i = 0; i < s->n_src; i++)
		s->src[i].drained = 0;
	for (;;) {
		struct session_batch *b = batch_next(s);
		if (batch_fill(s, b, err, errlen) != 0)
			return -1;
		if (!b->n_chunks)
			break;
		int full = b->n_blocks >= SESSION_BATCH_BLOCKS;
		int r = batch_feed(s, b, err, errlen);
		if (r < 0)
			return out_of_memory(s, err, errlen);
		rc |= r;
		load_report(s, 0);
		if (!full)
			break;
		if (s->budget_ns && (now_s() - start) * 1e9 >= (double)s->budget_ns) {
			s->behind = 1;
			break;
		}
	}
	L->edge = UINT64_MAX;
	for (size_t i = 0; i < s->n_src; i++)
		if (source_edge(&s->src[i]) < L->edge)
			L->edge = source_edge(&s->src[i]);
	if (release_kernels(s))
		return out_of_memory(s, err, errlen);
	return rc ? -1 : 0;
}

static int nvtx_to_model(void *ud, const struct smtop_nvtx *n)
{
	return model_add_nvtx(ud, n) == 0 ? 0 : 1;
}

void session_model_meta(const struct session *s, struct model *m)
{
	m->drops = s->info.drops_cupti + s->info.drops_ring + s->info.drops_blocks;
	m->drops_known = !s->info.is_nsys;
	m->threshold_ns = analysis_get_params(s->analysis)->blocking_threshold_ns;
	m->trimmed = 0;
	m->regs_maybe_patched = 0;
	m->ends_bounded = 0;
	for (size_t i = 0; i < s->n_src; i++) {
		m->trimmed |= s->src[i].info.trimmed != NULL;
		/* under the sanitizer the registers come from cuFuncGetAttribute:
		 * before or after the block patches, not told apart */
		m->regs_maybe_patched |= s->src[i].info.collector &&
					 !strcmp(s->src[i].info.collector, "sanitizer");
		m->ends_bounded |= s->src[i].info.block_ends && !strcmp(s->src[i].info.block_ends, "bound");
	}
	/* a model built again (a replay) bins on the loader's threads too */
	if (s->loader)
		model_set_pool(m, s->loader->pool);
}

/* The kernels' most blocks on one SM, as far as the analysis has found
 * them (it is the one place that counts them).  Returns 1 if any changed. */
static int most_to_model(struct session *s)
{
	size_t ks[256], n;
	int changed = 0;
	while ((n = analysis_most_changed(s->analysis, ks, 256)) > 0) {
		for (size_t i = 0; i < n; i++) {
			struct analysis_kernel_occupancy o;
			analysis_kernel_occupancy(s->analysis, ks[i], &o);
			long mk = model_find_kernel(s->model, o.pid, o.device_id, o.grid_id);
			if (mk >= 0 && model_kernel_most_per_sm(s->model, &s->model->kernels[mk]) !=
					       o.most_per_sm) {
				model_kernel_set_most_per_sm(s->model, (size_t)mk, o.most_per_sm);
				changed = 1;
			}
		}
		if (n < 256)
			break;
	}
	return changed;
}

/* Final events the model has not seen yet (when the analysis is not busy:
 * else at a later poll), NVTX ranges, then the model's own bookkeeping
 * (lanes sorted, ready times, events linked to kernels, bins). */
static int session_feed_model(struct session *s)
{
	struct session_loader *L = s->loader;
	int changed = 0;
	if (!L->athread_on || pthread_mutex_trylock(&L->alock) == 0) {
		size_t n = analysis_event_count(s->analysis);
		changed = n != s->events_fed;
		/* the stored episodes are the analysis' own (same key): shown once */
		if (s->stored_shown & RESULTS_EVENTS)
			s->events_fed = n;
		for (; s->events_fed < n; s->events_fed++)
			model_add_event(s->model, analysis_event(s->analysis, s->events_fed));
		changed |= most_to_model(s);
		if (L->athread_on)
			pthread_mutex_unlock(&L->alock);
	}
	for (size_t i = 0; i < s->n_src; i++) {
		struct session_source *src = &s->src[i];
		if (src->info.nvtx == src->nvtx_seen)
			continue;
		db_reader_nvtx(src->reader, src->nvtx_mark, UINT64_MAX, nvtx_to_model, s->model);
		src->nvtx_mark = s->latest_end;
		src->nvtx_seen = src->info.nvtx;
		changed = 1;
	}
	session_model_meta(s, s->model);
	/* a recording that ended (or was found abandoned) is not live, even while
	 * its blocks are still being read: the status line says how far instead */
	int live = !s->ended;
	if (s->model->live != live)
		changed = 1;
	s->model->live = live;
	s->model->loading = s->behind;
	s->model->load = s->load;
	double t = now_s();
	model_flush(s->model);
	s->stats.model_s += now_s() - t;
	/* every block is in the rings now: they draw what the summary did */
	if (!s->behind && s->model->summary_on) {
		model_summary_drop(s->model);
		changed = 1;
	}
	return changed;
}

static int loader_failed(struct session *s, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	int failed;
	pthread_mutex_lock(&L->qlock);
	failed = L->a_failed;
	s->stats.analysis_s = L->a_seconds;
	pthread_mutex_unlock(&L->qlock);
	if (failed)
		snprintf(err, errlen, "%s: out of memory in the analysis", s->path);
	return failed;
}

/* Devices, streams, requests and the new kernels (held back) of one file;
 * a finished session shown with a budget reads its kernels a slice a poll
 * (*more set while some are left).  Returns 0 or -1 (err set). */
static int poll_source(struct session *s, size_t i, int *changed, int *more, char *err,
		       size_t errlen)
{
	struct session_source *src = &s->src[i];
	int64_t km = src->kernel_mark;
	int sliced = s->show_stored && s->budget_ns && all_ended(s);
	uint64_t before = s->loader->kernels_read;
	feed_devices(s, src);
	s->loader->cur_src = i;
	/* kernels, as blocks, go only to the analysis and the model */
	int no_kernels = s->analysis_off && !s->model;
	if (poll_small_tables(s, src, changed) != 0 ||
	    (!no_kernels && db_reader_new_kernels_max(src->reader, &src->kernel_mark,
						      sliced ? SESSION_KERNEL_SLICE : -1,
						      hold_kernel, s) != 0))
		return read_error(src, err, errlen);
	*changed |= km != src->kernel_mark;
	if (sliced && s->loader->kernels_read - before == SESSION_KERNEL_SLICE)
		*more = 1;
	return 0;
}

int session_poll(struct session *s, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	double start = now_s();
	if (session_read_info(s, err, errlen) != 0)
		return -1;
	load_report(s, 0);
	int changed = s->stored_events_more;
	results_more(s);
	if (s->model)
		model_set_pool(s->model, L->pool);
	int64_t bm[SESSION_MAX_SOURCES];
	int more_kernels = 0;
	for (size_t i = 0; i < s->n_src; i++) {
		bm[i] = s->src[i].block_mark;
		if (poll_source(s, i, &changed, &more_kernels, err, errlen) != 0)
			return -1;
	}
	/* blocks follow every kernel, as when they are all read at once */
	/* blocks go only to the analysis and the model */
	int no_blocks = s->analysis_off && !s->model;
	int rc = more_kernels || no_blocks ? 0 : poll_blocks(s, start, err, errlen);
	if (more_kernels)
		s->behind = 1;
	if (!s->behind && rc == 0)
		load_report(s, 1);
	for (size_t i = 0; i < s->n_src; i++)
		changed |= bm[i] != s->src[i].block_mark;
	/* An Nsight Systems export is complete; every smtop file must have ended. */
	s->ended = 1;
	for (size_t i = 0; i < s->n_src; i++)
		s->ended = s->ended && (s->src[i].info.ended || s->src[i].info.is_nsys);
	uint64_t mark = ANALYSIS_WATERMARK_ALL;
	if (!s->ended || s->behind) {
		/* never past a file whose blocks are still being read */
		uint64_t edge = s->latest_end < L->edge ? s->latest_end : L->edge;
		mark = edge > SESSION_LIVE_SLACK_NS ? edge - SESSION_LIVE_SLACK_NS : 0;
	}
	int due = changed || !L->marked || mark != L->last_mark;
	/* a finished session read a poll at a time: each update indexes every
	 * kernel again (thousands of polls, 806 k kernels: an hour), so it
	 * waits until the mark has moved a 32nd of the session */
	uint64_t step = s->info.t_last > s->info.t_first ?
		(s->info.t_last - s->info.t_first) / SESSION_UPDATES : 0;
	if (due && s->ended && s->behind && L->marked && mark < L->last_mark + step)
		due = 0;
	if (due) {
		op_submit(s, (struct session_op){ .kind = OP_UPDATE, .mark = mark });
		L->last_mark = mark;
		L->marked = 1;
	}
	if (!s->budget_ns)
		session_sync(s);
	if (s->model)
		changed |= session_feed_model(s);
	if (rc < 0 || loader_failed(s, err, errlen))
		return -1;
	if (s->ended && !s->behind && !L->trimmed)
		loader_trim(s);
	return changed;
}

int session_blocks(struct session *s, uint64_t t0, uint64_t t1, db_block_fn fn, void *ud)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_blocks(s->src[i].reader, t0, t1, fn, ud) != 0)
			return -1;
	return 0;
}

int session_kernels(struct session *s, uint64_t t0, uint64_t t1, db_kernel_fn fn, void *ud)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_kernels(s->src[i].reader, t0, t1, fn, ud) != 0)
			return -1;
	return 0;
}

/* The kernel record of a model kernel, for its correlation id. */
struct focus_record {
	uint32_t pid, device_id;
	uint64_t grid_id, start;
	uint32_t correlation_id;
};

static int focus_kernel_record(void *ud, const struct smtop_kernel *k)
{
	struct focus_record *f = ud;
	if (k->grid_id == f->grid_id && k->pid == f->pid && k->device_id == f->device_id &&
	    k->start == f->start)
		f->correlation_id = k->correlation_id;
	return 0;
}

/* The blocks of one grid that the model has: the SMs they ran on, and the
 * most of them on one SM at once (counted as the analysis counts it). */
struct focus_grid {
	uint32_t pid, device_id;
	uint64_t grid_id, last;
	uint64_t mask[MODEL_MAX_SMS / 64];
	struct residency res;
	int most;                       /* -1: out of memory */
};

static int focus_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct focus_grid *g = ud;
	(void)ctx;
	if (b->grid_id != g->grid_id || pid != g->pid || b->device_id != g->device_id ||
	    b->start > g->last || b->sm >= MODEL_MAX_SMS)
		return 0;
	g->mask[b->sm / 64] |= 1ULL << (b->sm % 64);
	if (g->most >= 0)
		g->most = residency_add(&g->res, b->sm, pid, 0, b->start, b->end, g->most);
	return 0;
}

/* Where session_focus_more is: the kernel, what its blocks gave so far, and
 * the walk through each file's chunks over its window. */
struct session_focus {
	struct model *m;
	long k;
	uint64_t first;
	struct focus_grid g;
	size_t src;
	struct db_block_walk w;
};

static void focus_end(struct session *s)
{
	if (!s->focus)
		return;
	residency_free(&s->focus->g.res);
	free(s->focus);
	s->focus = NULL;
}

int session_focus_start(struct session *s, struct model *m, long k)
{
	focus_end(s);
	model_focus_kernel(m, -1, 0, 0, 0, 0);
	if (k < 0 || (size_t)k >= m->n_kernels)
		return 0;
	struct session_focus *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	const struct model_kernel *mk = &m->kernels[k];
	const struct model_stream *st = &m->streams[mk->stream];
	f->m = m;
	f->k = k;
	f->first = model_kernel_first_block(m, mk);
	f->g.pid = st->pid;
	f->g.device_id = st->device_id;
	f->g.grid_id = model_kernel_grid(m, mk);
	f->g.last = model_kernel_last_block(m, mk);
	residency_init(&f->g.res);
	if (f->first && f->g.last >= f->first)
		db_reader_walk_begin(&f->w, f->first, f->g.last + 1);
	else
		f->src = s->n_src; /* no blocks: nothing to walk */
	s->focus = f;
	return 0;
}

/* The walk is through: the kernel's correlation id, and the focus set. */
static int focus_finish(struct session *s)
{
	struct session_focus *f = s->focus;
	struct model *m = f->m;
	if ((size_t)f->k >= m->n_kernels) {
		focus_end(s); /* the model was built again meanwhile (a replay's step back) */
		return 0;
	}
	const struct model_kernel *mk = &m->kernels[f->k];
	uint32_t n = 0;
	for (size_t i = 0; i < MODEL_MAX_SMS / 64; i++)
		n += (uint32_t)__builtin_popcountll(f->g.mask[i]);
	struct focus_record rec = { f->g.pid, f->g.device_id, f->g.grid_id, mk->start, 0 };
	int rc = session_kernels(s, mk->start, mk->start + 1, focus_kernel_record, &rec);
	if (rc == 0) {
		model_focus_kernel(m, f->k, model_kernel_blocks_seen(m, mk), 1, n, rec.correlation_id);
		m->focus.most_per_sm = f->g.most > 0 ? (uint32_t)f->g.most : 0;
	}
	focus_end(s);
	return rc;
}

int session_focus_more(struct session *s, size_t max_chunks)
{
	struct session_focus *f = s->focus;
	if (!f)
		return 0;
	while (f->src < s->n_src) {
		int r = db_reader_walk_blocks(s->src[f->src].reader, &f->w, max_chunks, focus_block,
					      &f->g);
		if (r < 0) {
			focus_end(s);
			return -1;
		}
		if (r > 0)
			return 1;
		/* this file is through: the same window in the next */
		f->src++;
		db_reader_walk_begin(&f->w, f->w.t0, f->w.t1);
	}
	return focus_finish(s) == 0 ? 0 : -1;
}

int session_focus_kernel(struct session *s, struct model *m, long k)
{
	if (session_focus_start(s, m, k) != 0)
		return -1;
	int r;
	while ((r = session_focus_more(s, SESSION_DETAIL_CHUNKS)) > 0)
		;
	return r;
}

int session_focus_event(struct session *s, struct model *m, long e)
{
	struct smtop_culprit *c;
	size_t n;
	char err[512];
	if (e < 0 || (size_t)e >= m->n_events)
		return 0;
	if (db_events_culprits(session_results_path(s), &m->events[e].ev, &c, &n, err,
			       sizeof err) != 0)
		return -1;
	model_focus_culprits(m, e, c, n);
	return 0;
}

const char *session_short_name(struct session *s, const char *name)
{
	for (size_t i = 0; i < s->n_src; i++) {
		const char *sn = db_reader_short_name(s->src[i].reader, name);
		if (sn != name)
			return sn;
	}
	return name;
}

const char *session_results_path(const struct session *s)
{
	return s->results_path ? s->results_path : s->path;
}

int session_store_events(struct session *s, const char *to, char *err, size_t errlen)
{
	if (s->n_src != 1 || s->info.is_nsys)
		return 1;
	session_sync(s);
	size_t n = analysis_event_count(s->analysis);
	struct smtop_event *ev = n ? calloc(n, sizeof *ev) : NULL;
	if (n && !ev)
		return out_of_memory(s, err, errlen);
	for (size_t i = 0; i < n; i++)
		ev[i] = *analysis_event(s->analysis, i);
	char params[256];
	struct db_summary_key key;
	int nsys;
	if (db_summary_key_of(s->path, &key, &nsys, err, errlen) != 0) {
		free(ev);
		return -1;
	}
	results_events_params(s, &key, params, sizeof params);
	int rc = db_events_store(to, ev, n, params, err, errlen);
	free(ev);
	return rc;
}

static int detail_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	(void)ctx;
	return model_detail_add_block(ud, b, pid) == 0 ? 0 : 1;
}

int session_fill_detail(struct session *s, uint64_t t0, uint64_t t1)
{
	model_detail_begin(s->model, t0, t1);
	int rc = session_blocks(s, t0, t1, detail_block, s->model);
	model_detail_end(s->model);
	return rc;
}

void session_detail_start(struct session *s, uint64_t t0, uint64_t t1)
{
	s->detail.src = 0;
	db_reader_walk_begin(&s->detail.w, t0, t1);
}

int session_detail_more(struct session *s, size_t max_chunks)
{
	while (s->detail.src < s->n_src) {
		int r = db_reader_walk_blocks(s->src[s->detail.src].reader, &s->detail.w, max_chunks,
					      detail_block, s->model);
		if (r != 0)
			return r;
		/* this file is through: the same window in the next */
		s->detail.src++;
		db_reader_walk_begin(&s->detail.w, s->detail.w.t0, s->detail.w.t1);
	}
	return 0;
}

int session_use_stored(struct session *s, char *err, size_t errlen)
{
	struct findings f;
	if (s->n_src != 1 || s->findings)
		return s->findings != NULL;
	int rc = results_report_load(s->path, analysis_get_params(s->analysis), &f, err, errlen);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	s->findings = malloc(sizeof *s->findings);
	if (!s->findings) {
		findings_free(&f);
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -1;
	}
	*s->findings = f;
	s->analysis_off = 1;
	return 1;
}

static void episodes_read(struct session *s)
{
	char params[256], err[512];
	s->episodes_read = 1;
	if (s->findings || session_use_stored(s, err, sizeof err) == 1) {
		s->episodes = s->findings->events;
		s->n_episodes = s->findings->n_events;
		return;
	}
	if (db_events_load(session_results_path(s), &s->episodes, &s->n_episodes, params,
			   sizeof params, err, sizeof err) != 0) {
		s->episodes = NULL;
		s->n_episodes = 0;
		return;
	}
	if (s->n_episodes)
		qsort(s->episodes, s->n_episodes, sizeof *s->episodes, analysis_event_cmp);
}

size_t session_event_count(struct session *s)
{
	if (!s->analysis_off)
		return analysis_event_count(s->analysis);
	if (!s->episodes_read)
		episodes_read(s);
	return s->n_episodes;
}

const struct smtop_event *session_event(struct session *s, size_t i)
{
	if (!s->analysis_off)
		return analysis_event(s->analysis, i);
	return i < session_event_count(s) ? &s->episodes[i] : NULL;
}

void session_close(struct session *s)
{
	focus_end(s);
	if (s->findings) {
		findings_free(s->findings);
		free(s->findings);
	} else if (s->episodes) {
		db_events_free(s->episodes, s->n_episodes);
	}
	free(s->results_path);
	loader_free(s->loader);
	if (s->analysis)
		analysis_free(s->analysis);
	for (size_t i = 0; i < s->n_src; i++)
		if (s->src[i].reader)
			db_reader_close(s->src[i].reader);
	free(s->devices);
	free(s->processes);
	memset(s, 0, sizeof *s);
}
