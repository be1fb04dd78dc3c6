#include "ui/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/fmt.h"
#include "ui/replay_player.h"

void status_draw_header(struct canvas *c, int y, const struct app *a, const struct model *m)
{
	const char *dot = a->ascii ? "|" : "·";
	char left[256], right[160], lag[64], w0[32], cw[32], bw[32];
	char sms[64] = "N/A SMs";
	if (m->has_device && m->n_gpus_used > 1)
		snprintf(sms, sizeof sms, "GPU %u of %u %s %u SMs", m->dev.device_id, m->n_gpus_used,
			 dot, m->n_sm);
	else if (m->has_device)
		snprintf(sms, sizeof sms, "%u SMs", m->n_sm);
	if (m->live)
		snprintf(lag, sizeof lag, "LIVE (lag %s)", fmt_duration(w0, sizeof w0, m->lag_ns, 1));
	else if (m->loading) {
		char sep[8];
		snprintf(sep, sizeof sep, " %s ", dot);
		if (m->load.total)
			snprintf(lag, sizeof lag, "loading %s", progress_format(&m->load, sep, w0, sizeof w0));
		else
			snprintf(lag, sizeof lag, "loading");
	}
	else if (replay_player_active(a))
		snprintf(lag, sizeof lag, "REPLAY");
	else
		snprintf(lag, sizeof lag, "saved session");
	const char *state = a->follow ? "" : (m->live || replay_player_active(a) ? " (paused)" : "");
	uint64_t base = m->t_first, t1 = app_t1(a);
	uint64_t res = model_resolution(m, a->t0, t1, a->col_ns);
	/* a live window may begin before the first record: say so with a minus */
	char s0[40];
	fmt_offset(w0, sizeof w0, a->t0 > base ? a->t0 - base : base - a->t0, a->col_ns * 10);
	snprintf(s0, sizeof s0, "%s%s", a->t0 < base && atof(w0) != 0 ? "-" : "", w0);
	char e1[32];
	fmt_offset(e1, sizeof e1, t1 > base ? t1 - base : 0, a->col_ns * 10);
	fmt_duration(cw, sizeof cw, a->col_ns, 1);
	snprintf(right, sizeof right, "window %s-%s %s %s/col %s bins %s", s0, e1, dot, cw, dot,
		 fmt_duration(bw, sizeof bw, res, res != 0));
	int rw = (int)canvas_utf8_width(right);
	/* narrow: the device goes first, then the label's directories; the
	 * label's first words (what the session is: "no GPU here: bundled H200
	 * session") go last of all, after the bins and the state */
	const char *label = m->session_label;
	const char *base_name = label && strrchr(label, '/') ? strrchr(label, '/') + 1 : label;
	const char *labels[] = { label, base_name };
	int lw = 0;
	for (int i = 0; i < 2; i++) {
		char lab[96] = "";
		if (labels[i])
			snprintf(lab, sizeof lab, "%s %s ", labels[i], dot);
		snprintf(left, sizeof left, "smtop  %s %s %s %s %s%s%s",
			 m->dev_name ? m->dev_name : "GPU N/A", dot, sms, dot, lab, lag, state);
		lw = (int)canvas_utf8_width(left);
		if (lw + 2 + rw <= c->w)
			break;
	}
	if (lw + 2 + rw > c->w) {
		snprintf(right, sizeof right, "window %s-%s %s %s/col", s0, e1, dot, cw);
		rw = (int)canvas_utf8_width(right);
		if (base_name)
			snprintf(left, sizeof left, "smtop %s %s %s %s%s", dot, base_name, dot, lag, state);
		else
			snprintf(left, sizeof left, "smtop %s %s%s", dot, lag, state);
		lw = (int)canvas_utf8_width(left);
		if (lw + 2 + rw > c->w)
			lw = c->w - 2 - rw;
		if (lw < 24) /* no room for both: the left alone, cut */
			lw = c->w, rw = c->w + 1;
	}
	canvas_print(c, 0, y, lw, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, left);
	if (lw + 2 + rw <= c->w)
		canvas_print(c, c->w - rw, y, rw, CANVAS_DEFAULT, CANVAS_DEFAULT, 0, right);
}

static const char *keys(const struct app *a)
{
	if (replay_player_active(a))
		return "? help  space play/pause  . , step  n N episode  < > speed  g guided  r stop";
	/* space pauses live data; in a saved session it starts a replay */
	if (a->model->live)
		return a->ascii ? "? help  space pause  +/- zoom  <> pan  n/N events  w worst  / search  q quit"
				: "? help  space pause  +/- zoom  ←→ pan  n/N events  w worst  / search  q quit";
	return a->ascii ? "? help  space replay  +/- zoom  <> pan  n/N events  w worst  / search  q quit"
			: "? help  space replay  +/- zoom  ←→ pan  n/N events  w worst  / search  q quit";
}

/* A line wider than w loses whole keys ("  "-separated) from its end, not
 * half of one ("r sto"). */
static void cut_keys(char *t, int w)
{
	while ((int)canvas_utf8_width(t) > w) {
		char *sep = NULL;
		for (char *p = strstr(t, "  "); p; p = strstr(p + 1, "  "))
			sep = p;
		if (!sep)
			return;
		*sep = '\0';
	}
}

void status_draw_footer(struct canvas *c, int y, const struct app *a, const struct model *m)
{
	const char *dot = a->ascii ? "|" : "·";
	char t[512], k[32], b[32], th[32];
	if (a->input == APP_INPUT_SEARCH) {
		snprintf(t, sizeof t, "search kernels: /%s_   (Enter find, Esc cancel)", a->search);
		canvas_print(c, 0, y, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, t);
		return;
	}
	if (a->input == APP_INPUT_FILTER) {
		canvas_print(c, 0, y, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD,
			     "filter: press a stream's letter to hide/show it, * shows all, Enter done");
		return;
	}
	char dr[32] = "N/A";
	if (m->drops_known)
		fmt_count(dr, sizeof dr, m->drops);
	int n = 0;
	if (replay_player_active(a)) {
		/* the clock and the speed first: they are what a class watches */
		char rp[160];
		replay_player_status(a, rp, sizeof rp);
		n = snprintf(t, sizeof t, "%s %s kernels %s %s blocks %s", rp, dot,
			     fmt_count(k, sizeof k, m->n_kernels), dot, fmt_count(b, sizeof b, m->blocks));
	} else {
		n = snprintf(t, sizeof t, "kernels %s %s blocks %s %s drops %s %s threshold %s",
			     fmt_count(k, sizeof k, m->n_kernels), dot,
			     fmt_count(b, sizeof b, m->blocks), dot, dr, dot,
			     fmt_duration(th, sizeof th, m->threshold_ns, m->threshold_ns != 0));
	}
	/* Blocks whose kernel is not known: live, its record is still on its way
	 * (CUPTI delivers kernels a flush period after their blocks); in a
	 * trimmed session the trim cut it; otherwise it is missing. */
	const char *pending = m->live ? "awaiting kernel records" : m->trimmed ? "trimmed" : "unmatched";
	if (m->n_pending && n > 0 && (size_t)n < sizeof t)
		n += snprintf(t + n, sizeof t - (size_t)n, " %s %s %s", dot, pending,
			      fmt_count(b, sizeof b, m->n_pending));
	if (n > 0 && (size_t)n < sizeof t)
		snprintf(t + n, sizeof t - (size_t)n, " %s %s", dot, a->msg[0] ? a->msg : keys(a));
	if (!a->msg[0])
		cut_keys(t, c->w);
	canvas_print(c, 0, y, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, a->msg[0] ? CANVAS_BOLD : 0, t);
}
