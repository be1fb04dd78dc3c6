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

static void feed_devices(struct session *s)
{
	for (size_t i = s->devices_seen; i < s->info.n_devices; i++) {
		analysis_add_device(s->analysis, &s->info.devices[i]);
		/* The view draws one GPU: the first one recorded. */
		if (s->model && i == 0)
			model_set_device(s->model, &s->info.devices[i]);
	}
	s->devices_seen = s->info.n_devices;
}

int session_open(struct session *s, const char *path, const struct analysis_params *p,
		 char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	if (db_reader_open(&s->reader, path, err, errlen) != 0)
		return -1;
	s->analysis = analysis_new(p);
	if (!s->analysis) {
		snprintf(err, errlen, "%s: out of memory", path);
		session_close(s);
		return -1;
	}
	return 0;
}

static int read_error(struct session *s, char *err, size_t errlen)
{
	/* the reader's message already names the file */
	snprintf(err, errlen, "%s", db_reader_error(s->reader));
	return -1;
}

/* Streams and requests are few; re-read them only when their counts move. */
static int poll_small_tables(struct session *s, int *changed)
{
	if (s->info.streams != s->streams_seen) {
		if (db_reader_streams(s->reader, feed_stream, s) != 0)
			return -1;
		s->streams_seen = s->info.streams;
		*changed = 1;
	}
	if (s->info.requests != s->requests_seen) {
		if (db_reader_requests(s->reader, feed_request, s) != 0)
			return -1;
		s->requests_seen = s->info.requests;
		*changed = 1;
	}
	return 0;
}

static int nvtx_to_model(void *ud, const struct smtop_nvtx *n)
{
	return model_add_nvtx(ud, n) == 0 ? 0 : 1;
}

/* Final events and NVTX ranges the model has not seen yet, then the model's
 * own bookkeeping (lanes sorted, ready times, events linked to kernels). */
static int session_feed_model(struct session *s)
{
	size_t n = analysis_event_count(s->analysis);
	int changed = n != s->events_fed;
	for (; s->events_fed < n; s->events_fed++)
		model_add_event(s->model, analysis_event(s->analysis, s->events_fed));
	if (s->info.nvtx != s->nvtx_seen) {
		db_reader_nvtx(s->reader, s->nvtx_mark, UINT64_MAX, nvtx_to_model, s->model);
		s->nvtx_mark = s->latest_end;
		s->nvtx_seen = s->info.nvtx;
		changed = 1;
	}
	s->model->drops = s->info.drops_cupti + s->info.drops_ring + s->info.drops_blocks;
	s->model->drops_known = !s->info.is_nsys;
	/* the recording ended (or was found abandoned): "LIVE" must go */
	if (s->model->live != !s->ended)
		changed = 1;
	s->model->live = !s->ended;
	s->model->threshold_ns = analysis_get_params(s->analysis)->blocking_threshold_ns;
	model_flush(s->model);
	return changed;
}

int session_poll(struct session *s, char *err, size_t errlen)
{
	if (db_reader_info(s->reader, &s->info) != 0)
		return read_error(s, err, errlen);
	int changed = 0;
	feed_devices(s);
	int64_t km = s->kernel_mark, bm = s->block_mark;
	if (poll_small_tables(s, &changed) != 0 ||
	    db_reader_new_kernels(s->reader, &s->kernel_mark, feed_kernel, s) != 0 ||
	    db_reader_new_blocks(s->reader, &s->block_mark, feed_block, s) != 0)
		return read_error(s, err, errlen);
	changed |= km != s->kernel_mark || bm != s->block_mark;
	s->ended = s->info.ended || s->info.is_nsys;
	uint64_t mark = ANALYSIS_WATERMARK_ALL;
	if (!s->ended)
		mark = s->latest_end > SESSION_LIVE_SLACK_NS ? s->latest_end - SESSION_LIVE_SLACK_NS : 0;
	if (changed || s->ended)
		analysis_update(s->analysis, mark);
	if (s->model)
		changed |= session_feed_model(s);
	return changed;
}

int session_store_events(struct session *s, char *err, size_t errlen)
{
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

void session_close(struct session *s)
{
	if (s->analysis)
		analysis_free(s->analysis);
	if (s->reader)
		db_reader_close(s->reader);
	memset(s, 0, sizeof *s);
}
