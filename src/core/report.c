/* Text and JSON renderings of an analysis.  Unknown values print as N/A in
 * text and null in JSON, never as a misleading 0. */
#include "src/core/json.h"
#include "src/core/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/report_occupancy.h"
#include "src/core/findings.h"

static const enum smtop_event_kind kinds[] = {
	SMTOP_EV_BLOCKING, SMTOP_EV_INVERSION_RESIDENT, SMTOP_EV_INVERSION_DISPATCH,
	SMTOP_EV_TIMESLICE,
};
#define NKINDS_LISTED (sizeof kinds / sizeof kinds[0])

/* Worst first; ties by ready time keep the order stable. */
static int cmp_worst(const void *x, const void *y)
{
	const struct smtop_event *p = *(const struct smtop_event *const *)x;
	const struct smtop_event *q = *(const struct smtop_event *const *)y;
	if (p->wait_ns != q->wait_ns)
		return p->wait_ns > q->wait_ns ? -1 : 1;
	return (p->ready > q->ready) - (p->ready < q->ready);
}

static const struct smtop_event **worst_events(const struct findings *f, size_t *n)
{
	*n = f->n_events;
	const struct smtop_event **v = malloc((*n ? *n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < *n; i++)
		v[i] = &f->events[i];
	qsort(v, *n, sizeof *v, cmp_worst);
	return v;
}

static size_t shown(size_t n, const struct report_options *o)
{
	return o->max_episodes && o->max_episodes < n ? o->max_episodes : n;
}

static const char *basis(const struct findings *f)
{
	const struct analysis_totals *t = &f->totals;
	if (!t->kernels_with_blocks)
		return "kernels";
	return t->kernels_with_blocks == t->kernels ? "blocks" : "mixed";
}

/* ---- text ---- */

static const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	return buf;
}

static const char *fmt_prio(char *buf, size_t len, int32_t p)
{
	if (p == SMTOP_PRIORITY_UNKNOWN)
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%" PRId32, p);
	return buf;
}

static void text_pct(FILE *out, const struct analysis_percentiles *p)
{
	char a[16], b[16], c[16], d[16];
	if (!p->n) {
		fprintf(out, " %-35s", "N/A");
		return;
	}
	char line[80];
	snprintf(line, sizeof line, "%s/%s/%s/%s", fmt_ns(a, sizeof a, p->p50),
		 fmt_ns(b, sizeof b, p->p90), fmt_ns(c, sizeof c, p->p99),
		 fmt_ns(d, sizeof d, p->max));
	fprintf(out, " %-35s", line);
}

static void text_streams(FILE *out, const struct findings *f)
{
	char pr[16], busy[16];
	fprintf(out, "\nstreams:\n  %3s %7s %4s %6s %4s %7s %9s %7s %-35s %-35s %s\n", "dev", "pid",
		"ctx", "stream", "prio", "kernels", "busy", "sm%", "wait p50/p90/p99/max",
		"request turnaround p50/p90/p99/max", "episodes blk/res/dsp/ts");
	for (size_t i = 0; i < f->n_streams; i++) {
		struct analysis_stream_summary s = f->streams[i];
		/* Frameworks create pools of streams that never run anything;
		 * the JSON keeps them, the table does not. */
		if (s.kernels == 0)
			continue;
		fprintf(out, "  %3" PRIu32 " %7" PRIu32 " %4" PRIu32 " %6" PRIu32 " %4s %7zu %9s %6.1f%s",
			s.device_id, s.pid, s.context_id, s.stream_id,
			fmt_prio(pr, sizeof pr, s.priority), s.kernels,
			fmt_ns(busy, sizeof busy, s.busy_ns), s.sm_share * 100.0,
			s.sm_share_from_blocks ? " " : "~");
		text_pct(out, &s.wait);
		text_pct(out, &s.turnaround);
		fprintf(out, " %zu/%zu/%zu/%zu\n", s.events[SMTOP_EV_BLOCKING],
			s.events[SMTOP_EV_INVERSION_RESIDENT], s.events[SMTOP_EV_INVERSION_DISPATCH],
			s.events[SMTOP_EV_TIMESLICE]);
	}
	fprintf(out, "  (~: SM share estimated from kernel busy time)\n");
}

/* What set the ready time, as a clause after "because". */
static void text_bound(FILE *out, const struct smtop_event *e)
{
	const char *op = analysis_bound_op(e->ready_bound);
	switch (e->ready_bound) {
	case SMTOP_READY_AFTER_KERNEL:
	case SMTOP_READY_AFTER_MEMCPY:
	case SMTOP_READY_AFTER_MEMSET:
		fprintf(out, "of stream order: the %s before it on its stream (correlation id %" PRIu32
			") ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_EVENT_WAIT:
		fprintf(out, "of an event wait: the stream's cudaStreamWaitEvent (correlation id %" PRIu32
			") ended", e->ready_correlation_id);
		break;
	case SMTOP_READY_EVENT_KERNEL:
	case SMTOP_READY_EVENT_MEMCPY:
	case SMTOP_READY_EVENT_MEMSET:
		fprintf(out, "of an event wait: the %s before the event it waits on, on the stream that"
			" recorded it (correlation id %" PRIu32 "), ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_EVENT_DEVICE:
		fprintf(out, "of an event wait: the GPU reached the event it waits on (cudaEventRecord,"
			" correlation id %" PRIu32 ")", e->ready_correlation_id);
		break;
	case SMTOP_READY_LEGACY_KERNEL:
	case SMTOP_READY_LEGACY_MEMCPY:
	case SMTOP_READY_LEGACY_MEMSET:
		fprintf(out, "of the legacy default stream: the %s before it on a stream it synchronizes"
			" with (correlation id %" PRIu32 ") ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_GRAPH_KERNEL:
		fprintf(out, "of graph order: a kernel of its graph (correlation id %" PRIu32
			") ended before it started", e->ready_correlation_id);
		break;
	case SMTOP_READY_GRAPH_EDGE_KERNEL:
	case SMTOP_READY_GRAPH_EDGE_MEMCPY:
	case SMTOP_READY_GRAPH_EDGE_MEMSET:
		fprintf(out, "of the graph's edges: a %s it depends on in the same graph launch"
			" (correlation id %" PRIu32 ") ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_HOST_SUBMIT:
		fputs("of the host: CUPTI's submission time of the kernel", out);
		break;
	case SMTOP_READY_LAUNCH_CALL:
		fprintf(out, "of the host: its launch call (correlation id %" PRIu32 ") returned",
			e->ready_correlation_id);
		break;
	case SMTOP_READY_UNKNOWN:
		fputs("N/A", out);
		break;
	}
}

/* --explain, for an episode that rests on bounded block ends: why it is
 * only possible, and how far the bounds could move its wait. */
static void text_possible(FILE *out, const struct smtop_event *e)
{
	char lo[16], hi[16];
	fputs("             possible, not certain: block ends are upper bounds (--sm entry)\n", out);
	if (e->possible & SMTOP_POSSIBLE_READY)
		fprintf(out, "             a kernel it waited for ended between its last block's start and"
			" its bounded end: ready lies between %" PRIu64 " and %" PRIu64 " ns, the wait"
			" between %s and %s\n", e->ready, e->ready + (e->wait_ns - e->wait_min_ns),
			fmt_ns(lo, sizeof lo, e->wait_min_ns), fmt_ns(hi, sizeof hi, e->wait_ns));
	if (e->possible & SMTOP_POSSIBLE_CULPRITS)
		fputs("             culprits' blocks may have left before their bounded ends: their"
		      " overlaps with the wait are at most these\n", out);
	if (e->possible & SMTOP_POSSIBLE_SLICE)
		fputs("             time-slicing read the victim's bounded block ends as block events\n",
		      out);
}

/* --explain: the episode's reasoning in three lines before its culprits. */
static void text_explain(FILE *out, const struct smtop_event *e)
{
	char w[16];
	fprintf(out, "             ready at %" PRIu64 " ns because ", e->ready);
	text_bound(out, e);
	if (e->start)
		fprintf(out, "\n             %s at %" PRIu64 " ns, %s later\n",
			e->from_blocks ? "first block" : "started", e->start,
			fmt_ns(w, sizeof w, e->wait_ns));
	else
		fprintf(out, "\n             not started yet, %s so far\n", fmt_ns(w, sizeof w, e->wait_ns));
	if (e->possible)
		text_possible(out, e);
	fprintf(out, "             resident meanwhile (%zu kernel%s, share of %s in the wait):\n",
		e->n_culprits, e->n_culprits == 1 ? "" : "s",
		e->from_blocks ? "block-time" : "kernel time");
}

static void text_event(FILE *out, const struct smtop_event *e, int explain)
{
	char w[16], pr[16], ready[24], kind[40];
	snprintf(ready, sizeof ready, "%" PRIu64, e->ready);
	snprintf(kind, sizeof kind, e->possible ? "%s (possible)" : "%s", analysis_kind_name(e->kind));
	fprintf(out, "  %9s  %-18s dev %" PRIu32 " pid %" PRIu32 " stream %" PRIu32
		" prio %s  %s  ready %s%s\n",
		fmt_ns(w, sizeof w, e->wait_ns), kind, e->device_id, e->pid,
		e->stream_id, fmt_prio(pr, sizeof pr, e->priority), e->name ? e->name : "N/A",
		ready, e->from_blocks ? "" : "  (from kernel intervals)");
	if (explain)
		text_explain(out, e);
	for (size_t i = 0; i < e->n_culprits; i++) {
		const struct smtop_culprit *c = &e->culprits[i];
		fprintf(out, "             %5.1f%%  pid %" PRIu32 " stream %" PRIu32 " prio %s  %s",
			c->weight * 100.0, c->pid, c->stream_id,
			fmt_prio(pr, sizeof pr, c->priority), c->name ? c->name : "N/A");
		if (c->blocks)
			fprintf(out, "  (%" PRIu32 " blocks)", c->blocks);
		fputc('\n', out);
	}
}

static void text_totals(FILE *out, const struct findings *f)
{
	const struct analysis_totals t = f->totals;
	char d[16];
	fprintf(out, "\ntotals by kind:\n");
	for (size_t i = 0; i < NKINDS_LISTED; i++)
		fprintf(out, "  %-20s %6zu episodes  %s total delay\n", analysis_kind_name(kinds[i]),
			t.events[kinds[i]], fmt_ns(d, sizeof d, t.delay_ns[kinds[i]]));
	if (t.kernels_pending)
		fprintf(out, "  %zu kernels not yet decided (still running or waiting for data)\n",
			t.kernels_pending);
}

static void text_limits(FILE *out, const struct findings *f)
{
	unsigned l = f->limits;
	fprintf(out, "\nconclusions that need block records:\n");
	if (!l)
		fprintf(out, "  none: every kernel has block records\n");
	for (unsigned i = 0; i < ANALYSIS_LIMIT_COUNT; i++)
		if (l & (1u << i))
			fprintf(out, "  - %s\n", analysis_limit_text((enum analysis_limit)(1u << i)));
}

int report_text(FILE *out, const struct findings *f, const struct report_options *o)
{
	const struct analysis_totals t = f->totals;
	char th[16];
	size_t n;
	fprintf(out, "smtop report: %s\n", o->source ? o->source : "N/A");
	fprintf(out, "thresholds: blocking episode when wait > %s (%" PRIu64 " ns)\n",
		fmt_ns(th, sizeof th, f->threshold_ns), f->threshold_ns);
	fprintf(out, "basis: %s (%zu kernels, %zu with block records, %zu blocks)\n", basis(f),
		t.kernels, t.kernels_with_blocks, t.blocks);
	text_streams(out, f);
	const struct smtop_event **ev = worst_events(f, &n);
	if (!ev)
		return -1;
	fprintf(out, "\nepisodes, worst first (%zu of %zu):\n", shown(n, o), n);
	for (size_t i = 0; i < shown(n, o); i++)
		text_event(out, ev[i], o->explain);
	free(ev);
	text_totals(out, f);
	if (report_occupancy_text(out, &f->occ, o))
		return -1;
	text_limits(out, f);
	return ferror(out) ? -1 : 0;
}

/* ---- JSON ---- */

static void json_prio(FILE *out, int32_t p)
{
	if (p == SMTOP_PRIORITY_UNKNOWN)
		fputs("null", out);
	else
		fprintf(out, "%" PRId32, p);
}

static void json_pct(FILE *out, const struct analysis_percentiles *p)
{
	if (!p->n) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"n\": %zu, \"p50\": %" PRIu64 ", \"p90\": %" PRIu64 ", \"p99\": %" PRIu64
		", \"max\": %" PRIu64 "}", p->n, p->p50, p->p90, p->p99, p->max);
}

static void json_kind_counts(FILE *out, const size_t *counts)
{
	fputc('{', out);
	for (size_t i = 0; i < NKINDS_LISTED; i++)
		fprintf(out, "%s\"%s\": %zu", i ? ", " : "", analysis_kind_name(kinds[i]),
			counts[kinds[i]]);
	fputc('}', out);
}

static void json_stream(FILE *out, const struct analysis_stream_summary *s)
{
	fprintf(out, "    {\"device\": %" PRIu32 ", \"pid\": %" PRIu32 ", \"context\": %" PRIu32
		", \"stream\": %" PRIu32 ", \"priority\": ", s->device_id, s->pid, s->context_id,
		s->stream_id);
	json_prio(out, s->priority);
	fprintf(out, ", \"kernels\": %zu, \"kernels_with_blocks\": %zu, \"waits_unknown\": %zu"
		", \"busy_ns\": %" PRIu64 ", \"block_time_ns\": %" PRIu64
		", \"sm_share\": %.6f, \"sm_share_from_blocks\": %s, \"wait_ns\": ",
		s->kernels, s->kernels_with_blocks, s->waits_unknown, s->busy_ns, s->block_time_ns,
		s->sm_share, s->sm_share_from_blocks ? "true" : "false");
	json_pct(out, &s->wait);
	fputs(", \"turnaround_ns\": ", out);
	json_pct(out, &s->turnaround);
	fputs(", \"episodes\": ", out);
	json_kind_counts(out, s->events);
	fputc('}', out);
}

static void json_culprit(FILE *out, const struct smtop_culprit *c)
{
	fprintf(out, "{\"pid\": %" PRIu32 ", \"device\": %" PRIu32 ", \"context\": %" PRIu32
		", \"stream\": %" PRIu32 ", \"correlation_id\": %" PRIu32 ", \"grid_id\": %" PRIu64
		", \"priority\": ", c->pid, c->device_id, c->context_id, c->stream_id,
		c->correlation_id, c->grid_id);
	json_prio(out, c->priority);
	fputs(", \"name\": ", out);
	json_write_str(out, c->name);
	fprintf(out, ", \"overlap_ns\": %" PRIu64 ", \"weight\": %.6f, \"blocks\": ", c->overlap_ns,
		c->weight);
	if (c->blocks)
		fprintf(out, "%" PRIu32 "}", c->blocks);
	else
		fputs("null}", out);
}

static void json_event(FILE *out, const struct smtop_event *e)
{
	fprintf(out, "    {\"kind\": \"%s\", \"pid\": %" PRIu32 ", \"device\": %" PRIu32
		", \"context\": %" PRIu32 ", \"stream\": %" PRIu32 ", \"correlation_id\": %" PRIu32
		", \"grid_id\": %" PRIu64 ", \"priority\": ", analysis_kind_name(e->kind), e->pid,
		e->device_id, e->context_id, e->stream_id, e->correlation_id, e->grid_id);
	json_prio(out, e->priority);
	fputs(", \"name\": ", out);
	json_write_str(out, e->name);
	fprintf(out, ", \"ready_ns\": %" PRIu64 ", \"ready_bound\": \"%s\", \"ready_bound_op\": ",
		e->ready, analysis_bound_name(e->ready_bound));
	json_write_str(out, analysis_bound_op(e->ready_bound));
	fputs(", \"ready_bound_correlation_id\": ", out);
	if (e->ready_correlation_id)
		fprintf(out, "%" PRIu32, e->ready_correlation_id);
	else
		fputs("null", out);
	fprintf(out, ", \"start_ns\": %" PRIu64 ", \"wait_ns\": %" PRIu64
		", \"wait_min_ns\": %" PRIu64 ", \"from_blocks\": %s, \"possible\": %s"
		", \"culprits\": [", e->start, e->wait_ns, e->wait_min_ns,
		e->from_blocks ? "true" : "false", e->possible ? "true" : "false");
	for (size_t i = 0; i < e->n_culprits; i++) {
		fputs(i ? ", " : "", out);
		json_culprit(out, &e->culprits[i]);
	}
	fputs("]}", out);
}

static void json_totals(FILE *out, const struct findings *f)
{
	const struct analysis_totals t = f->totals;
	fputs("  \"totals\": {", out);
	for (size_t i = 0; i < NKINDS_LISTED; i++)
		fprintf(out, "%s\"%s\": {\"count\": %zu, \"delay_ns\": %" PRIu64 "}", i ? ", " : "",
			analysis_kind_name(kinds[i]), t.events[kinds[i]], t.delay_ns[kinds[i]]);
	fputs("},\n", out);
}

static const char *limit_name(unsigned bit)
{
	switch (bit) {
	case ANALYSIS_LIMIT_WAIT_FROM_KERNELS: return "wait_from_kernels";
	case ANALYSIS_LIMIT_DISPATCH_UNTOLD: return "dispatch_untold";
	case ANALYSIS_LIMIT_SM_SHARE_ESTIMATE: return "sm_share_estimate";
	case ANALYSIS_LIMIT_CULPRIT_WEIGHT_KERNEL: return "culprit_weight_kernel";
	case ANALYSIS_LIMIT_SM_COUNT_GUESSED: return "sm_count_guessed";
	}
	return "unknown";
}

static void json_limits(FILE *out, const struct findings *f)
{
	unsigned l = f->limits;
	int first = 1;
	fputs("  \"needs_blocks\": [", out);
	for (unsigned i = 0; i < ANALYSIS_LIMIT_COUNT; i++) {
		if (!(l & (1u << i)))
			continue;
		fprintf(out, "%s{\"limit\": \"%s\", \"text\": ", first ? "" : ", ",
			limit_name(1u << i));
		json_write_str(out, analysis_limit_text((enum analysis_limit)(1u << i)));
		fputc('}', out);
		first = 0;
	}
	fputs("]\n", out);
}

int report_json(FILE *out, const struct findings *f, const struct report_options *o)
{
	const struct analysis_totals t = f->totals;
	size_t n;
	fprintf(out, "{\n  \"report_version\": %d,\n  \"source\": ", REPORT_JSON_VERSION);
	json_write_str(out, o->source);
	fprintf(out, ",\n  \"threshold_ns\": %" PRIu64 ",\n  \"basis\": \"%s\",\n",
		f->threshold_ns, basis(f));
	fprintf(out, "  \"kernels\": %zu,\n  \"kernels_with_blocks\": %zu,\n  \"blocks\": %zu,\n"
		"  \"kernels_pending\": %zu,\n  \"streams\": [\n", t.kernels, t.kernels_with_blocks,
		t.blocks, t.kernels_pending);
	for (size_t i = 0; i < f->n_streams; i++) {
		json_stream(out, &f->streams[i]);
		fputs(i + 1 < f->n_streams ? ",\n" : "\n", out);
	}
	const struct smtop_event **ev = worst_events(f, &n);
	if (!ev)
		return -1;
	fprintf(out, "  ],\n  \"episodes_total\": %zu,\n  \"episodes\": [\n", n);
	for (size_t i = 0; i < shown(n, o); i++) {
		json_event(out, ev[i]);
		fputs(i + 1 < shown(n, o) ? ",\n" : "\n", out);
	}
	free(ev);
	fputs("  ],\n", out);
	json_totals(out, f);
	if (report_occupancy_json(out, &f->occ, o))
		return -1;
	json_limits(out, f);
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}
