/* Progress of long steps (src/core/progress.c): the share done, the time
 * left at the rate so far, and what a sink is told. */
#include <criterion/criterion.h>
#include <string.h>

#include "src/core/progress.h"

#define S 1000000000ull

struct heard {
	int calls, finished;
	uint64_t done;
};

static void listen(void *ud, const struct progress *p)
{
	struct heard *h = ud;
	h->calls++;
	h->finished = p->finished;
	h->done = p->done;
}

Test(progress, percent_and_time_left_follow_the_rate)
{
	struct progress p;
	progress_begin(&p, "reading", 1000, 10 * S);
	cr_expect_eq(progress_percent(&p), 0);
	cr_expect_eq(progress_left_ns(&p), -1, "nothing done: no estimate");
	progress_report(&p, NULL, 250, 12 * S);
	cr_expect_eq(progress_percent(&p), 25);
	/* a quarter in 2 s: three quarters take 6 s more */
	cr_expect_eq(progress_left_ns(&p), (int64_t)(6 * S));
	char buf[64];
	cr_expect_str_eq(progress_format(&p, ", ", buf, sizeof buf), "25%, 6 s left");
	progress_report(&p, NULL, 999, 12 * S + S / 2);
	cr_expect_str_eq(progress_format(&p, " | ", buf, sizeof buf), "99% | <1 s left");
}

Test(progress, no_estimate_before_the_first_fifth_of_a_second)
{
	struct progress p;
	progress_begin(&p, "reading", 100, S);
	progress_report(&p, NULL, 50, S + PROGRESS_ESTIMATE_AFTER_NS - 1);
	cr_expect_eq(progress_left_ns(&p), -1);
	char buf[64];
	cr_expect_str_eq(progress_format(&p, ", ", buf, sizeof buf), "50%");
}

Test(progress, long_waits_read_in_minutes)
{
	struct progress p;
	progress_begin(&p, "reading", 100, 0);
	progress_report(&p, NULL, 1, 6 * S); /* 1% in 6 s: 594 s left */
	char buf[64];
	cr_expect_str_eq(progress_format(&p, ", ", buf, sizeof buf), "1%, 10 min left");
}

Test(progress, unknown_total_and_overshoot)
{
	struct progress p;
	progress_begin(&p, "reading", 0, 0);
	progress_report(&p, NULL, 5, S);
	cr_expect_eq(progress_percent(&p), 0);
	cr_expect_eq(progress_left_ns(&p), -1);
	progress_begin(&p, "reading", 10, 0);
	progress_report(&p, NULL, 25, S);
	cr_expect_eq(p.done, 10, "done is capped at the total");
	cr_expect_eq(progress_percent(&p), 100);
}

Test(progress, the_sink_hears_reports_and_the_end)
{
	struct heard h = { 0 };
	struct progress_sink sink = { listen, &h };
	struct progress p;
	progress_begin(&p, "writing", 40, 0);
	progress_report(&p, &sink, 10, S);
	cr_expect_eq(h.calls, 1);
	cr_expect_eq(h.done, 10);
	cr_expect_not(h.finished);
	progress_finish(&p, &sink, 2 * S);
	cr_expect_eq(h.calls, 2);
	cr_expect(h.finished);
	cr_expect_eq(h.done, 40, "the end reports everything done");
	struct progress_sink deaf = { NULL, NULL };
	progress_report(&p, &deaf, 1, 3 * S); /* nobody listens: no call, no crash */
	cr_expect_eq(h.calls, 2);
}
