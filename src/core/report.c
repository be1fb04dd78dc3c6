/* Text and JSON renderings of an analysis.  Unknown values print as N/A in
 * text and null in JSON, never as a misleading 0. */
#include "src/core/json.h"
#include "src/core/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/fmt.h"
#include "src/core/names.h"
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

/* Text fits this many columns; only a name longer than a line (with
 * --long-names) goes past it. */
#define TEXT_WIDTH 100

const char *report_name(char *buf, size_t len, const char *name, size_t max,
			const struct report_options *o)
{
	if (!name) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	char *full = o->long_names && o->full_name ? o->full_name(name) : NULL;
	char *brief = o->long_names ? NULL : names_short(name);
	const char *n = full ? full : brief ? brief : name;
	if (!o->long_names && max && max + 1 < len && strlen(n) > max)
		snprintf(buf, len, "%.*s...", (int)(max - 3), n);
	else
		snprintf(buf, len, "%s", n);
	free(full);
	free(brief);
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

/* A time as the viewer shows it: from the session's start ("9.893ms"). */
static const char *fmt_at(char *buf, size_t len, const struct findings *f, uint64_t t)
{
	return fmt_offset(buf, len, t > f->t_first ? t - f->t_first : 0, 1);
}

static const char *dur(char *buf, size_t len, uint64_t ns)
{
	return fmt_duration(buf, len, ns, 1);
}

/* Writes text word by word, breaking lines before TEXT_WIDTH and
 * indenting the lines after the first by as much as the first. */
static void text_wrapped(FILE *out, int indent, const char *text)
{
	int col = fprintf(out, "%*s", indent, "");
	int first = 1;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");
		if (!first && col + 1 + (int)n > TEXT_WIDTH)
			col = fprintf(out, "\n%*s", indent, "") - 1;
		else if (!first)
			col += fprintf(out, " ");
		col += fprintf(out, "%.*s", (int)n, p);
		first = 0;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', out);
}

static void text_pct(char *buf, size_t len, const struct analysis_percentiles *p)
{
	char a[16], b[16], c[16], d[16];
	if (!p->n)
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%s/%s/%s/%s", dur(a, sizeof a, p->p50), dur(b, sizeof b, p->p90),
			 dur(c, sizeof c, p->p99), dur(d, sizeof d, p->max));
}

/* Frameworks create pools of streams that never run anything; the JSON
 * keeps them, the tables do not. */
static int stream_listed(const struct analysis_stream_summary *s)
{
	return s->kernels != 0;
}

static void text_streams(FILE *out, const struct findings *f)
{
	char pr[16], busy[16];
	int estimated = 0, over = 0;
	fprintf(out, "\nstreams:\n  %3s %7s %4s %6s %4s %7s %9s %7s  %s\n", "dev", "pid", "ctx",
		"stream", "prio", "kernels", "busy", "sm%", "episodes blk/res/dsp/ts");
	for (size_t i = 0; i < f->n_streams; i++) {
		const struct analysis_stream_summary *s = &f->streams[i];
		if (!stream_listed(s))
			continue;
		estimated |= !s->sm_share_from_blocks;
		over |= s->sm_share > 1.0;
		fprintf(out, "  %3" PRIu32 " %7" PRIu32 " %4" PRIu32 " %6" PRIu32 " %4s %7zu %9s %6.1f%s"
			"  %zu/%zu/%zu/%zu\n", s->device_id, s->pid, s->context_id, s->stream_id,
			fmt_prio(pr, sizeof pr, s->priority), s->kernels,
			dur(busy, sizeof busy, s->busy_ns), s->sm_share * 100.0,
			s->sm_share_from_blocks ? " " : "~", s->events[SMTOP_EV_BLOCKING],
			s->events[SMTOP_EV_INVERSION_RESIDENT], s->events[SMTOP_EV_INVERSION_DISPATCH],
			s->events[SMTOP_EV_TIMESLICE]);
	}
	if (over)
		text_wrapped(out, 2, "sm%: the stream's block-time over the device's SM-time; an SM"
			     " holding several of its blocks at once counts each, so it passes 100"
			     " when the stream kept more than one block per SM on average.");
	if (estimated)
		fprintf(out, "  (~: SM share estimated from kernel busy time)\n");
}

/* The waits no record bounds (docs/analysis.md), which the quantiles
 * leave out: how many on each stream that has any, the first 8 named. */
static void text_unknown_waits(FILE *out, const struct findings *f)
{
	char buf[1024]; /* the text, 8 entries of at most 56 characters and the rest */
	size_t listed = 0, more = 0;
	int len = snprintf(buf, sizeof buf, "unknown waits, not in the quantiles (no record bounds the ready"
			   " time, or the kernel never started):");
	for (size_t i = 0; i < f->n_streams; i++) {
		const struct analysis_stream_summary *s = &f->streams[i];
		if (!stream_listed(s) || !s->waits_unknown)
			continue;
		if (listed++ == 8) {
			more++;
			continue;
		}
		len += snprintf(buf + len, sizeof buf - (size_t)len, "%s pid %" PRIu32 " stream %" PRIu32 " %zu",
				listed > 1 ? ";" : "", s->pid, s->stream_id, s->waits_unknown);
	}
	if (!listed)
		return;
	if (more)
		snprintf(buf + len, sizeof buf - (size_t)len, "; %zu more streams", more);
	text_wrapped(out, 2, buf);
}

static void text_waits(FILE *out, const struct findings *f)
{
	char w[48], t[48];
	fprintf(out, "\nwaits by stream, p50/p90/p99/max:\n  %3s %7s %6s  %-35s %s\n", "dev", "pid",
		"stream", "wait (ready to first block)", "request turnaround");
	for (size_t i = 0; i < f->n_streams; i++) {
		const struct analysis_stream_summary *s = &f->streams[i];
		if (!stream_listed(s))
			continue;
		text_pct(w, sizeof w, &s->wait);
		text_pct(t, sizeof t, &s->turnaround);
		fprintf(out, "  %3" PRIu32 " %7" PRIu32 " %6" PRIu32 "  %-35s %s\n", s->device_id,
			s->pid, s->stream_id, w, t);
	}
	text_unknown_waits(out, f);
}

/* Where a kernel's submission time came from, by who recorded the session:
 * CUPTI's record, or under the Compute Sanitizer (no CUPTI) the launch
 * call's time plus the least lag from a launch call to a first block. */
static const char *submission_source(const struct report_options *o)
{
	const char *by = o->registers_from ? o->registers_from : "cupti";

	if (!strcmp(by, "sanitizer"))
		return "its launch call's time plus the least lag from a launch call to a first block"
		       " (Compute Sanitizer: no CUPTI submission time)";
	if (!strcmp(by, "mixed"))
		return "the kernel's submission time (CUPTI's, or under the Compute Sanitizer its launch"
		       " call's time plus the least lag to a first block)";
	return "CUPTI's submission time of the kernel";
}

/* What set the ready time, as a clause after "because". */
static void text_bound(char *buf, size_t len, const struct smtop_event *e, const struct report_options *o)
{
	const char *op = analysis_bound_op(e->ready_bound);
	switch (e->ready_bound) {
	case SMTOP_READY_AFTER_KERNEL:
	case SMTOP_READY_AFTER_MEMCPY:
	case SMTOP_READY_AFTER_MEMSET:
		snprintf(buf, len, "of stream order: the %s before it on its stream (correlation id %" PRIu32
			") ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_EVENT_WAIT:
		snprintf(buf, len, "of an event wait: the stream's cudaStreamWaitEvent (correlation id %" PRIu32
			") ended", e->ready_correlation_id);
		break;
	case SMTOP_READY_EVENT_KERNEL:
	case SMTOP_READY_EVENT_MEMCPY:
	case SMTOP_READY_EVENT_MEMSET:
		snprintf(buf, len, "of an event wait: the %s before the event it waits on, on the stream that"
			" recorded it (correlation id %" PRIu32 "), ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_EVENT_DEVICE:
		snprintf(buf, len, "of an event wait: the GPU reached the event it waits on (cudaEventRecord,"
			" correlation id %" PRIu32 ")", e->ready_correlation_id);
		break;
	case SMTOP_READY_LEGACY_KERNEL:
	case SMTOP_READY_LEGACY_MEMCPY:
	case SMTOP_READY_LEGACY_MEMSET:
		snprintf(buf, len, "of the legacy default stream: the %s before it on a stream it synchronizes"
			" with (correlation id %" PRIu32 ") ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_GRAPH_KERNEL:
		snprintf(buf, len, "of graph order: a kernel of its graph (correlation id %" PRIu32
			") ended before it started", e->ready_correlation_id);
		break;
	case SMTOP_READY_GRAPH_EDGE_KERNEL:
	case SMTOP_READY_GRAPH_EDGE_MEMCPY:
	case SMTOP_READY_GRAPH_EDGE_MEMSET:
		snprintf(buf, len, "of the graph's edges: a %s it depends on in the same graph launch"
			" (correlation id %" PRIu32 ") ended", op, e->ready_correlation_id);
		break;
	case SMTOP_READY_HOST_SUBMIT:
		snprintf(buf, len, "of the host: %s", submission_source(o));
		break;
	case SMTOP_READY_LAUNCH_CALL:
		snprintf(buf, len, "of the host: its launch call (correlation id %" PRIu32 ") returned",
			e->ready_correlation_id);
		break;
	case SMTOP_READY_UNKNOWN:
		snprintf(buf, len, "N/A");
		break;
	}
}

/* --explain, for an episode that rests on bounded block ends: why it is
 * only possible, and how far the bounds could move its wait. */
static void text_possible(FILE *out, const struct findings *f, const struct smtop_event *e)
{
	char lo[16], hi[16], t0[24], t1[24], s[320];
	text_wrapped(out, 5, "possible, not certain: block ends are upper bounds (--sm entry)");
	if (e->possible & SMTOP_POSSIBLE_READY) {
		snprintf(s, sizeof s, "a kernel it waited for ended between its last block's start and"
			 " its bounded end: it was ready between %s and %s, so it waited between %s and %s",
			 fmt_at(t0, sizeof t0, f, e->ready),
			 fmt_at(t1, sizeof t1, f, e->ready + (e->wait_ns - e->wait_min_ns)),
			 dur(lo, sizeof lo, e->wait_min_ns), dur(hi, sizeof hi, e->wait_ns));
		text_wrapped(out, 5, s);
	}
	if (e->possible & SMTOP_POSSIBLE_CULPRITS)
		text_wrapped(out, 5, "the culprits' blocks may have left before their bounded ends: their"
			     " shares of the wait are at most these");
	if (e->possible & SMTOP_POSSIBLE_SLICE)
		text_wrapped(out, 5, "time-slicing read the victim's bounded block ends as block events");
}

/* --explain: the episode's reasoning in three lines before its culprits. */
static void text_explain(FILE *out, const struct findings *f, const struct smtop_event *e,
			 const struct report_options *o)
{
	char w[16], at[24], why[256], s[320];
	text_bound(why, sizeof why, e, o);
	snprintf(s, sizeof s, "ready at %s because %s", fmt_at(at, sizeof at, f, e->ready), why);
	text_wrapped(out, 5, s);
	if (e->start)
		fprintf(out, "     %s at %s, %s later\n", e->from_blocks ? "first block" : "started",
			fmt_at(at, sizeof at, f, e->start), dur(w, sizeof w, e->wait_ns));
	else
		fprintf(out, "     not started yet, %s so far\n", dur(w, sizeof w, e->wait_ns));
	if (e->possible)
		text_possible(out, f, e);
	fprintf(out, "     resident meanwhile (%zu kernel%s, share of %s in the wait):\n",
		e->n_culprits, e->n_culprits == 1 ? "" : "s",
		e->from_blocks ? "block-time" : "kernel time");
}

/* Why the kind of episode matters, as the end of its verdict. */
static const char *kind_why(enum smtop_event_kind k)
{
	switch (k) {
	case SMTOP_EV_BLOCKING:
		return "it was ready, but other kernels' blocks filled the SMs it needed";
	case SMTOP_EV_INVERSION_RESIDENT:
		return "lower-priority blocks that were already running held the SMs, and the GPU"
		       " cannot preempt them to make room for higher-priority work";
	case SMTOP_EV_INVERSION_DISPATCH:
		return "the scheduler started lower-priority blocks while this higher-priority"
		       " kernel still had blocks waiting";
	case SMTOP_EV_TIMESLICE:
		return "another process held the GPU for its time slice, and kernels of different"
		       " processes do not share the SMs without MPS";
	}
	return "N/A";
}

/* " (stream 14, priority 0)": who a kernel belongs to. */
static void whose(char *buf, size_t len, uint32_t stream, int32_t prio)
{
	if (prio == SMTOP_PRIORITY_UNKNOWN)
		snprintf(buf, len, "(stream %" PRIu32 ")", stream);
	else
		snprintf(buf, len, "(stream %" PRIu32 ", priority %" PRId32 ")", stream, prio);
}

/* The verdict, one sentence: who waited, how long, from when, behind what
 * (the heaviest culprit), and why that counts. */
static void text_verdict(FILE *out, const struct findings *f, const struct smtop_event *e,
			 const struct report_options *o)
{
	char name[REPORT_NAME_LEN], cname[REPORT_NAME_LEN], who[64], cwho[64];
	char w[16], t0[24], t1[24], behind[REPORT_NAME_LEN + 128] = "", more[48] = "";
	char s[3 * REPORT_NAME_LEN];
	report_name(name, sizeof name, e->name, REPORT_NAME_MAX, o);
	whose(who, sizeof who, e->stream_id, e->priority);
	dur(w, sizeof w, e->wait_ns);
	fmt_at(t0, sizeof t0, f, e->ready);
	if (e->n_culprits) {
		const struct smtop_culprit *c = &e->culprits[0];
		report_name(cname, sizeof cname, c->name, REPORT_NAME_MAX, o);
		whose(cwho, sizeof cwho, c->stream_id, c->priority);
		if (e->n_culprits > 1)
			snprintf(more, sizeof more, " and %zu other kernel%s", e->n_culprits - 1,
				 e->n_culprits == 2 ? "" : "s");
		snprintf(behind, sizeof behind, " behind %s %s%s", cname, cwho, more);
	}
	/* without blocks the wait ends at the kernel's start, culprits weigh by kernel time */
	const char *basis = e->from_blocks ? "" : " (from kernel intervals: no block records)";
	if (e->start)
		snprintf(s, sizeof s, "%s %s waited %s, from %s to %s,%s: %s%s.", name, who, w, t0,
			 fmt_at(t1, sizeof t1, f, e->start), behind, kind_why(e->kind), basis);
	else
		snprintf(s, sizeof s, "%s %s has waited %s since %s and not started yet,%s: %s%s.",
			 name, who, w, t0, behind, kind_why(e->kind), basis);
	/* no culprit: no "behind" clause, and no comma before the colon */
	if (!e->n_culprits) {
		char *c = strstr(s, ",: ");
		if (c)
			memmove(c, c + 1, strlen(c + 1) + 1);
	}
	text_wrapped(out, 5, s);
}

/* A culprit's line leaves 40 of the 100 columns to its name. */
#define CULPRIT_NAME_MAX 40

static void text_event(FILE *out, const struct findings *f, const struct smtop_event *e,
		       const struct report_options *o)
{
	char w[16], pr[16], at[24], name[REPORT_NAME_LEN], kind[40];
	/* a verdict that rests on bounded block ends (--sm entry) says so */
	snprintf(kind, sizeof kind, e->possible ? "%s (possible)" : "%s", analysis_kind_name(e->kind));
	/* a blank line apart: an episode takes several lines */
	fprintf(out, "\n  %9s  %-18s  at %s  dev %" PRIu32 " pid %" PRIu32 " stream %" PRIu32
		" prio %s\n", dur(w, sizeof w, e->wait_ns), kind,
		fmt_at(at, sizeof at, f, e->ready), e->device_id, e->pid, e->stream_id,
		fmt_prio(pr, sizeof pr, e->priority));
	text_verdict(out, f, e, o);
	if (o->explain)
		text_explain(out, f, e, o);
	for (size_t i = 0; i < e->n_culprits; i++) {
		const struct smtop_culprit *c = &e->culprits[i];
		fprintf(out, "     %5.1f%%  pid %" PRIu32 " stream %" PRIu32 " prio %s  %s",
			c->weight * 100.0, c->pid, c->stream_id, fmt_prio(pr, sizeof pr, c->priority),
			report_name(name, sizeof name, c->name, CULPRIT_NAME_MAX, o));
		if (c->blocks) {
			char n[32];
			fprintf(out, "  (%s blocks)", fmt_count(n, sizeof n, c->blocks));
		}
		fputc('\n', out);
	}
}

static void text_totals(FILE *out, const struct findings *f)
{
	const struct analysis_totals t = f->totals;
	char d[16];
	fprintf(out, "\ntotals by kind:\n");
	for (size_t i = 0; i < NKINDS_LISTED; i++)
		fprintf(out, "  %-20s %6zu episode%s  %s total delay\n", analysis_kind_name(kinds[i]),
			t.events[kinds[i]], t.events[kinds[i]] == 1 ? " " : "s",
			dur(d, sizeof d, t.delay_ns[kinds[i]]));
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
		if (l & (1u << i)) {
			char s[512];
			snprintf(s, sizeof s, "- %s",
				 analysis_limit_text((enum analysis_limit)(1u << i)));
			text_wrapped(out, 2, s);
		}
}

/* Dropped blocks are missing from every figure below: said before them,
 * with their share of the blocks that ran. */
static void text_drops(FILE *out, const struct analysis_totals *t, const struct report_options *o)
{
	char b[32], all[32], c[32], r[32], s[256];
	uint64_t ran = t->blocks + o->dropped_blocks;

	if (!o->drops_known || !(o->dropped_blocks || o->dropped_cupti || o->dropped_ring))
		return;
	snprintf(s, sizeof s, "dropped: %s blocks (%.1f%% of %s that ran), %s CUPTI records, %s ring records;"
		 " what follows misses them",
		 fmt_count(b, sizeof b, o->dropped_blocks), ran ? 100.0 * (double)o->dropped_blocks / (double)ran : 0.0,
		 fmt_count(all, sizeof all, ran), fmt_count(c, sizeof c, o->dropped_cupti),
		 fmt_count(r, sizeof r, o->dropped_ring));
	text_wrapped(out, 0, s); /* millions of blocks overrun the report's width */
}

int report_text(FILE *out, const struct findings *f, const struct report_options *o)
{
	const struct analysis_totals t = f->totals;
	char th[16], k[32], kb[32], b[32];
	size_t n;
	fprintf(out, "smtop report: %s\n", o->source ? o->source : "N/A");
	fprintf(out, "times: from the session's start (its first kernel or block), as in the viewer\n");
	fprintf(out, "thresholds: blocking episode when wait > %s (%" PRIu64 " ns)\n",
		dur(th, sizeof th, f->threshold_ns), f->threshold_ns);
	fprintf(out, "basis: %s (%s kernels, %s with block records, %s blocks)\n", basis(f),
		fmt_count(k, sizeof k, t.kernels), fmt_count(kb, sizeof kb, t.kernels_with_blocks),
		fmt_count(b, sizeof b, t.blocks));
	text_drops(out, &t, o);
	text_streams(out, f);
	text_waits(out, f);
	const struct smtop_event **ev = worst_events(f, &n);
	if (!ev)
		return -1;
	fprintf(out, "\nepisodes, worst first (%zu of %zu):\n", shown(n, o), n);
	for (size_t i = 0; i < shown(n, o); i++)
		text_event(out, f, ev[i], o);
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

/* ", "name": full, "short_name": as the text and the viewer show it" */
static void json_names(FILE *out, const char *name)
{
	char *brief = name ? names_short(name) : NULL;
	fputs(", \"name\": ", out);
	json_write_str(out, name);
	fputs(", \"short_name\": ", out);
	json_write_str(out, brief ? brief : name);
	free(brief);
}

static void json_culprit(FILE *out, const struct smtop_culprit *c)
{
	fprintf(out, "{\"pid\": %" PRIu32 ", \"device\": %" PRIu32 ", \"context\": %" PRIu32
		", \"stream\": %" PRIu32 ", \"correlation_id\": %" PRIu32 ", \"grid_id\": %" PRIu64
		", \"priority\": ", c->pid, c->device_id, c->context_id, c->stream_id,
		c->correlation_id, c->grid_id);
	json_prio(out, c->priority);
	json_names(out, c->name);
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
	json_names(out, e->name);
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
	fprintf(out, ",\n  \"threshold_ns\": %" PRIu64 ",\n  \"session_start_ns\": ", f->threshold_ns);
	if (f->t_first)
		fprintf(out, "%" PRIu64, f->t_first);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"basis\": \"%s\",\n", basis(f));
	fprintf(out, "  \"kernels\": %zu,\n  \"kernels_with_blocks\": %zu,\n  \"blocks\": %zu,\n"
		"  \"kernels_pending\": %zu,\n", t.kernels, t.kernels_with_blocks, t.blocks, t.kernels_pending);
	fputs("  ", out);
	json_write_drops(out, o->drops_known, o->dropped_blocks, o->dropped_cupti, o->dropped_ring);
	fputs(",\n  \"streams\": [\n", out);
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
