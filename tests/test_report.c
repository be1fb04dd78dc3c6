/* Report rendering on a hand-built trace: text says the thresholds and the
 * worst episode; JSON parses and carries the documented keys. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/findings.h"
#include "src/core/report.h"
#include "tests/support/trace_support.h"

/* Two victims behind one low-priority culprit: grid 2 waits 90 us, grid 3
 * waits 40 us. */
static struct trace *kept;

static struct analysis *sample(int blocks)
{
	struct trace *t = trace_new();
	trace_free(kept);
	kept = t;
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, 0);
	trace_stream(t, 1, 0, 2, -5);
	trace_stream(t, 1, 0, 3, 0);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_kernel(t, 1, 0, 3, 3, 61000, 101000, 111000);
	if (blocks) {
		trace_blocks(t, 1, 0, 1, 4, 1000, 101000);
		trace_blocks(t, 1, 0, 2, 2, 101000, 111000);
		trace_blocks(t, 1, 0, 3, 2, 101000, 111000);
	}
	trace_request(t, 1, 2, 10000, 115000);
	struct analysis *a = analysis_new(NULL);
	trace_feed_all(t, a);
	/* Names are borrowed: the trace lives as long as the analysis. */
	return a;
}

static char *render_by(struct analysis *a, int json, size_t max, int explain, const char *recorded_by)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	struct report_options o = { .source = "session.sqlite", .max_episodes = max,
				    .explain = explain, .registers_from = recorded_by };
	struct findings fi;
	cr_assert_eq(findings_from_analysis(a, &fi), 0);
	fi.t_first = 1000; /* the first kernel's start, as a session's loader sets it */
	cr_assert_eq(json ? report_json(f, &fi, &o) : report_text(f, &fi, &o), 0);
	findings_free(&fi);
	fclose(f);
	return buf;
}

static char *render_with(struct analysis *a, int json, size_t max, int explain)
{
	return render_by(a, json, max, explain, NULL);
}

static char *render(struct analysis *a, int json, size_t max)
{
	return render_with(a, json, max, 0);
}

/* ---- a tiny JSON checker: accepts RFC 8259 values, nothing more ---- */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *value(const char *p);

static const char *string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *number(const char *p)
{
	const char *s = p;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' ||
	       *p == '-')
		p++;
	return p > s ? p : NULL;
}

static const char *compound(const char *p, char close, int object)
{
	p = ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (!(p = string(ws(p))))
				return NULL;
			p = ws(p);
			if (*p++ != ':')
				return NULL;
		}
		if (!(p = value(p)))
			return NULL;
		p = ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *value(const char *p)
{
	p = ws(p);
	switch (*p) {
	case '{': return compound(p, '}', 1);
	case '[': return compound(p, ']', 0);
	case '"': return string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	default: return number(p);
	}
}

static int json_valid(const char *s)
{
	const char *end = value(s);
	return end && *ws(end) == '\0';
}

Test(report_json_checker, rejects_broken_json)
{
	cr_expect(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\n\"]}"));
	cr_expect(!json_valid("{\"a\": [1, 2,]}"));
	cr_expect(!json_valid("{\"a\" 1}"));
	cr_expect(!json_valid("[1] x"));
}

Test(report, text_has_thresholds_and_worst_episode)
{
	struct analysis *a = sample(1);
	char *s = render(a, 0, 1);
	cr_expect(strstr(s, "wait > 20 us (20000 ns)"), "%s", s);
	cr_expect(strstr(s, "basis: blocks"), "%s", s);
	cr_expect(strstr(s, "episodes, worst first (1 of 2)"), "%s", s);
	cr_expect(strstr(s, "    90 us  inversion_resident  at 0.010ms  dev 0 pid 1 stream 2 prio -5\n"),
		  "%s", s);
	cr_expect(strstr(s, "k2"), "%s", s);
	cr_expect(!strstr(s, "40 us  blocking"), "limit 1 shows only the worst:\n%s", s);
	cr_expect(strstr(s, "none: every kernel has block records"), "%s", s);
	free(s);
	analysis_free(a);
}

Test(report, text_kernel_only_lists_missing_blocks)
{
	struct analysis *a = sample(0);
	char *s = render(a, 0, 0);
	cr_expect(strstr(s, "basis: kernels"), "%s", s);
	cr_expect(strstr(s, "conclusions that need block records:\n  - "), "%s", s);
	cr_expect(strstr(s, "(from kernel intervals: no block records)"), "%s", s);
	free(s);
	analysis_free(a);
}

Test(report, json_parses_and_has_keys)
{
	struct analysis *a = sample(1);
	char *s = render(a, 1, 0);
	cr_assert(json_valid(s), "invalid JSON:\n%s", s);
	const char *keys[] = {
		"\"report_version\": 1", "\"threshold_ns\": 20000", "\"basis\": \"blocks\"",
		"\"streams\": [", "\"episodes_total\": 2", "\"kind\": \"inversion_resident\"",
		"\"wait_ns\": 90000", "\"culprits\": [{", "\"weight\": 1.000000",
		"\"totals\": {\"blocking\": {\"count\": 1, \"delay_ns\": 40000}", "\"needs_blocks\": []",
		"\"turnaround_ns\": {\"n\": 1", "\"source\": \"session.sqlite\"",
		"\"ready_ns\": 11000, \"ready_bound\": \"host_submit\", \"ready_bound_op\": null,"
		" \"ready_bound_correlation_id\": 2,",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cr_expect(strstr(s, keys[i]), "missing %s in\n%s", keys[i], s);
	/* Worst first: the 90 us episode comes before the 40 us one. */
	cr_expect(strstr(s, "\"wait_ns\": 90000") < strstr(s, "\"wait_ns\": 40000"));
	free(s);
	analysis_free(a);
}

static char *render_drops(struct analysis *a, int json, int known, uint64_t blocks, uint64_t cupti)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_options o = { .drops_known = known, .dropped_blocks = blocks, .dropped_cupti = cupti };
	struct findings fi;

	cr_assert_not_null(f);
	cr_assert_eq(findings_from_analysis(a, &fi), 0);
	cr_assert_eq(json ? report_json(f, &fi, &o) : report_text(f, &fi, &o), 0);
	findings_free(&fi);
	fclose(f);
	return buf;
}

/* Dropped blocks are missing from every figure: the text says so before
 * them, with their share of what ran, and the JSON carries the counts
 * (null where the file counts none, as an Nsight Systems export). */
Test(report, drops_are_said_before_the_figures)
{
	struct analysis *a = sample(1);
	char *t = render_drops(a, 0, 1, 3, 2), *none = render_drops(a, 0, 1, 0, 0);
	char *j = render_drops(a, 1, 1, 3, 2), *unknown = render_drops(a, 1, 0, 0, 0);
	struct analysis_totals tot;
	size_t blocks;
	char want[160];

	analysis_totals(a, &tot);
	blocks = tot.blocks;

	snprintf(want, sizeof want, "dropped: 3 blocks (%.1f%% of %zu that ran), 2 CUPTI records, 0 ring records;",
		 300.0 / (double)(blocks + 3), blocks + 3);
	cr_expect(strstr(t, want), "want %s in\n%s", want, t);
	cr_expect(strstr(t, want) < strstr(t, "streams:"), "before the streams:\n%s", t);
	cr_expect(!strstr(none, "dropped"), "nothing dropped, nothing said:\n%s", none);
	cr_assert(json_valid(j), "%s", j);
	cr_expect(strstr(j, "\"dropped\": {\"blocks\": 3, \"cupti\": 2, \"ring\": 0},"), "%s", j);
	cr_assert(json_valid(unknown), "%s", unknown);
	cr_expect(strstr(unknown, "\"dropped\": null,"), "%s", unknown);
	free(t);
	free(none);
	free(j);
	free(unknown);
	analysis_free(a);
}

Test(report, json_kernel_only_parses)
{
	struct analysis *a = sample(0);
	char *s = render(a, 1, 1);
	cr_assert(json_valid(s), "invalid JSON:\n%s", s);
	cr_expect(strstr(s, "\"limit\": \"dispatch_untold\""), "%s", s);
	cr_expect(strstr(s, "\"from_blocks\": false"), "%s", s);
	free(s);
	analysis_free(a);
}

Test(report, empty_analysis)
{
	struct analysis *a = analysis_new(NULL);
	analysis_update(a, ANALYSIS_WATERMARK_ALL);
	char *s = render(a, 1, 0);
	cr_expect(json_valid(s), "%s", s);
	free(s);
	s = render(a, 0, 0);
	cr_expect(strstr(s, "episodes, worst first (0 of 0)"), "%s", s);
	free(s);
	analysis_free(a);
}

/* Under the Compute Sanitizer there is no CUPTI: a kernel's submission
 * time is its launch call's plus the least lag to a first block. */
Test(report, explain_says_where_a_submission_time_came_from)
{
	struct analysis *a = sample(1);
	char *s = render_by(a, 0, 0, 1, "sanitizer");
	cr_expect(strstr(s, "ready at 0.010ms because of the host: its launch call's time plus the least lag"),
		  "%s", s);
	cr_expect(!strstr(s, "CUPTI's submission time"), "%s", s);
	free(s);
	s = render_by(a, 0, 0, 1, "mixed");
	cr_expect(strstr(s, "because of the host: the kernel's submission time (CUPTI's, or under the"),
		  "%s", s);
	free(s);
	s = render_by(a, 0, 0, 1, "cupti");
	cr_expect(strstr(s, "because of the host: CUPTI's submission time of the kernel"), "%s", s);
	free(s);
	analysis_free(a);
}

Test(report, explain_says_why_ready_and_what_was_resident)
{
	struct analysis *a = sample(1);
	char *s = render_with(a, 0, 0, 1);
	cr_expect(strstr(s, "ready at 0.010ms because of the host: CUPTI's submission time"), "%s", s);
	cr_expect(strstr(s, "first block at 0.100ms, 90 us later"), "%s", s);
	cr_expect(strstr(s, "resident meanwhile (1 kernel, share of block-time in the wait):\n"
			    "     100.0%  pid 1 stream 1 prio 0  k1  (4 blocks)"), "%s", s);
	free(s);
	s = render(a, 0, 0);
	cr_expect(!strstr(s, "ready at"), "only with --explain:\n%s", s);
	free(s);
	analysis_free(a);
}

/* s with every run of spaces and newlines made one space: a sentence as
 * read, wherever the text broke its lines. */
static char *one_line_text(const char *s)
{
	char *o = malloc(strlen(s) + 1), *p = o;
	cr_assert_not_null(o);
	for (; *s; s++) {
		if (*s == ' ' || *s == '\n') {
			if (p > o && p[-1] != ' ')
				*p++ = ' ';
		} else {
			*p++ = *s;
		}
	}
	*p = '\0';
	return o;
}

/* sample(1) as `--sm entry` records it: every block's end is a bound.  On
 * stream 2 a kernel (grid 5) runs blocks from 2000 to 2300 before grid 2;
 * its bounded end is grid 2's first block (101000).  Grid 2 is ready when
 * submitted (11000) or as late as that bound: its wait lies between 0 and
 * 90 us.  Grid 3's wait is exact; its culprit's bounded ends make both
 * episodes possible. */
static struct analysis *bounded_sample(void)
{
	struct trace *t = trace_new();
	trace_free(kept);
	kept = t;
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, 0);
	trace_stream(t, 1, 0, 2, -5);
	trace_stream(t, 1, 0, 3, 0);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000);
	trace_kernel(t, 1, 0, 2, 5, 1500, 2000, 101000);
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000);
	trace_kernel(t, 1, 0, 3, 3, 61000, 101000, 111000);
	trace_blocks(t, 1, 0, 1, 4, 1000, 101000);
	for (unsigned i = 0; i < 4; i++)
		trace_blocks_on(t, 1, 0, 5, 1, i, 2000 + 100 * i, 101000);
	trace_blocks(t, 1, 0, 2, 2, 101000, 111000);
	trace_blocks(t, 1, 0, 3, 2, 101000, 111000);
	for (size_t i = 0; i < t->n_blocks; i++)
		t->blocks[i].b.flags |= SMTOP_BLOCK_END_BOUND;
	struct analysis *a = analysis_new(NULL);
	trace_feed_all(t, a);
	return a;
}

Test(report, bounded_ends_are_possible_in_text_and_json)
{
	struct analysis *a = bounded_sample();
	char *s = render(a, 0, 0);
	cr_expect(strstr(s, "90 us  inversion_resident (possible)  at 0.010ms  dev 0 pid 1 stream 2"), "%s", s);
	cr_expect(strstr(s, "40 us  blocking (possible)  at 0.060ms  dev 0 pid 1 stream 3"), "%s", s);
	free(s);
	s = render_with(a, 0, 0, 1);
	char *l = one_line_text(s);
	cr_expect(strstr(l, "possible, not certain: block ends are upper bounds"), "%s", s);
	cr_expect(strstr(l, "it was ready between 0.010ms and 0.100ms, so it waited between 0.0 us and"
			    " 90 us"), "%s", s);
	cr_expect(strstr(l, "culprits' blocks may have left before their bounded ends"), "%s", s);
	free(l);
	free(s);
	s = render(a, 1, 0);
	cr_assert(json_valid(s), "invalid JSON:\n%s", s);
	cr_expect(strstr(s, "\"wait_ns\": 90000, \"wait_min_ns\": 0, \"from_blocks\": true,"
			    " \"possible\": true"), "%s", s);
	cr_expect(strstr(s, "\"wait_ns\": 40000, \"wait_min_ns\": 40000, \"from_blocks\": true,"
			    " \"possible\": true"), "%s", s);
	free(s);
	analysis_free(a);
}

/* Exact ends: nothing says possible, and the text is as before. */
Test(report, exact_ends_are_certain)
{
	struct analysis *a = sample(1);
	char *s = render_with(a, 0, 0, 1);
	cr_expect(!strstr(s, "possible"), "%s", s);
	free(s);
	s = render(a, 1, 0);
	cr_expect(strstr(s, "\"wait_ns\": 90000, \"wait_min_ns\": 90000, \"from_blocks\": true,"
			    " \"possible\": false"), "%s", s);
	cr_expect(!strstr(s, "\"possible\": true"), "%s", s);
	free(s);
	analysis_free(a);
}

/* Each episode says in one sentence who waited, how long, from when to
 * when, behind what, and why that counts; times from the session start. */
Test(report, verdicts_are_one_sentence)
{
	struct analysis *a = sample(1);
	char *s = render(a, 0, 0), *l = one_line_text(s);
	cr_expect(strstr(l, "k2 (stream 2, priority -5) waited 90 us, from 0.010ms to 0.100ms, behind"
			    " k1 (stream 1, priority 0): lower-priority blocks that were already running"
			    " held the SMs, and the GPU cannot preempt them to make room for"
			    " higher-priority work."), "%s", s);
	cr_expect(strstr(l, "k3 (stream 3, priority 0) waited 40 us, from 0.060ms to 0.100ms, behind"
			    " k1 (stream 1, priority 0): it was ready, but other kernels' blocks filled"
			    " the SMs it needed."), "%s", s);
	cr_expect(strstr(s, "times: from the session's start"), "%s", s);
	/* no row is estimated and none passes 100%: neither footnote */
	cr_expect(!strstr(s, "(~:"), "%s", s);
	cr_expect(!strstr(s, "sm%:"), "%s", s);
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "\n");
		cr_expect(n <= 100, "a line of %zu columns: %.*s", n, (int)n, p);
		p += n + (p[n] == '\n');
	}
	free(l);
	free(s);
	analysis_free(a);
}

/* Short names in text, unless asked; JSON has both. */
Test(report, short_names_unless_long_asked)
{
	struct trace *t = trace_new();
	trace_device(t, 0, 4);
	trace_stream(t, 1, 0, 1, 0);
	trace_stream(t, 1, 0, 2, -5);
	trace_kernel(t, 1, 0, 1, 1, 500, 1000, 101000)->name = "_ZN2ns7culpritILi3EEEvPKfi";
	trace_kernel(t, 1, 0, 2, 2, 11000, 101000, 111000)->name = "_ZN2ns6victimEv";
	trace_blocks(t, 1, 0, 1, 4, 1000, 101000);
	trace_blocks(t, 1, 0, 2, 2, 101000, 111000);
	struct analysis *a = analysis_new(NULL);
	trace_feed_all(t, a);
	char *s = render(a, 0, 0);
	cr_expect(strstr(s, "victim (stream 2, priority -5) waited 90 us"), "%s", s);
	cr_expect(strstr(s, "prio 0  culprit  (4 blocks)"), "%s", s);
	cr_expect(!strstr(s, "_Z"), "%s", s);
	free(s);
	s = render(a, 1, 0);
	cr_expect(strstr(s, "\"name\": \"_ZN2ns6victimEv\", \"short_name\": \"victim\""), "%s", s);
	cr_expect(strstr(s, "\"session_start_ns\": 1000,"), "%s", s);
	free(s);
	analysis_free(a);
	trace_free(t);
}

/* The product on a PyTorch export of Nsight Systems (no CUPTI submitted
 * times): its kernels were ready when their launch calls returned, some
 * after lazy module loading held the call for milliseconds.  Their previous
 * kernels' ends made three episodes of 13 to 15 ms out of that; with the
 * launch calls read, none is left. */
Test(report, nsys_torch_export_waits_are_the_launch_calls)
{
	/* the build under test: make test-asan names its own */
	const char *b = getenv("SMTOP_BUILD");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s/smtop report tests/fixtures/nsys/nsys-2025.3-h200-torch.sqlite"
		 " --json -q --top 1000000", b && *b ? b : "build");
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
		size_t n = fread(buf + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	cr_assert(json_valid(buf), "invalid JSON:\n%s", buf);
	cr_expect(strstr(buf, "\"kernels\": 1308"), "%s", buf);
	cr_expect(strstr(buf, "\"episodes_total\": 0"), "%s", buf);
	cr_expect(!strstr(buf, "\"ready_ns\": 13673923377"), "%s", buf);
	/* every decided kernel's wait now is a few microseconds */
	for (const char *w = buf; (w = strstr(w, "\"wait_ns\": {")); w++) {
		const char *m = strstr(w, "\"max\": ");
		cr_assert_not_null(m);
		cr_expect_lt(strtoull(m + 8, NULL, 10), 20000, "%.300s", w);
	}
	free(buf);
}

/* ---- occupancy: observed vs limit ---- */

/* On an H200: "regs" (103 registers, 256 threads: limit 2) run 1 block an
 * SM at a time over 3 waves of 132 (full, below its limit), "wide" (1024
 * threads: limit 2) holds 3 at once on SM 0 (above its limit). */
static struct analysis *occupancy_sample(void)
{
	static const struct smtop_device d = {
		.sm_count = 132, .cc_major = 9, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
		.max_regs_per_sm = 65536, .max_smem_per_sm = 233472, .warp_size = 32,
	};
	struct analysis *a = analysis_new(NULL);
	cr_assert_eq(analysis_add_device(a, &d), 0);
	struct smtop_kernel k = { .start = 1000, .end = 4000, .grid_id = 5, .pid = 1,
				  .context_id = 1, .stream_id = 7, .correlation_id = 10,
				  .grid = { 396, 1, 1 }, .block = { 256, 1, 1 }, .registers = 103,
				  .name = "regs" };
	cr_assert_eq(analysis_add_kernel(a, &k), 0);
	k = (struct smtop_kernel){ .start = 5000, .end = 6000, .grid_id = 6, .pid = 1,
				   .context_id = 1, .stream_id = 7, .correlation_id = 11,
				   .grid = { 3, 1, 1 }, .block = { 1024, 1, 1 }, .registers = 26,
				   .name = "wide" };
	cr_assert_eq(analysis_add_kernel(a, &k), 0);
	for (int w = 0; w < 3; w++)
		for (uint16_t sm = 0; sm < 132; sm++) {
			struct smtop_block b = { .grid_id = 5, .sm = sm,
						 .start = 1000 + (uint64_t)w * 1000,
						 .end = 2000 + (uint64_t)w * 1000 };
			cr_assert_eq(analysis_add_block(a, 1, 1, &b), 0);
		}
	for (int i = 0; i < 3; i++) {
		struct smtop_block b = { .grid_id = 6, .sm = 0, .start = 5000 + (uint64_t)i,
					 .end = 6000 };
		cr_assert_eq(analysis_add_block(a, 1, 1, &b), 0);
	}
	cr_assert_eq(analysis_update(a, ANALYSIS_WATERMARK_ALL), 0);
	return a;
}

static char *render_from(struct analysis *a, int json, const char *registers_from)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	struct findings fi;
	cr_assert_eq(findings_from_analysis(a, &fi), 0);
	struct report_options o = { .source = "s.smtop", .registers_from = registers_from };
	cr_assert_eq(json ? report_json(f, &fi, &o) : report_text(f, &fi, &o), 0);
	findings_free(&fi);
	fclose(f);
	return buf;
}

/* Renders f as JSON and, with --explain, as text, into one string. */
static char *render_findings(const struct findings *fi)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	struct report_options o = { .source = "session.sqlite", .explain = 1,
				    .registers_from = fi->registers_from };
	cr_assert_eq(report_json(f, fi, &o), 0);
	cr_assert_eq(report_text(f, fi, &o), 0);
	fclose(f);
	return buf;
}

Test(report, occupancy_text_lists_below_and_above)
{
	struct analysis *a = occupancy_sample();
	char *s = render_from(a, 0, NULL);
	const char *want[] = {
		"occupancy: observed vs limit",
		"registers: as CUPTI recorded them",
		"2 of 2 kernels with block records, 2 launch configurations:\n  1 full grids, 0 reach "
		"their limit, 1 stay below it; 1 above it",
		"full grids below their limit",
		"           1    256  103        0     2 registers         1    1  regs",
		"above their limit",
		"           1   1024   26        0     2 threads           3  N/A  wide",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_expect(strstr(s, want[i]), "missing \"%s\" in\n%s", want[i], s);
	free(s);
	s = render_from(a, 0, "sanitizer");
	cr_expect(strstr(s, "before or after smtop's block patches"), "%s", s);
	cr_expect(strstr(s, "may be the\n  patches' doing"), "%s", s);
	free(s);
	analysis_free(a);
}

Test(report, occupancy_json)
{
	struct analysis *a = occupancy_sample();
	char *s = render_from(a, 1, "sanitizer");
	cr_assert(json_valid(s), "invalid JSON:\n%s", s);
	const char *want[] = {
		"\"occupancy\": {\"registers_from\": \"sanitizer\", \"registers_maybe_patched\": true,"
		" \"kernels\": 2, \"kernels_with_blocks\": 2, \"configs\": [",
		"{\"device\": 0, \"name\": \"regs\", \"threads\": 256, \"registers\": 103, \"smem_bytes\": 0,"
		" \"sms\": 132, \"limit\": 2, \"limit_by\": \"registers\", \"by_threads\": 8,"
		" \"by_registers\": 2, \"by_smem\": 228, \"by_blocks\": 32, \"launches\": 1,"
		" \"launches_with_blocks\": 1, \"blocks_max\": 396, \"most_per_sm\": 1,"
		" \"launches_full\": 1, \"launches_full_at_limit\": 0, \"most_per_sm_full_min\": 1,"
		" \"launches_above_limit\": 0}",
		"\"name\": \"wide\", \"threads\": 1024, \"registers\": 26",
		"\"most_per_sm\": 3, \"launches_full\": 0, \"launches_full_at_limit\": 0,"
		" \"most_per_sm_full_min\": null, \"launches_above_limit\": 1}",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_expect(strstr(s, want[i]), "missing %s in\n%s", want[i], s);
	free(s);
	/* without blocks or a device: nulls, not zeros */
	struct analysis *b = analysis_new(NULL);
	struct smtop_kernel k = { .start = 1, .end = 2, .grid_id = 5, .pid = 1, .context_id = 1,
				  .stream_id = 7, .block = { 256, 1, 1 }, .name = "k" };
	cr_assert_eq(analysis_add_kernel(b, &k), 0);
	cr_assert_eq(analysis_update(b, ANALYSIS_WATERMARK_ALL), 0);
	s = render_from(b, 1, NULL);
	cr_assert(json_valid(s), "invalid JSON:\n%s", s);
	cr_expect(strstr(s, "\"registers\": null, \"smem_bytes\": 0, \"sms\": 0, \"limit\": null,"
			    " \"limit_by\": \"unknown\", \"by_threads\": null"), "%s", s);
	cr_expect(strstr(s, "\"most_per_sm\": null"), "%s", s);
	cr_expect(strstr(s, "\"registers_from\": \"cupti\", \"registers_maybe_patched\": false"), "%s", s);
	free(s);
	analysis_free(b);
	analysis_free(a);
}

/* What a session file keeps prints byte for byte as what was found. */
Test(findings, bytes_print_as_the_analysis)
{
	for (int blocks = 0; blocks <= 2; blocks++) {
		struct analysis *a = blocks == 2 ? bounded_sample() : sample(blocks);
		struct findings fresh, back;
		uint8_t *data;
		size_t len;
		cr_assert_eq(findings_from_analysis(a, &fresh), 0);
		analysis_free(a);
		cr_assert_gt(fresh.n_events, 0);
		cr_assert_eq(findings_encode(&fresh, &data, &len), 0);
		cr_assert_eq(findings_decode(&back, data, len), 0);
		char *x = render_findings(&fresh), *y = render_findings(&back);
		cr_expect_str_eq(y, x);
		free(x);
		free(y);
		findings_free(&back);
		findings_free(&fresh);
		free(data);
	}
}

/* Cut or damaged bytes are refused (and computed again by the caller),
 * never read past their end. */
Test(findings, damaged_bytes_are_refused)
{
	struct analysis *a = sample(1);
	struct findings fi, back;
	uint8_t *data;
	size_t len;
	cr_assert_eq(findings_from_analysis(a, &fi), 0);
	analysis_free(a);
	cr_assert_eq(findings_encode(&fi, &data, &len), 0);
	findings_free(&fi);
	for (size_t cut = 0; cut < len; cut++)
		cr_expect_eq(findings_decode(&back, data, cut), -1, "cut at %zu of %zu", cut, len);
	data[1] ^= 0x7f; /* the magic */
	cr_expect_eq(findings_decode(&back, data, len), -1);
	free(data);
}
