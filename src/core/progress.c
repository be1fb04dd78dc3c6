#include "src/core/progress.h"

#include <stdio.h>

void progress_begin(struct progress *p, const char *what, uint64_t total, uint64_t now_ns)
{
	*p = (struct progress){ .what = what, .begun_ns = now_ns, .now_ns = now_ns, .total = total };
}

void progress_report(struct progress *p, const struct progress_sink *sink, uint64_t done,
		     uint64_t now_ns)
{
	p->done = p->total && done > p->total ? p->total : done;
	p->now_ns = now_ns;
	if (sink && sink->fn)
		sink->fn(sink->ud, p);
}

void progress_finish(struct progress *p, const struct progress_sink *sink, uint64_t now_ns)
{
	p->finished = 1;
	progress_report(p, sink, p->total, now_ns);
}

int progress_percent(const struct progress *p)
{
	if (!p->total)
		return 0;
	return (int)((double)p->done * 100.0 / (double)p->total);
}

int64_t progress_left_ns(const struct progress *p)
{
	uint64_t spent = p->now_ns > p->begun_ns ? p->now_ns - p->begun_ns : 0;
	if (!p->total || !p->done || spent < PROGRESS_ESTIMATE_AFTER_NS)
		return -1;
	double left = (double)spent * (double)(p->total - p->done) / (double)p->done;
	return left > 9.2e18 ? -1 : (int64_t)left;
}

/* Whole seconds below two minutes, then minutes: a countdown, not a timer. */
static void format_left(char *buf, size_t len, int64_t ns)
{
	double s = (double)ns / 1e9;
	if (s < 1.0)
		snprintf(buf, len, "<1 s");
	else if (s < 120.0)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%.0f min", s / 60.0);
}

char *progress_format(const struct progress *p, const char *sep, char *buf, size_t len)
{
	int64_t left = progress_left_ns(p);
	if (left < 0) {
		snprintf(buf, len, "%d%%", progress_percent(p));
		return buf;
	}
	char l[32];
	format_left(l, sizeof l, left);
	snprintf(buf, len, "%d%%%s%s left", progress_percent(p), sep, l);
	return buf;
}
