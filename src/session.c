#include "src/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/events.h"
#include "src/analysis.h"
#include "src/model.h"

/* Kernel records reach the file up to a flush period late and out of order
 * across streams; a live session's verdicts wait this long behind the data. */
#define SESSION_LIVE_SLACK_NS 500000000ull

static int feed_kernel(void *ud, const struct smtop_kernel *k)
{
	struct session *s = ud;
	if (k->end > s->latest_end)
		s->latest_end = k->end;
	if (s->model && model_add_kernel(s->model, k) != 0)
		return 1;
	return analysis_add_kernel(s->analysis, k) == 0 ? 0 : 1;
}

static int feed_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct session *s = ud;
	if (b->end > s->latest_end)
		s->latest_end = b->end;
	if (s->model && model_add_block(s->model, b, pid, ctx) != 0)
		return 1;
	return analysis_add_block(s->analysis, pid, ctx, b) == 0 ? 0 : 1;
}

static int feed_stream(void *ud, const struct smtop_stream *st)
{
	struct session *s = ud;
	if (s->model && model_add_stream(s->model, st) != 0)
		return 1;
	return analysis_add_stream(s->analysis, st) == 0 ? 0 : 1;
}

static int feed_request(void *ud, const struct smtop_request *r)
{
	struct session *s = ud;
	return analysis_add_request(s->analysis, r) == 0 ? 0 : 1;
}

static void feed_devices(struct session *s, struct session_source *src)
{
	for (size_t i = src->devices_seen; i < src->info.n_devices; i++) {
		analysis_add_device(s->analysis, &src->info.devices[i]);
		/* The view draws one GPU: the first one recorded. */
		if (s->model && !s->model_device_set &&
		    model_set_device(s->model, &src->info.devices[i]) == 0)
			s->model_device_set = 1;
	}
	src->devices_seen = src->info.n_devices;
}

int session_open_many(struct session *s, const char *const *paths, size_t n,
		      const struct analysis_params *p, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
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
	if (!s->analysis) {
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

/* Streams and requests are few; re-read them only when their counts move. */
static int poll_small_tables(struct session *s, struct session_source *src, int *changed)
{
	if (src->info.streams != src->streams_seen) {
		if (db_reader_streams(src->reader, feed_stream, s) != 0)
			return -1;
		src->streams_seen = src->info.streams;
		*changed = 1;
	}
	if (src->info.requests != src->requests_seen) {
		if (db_reader_requests(src->reader, feed_request, s) != 0)
			return -1;
		src->requests_seen = src->info.requests;
		*changed = 1;
	}
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
}

/* Final events and NVTX ranges the model has not seen yet, then the model's
 * own bookkeeping (lanes sorted, ready times, events linked to kernels). */
static int session_feed_model(struct session *s)
{
	size_t n = analysis_event_count(s->analysis);
	int changed = n != s->events_fed;
	for (; s->events_fed < n; s->events_fed++)
		model_add_event(s->model, analysis_event(s->analysis, s->events_fed));
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
	/* the recording ended (or was found abandoned): "LIVE" must go */
	if (s->model->live != !s->ended)
		changed = 1;
	s->model->live = !s->ended;
	model_flush(s->model);
	return changed;
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	if (want <= *cap)
		return 0;
	size_t c = *cap ? *cap : 4;
	while (c < want)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

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
	m->nvtx += f->nvtx;
	m->streams += f->streams;
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
		if (grow((void **)&s->devices, dcap, m->n_devices + 1, sizeof *s->devices))
			return -1;
		s->devices[m->n_devices++] = f->devices[i];
		m->devices = s->devices;
	}
	if (f->n_processes && grow((void **)&s->processes, pcap, m->n_processes + f->n_processes,
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
	m->clock_offset_ns = first->clock_offset_ns;
	m->clock_offset_known = first->clock_offset_known;
	m->nsys_schema = first->nsys_schema;
	m->nsys_product = first->nsys_product;
	m->ended = m->ended_clean = m->is_nsys = 1;
	for (size_t i = 0; i < s->n_src; i++)
		if (merge_info(s, &s->src[i].info, &dcap, &pcap) != 0) {
			snprintf(err, errlen, "%s: out of memory", s->path);
			return -1;
		}
	return 0;
}

static int poll_source(struct session *s, struct session_source *src, int *changed)
{
	int64_t km = src->kernel_mark, bm = src->block_mark;
	feed_devices(s, src);
	if (poll_small_tables(s, src, changed) != 0 ||
	    db_reader_new_kernels(src->reader, &src->kernel_mark, feed_kernel, s) != 0 ||
	    db_reader_new_blocks(src->reader, &src->block_mark, feed_block, s) != 0)
		return -1;
	*changed |= km != src->kernel_mark || bm != src->block_mark;
	return 0;
}

int session_poll(struct session *s, char *err, size_t errlen)
{
	if (session_read_info(s, err, errlen) != 0)
		return -1;
	int changed = 0;
	for (size_t i = 0; i < s->n_src; i++)
		if (poll_source(s, &s->src[i], &changed) != 0)
			return read_error(&s->src[i], err, errlen);
	/* An Nsight Systems export is complete; every smtop file must have ended. */
	s->ended = 1;
	for (size_t i = 0; i < s->n_src; i++)
		s->ended = s->ended && (s->src[i].info.ended || s->src[i].info.is_nsys);
	uint64_t mark = ANALYSIS_WATERMARK_ALL;
	if (!s->ended)
		mark = s->latest_end > SESSION_LIVE_SLACK_NS ? s->latest_end - SESSION_LIVE_SLACK_NS : 0;
	if (changed || s->ended)
		analysis_update(s->analysis, mark);
	if (s->model)
		changed |= session_feed_model(s);
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

const char *session_short_name(struct session *s, const char *name)
{
	for (size_t i = 0; i < s->n_src; i++) {
		const char *sn = db_reader_short_name(s->src[i].reader, name);
		if (sn != name)
			return sn;
	}
	return name;
}

int session_store_events(struct session *s, char *err, size_t errlen)
{
	if (s->n_src != 1 || s->info.is_nsys)
		return 1;
	size_t n = analysis_event_count(s->analysis);
	struct smtop_event *ev = n ? calloc(n, sizeof *ev) : NULL;
	if (n && !ev) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		ev[i] = *analysis_event(s->analysis, i);
	char params[64];
	snprintf(params, sizeof params, "threshold_us=%.3f",
		 (double)analysis_get_params(s->analysis)->blocking_threshold_ns / 1e3);
	int rc = db_events_store(s->path, ev, n, params, err, errlen);
	free(ev);
	return rc;
}

static int detail_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	return model_detail_add_block(ud, b, pid, ctx) == 0 ? 0 : 1;
}

int session_fill_detail(struct session *s, uint64_t t0, uint64_t t1)
{
	model_detail_begin(s->model, t0, t1);
	int rc = session_blocks(s, t0, t1, detail_block, s->model);
	model_detail_end(s->model);
	return rc;
}

void session_close(struct session *s)
{
	if (s->analysis)
		analysis_free(s->analysis);
	for (size_t i = 0; i < s->n_src; i++)
		if (s->src[i].reader)
			db_reader_close(s->src[i].reader);
	free(s->devices);
	free(s->processes);
	memset(s, 0, sizeof *s);
}
