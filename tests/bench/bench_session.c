/* bench_session: what smtop does with a session file, timed on a real file.
 *
 *   bench_session open FILE      the viewer's open as `smtop open` runs it:
 *                                the first frame (stored results, one poll
 *                                within the live budget, layout, a
 *                                screen_draw), the rest of the load (a poll
 *                                and a frame at a time, until every block
 *                                is in: full detail), the first verdicts;
 *                                then one frame at every zoom from the whole
 *                                session down to 1 us per column,
 *                                mid-session and at the end, with the detail
 *                                fetch the viewer makes where the model asks
 *   bench_session first FILE     the first frame alone (as open), then exits
 *   bench_session analysis FILE  the analysis alone, as `smtop report` runs
 *                                it (no model, no printing)
 *
 * Frames are drawn into a BENCH_W x BENCH_H canvas (a large terminal).
 * Prints key=value lines for tests/bench/run.sh: times in wall clock and, as
 * *_cpu_*, in CPU time (which holds on a busy machine); peak RSS from
 * getrusage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "src/core/analysis.h"
#include "src/core/model.h"
#include "db/session/session.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/screen.h"
#include "ui/ui.h"
#include "tests/bench/bench_util.h"

#define BENCH_W 200
#define BENCH_H 60
#define FRAME_REPS 5

/* CPU time of this (only) thread: the figure that holds on a busy machine */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static void die(const char *err)
{
	fprintf(stderr, "bench_session: %s\n", err);
	exit(1);
}

static int bench_detail(void *ud, struct model *m, uint64_t t0, uint64_t t1, int start)
{
	(void)m;
	if (start)
		session_detail_start(ud, t0, t1);
	return session_detail_more(ud, SESSION_DETAIL_CHUNKS);
}

/* The viewer's detail fetch as its loop does it (ui/ui.c: three window
 * widths around the visible one, a few chunks at a time, steps of a bounded
 * time): returns the time until the detail is in, in ms; *longest gets the
 * longest step, the time a key waits. */
static double fetch_detail(struct session *s, struct model *m, struct app *a, double *longest)
{
	struct ui_source src = { .ud = s, .detail = bench_detail };
	double t = now_s();

	*longest = 0;
	do {
		double u = now_s();

		ui_step(a, m, &src, 0);
		if ((now_s() - u) * 1e3 > *longest)
			*longest = (now_s() - u) * 1e3;
	} while (a->fetch.on);
	if (a->msg[0])
		die(a->msg);
	return (now_s() - t) * 1e3;
}

/* Mean over FRAME_REPS frames, wall clock; *cpu gets the CPU time. */
static double frame_ms(struct canvas *c, struct app *a, const struct model *m, double *cpu)
{
	double t = now_s(), u = cpu_s();

	for (int r = 0; r < FRAME_REPS; r++)
		screen_draw(c, a, m);
	*cpu = (cpu_s() - u) * 1e3 / FRAME_REPS;
	return (now_s() - t) * 1e3 / FRAME_REPS;
}

struct worst {
	double frame, frame_cpu, detail, detail_step, step;
};

/* Zooms in from the whole session to 1 us per column around centre. */
static void zooms(struct session *s, struct model *m, struct canvas *c, uint64_t centre,
		  const char *where, struct worst *w)
{
	struct app a;

	app_init(&a, m);
	screen_layout(&a, m, c->w, c->h);
	app_fit(&a);
	for (;;) {
		uint64_t half = a.col_ns * (uint64_t)app_cols(&a) / 2;
		double detail = 0, detail_step = 0, frame, frame_cpu;

		a.t0 = centre > half ? centre - half : 0;
		if (a.t0 + 2 * half > m->t_last && centre == m->t_last)
			a.t0 = m->t_last > 2 * half ? m->t_last - 2 * half : 0;
		if (model_wants_detail(m, a.t0, app_t1(&a), a.col_ns))
			detail = fetch_detail(s, m, &a, &detail_step);
		frame = frame_ms(c, &a, m, &frame_cpu);
		printf("zoom where=%s col_us=%.3f bins_us=%.3f detail_ms=%.2f detail_step_ms=%.2f"
		       " frame_ms=%.3f frame_cpu_ms=%.3f\n", where, (double)a.col_ns / 1e3,
		       (double)model_resolution(m, a.t0, app_t1(&a), a.col_ns) / 1e3, detail,
		       detail_step, frame, frame_cpu);
		if (frame > w->frame)
			w->frame = frame;
		if (frame_cpu > w->frame_cpu)
			w->frame_cpu = frame_cpu;
		if (detail > w->detail)
			w->detail = detail;
		if (detail_step > w->detail_step)
			w->detail_step = detail_step;
		if (detail_step + frame > w->step)
			w->step = detail_step + frame;
		if (a.col_ns <= 1000)
			break;
		app_handle_key(&a, '+');
	}
}

#define MB(x) ((double)(x) / 1048576.0)

/* Where the memory goes, from the model's and the analysis' own counts;
 * the rest of the RSS is the loader's batches, SQLite and the program. */
static void print_memory(const struct model *m, const struct analysis *a)
{
	struct model_memory mm;
	struct analysis_memory am;

	model_memory(m, &mm);
	analysis_memory(a, &am);
	printf("mem_model_mb=%.1f mem_rings_mb=%.1f mem_detail_mb=%.1f mem_stage_mb=%.1f"
	       " mem_stage_peak_mb=%.1f mem_mkernels_mb=%.1f mem_mevents_mb=%.1f mem_analysis_mb=%.1f mem_akernels_mb=%.1f"
	       " mem_grids_mb=%.1f mem_profiles_mb=%.1f mem_packed_mb=%.1f mem_aindex_mb=%.1f"
	       " mem_aevents_mb=%.1f wide_kernels=%zu\n", MB(mm.total), MB(mm.rings), MB(mm.detail),
	       MB(mm.stage), MB(mm.stage_peak), MB(mm.kernels), MB(mm.events), MB(am.total),
	       MB(am.kernels), MB(am.grids), MB(am.profiles), MB(am.packed), MB(am.index),
	       MB(am.events), m->n_wide);
}

/* The first frame as `smtop open` draws it: the stored results shown, a
 * first poll of one batch, layout, a frame. */
static void first_frame(struct session *s, struct model *m, struct app *a, struct canvas *c)
{
	char err[512];

	s->show_stored = 1;
	s->budget_ns = 1; /* one batch, as ui/app/view.c */
	if (session_poll(s, err, sizeof err) < 0)
		die(err);
	s->budget_ns = SESSION_LIVE_BUDGET_NS;
	app_init(a, m);
	screen_layout(a, m, c->w, c->h);
	if (!a->follow)
		app_fit(a);
	app_tick(a, 0);
	screen_draw(c, a, m);
}

struct loading {
	double full_s, verdicts_s, step_max_ms;
	int polls;
};

/* The viewer's loop while the rest loads: a poll, a frame, until every
 * block is in; the longest step is how long a key waits meanwhile. */
static void load_rest(struct session *s, struct model *m, struct app *a, struct canvas *c,
		      double t0, struct loading *L)
{
	char err[512];

	if (m->n_events && L->verdicts_s < 0)
		L->verdicts_s = now_s() - t0;
	while (s->behind) {
		double u = now_s();

		if (session_poll(s, err, sizeof err) < 0)
			die(err);
		screen_draw(c, a, m);
		L->polls++;
		if ((now_s() - u) * 1e3 > L->step_max_ms)
			L->step_max_ms = (now_s() - u) * 1e3;
		if (m->n_events && L->verdicts_s < 0)
			L->verdicts_s = now_s() - t0;
	}
	L->full_s = now_s() - t0;
}

static int bench_open(const char *path)
{
	struct analysis_params p;
	struct session s;
	struct model m;
	struct canvas c;
	struct app a;
	struct worst w = { 0 };
	struct loading L = { .verdicts_s = -1 };
	char err[512];
	double t0 = now_s(), c0 = cpu_s(), t_open, c_open;

	analysis_params_default(&p);
	if (session_open(&s, path, &p, err, sizeof err) != 0)
		die(err);
	if (model_init(&m) != 0)
		die("out of memory");
	s.model = &m;
	m.session_label = path;
	if (canvas_init(&c, BENCH_W, BENCH_H) != 0)
		die("out of memory");
	first_frame(&s, &m, &a, &c);
	t_open = now_s() - t0;
	c_open = cpu_s() - c0;
	if (m.n_events)
		L.verdicts_s = t_open;
	int stored = s.stored_shown;
	load_rest(&s, &m, &a, &c, t0, &L);
	printf("open_s=%.3f open_cpu_s=%.3f full_s=%.3f full_cpu_s=%.3f verdicts_s=%.3f"
	       " load_step_max_ms=%.1f load_polls=%d stored=%d blocks=%llu kernels=%zu events=%zu"
	       " open_rss_mb=%.1f\n", t_open, c_open, L.full_s, cpu_s() - c0, L.verdicts_s,
	       L.step_max_ms, L.polls, stored, (unsigned long long)m.blocks, m.n_kernels,
	       m.n_events, rss_mb());
	print_memory(&m, s.analysis);
	zooms(&s, &m, &c, m.t_first + (m.t_last - m.t_first) / 2, "middle", &w);
	zooms(&s, &m, &c, m.t_last, "end", &w);
	printf("frame_max_ms=%.3f frame_cpu_max_ms=%.3f detail_max_ms=%.2f detail_step_max_ms=%.2f"
	       " step_max_ms=%.2f size=%dx%d rss_mb=%.1f\n", w.frame, w.frame_cpu, w.detail,
	       w.detail_step, w.step, BENCH_W, BENCH_H,
	       rss_mb());
	print_memory(&m, s.analysis);
	canvas_free(&c);
	model_free(&m);
	session_close(&s);
	return 0;
}

/* The first frame alone: what a key meets when the view comes up. */
static int bench_first(const char *path)
{
	struct analysis_params p;
	struct session s;
	struct model m;
	struct canvas c;
	struct app a;
	char err[512];
	double t0 = now_s(), c0 = cpu_s();

	analysis_params_default(&p);
	if (session_open(&s, path, &p, err, sizeof err) != 0)
		die(err);
	if (model_init(&m) != 0 || canvas_init(&c, BENCH_W, BENCH_H) != 0)
		die("out of memory");
	s.model = &m;
	m.session_label = path;
	first_frame(&s, &m, &a, &c);
	printf("open_s=%.3f open_cpu_s=%.3f kernels=%zu events=%zu rss_mb=%.1f\n", now_s() - t0,
	       cpu_s() - c0, m.n_kernels, m.n_events, rss_mb());
	canvas_free(&c);
	model_free(&m);
	session_close(&s);
	return 0;
}

static int bench_analysis(const char *path)
{
	struct analysis_params p;
	struct analysis_totals tot;
	struct session s;
	char err[512];
	double t0 = now_s(), c0 = cpu_s();

	analysis_params_default(&p);
	if (session_open(&s, path, &p, err, sizeof err) != 0 || session_poll(&s, err, sizeof err) < 0)
		die(err);
	if (!s.ended)
		analysis_update(s.analysis, ANALYSIS_WATERMARK_ALL);
	analysis_totals(s.analysis, &tot);
	printf("analysis_s=%.3f analysis_cpu_s=%.3f kernels=%zu blocks=%zu events=%zu inversions=%zu"
	       " rss_mb=%.1f\n", now_s() - t0, cpu_s() - c0, tot.kernels, tot.blocks, analysis_event_count(s.analysis),
	       tot.events[SMTOP_EV_INVERSION_RESIDENT] + tot.events[SMTOP_EV_INVERSION_DISPATCH],
	       rss_mb());
	session_close(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "open") == 0)
		return bench_open(argv[2]);
	if (argc == 3 && strcmp(argv[1], "first") == 0)
		return bench_first(argv[2]);
	if (argc == 3 && strcmp(argv[1], "analysis") == 0)
		return bench_analysis(argv[2]);
	fprintf(stderr, "usage: bench_session open|first|analysis FILE\n");
	return 2;
}
