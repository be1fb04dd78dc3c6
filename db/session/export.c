#include "db/session/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/core/analysis.h"
#include "src/core/array.h"
#include "src/core/clock.h"
#include "src/core/json.h"
#include "src/core/order.h"
#include "src/core/u64map.h"
#include "db/session/session.h"

/* Track ids of the Perfetto trace: streams and events are one process each;
 * every SM is a process of its own whose threads are slots (blocks resident
 * at once on one SM overlap, and a trace-event thread holds only nested
 * slices). */
#define PID_STREAMS 1
#define PID_EVENTS 2
#define PID_NVTX 3
#define PID_SM_BASE 16
#define SMS_PER_DEVICE 1024
#define MAX_CULPRITS_LISTED 8

/* ---- what the exporter remembers: streams and kernels, never blocks ---- */

struct xstream {
	uint32_t pid, device_id, context_id, stream_id;
	int32_t priority;
	int tid;                        /* Perfetto thread id, 0 until written */
};

struct xkernel {
	uint32_t pid, device_id;
	uint64_t grid_id;
	uint32_t stream;                /* index into streams */
	const char *short_name;
};

struct block_ref {
	struct smtop_block b;
	uint32_t pid, ctx;
};

struct lanes {
	uint64_t *end;                  /* end of the last slice in each lane */
	size_t n;
	int named;                      /* process metadata written */
};

struct exporter {
	struct session *s;
	FILE *out;
	struct export_window w;
	uint64_t origin;
	struct xstream *streams;
	size_t n_streams, cap_streams;
	struct xkernel *kernels;
	size_t cap_kernels, n_kernels;
	struct u64map kernel_idx;       /* records_kernel_key -> kernel */
	struct lanes *sms;              /* by device * SMS_PER_DEVICE + sm */
	size_t n_sms;
	struct lanes event_lanes;
	struct lanes nvtx_lanes;
	int several_devices, several_pids;
	int first_event;                /* no comma before the first trace event */
	struct block_ref *buf;          /* one window's blocks */
	size_t n_buf, cap_buf;
	int failed;
	char *err;
	size_t errlen;
	struct progress prog;           /* how far into the window the blocks are written */
	uint64_t blocks_since_report;
};

/* Blocks come in time order (per GPU), so the time reached is the share done. */
static void export_progress(struct exporter *x, uint64_t t)
{
	if (!x->prog.begun_ns)
		progress_begin(&x->prog, "writing the export", x->w.t1 - x->w.t0, clock_mono_ns());
	progress_report(&x->prog, &x->s->progress, t > x->w.t0 ? t - x->w.t0 : 0, clock_mono_ns());
}

static void export_progress_end(struct exporter *x)
{
	if (x->prog.begun_ns)
		progress_finish(&x->prog, &x->s->progress, clock_mono_ns());
}

static int fail(struct exporter *x, const char *what)
{
	if (!x->failed)
		snprintf(x->err, x->errlen, "%s", what);
	x->failed = 1;
	return -1;
}

/* A session walk failed: the reader's message names the file and why. */
static int fail_read(struct exporter *x, const char *what)
{
	char buf[512];

	return fail(x, session_walk_error(x->s, what, buf, sizeof buf));
}

static int fail_oom(struct exporter *x)
{
	char buf[512];

	snprintf(buf, sizeof buf, "%s: out of memory", x->s->path);
	return fail(x, buf);
}

static long stream_find(struct exporter *x, uint32_t pid, uint32_t dev, uint32_t ctx,
			uint32_t id, int create)
{
	for (size_t i = 0; i < x->n_streams; i++) {
		const struct xstream *s = &x->streams[i];
		if (s->pid == pid && s->device_id == dev && s->context_id == ctx && s->stream_id == id)
			return (long)i;
	}
	if (!create || array_grow((void **)&x->streams, &x->cap_streams, x->n_streams + 1,
			    sizeof *x->streams))
		return -1;
	x->streams[x->n_streams] = (struct xstream){ pid, dev, ctx, id, SMTOP_PRIORITY_UNKNOWN, 0 };
	if (x->n_streams && x->streams[0].pid != pid)
		x->several_pids = 1;
	return (long)x->n_streams++;
}

static int on_stream(void *ud, const struct smtop_stream *st)
{
	struct exporter *x = ud;
	long i = stream_find(x, st->pid, st->device_id, st->context_id, st->stream_id, 1);
	if (i < 0)
		return 1;
	x->streams[i].priority = st->priority;
	return 0;
}

static struct xkernel *kernel_slot(struct exporter *x, uint32_t pid, uint32_t dev, uint64_t grid)
{
	uint64_t key = records_kernel_key(pid, dev, grid);
	size_t pos = 0;
	for (const uint64_t *v; (v = u64map_next(&x->kernel_idx, key, &pos));) {
		struct xkernel *k = &x->kernels[*v];
		if (k->pid == pid && k->device_id == dev && k->grid_id == grid)
			return k;
	}
	return NULL;
}

/* The kernel of a block, when it has a name to show. */
static const struct xkernel *kernel_find(struct exporter *x, uint32_t pid, uint32_t dev,
					 uint64_t grid)
{
	const struct xkernel *k = kernel_slot(x, pid, dev, grid);
	return k && k->short_name ? k : NULL;
}

static long stream_of_kernel(struct exporter *x, const struct smtop_kernel *k)
{
	return stream_find(x, k->pid, k->device_id, k->context_id, k->stream_id, 1);
}

/* Blocks find their kernel (name, stream) by (pid, device, grid id): grid ids
 * are unique per device, and a green context's blocks come through the
 * primary context. */
static int index_kernel(void *ud, const struct smtop_kernel *k)
{
	struct exporter *x = ud;
	long si = stream_of_kernel(x, k);
	if (si < 0)
		return 1;
	if (!k->grid_id)
		return 0;
	struct xkernel *slot = kernel_slot(x, k->pid, k->device_id, k->grid_id);
	if (!slot) {
		if (array_grow((void **)&x->kernels, &x->cap_kernels, x->n_kernels + 1, sizeof *x->kernels) ||
		    u64map_add(&x->kernel_idx, records_kernel_key(k->pid, k->device_id, k->grid_id),
			       x->n_kernels))
			return 1;
		slot = &x->kernels[x->n_kernels++];
	}
	*slot = (struct xkernel){ k->pid, k->device_id, k->grid_id, (uint32_t)si,
				  session_short_name(x->s, k->name) };
	return 0;
}

static int exporter_init(struct exporter *x, struct session *s, FILE *out,
			 const struct export_window *w, char *err, size_t errlen)
{
	memset(x, 0, sizeof *x);
	x->s = s;
	x->out = out;
	x->w = *w;
	x->origin = s->info.t_first;
	x->err = err;
	x->errlen = errlen;
	x->first_event = 1;
	x->several_devices = s->info.n_devices > 1;
	for (size_t i = 0; i < s->n_src; i++)
		if (db_reader_streams(s->src[i].reader, on_stream, x) != 0)
			return fail(x, db_reader_error(s->src[i].reader));
	if (session_kernels(s, 0, INT64_MAX, index_kernel, x) != 0)
		return fail_read(x, "kernels");
	return 0;
}

static void exporter_free(struct exporter *x)
{
	for (size_t i = 0; i < x->n_sms; i++)
		free(x->sms[i].end);
	free(x->sms);
	free(x->event_lanes.end);
	free(x->nvtx_lanes.end);
	free(x->streams);
	free(x->kernels);
	u64map_free(&x->kernel_idx);
	free(x->buf);
}

/* [a, b) clipped to the window; 0 if nothing is left. */
static int clip(const struct exporter *x, uint64_t *a, uint64_t *b)
{
	if (*b < *a)
		*b = *a;
	if (*a >= x->w.t1 || *b < x->w.t0 || (*b == *a && *a < x->w.t0))
		return 0;
	if (*a < x->w.t0)
		*a = x->w.t0;
	if (*b > x->w.t1)
		*b = x->w.t1;
	return 1;
}

/* The first free lane (its last slice ended by start), or a new one. */
static int lane_take(struct lanes *l, uint64_t start, uint64_t end)
{
	size_t i;
	for (i = 0; i < l->n && l->end[i] > start; i++)
		;
	if (i == l->n) {
		uint64_t *p = realloc(l->end, (l->n + 1) * sizeof *p);
		if (!p)
			return -1;
		l->end = p;
		l->n++;
	}
	l->end[i] = end;
	return (int)i;
}

/* ---- JSON ---- */

/* Microseconds from the session start, exact to the nanosecond. */
static void json_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void json_prio(FILE *out, int32_t p)
{
	if (p == SMTOP_PRIORITY_UNKNOWN)
		fputs("null", out);
	else
		fprintf(out, "%" PRId32, p);
}

static void event_begin(struct exporter *x)
{
	fputs(x->first_event ? "\n" : ",\n", x->out);
	x->first_event = 0;
}

static void meta(struct exporter *x, const char *what, int pid, int tid, const char *name,
		 long sort)
{
	event_begin(x);
	fprintf(x->out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	json_write_str(x->out, name);
	fputs("}}", x->out);
	if (sort < 0)
		return;
	event_begin(x);
	fprintf(x->out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s_sort_index\","
		"\"args\":{\"sort_index\":%ld}}", pid, tid, what[0] == 'p' ? "process" : "thread", sort);
}

/* A complete slice; args (a JSON object body) may be NULL. */
static void slice_begin(struct exporter *x, int pid, int tid, uint64_t a, uint64_t b,
			const char *name)
{
	event_begin(x);
	fprintf(x->out, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
	json_us(x->out, a - x->origin);
	fputs(",\"dur\":", x->out);
	json_us(x->out, b - a);
	fputs(",\"name\":", x->out);
	json_write_str(x->out, name);
	fputs(",\"args\":{", x->out);
}

static const char *stream_label(const struct exporter *x, const struct xstream *s, char *buf,
				size_t len)
{
	char prio[32] = "priority N/A";
	if (s->priority != SMTOP_PRIORITY_UNKNOWN)
		snprintf(prio, sizeof prio, "priority %" PRId32, s->priority);
	if (x->several_pids || x->several_devices)
		snprintf(buf, len, "stream %" PRIu32 " (%s, pid %" PRIu32 ", GPU %" PRIu32 ")",
			 s->stream_id, prio, s->pid, s->device_id);
	else
		snprintf(buf, len, "stream %" PRIu32 " (%s)", s->stream_id, prio);
	return buf;
}

static int stream_rank_cmp(const void *pa, const void *pb, void *ud)
{
	const struct xstream *st = ud;
	const struct xstream *a = &st[*(const uint32_t *)pa], *b = &st[*(const uint32_t *)pb];
	if (a->priority != b->priority)
		return a->priority < b->priority ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->stream_id > b->stream_id) - (a->stream_id < b->stream_id);
}

static int stream_tid(struct exporter *x, uint32_t si)
{
	struct xstream *s = &x->streams[si];
	if (!s->tid) {
		char label[128];
		s->tid = (int)si + 1;
		meta(x, "thread_name", PID_STREAMS, s->tid, stream_label(x, s, label, sizeof label),
		     100000L + s->tid);
	}
	return s->tid;
}

static int write_kernel(void *ud, const struct smtop_kernel *k)
{
	struct exporter *x = ud;
	uint64_t a = k->start, b = k->end ? k->end : x->s->info.t_last;
	if (!clip(x, &a, &b))
		return 0;
	long si = stream_of_kernel(x, k);
	if (si < 0) {
		fail_oom(x);
		return 1;
	}
	int tid = stream_tid(x, (uint32_t)si);
	FILE *o = x->out;
	slice_begin(x, PID_STREAMS, tid, a, b, session_short_name(x->s, k->name));
	fprintf(o, "\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"registers\":%" PRIu32
		",\"static_smem\":%" PRIu32 ",\"dynamic_smem\":%" PRIu32 ",\"priority\":",
		k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
		k->registers, k->static_smem, k->dynamic_smem);
	json_prio(o, x->streams[si].priority);
	fputs(",\"queued_to_start_us\":", o);
	if (k->queued && k->queued <= k->start)
		json_us(o, k->start - k->queued);
	else
		fputs("null", o);
	fprintf(o, ",\"grid_id\":%" PRIu64 ",\"correlation_id\":%" PRIu32 ",\"pid\":%" PRIu32
		",\"stream\":%" PRIu32 ",\"kernel\":", k->grid_id, k->correlation_id, k->pid,
		k->stream_id);
	json_write_str(o, k->name);
	fputs("}}", o);
	return 0;
}

/* ---- blocks, one window at a time ---- */

static int collect_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct exporter *x = ud;
	if (array_grow((void **)&x->buf, &x->cap_buf, x->n_buf + 1, sizeof *x->buf)) {
		fail_oom(x);
		return 1;
	}
	x->buf[x->n_buf++] = (struct block_ref){ *b, pid, ctx };
	return 0;
}

static int block_ref_cmp(const void *pa, const void *pb)
{
	const struct smtop_block *a = &((const struct block_ref *)pa)->b;
	const struct smtop_block *b = &((const struct block_ref *)pb)->b;
	return order_keys((const uint64_t[]){ a->device_id, a->sm, a->start, a->end },
			  (const uint64_t[]){ b->device_id, b->sm, b->start, b->end }, 4);
}

static struct lanes *sm_lanes(struct exporter *x, uint32_t dev, uint32_t sm)
{
	size_t i = (size_t)dev * SMS_PER_DEVICE + sm;
	if (sm >= SMS_PER_DEVICE)
		return NULL;
	if (i >= x->n_sms) {
		struct lanes *p = realloc(x->sms, (i + 1) * sizeof *p);
		if (!p)
			return NULL;
		memset(p + x->n_sms, 0, (i + 1 - x->n_sms) * sizeof *p);
		x->sms = p;
		x->n_sms = i + 1;
	}
	return &x->sms[i];
}

static int sm_pid(uint32_t dev, uint32_t sm)
{
	return PID_SM_BASE + (int)(dev * SMS_PER_DEVICE + sm);
}

static int write_block(struct exporter *x, const struct block_ref *r)
{
	const struct smtop_block *b = &r->b;
	uint64_t a = b->start, e = b->end;
	if (!clip(x, &a, &e))
		return 0;
	struct lanes *l = sm_lanes(x, b->device_id, b->sm);
	if (!l)
		return fail_oom(x);
	int pid = sm_pid(b->device_id, b->sm);
	if (!l->named) {
		char name[48];
		if (x->several_devices)
			snprintf(name, sizeof name, "GPU %u SM %u", b->device_id, b->sm);
		else
			snprintf(name, sizeof name, "SM %u", b->sm);
		meta(x, "process_name", pid, 0, name, pid);
		l->named = 1;
	}
	size_t before = l->n;
	int lane = lane_take(l, a, e);
	if (lane < 0)
		return fail_oom(x);
	if (l->n != before) {
		char name[32];
		snprintf(name, sizeof name, "slot %d", lane);
		meta(x, "thread_name", pid, lane + 1, name, lane);
	}
	const struct xkernel *k = kernel_find(x, r->pid, b->device_id, b->grid_id);
	char fallback[48];
	if (!k)
		snprintf(fallback, sizeof fallback, "grid %" PRIu64, b->grid_id);
	slice_begin(x, pid, lane + 1, a, e, k ? k->short_name : fallback);
	fprintf(x->out, "\"grid_id\":%" PRIu64 ",\"block\":%" PRIu32 ",\"pid\":%" PRIu32
		",\"stream\":", b->grid_id, b->block, r->pid);
	if (k)
		fprintf(x->out, "%" PRIu32, x->streams[k->stream].stream_id);
	else
		fputs("null", x->out);
	fputs("}}", x->out);
	return 0;
}

/* Blocks starting in [w0, w1) (and, in the first window, those already
 * running at the window start), sorted by SM and start so every slot track
 * is written in time order. */
static int write_block_window(struct exporter *x, uint64_t w0, uint64_t w1)
{
	size_t n = 0;
	x->n_buf = 0;
	if (session_blocks(x->s, w0, w1, collect_block, x) != 0)
		return fail_read(x, "blocks");
	if (x->failed)
		return -1;
	for (size_t i = 0; i < x->n_buf; i++)
		if (x->buf[i].b.start >= w0 || w0 == x->w.t0)
			x->buf[n++] = x->buf[i];
	if (n) /* qsort takes no NULL array, even empty */
		qsort(x->buf, n, sizeof *x->buf, block_ref_cmp);
	for (size_t i = 0; i < n && !x->failed; i++)
		write_block(x, &x->buf[i]);
	return x->failed ? -1 : 0;
}

static int write_blocks(struct exporter *x)
{
	uint64_t step = (x->w.t1 - x->w.t0) / EXPORT_MAX_WINDOWS + 1;
	if (step < EXPORT_WINDOW_NS)
		step = EXPORT_WINDOW_NS;
	for (uint64_t w0 = x->w.t0; w0 < x->w.t1;) {
		uint64_t w1 = x->w.t1 - w0 > step ? w0 + step : x->w.t1;
		if (write_block_window(x, w0, w1) != 0)
			return -1;
		w0 = w1;
		export_progress(x, w0);
	}
	export_progress_end(x);
	return 0;
}

/* ---- scheduling events ---- */

static void write_culprit(struct exporter *x, const struct smtop_culprit *c)
{
	FILE *o = x->out;
	fputs("{\"kernel\":", o);
	json_write_str(o, c->name ? session_short_name(x->s, c->name) : NULL);
	fprintf(o, ",\"pid\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"priority\":", c->pid, c->stream_id);
	json_prio(o, c->priority);
	fprintf(o, ",\"weight\":%.4f,\"blocks\":", c->weight);
	if (c->blocks)
		fprintf(o, "%" PRIu32, c->blocks);
	else
		fputs("null", o);
	fputc('}', o);
}

static int write_event(struct exporter *x, const struct smtop_event *e)
{
	uint64_t a = e->ready, b = e->start;
	if (a < x->origin)
		a = x->origin;
	if (!clip(x, &a, &b))
		return 0;
	int lane = lane_take(&x->event_lanes, a, b);
	if (lane < 0)
		return fail_oom(x);
	for (; x->event_lanes.named <= lane; x->event_lanes.named++) {
		char label[48];
		int i = x->event_lanes.named;
		snprintf(label, sizeof label, i ? "episodes (overlapping %d)" : "episodes", i);
		meta(x, "thread_name", PID_EVENTS, i + 1, label, i);
	}
	char name[512];
	snprintf(name, sizeof name, "%s: %s", analysis_kind_name(e->kind),
		 e->name ? session_short_name(x->s, e->name) : "?");
	FILE *o = x->out;
	slice_begin(x, PID_EVENTS, lane + 1, a, b, name);
	fputs("\"kind\":", o);
	json_write_str(o, analysis_kind_name(e->kind));
	fputs(",\"wait_us\":", o);
	json_us(o, e->wait_ns);
	fprintf(o, ",\"from_blocks\":%s,\"pid\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"priority\":",
		e->from_blocks ? "true" : "false", e->pid, e->stream_id);
	json_prio(o, e->priority);
	fprintf(o, ",\"grid_id\":%" PRIu64 ",\"ready_ns\":%" PRIu64 ",\"ready_bound\":\"%s\"",
		e->grid_id, e->ready, analysis_bound_name(e->ready_bound));
	/* only where it is: exact sessions export as before */
	if (e->possible)
		fputs(",\"possible\":true", o);
	fputs(",\"culprits\":[", o);
	for (size_t i = 0; i < e->n_culprits && i < MAX_CULPRITS_LISTED; i++) {
		if (i)
			fputc(',', o);
		write_culprit(x, &e->culprits[i]);
	}
	fputs("]}}", o);
	return 0;
}

/* An NVTX range (a mark: a slice of no length) on the first NVTX lane it
 * fits, as the episodes have theirs: the workload's ranges and smtop's own
 * (its exact windows, the launches it dropped for want of room). */
static int write_nvtx(void *ud, const struct smtop_nvtx *n)
{
	struct exporter *x = ud;
	uint64_t a = n->start, b = n->end > n->start ? n->end : n->start;
	if (!clip(x, &a, &b))
		return 0;
	int lane = lane_take(&x->nvtx_lanes, a, b);
	if (lane < 0) {
		fail_oom(x);
		return 1;
	}
	for (; x->nvtx_lanes.named <= lane; x->nvtx_lanes.named++) {
		char label[48];
		int i = x->nvtx_lanes.named;
		snprintf(label, sizeof label, i ? "NVTX (overlapping %d)" : "NVTX", i);
		meta(x, "thread_name", PID_NVTX, i + 1, label, i);
	}
	FILE *o = x->out;
	slice_begin(x, PID_NVTX, lane + 1, a, b, n->text ? n->text : "");
	fputs("\"domain\":", o);
	if (n->domain)
		json_write_str(o, n->domain);
	else
		fputs("null", o);
	fprintf(o, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 "}}", n->pid, n->tid);
	return 0;
}

int export_window(const struct session *s, uint64_t from_ns, int has_to, uint64_t to_ns,
		  struct export_window *w, char *err, size_t errlen)
{
	uint64_t first = s->info.t_first, last = s->info.t_last;
	if (!first || last < first) {
		snprintf(err, errlen, "%s: no kernels or blocks to export", s->path);
		return -1;
	}
	w->t0 = first + from_ns;
	w->t1 = has_to && first + to_ns < last + 1 ? first + to_ns : last + 1;
	w->whole = !from_ns && !has_to;
	if (w->t0 >= w->t1) {
		snprintf(err, errlen, "%s: the window starts after the session's end (%.3f ms)",
			 s->path, (double)(last - first) / 1e6);
		return -1;
	}
	return 0;
}

int export_perfetto(struct session *s, FILE *out, const struct export_window *w,
		    char *err, size_t errlen)
{
	struct exporter x;
	int rc = exporter_init(&x, s, out, w, err, errlen);
	if (rc == 0) {
		fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", out);
		json_write_str(out, s->path);
		fprintf(out, ",\"origin_unix_ns\":%" PRIu64 ",\"threshold_us\":%.3f,", x.origin,
			(double)analysis_get_params(s->analysis)->blocking_threshold_ns / 1e3);
		/* what the trace misses, as smtop report's JSON says it */
		json_write_drops(out, !s->info.is_nsys, s->info.drops_blocks, s->info.drops_cupti, s->info.drops_ring);
		fputs("},\"traceEvents\":[", out);
		meta(&x, "process_name", PID_STREAMS, 0, "streams", 0);
		meta(&x, "process_name", PID_EVENTS, 0, "scheduling episodes", 1);
		meta(&x, "process_name", PID_NVTX, 0, "NVTX ranges", 2);
		/* stream tracks in priority order, whether or not they ran */
		uint32_t *order = malloc((x.n_streams ? x.n_streams : 1) * sizeof *order);
		if (!order)
			rc = fail_oom(&x);
		for (size_t i = 0; order && i < x.n_streams; i++)
			order[i] = (uint32_t)i;
		if (order)
			qsort_r(order, x.n_streams, sizeof *order, stream_rank_cmp, x.streams);
		for (size_t i = 0; order && i < x.n_streams; i++) {
			char label[128];
			struct xstream *st = &x.streams[order[i]];
			st->tid = (int)order[i] + 1;
			meta(&x, "thread_name", PID_STREAMS, st->tid,
			     stream_label(&x, st, label, sizeof label), (long)i);
		}
		free(order);
		if (rc == 0 && session_kernels(s, w->t0, w->t1, write_kernel, &x) != 0)
			rc = fail_read(&x, "kernels");
		for (size_t i = 0; rc == 0 && !x.failed && i < session_event_count(s); i++)
			write_event(&x, session_event(s, i));
		if (rc == 0 && !x.failed && session_nvtx(s, w->t0, w->t1, write_nvtx, &x) != 0)
			rc = fail_read(&x, "NVTX ranges");
		if (rc == 0 && !x.failed)
			rc = write_blocks(&x);
		fputs("\n]}\n", out);
	}
	if (x.failed || ferror(out))
		rc = -1;
	if (rc != 0 && !x.failed)
		snprintf(err, errlen, "cannot write: %s", strerror(errno ? errno : EIO));
	exporter_free(&x);
	return rc;
}

/* ---- CSV (RFC 4180) ---- */

static void csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_u64(FILE *out, uint64_t v, int known)
{
	if (known)
		fprintf(out, "%" PRIu64, v);
}

static void csv_prio(FILE *out, int32_t p)
{
	if (p != SMTOP_PRIORITY_UNKNOWN)
		fprintf(out, "%" PRId32, p);
}

struct csv {
	struct exporter x;
	FILE *kernels, *blocks, *events, *nvtx;
	uint64_t n_kernels, n_blocks, n_events;
};

static int csv_kernel(void *ud, const struct smtop_kernel *k)
{
	struct csv *c = ud;
	FILE *o = c->kernels;
	long si = stream_of_kernel(&c->x, k);
	uint64_t end = k->end ? k->end : UINT64_MAX;
	if (k->start >= c->x.w.t1 || end < c->x.w.t0)
		return 0;
	fprintf(o, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",", k->pid, k->device_id,
		k->context_id, k->stream_id);
	csv_prio(o, si >= 0 ? c->x.streams[si].priority : SMTOP_PRIORITY_UNKNOWN);
	fprintf(o, ",%" PRIu32 ",%" PRIu64 ",", k->correlation_id, k->grid_id);
	csv_u64(o, k->start, k->start != 0);
	fputc(',', o);
	csv_u64(o, k->end, k->end != 0);
	fputc(',', o);
	csv_u64(o, k->queued, k->queued != 0);
	fputc(',', o);
	csv_u64(o, k->submitted, k->submitted != 0);
	fputc(',', o);
	csv_u64(o, k->start - k->queued, k->queued && k->queued <= k->start);
	fprintf(o, ",%d,%d,%d,%d,%d,%d,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",", k->grid[0], k->grid[1],
		k->grid[2], k->block[0], k->block[1], k->block[2], k->registers, k->static_smem,
		k->dynamic_smem);
	csv_field(o, session_short_name(c->x.s, k->name));
	fputc(',', o);
	csv_field(o, k->name);
	fputs("\r\n", o);
	c->n_kernels++;
	return 0;
}

static int csv_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct csv *c = ud;
	FILE *o = c->blocks;
	const struct xkernel *k = kernel_find(&c->x, pid, b->device_id, b->grid_id);
	/* the context that ran the kernel, not the one its blocks came through */
	uint32_t run_ctx = k ? c->x.streams[k->stream].context_id : ctx;
	fprintf(o, "%" PRIu32 ",%u,%" PRIu32 ",%u,%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",",
		pid, b->device_id, run_ctx, b->sm, b->grid_id, b->block, b->start, b->end);
	if (k)
		fprintf(o, "%" PRIu32, c->x.streams[k->stream].stream_id);
	fputc(',', o);
	csv_field(o, k ? k->short_name : NULL);
	fprintf(o, ",%u\r\n", (unsigned)(b->flags & SMTOP_BLOCK_END_BOUND));
	c->n_blocks++;
	if (++c->x.blocks_since_report >= 65536) {
		c->x.blocks_since_report = 0;
		export_progress(&c->x, b->start);
	}
	return 0;
}

static void csv_event(struct csv *c, const struct smtop_event *e)
{
	FILE *o = c->events;
	if (e->ready >= c->x.w.t1 || e->start < c->x.w.t0)
		return;
	fprintf(o, "%s,%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",",
		analysis_kind_name(e->kind), e->from_blocks ? "blocks" : "kernels", e->pid,
		e->device_id, e->context_id, e->stream_id);
	csv_prio(o, e->priority);
	fprintf(o, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
		e->correlation_id, e->grid_id, e->ready, e->start, e->wait_ns);
	csv_field(o, e->name ? session_short_name(c->x.s, e->name) : NULL);
	fprintf(o, ",%zu,", e->n_culprits);
	if (e->n_culprits) {
		const struct smtop_culprit *k = &e->culprits[0];
		csv_field(o, k->name ? session_short_name(c->x.s, k->name) : NULL);
		fprintf(o, ",%" PRIu32 ",%" PRIu32 ",", k->pid, k->stream_id);
		csv_prio(o, k->priority);
		fprintf(o, ",%.4f", k->weight);
	} else {
		fputs(",,,,", o);
	}
	fprintf(o, ",%s,%d\r\n", analysis_bound_name(e->ready_bound), e->possible != 0);
	c->n_events++;
}

/* An NVTX range overlapping the window, whole (a mark: no end). */
static int csv_nvtx(void *ud, const struct smtop_nvtx *n)
{
	struct csv *c = ud;
	FILE *o = c->nvtx;
	fprintf(o, "%" PRIu64 ",", n->start);
	csv_u64(o, n->end, n->end != 0);
	fprintf(o, ",%" PRIu32 ",%" PRIu32 ",", n->pid, n->tid);
	csv_field(o, n->domain ? n->domain : "");
	fputc(',', o);
	csv_field(o, n->text ? n->text : "");
	fputs("\r\n", o);
	return 0;
}

static FILE *csv_open(const char *dir, const char *name, const char *header, char *err,
		      size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return NULL;
	}
	fputs(header, f);
	fputs("\r\n", f);
	return f;
}

static int csv_close(FILE *f, const char *dir, const char *name, int rc, char *err, size_t errlen)
{
	if (!f)
		return rc;
	int bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad) {
		if (rc == 0)
			snprintf(err, errlen, "%s/%s: cannot write: %s", dir, name,
				 strerror(errno ? errno : EIO));
		return -1;
	}
	return rc;
}

int export_csv(struct session *s, const char *dir, const struct export_window *w,
	       char *err, size_t errlen)
{
	struct csv c;
	memset(&c, 0, sizeof c);
	struct stat sb;
	if (stat(dir, &sb) != 0 && mkdir(dir, 0777) != 0) {
		snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	int rc = exporter_init(&c.x, s, NULL, w, err, errlen);
	if (rc == 0 &&
	    (!(c.kernels = csv_open(dir, "kernels.csv", "pid,device,context,stream,priority,"
				    "correlation_id,grid_id,start_ns,end_ns,queued_ns,submitted_ns,"
				    "queued_to_start_ns,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
				    "registers,static_smem,dynamic_smem,short_name,name", err, errlen)) ||
	     !(c.blocks = csv_open(dir, "blocks.csv", "pid,device,context,sm,grid_id,block,"
				   "start_ns,end_ns,stream,kernel,end_bound", err, errlen)) ||
	     !(c.events = csv_open(dir, "events.csv", "kind,basis,pid,device,context,stream,"
				   "priority,correlation_id,grid_id,ready_ns,start_ns,wait_ns,kernel,"
				   "culprits,culprit_kernel,culprit_pid,culprit_stream,"
				   "culprit_priority,culprit_weight,ready_bound,possible", err,
				   errlen)) ||
	     !(c.nvtx = csv_open(dir, "nvtx.csv", "start_ns,end_ns,pid,tid,domain,text", err, errlen))))
		rc = -1;
	if (rc == 0 && session_kernels(s, w->t0, w->t1, csv_kernel, &c) != 0)
		rc = fail_read(&c.x, "kernels");
	/* launches whose blocks were all dropped have no time for a window to
	 * hold; the whole session's kernels.csv lists them last, times empty */
	if (rc == 0 && w->whole && session_unstarted_kernels(s, csv_kernel, &c) != 0)
		rc = fail_read(&c.x, "kernels");
	if (rc == 0 && session_blocks(s, w->t0, w->t1, csv_block, &c) != 0)
		rc = fail_read(&c.x, "blocks");
	export_progress_end(&c.x);
	for (size_t i = 0; rc == 0 && i < session_event_count(s); i++)
		csv_event(&c, session_event(s, i));
	if (rc == 0 && session_nvtx(s, w->t0, w->t1, csv_nvtx, &c) != 0)
		rc = fail_read(&c.x, "NVTX ranges");
	rc = csv_close(c.kernels, dir, "kernels.csv", rc, err, errlen);
	rc = csv_close(c.blocks, dir, "blocks.csv", rc, err, errlen);
	rc = csv_close(c.events, dir, "events.csv", rc, err, errlen);
	rc = csv_close(c.nvtx, dir, "nvtx.csv", rc, err, errlen);
	exporter_free(&c.x);
	return rc;
}
