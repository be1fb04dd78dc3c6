/* Replay cost on a recorded session (default: the H200 priority-vs-training
 * fixture): opening the replay, one tick of playing at several speeds (the
 * feed of 50 ms of real time), a step back (the model rebuilt up to the
 * clock), a step to the next block start, and a frame drawn while replaying.
 * Usage: bench_replay [SESSION] (a number as the first argument, as make
 * bench passes for the block benchmarks, is ignored) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/core/analysis.h"
#include "src/core/model.h"
#include "db/session/session.h"
#include "db/session/replay_feed.h"
#include "tests/support/replay_support.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"
#include "tests/bench/bench_util.h"

#define TICK_NS 50000000ULL             /* the viewer's tick: 50 ms of real time */

static int feed(struct replay_fixture *f, uint64_t t)
{
	if (replay_support_feed(f, t) != 0) {
		fprintf(stderr, "bench_replay: feed failed\n");
		return -1;
	}
	return 0;
}

/* Plays the whole session tick by tick at speed x: the mean and worst tick. */
static int play(struct replay_fixture *f, double x)
{
	uint64_t step = (uint64_t)((double)TICK_NS / x);
	if (!step)
		step = 1;
	if (feed(f, f->p.t_first) != 0)
		return -1;
	double worst = 0, total = 0;
	size_t ticks = 0;
	for (uint64_t t = f->p.t_first + step; t < f->p.t_last && ticks < 20000; t += step) {
		double t0 = now_s();
		if (feed(f, t) != 0)
			return -1;
		double d = now_s() - t0;
		total += d;
		worst = d > worst ? d : worst;
		ticks++;
	}
	printf("play x%-8g %6zu ticks  mean %.3f ms  worst %.3f ms per tick\n", x, ticks,
	       ticks ? total / (double)ticks * 1e3 : 0.0, worst * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = REPLAY_SUPPORT_PVT;
	if (argc > 1 && !(argv[1][0] >= '0' && argv[1][0] <= '9'))
		path = argv[1];
	struct replay_fixture f;
	double t0 = now_s();
	if (replay_support_open(&f, path) != 0)
		return 1;
	double opened = now_s() - t0;
	uint64_t span = f.p.t_last - f.p.t_first;
	printf("session %s: %zu kernels, %.2f ms of GPU time\n", path, f.p.n_kernels, (double)span / 1e6);
	printf("open (analysis of the whole session + replay index): %.1f ms\n", opened * 1e3);

	t0 = now_s();
	if (feed(&f, f.p.t_last) != 0)
		return 1;
	printf("feed to the end at once: %.1f ms, %llu blocks (%.2f M blocks/s)\n",
	       (now_s() - t0) * 1e3, (unsigned long long)f.m.blocks,
	       (double)f.m.blocks / (now_s() - t0) / 1e6);

	double speeds[] = { 1e2, 1e3, 1e4 };
	for (size_t i = 0; i < sizeof speeds / sizeof *speeds; i++)
		if (play(&f, speeds[i]) != 0)
			return 1;

	/* a step back from the end to the middle: the model is rebuilt */
	if (feed(&f, f.p.t_last) != 0)
		return 1;
	t0 = now_s();
	if (feed(&f, f.p.t_first + span / 2) != 0)
		return 1;
	printf("step back to the middle (rebuild): %.1f ms\n", (now_s() - t0) * 1e3);

	uint64_t next;
	t0 = now_s();
	int n = 0;
	for (uint64_t c = f.p.t_first + span / 2; n < 1000; n++) {
		if (replay_feed_find(&f.p, REPLAY_CLOCK_MARK_DISPATCH, 1, c, 0, 132, &next) != 0)
			break;
		c = next;
	}
	printf("next block start (.): %.1f us per step over %d steps\n",
	       n ? (now_s() - t0) / n * 1e6 : 0.0, n);

	struct app a;
	struct canvas c;
	canvas_init(&c, 160, 50);
	app_init(&a, &f.m);
	screen_layout(&a, &f.m, 160, 50);
	a.col_ns = 5000;
	a.t0 = f.p.t_first + span / 2 - a.col_ns * (uint64_t)app_cols(&a);
	t0 = now_s();
	for (int i = 0; i < 100; i++)
		screen_draw(&c, &a, &f.m);
	printf("frame 160x50 at the clock, 5 us/col: %.3f ms\n", (now_s() - t0) / 100 * 1e3);
	canvas_free(&c);
	replay_support_close(&f);
	return 0;
}
