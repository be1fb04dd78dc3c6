#include "db/session/session.h"
#include "db/session/session_state.h"

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
#include "db/session/results.h"

static double clock_s(clockid_t which)
{
	struct timespec ts;
	clock_gettime(which, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double session_now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* The analysis' cost as CPU time of its thread: true on a busy machine too. */
double session_thread_cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
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
uint64_t session_source_edge(const struct session_source *src)
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
 * releases, not a pass over every held kernel.  They go out in the order
 * read, as in session_release_kernels. */
static int release_indexed(struct session *s)
{
	struct session_loader *L = s->loader;
	if (L->n_order != L->n_held && held_reindex(L) != 0)
		return -1;
	uint64_t upto = session_source_edge(&s->src[0]);
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
int session_release_kernels(struct session *s)
{
	struct session_loader *L = s->loader;
	if (s->n_src == 1 && (L->n_order || L->n_held >= SESSION_HELD_INDEXED))
		return release_indexed(s);
	size_t keep = 0;
	for (size_t i = 0; i < L->n_held; i++) {
		uint64_t upto = session_source_edge(&s->src[L->held[i].src]);
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

/* One more record of the small table or batch being read, for one op. */
static int collect(struct session_loader *L, const void *rec, size_t size)
{
	if (array_grow(&L->small, &L->cap_small, (L->n_small + 1) * size, 1))
		return 1;
	memcpy((char *)L->small + L->n_small * size, rec, size);
	L->n_small++;
	return 0;
}

static int feed_stream(void *ud, const struct smtop_stream *st)
{
	struct session *s = ud;
	struct session_loader *L = s->loader;
	if (s->model && model_add_stream(s->model, st) != 0)
		return 1;
	return collect(L, st, sizeof *st);
}

static int feed_context(void *ud, const struct smtop_context *c)
{
	return collect(((struct session *)ud)->loader, c, sizeof *c);
}

static int feed_request(void *ud, const struct smtop_request *r)
{
	return collect(((struct session *)ud)->loader, r, sizeof *r);
}


/* Copies, memsets, waits and API calls go to the analysis as read: what
 * bounds a kernel's ready time started before it, so it never runs ahead of
 * the kernels. */
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
	return session_loader_submit(s, op);
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
		session_loader_submit(s, op);
	}
	src->devices_seen = src->info.n_devices;
	if (s->model && !s->model_device_set) {
		s->model_device_set = session_model_gpu(s, s->model) == 1;
		/* before any kernel or block: the stored bins count from the origin
		 * they were made with */
		if (s->model_device_set && s->show_stored) {
			struct results_source rs = session_results_source(s);
			s->stored_shown = results_show(&rs, s->model, &s->stored);
		}
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
void session_load_report(struct session *s, int done)
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
 * freed (docs/performance.md, "Memory"). */
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
		s->loader = session_loader_new(s->analysis);
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

int session_read_error(struct session_source *src, char *err, size_t errlen)
{
	/* the reader's message already names the file */
	snprintf(err, errlen, "%s", db_reader_error(src->reader));
	return -1;
}

int session_out_of_memory(struct session *s, char *err, size_t errlen)
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

/* The rows of a small table (contexts, streams or requests) into L->small. */
static int read_small(struct session *s, struct session_source *src, enum session_op_kind kind)
{
	switch (kind) {
	case OP_CONTEXTS:
		return db_reader_contexts(src->reader, feed_context, s);
	case OP_STREAMS:
		return db_reader_streams(src->reader, feed_stream, s);
	default:
		return db_reader_requests(src->reader, feed_request, s);
	}
}

/* A small table read again, and handed to the analysis, when its row count
 * (rows) moved from what was read (*seen). */
static int poll_small(struct session *s, struct session_source *src, enum session_op_kind kind,
		      uint64_t rows, uint64_t *seen, int *changed)
{
	struct session_loader *L = s->loader;
	if (rows == *seen)
		return 0;
	L->n_small = 0;
	if (read_small(s, src, kind) != 0 ||
	    submit_collected(s, kind, &L->small, &L->n_small, &L->cap_small))
		return -1;
	*seen = rows;
	*changed = 1;
	return 0;
}

/* Streams, contexts and requests are few; re-read them only when their
 * counts move.  Contexts tell the analysis which are green, before the
 * kernels of their streams are judged. */
static int poll_small_tables(struct session *s, struct session_source *src, int *changed)
{
	if (poll_small(s, src, OP_CONTEXTS, src->info.contexts, &src->contexts_seen, changed) ||
	    poll_small(s, src, OP_STREAMS, src->info.streams, &src->streams_seen, changed) ||
	    poll_small(s, src, OP_REQUESTS, src->info.requests, &src->requests_seen, changed))
		return -1;
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
	m->kernels_unstarted += f->kernels_unstarted;
	m->kernels_unstarted_blocks += f->kernels_unstarted_blocks;
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
			return session_read_error(src, err, errlen);
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
			return session_out_of_memory(s, err, errlen);
	return 0;
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
		if (s->src[i].info.block_ends && !strcmp(s->src[i].info.block_ends, "bound"))
			m->ends_bounded |= s->src[i].info.entry_marks && !strcmp(s->src[i].info.entry_marks, "on")
						   ? MODEL_ENDS_BOUND_BUT_MARKED : MODEL_ENDS_BOUND;
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
	double t = session_now_s();
	model_flush(s->model);
	s->stats.model_s += session_now_s() - t;
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
		return session_read_error(src, err, errlen);
	*changed |= km != src->kernel_mark;
	if (sliced && s->loader->kernels_read - before == SESSION_KERNEL_SLICE)
		*more = 1;
	return 0;
}

int session_poll(struct session *s, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	double start = session_now_s();
	if (session_read_info(s, err, errlen) != 0)
		return -1;
	session_load_report(s, 0);
	int changed = s->stored.more;
	struct results_source rs = session_results_source(s);
	results_more(&rs, s->model, &s->stored);
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
	int rc = more_kernels || no_blocks ? 0 : session_blocks_poll(s, start, err, errlen);
	if (more_kernels)
		s->behind = 1;
	if (!s->behind && rc == 0)
		session_load_report(s, 1);
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
	 * kernel again, which over thousands of polls costs more than the
	 * reading, so it waits until the mark has moved a 32nd of the session */
	uint64_t step = s->info.t_last > s->info.t_first ?
		(s->info.t_last - s->info.t_first) / SESSION_UPDATES : 0;
	if (due && s->ended && s->behind && L->marked && mark < L->last_mark + step)
		due = 0;
	if (due) {
		session_loader_submit(s, (struct session_op){ .kind = OP_UPDATE, .mark = mark });
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
		session_loader_trim(s);
	return changed;
}

/* A walk over source i failed: its reader's message says why. */
static int session_walk_failed(struct session *s, size_t i)
{
	s->read_error = db_reader_error(s->src[i].reader);
	return -1;
}

int session_blocks(struct session *s, uint64_t t0, uint64_t t1, db_block_fn fn, void *ud)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_blocks(s->src[i].reader, t0, t1, fn, ud) != 0)
			return session_walk_failed(s, i);
	return 0;
}

int session_kernels(struct session *s, uint64_t t0, uint64_t t1, db_kernel_fn fn, void *ud)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_kernels(s->src[i].reader, t0, t1, fn, ud) != 0)
			return session_walk_failed(s, i);
	return 0;
}

int session_unstarted_kernels(struct session *s, db_kernel_fn fn, void *ud)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_unstarted_kernels(s->src[i].reader, fn, ud) != 0)
			return session_walk_failed(s, i);
	return 0;
}

int session_nvtx(struct session *s, uint64_t t0, uint64_t t1, db_nvtx_fn fn, void *ud)
{
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_nvtx(s->src[i].reader, t0, t1, fn, ud) != 0)
			return session_walk_failed(s, i);
	return 0;
}

const char *session_walk_error(struct session *s, const char *what, char *buf, size_t len)
{
	if (s->read_error && s->read_error[0])
		return s->read_error;
	snprintf(buf, len, "%s: cannot read %s", s->path, what);
	return buf;
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
	return results_feed_path(&s->stored, s->path);
}

struct results_source session_results_source(const struct session *s)
{
	return (struct results_source){
		.path = s->path,
		.single_finished = s->n_src == 1 && !s->info.is_nsys && s->info.ended,
		.threshold_ns = analysis_get_params(s->analysis)->blocking_threshold_ns,
	};
}

int session_store_events(struct session *s, const char *to, char *err, size_t errlen)
{
	if (s->n_src != 1 || s->info.is_nsys)
		return 1;
	session_sync(s);
	size_t n = analysis_event_count(s->analysis);
	struct smtop_event *ev = n ? calloc(n, sizeof *ev) : NULL;
	if (n && !ev)
		return session_out_of_memory(s, err, errlen);
	for (size_t i = 0; i < n; i++)
		ev[i] = *analysis_event(s->analysis, i);
	char params[256];
	struct db_summary_key key;
	int nsys;
	if (db_summary_key_of(s->path, &key, &nsys, err, errlen) != 0) {
		free(ev);
		return -1;
	}
	results_events_params(analysis_get_params(s->analysis)->blocking_threshold_ns, &key, params,
			      sizeof params);
	int rc = db_events_store(to, ev, n, params, err, errlen);
	free(ev);
	return rc;
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
	session_focus_end(s);
	if (s->findings) {
		findings_free(s->findings);
		free(s->findings);
	} else if (s->episodes) {
		db_events_free(s->episodes, s->n_episodes);
	}
	free(s->stored.path);
	session_loader_free(s->loader);
	if (s->analysis)
		analysis_free(s->analysis);
	for (size_t i = 0; i < s->n_src; i++)
		if (s->src[i].reader)
			db_reader_close(s->src[i].reader);
	free(s->devices);
	free(s->processes);
	memset(s, 0, sizeof *s);
}
