#include "ui/details.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/core/analysis.h"
#include "src/core/replay_clock.h"
#include "src/core/fmt.h"
#include "src/core/occupancy_limit.h"
#include "ui/legend.h"
#include "ui/replay_player.h"

static void line(struct canvas *c, struct canvas_rect r, int *row, const char *fmt_text)
{
	if (*row < r.h)
		canvas_print(c, r.x, r.y + *row, r.w, CANVAS_DEFAULT, CANVAS_DEFAULT, 0, fmt_text);
	(*row)++;
}

/* "resident <= N/SM, limit L (what bounds it)", and what a gap between the
 * two may mean (docs/ui.md, "Details"). */
static void residency(struct canvas *c, struct canvas_rect r, int *row, const struct app *a,
		      const struct model *m, const struct model_kernel *k)
{
	char t[256], most[24] = "N/A", lim[48] = "N/A";
	/* the analysis' figure, else (no analysis runs for a session shown from
	 * its stored findings) the one counted from the blocks read for it */
	uint32_t kmost = model_kernel_most_per_sm(m, k);
	uint64_t seen = model_kernel_blocks_seen(m, k);
	if (!kmost && m->focus.kernel == k - m->kernels && m->focus.blocks_seen == seen)
		kmost = m->focus.most_per_sm;
	struct occupancy_limit l;
	const struct model_shape *sh = model_kernel_shape(m, k);
	struct occupancy_launch launch = { model_kernel_threads(m, k), sh->registers,
					   sh->static_smem + sh->dynamic_smem };
	int known = m->has_device && occupancy_limit(&m->dev, &launch, &l) == 0;
	if (kmost)
		snprintf(most, sizeof most, "%s %u/SM", a->ascii ? "<=" : "≤", kmost);
	if (known)
		snprintf(lim, sizeof lim, "%u (%s)", l.blocks, occupancy_bound_text(l.bound));
	snprintf(t, sizeof t, "resident %s, limit %s", most, lim);
	line(c, r, row, t);
	if (!known || !kmost)
		return;
	if (kmost > l.blocks) {
		line(c, r, row, "above its limit: see smtop report");
	} else if (kmost < l.blocks && seen > (uint64_t)l.blocks * m->n_sm) {
		line(c, r, row, "below its limit with blocks waiting");
		if (m->regs_maybe_patched)
			line(c, r, row, "--sm all: the patches may have added registers");
	}
}

static void kernel(struct canvas *c, struct canvas_rect r, const struct app *a,
		   const struct model *m, const struct model_kernel *k)
{
	char t[256], d[32], w[32], b[32];
	int row = 0;
	const struct model_stream *s = &m->streams[k->stream];
	snprintf(t, sizeof t, "%c:%s", s->letter, model_kernel_short_name(m, k));
	canvas_print(c, r.x, r.y + row++, r.w, legend_colour(a, s->rank), CANVAS_DEFAULT,
		     CANVAS_BOLD, t);
	uint64_t end = model_kernel_end(m, k);
	fmt_duration(d, sizeof d, end - k->start, end > k->start);
	fmt_duration(w, sizeof w, model_kernel_wait(m, k), model_kernel_ready(m, k) != 0);
	snprintf(t, sizeof t, "ran %s  waited %s", d, w);
	line(c, r, &row, t);
	const struct model_shape *sh = model_kernel_shape(m, k);
	snprintf(t, sizeof t, "grid %dx%dx%d  block %dx%dx%d", sh->grid[0], sh->grid[1], sh->grid[2],
		 sh->block[0], sh->block[1], sh->block[2]);
	line(c, r, &row, t);
	uint64_t seen = model_kernel_blocks_seen(m, k);
	/* the SMs are read from the session for the kernel shown (model_focus) */
	const struct model_focus *f = &m->focus;
	int sms_known = f->kernel == k - m->kernels && f->blocks_seen == seen && f->sms_known;
	if (seen && sms_known) {
		fmt_count(b, sizeof b, seen);
		snprintf(t, sizeof t, "blocks %s on %u SMs (%.1f/SM)", b, f->sms,
			 f->sms ? (double)seen / f->sms : 0.0);
	} else if (seen) {
		fmt_count(b, sizeof b, seen);
		snprintf(t, sizeof t, "blocks %s on N/A SMs", b);
	} else {
		snprintf(t, sizeof t, "blocks N/A (no block records)");
	}
	line(c, r, &row, t);
	char rg[16] = "N/A";
	if (sh->registers)
		snprintf(rg, sizeof rg, "%u", sh->registers);
	snprintf(t, sizeof t, "regs %s%s  smem %u+%u B", rg, m->regs_maybe_patched ? " (--sm all)" : "",
		 sh->static_smem, sh->dynamic_smem);
	line(c, r, &row, t);
	residency(c, r, &row, a, m, k);
	char corr[16] = "N/A";
	if (sms_known && f->correlation_id)
		snprintf(corr, sizeof corr, "%u", f->correlation_id);
	snprintf(t, sizeof t, "stream s%u pid %u corr %s", s->stream_id, s->pid, corr);
	line(c, r, &row, t);
}

static char letter_of(const struct model *m, uint32_t pid, uint32_t dev, uint32_t ctx, uint32_t id)
{
	long s = model_find_stream(m, pid, dev, ctx, id);
	return s >= 0 ? m->streams[s].letter : '?';
}

/* Why an episode on bounded block ends is only possible, and how far the
 * bounds could move its wait. */
static void possible(struct canvas *c, struct canvas_rect r, int *row, const struct smtop_event *e)
{
	char t[160], lo[32], hi[32];
	if (e->possible & SMTOP_POSSIBLE_READY) {
		/* one line: the pane is short, the culprits come next */
		fmt_duration(lo, sizeof lo, e->wait_min_ns, 1);
		fmt_duration(hi, sizeof hi, e->wait_ns, 1);
		snprintf(t, sizeof t, "possible: wait %s to %s", lo, hi);
		line(c, r, row, t);
	} else {
		line(c, r, row, e->possible & SMTOP_POSSIBLE_CULPRITS ? "possible: culprits' ends are bounds"
								       : "possible: block ends are bounds");
	}
}

/* The selected episode: who waited, how long, and behind whom (the events
 * pane's lines are too narrow for the culprits). */
static void event(struct canvas *c, struct canvas_rect r, const struct app *a,
		  const struct model *m, size_t ei)
{
	const struct model_event *me = &m->events[ei];
	const struct smtop_event *e = &me->ev;
	const struct model_kernel *k = me->kernel >= 0 ? &m->kernels[me->kernel] : NULL;
	int inv = e->kind == SMTOP_EV_INVERSION_RESIDENT || e->kind == SMTOP_EV_INVERSION_DISPATCH;
	char t[256], w[32], t0[32], t1[32], kind[48];
	int row = 0;
	model_event_kind_label(e, kind, sizeof kind);
	canvas_print(c, r.x, r.y + row++, r.w, inv && a->colors ? CANVAS_RED : CANVAS_DEFAULT,
		     CANVAS_DEFAULT, CANVAS_BOLD, kind);
	/* replaying, a victim still waiting has its start cut at the clock */
	int waiting = replay_player_active(a) && e->start >= a->replay->clock;
	fmt_duration(w, sizeof w, e->wait_ns, e->start >= e->ready && e->ready);
	snprintf(t, sizeof t, "%c:%s %s %s%s",
		 letter_of(m, e->pid, e->device_id, e->context_id, e->stream_id),
		 k ? model_kernel_short_name(m, k) : (e->name ? e->name : "?"),
		 waiting ? "waiting" : "waited", w,
		 waiting ? " so far" : "");
	line(c, r, &row, t);
	fmt_offset(t0, sizeof t0, e->ready > m->t_first ? e->ready - m->t_first : 0, 1);
	fmt_offset(t1, sizeof t1, e->start > m->t_first ? e->start - m->t_first : 0, 1);
	if (waiting)
		snprintf(t, sizeof t, "ready %s  not started yet", t0);
	else
		snprintf(t, sizeof t, "ready %s  started %s", t0, t1);
	line(c, r, &row, t);
	char why[160];
	analysis_bound_brief(e, why, sizeof why);
	snprintf(t, sizeof t, "why: %s", why);
	line(c, r, &row, t);
	if (e->possible)
		possible(c, r, &row, e);
	line(c, r, &row, e->from_blocks ? "behind (share of block-time overlap):"
					: "behind (share of kernel-time overlap):");
	for (size_t i = 0; i < e->n_culprits && row < r.h; i++) {
		const struct smtop_culprit *cu = model_event_culprit(m, ei, i);
		if (!cu) {
			/* the rest are in the file, read for the episode shown */
			snprintf(t, sizeof t, "%zu more: N/A", e->n_culprits - i);
			line(c, r, &row, t);
			break;
		}
		long ck = model_find_kernel(m, cu->pid, cu->device_id, cu->grid_id);
		char b[48] = "", n[32];
		if (cu->blocks)
			snprintf(b, sizeof b, ", %s blocks", fmt_count(n, sizeof n, cu->blocks));
		char share[8];
		if (cu->weight > 0 && cu->weight < 0.005)
			snprintf(share, sizeof share, " <1%%");
		else
			snprintf(share, sizeof share, "%3.0f%%", cu->weight * 100);
		snprintf(t, sizeof t, "%s %c:%s%s", share,
			 letter_of(m, cu->pid, cu->device_id, cu->context_id, cu->stream_id),
			 ck >= 0 ? model_kernel_short_name(m, &m->kernels[ck]) : (cu->name ? cu->name : "?"),
			 b);
		line(c, r, &row, t);
	}
}

/* "busy B% of columns, F% full when busy".  Where ends are upper bounds
 * the fullness is one too, and bounds stretched over dropped launches can
 * overlap past the SMs' room (over 100%), when it says nothing. */
static void busy_lines(struct canvas *c, struct canvas_rect r, int *row, int busy_pct, double full_pct,
		       int bounded)
{
	char t[96];
	int overlap = full_pct > 100.5; /* past what prints as 100% */

	if (!bounded)
		snprintf(t, sizeof t, "busy %d%% of columns, %.0f%% full when busy", busy_pct, full_pct);
	else if (!overlap)
		snprintf(t, sizeof t, "busy %d%% of columns, at most %.0f%% full", busy_pct, full_pct);
	else
		snprintf(t, sizeof t, "busy %d%% of columns, fullness N/A:", busy_pct);
	line(c, r, row, t);
	if (bounded && overlap)
		line(c, r, row, "  bounded ends overlap past the room");
}

/* Who held the SM row over the window: the share of columns each stream led. */
static void sm_row(struct canvas *c, struct canvas_rect r, const struct app *a,
		   const struct model *m)
{
	uint32_t per = a->sm_zoom ? 1 : (uint32_t)(a->layout.sms_per_row ? a->layout.sms_per_row : 4);
	uint32_t sm = (uint32_t)a->sm_row * per;
	if (sm >= m->n_sm)
		return;
	uint32_t n = sm + per > m->n_sm ? m->n_sm - sm : per;
	char t[256];
	int row = 0;
	if (n == 1)
		snprintf(t, sizeof t, "SM %u over the window", sm);
	else
		snprintf(t, sizeof t, "SMs %u-%u over the window", sm, sm + n - 1);
	canvas_print(c, r.x, r.y + row++, r.w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, t);
	if (!m->blocks) {
		line(c, r, &row, "occupancy N/A (no block records)");
		return;
	}
	int ncols = app_cols(a);
	struct model_cell *cells = calloc((size_t)ncols, sizeof *cells);
	if (!cells)
		return;
	model_sample_sms(m, sm, n, a->t0, a->col_ns, (size_t)ncols, cells);
	int counts[27] = { 0 }, idle = 0;
	double full = 0;
	for (int i = 0; i < ncols; i++) {
		if (cells[i].stream < 0) {
			idle++;
			continue;
		}
		int rank = m->streams[cells[i].stream].rank;
		counts[rank < 26 ? rank : 26]++;
		full += cells[i].fullness;
	}
	free(cells);
	busy_lines(c, r, &row, 100 * (ncols - idle) / ncols, ncols - idle ? 100 * full / (ncols - idle) : 0.0,
		   m->ends_bounded);
	for (int i = 0; i < 27 && row < r.h; i++) {
		if (!counts[i])
			continue;
		const struct model_stream *s = model_stream_by_rank(m, (size_t)i);
		snprintf(t, sizeof t, "%c s%u leads %d%% of the time", i < 26 ? s->letter : '+',
			 i < 26 ? s->stream_id : 0, 100 * counts[i] / ncols);
		canvas_print(c, r.x, r.y + row++, r.w, legend_colour(a, i), CANVAS_DEFAULT, 0, t);
	}
}

void details_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		  const struct model *m)
{
	if (r.w <= 0 || r.h <= 0)
		return;
	if (a->pane == APP_PANE_SMS && m->n_sm) {
		sm_row(c, r, a, m);
		return;
	}
	if (a->pane == APP_PANE_EVENTS && a->sel_event >= 0 && (size_t)a->sel_event < m->n_events) {
		event(c, r, a, m, (size_t)a->sel_event);
		return;
	}
	if (a->sel_kernel >= 0 && (size_t)a->sel_kernel < m->n_kernels) {
		kernel(c, r, a, m, &m->kernels[a->sel_kernel]);
		return;
	}
	canvas_print(c, r.x, r.y, r.w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
		     "Tab to a pane, j/k to select");
}
