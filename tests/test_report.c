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

static char *render_with(struct analysis *a, int json, size_t max, int explain)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	struct report_options o = { "session.sqlite", max, explain };
	struct findings fi;
	cr_assert_eq(findings_from_analysis(a, &fi), 0);
	cr_assert_eq(json ? report_json(f, &fi, &o) : report_text(f, &fi, &o), 0);
	findings_free(&fi);
	fclose(f);
	return buf;
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
	cr_expect(strstr(s, "wait > 20.0 us (20000 ns)"), "%s", s);
	cr_expect(strstr(s, "basis: blocks"), "%s", s);
	cr_expect(strstr(s, "episodes, worst first (1 of 2)"), "%s", s);
	cr_expect(strstr(s, "90.0 us  inversion_resident"), "%s", s);
	cr_expect(strstr(s, "k2"), "%s", s);
	cr_expect(!strstr(s, "40.0 us  blocking"), "limit 1 shows only the worst:\n%s", s);
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
	cr_expect(strstr(s, "(from kernel intervals)"), "%s", s);
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

Test(report, explain_says_why_ready_and_what_was_resident)
{
	struct analysis *a = sample(1);
	char *s = render_with(a, 0, 0, 1);
	cr_expect(strstr(s, "ready at 11000 ns because of the host: CUPTI's submission time"), "%s", s);
	cr_expect(strstr(s, "first block at 101000 ns, 90.0 us later"), "%s", s);
	cr_expect(strstr(s, "resident meanwhile (1 kernel, share of block-time in the wait):\n"
			    "             100.0%  pid 1 stream 1 prio 0  k1  (4 blocks)"), "%s", s);
	free(s);
	s = render(a, 0, 0);
	cr_expect(!strstr(s, "ready at"), "only with --explain:\n%s", s);
	free(s);
	analysis_free(a);
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

/* Renders f as JSON and, with --explain, as text, into one string. */
static char *render_findings(const struct findings *fi)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	struct report_options o = { "session.sqlite", 0, 1 };
	cr_assert_eq(report_json(f, fi, &o), 0);
	cr_assert_eq(report_text(f, fi, &o), 0);
	fclose(f);
	return buf;
}

/* What a session file keeps prints byte for byte as what was found. */
Test(findings, bytes_print_as_the_analysis)
{
	for (int blocks = 0; blocks <= 1; blocks++) {
		struct analysis *a = sample(blocks);
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
