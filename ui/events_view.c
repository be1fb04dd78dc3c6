#include "ui/events_view.h"

#include <stdio.h>

#include "src/core/fmt.h"
#include "ui/legend.h"

static char stream_letter(const struct model *m, uint32_t pid, uint32_t dev, uint32_t ctx,
			  uint32_t id)
{
	long s = model_find_stream(m, pid, dev, ctx, id);
	return s >= 0 ? m->streams[s].letter : '?';
}

void events_view_line(char *buf, size_t len, const struct model *m, size_t i)
{
	const struct smtop_event *e = &m->events[i].ev;
	const struct model_kernel *k = m->events[i].kernel >= 0 ? &m->kernels[m->events[i].kernel]
								 : NULL;
	char t[32], w[32], cu[160] = "";
	fmt_offset(t, sizeof t, e->ready > m->t_first ? e->ready - m->t_first : 0, 1);
	fmt_duration(w, sizeof w, e->wait_ns, e->start >= e->ready && e->ready);
	const struct smtop_culprit *c = model_event_culprit(m, i, 0); /* always held */
	if (c) {
		char b[32] = "";
		if (c->blocks)
			snprintf(b, sizeof b, " (%u blocks)", c->blocks);
		long ck = model_find_kernel(m, c->pid, c->device_id, c->grid_id);
		const char *cn = ck >= 0 ? model_kernel_short_name(m, &m->kernels[ck])
					 : (c->name ? c->name : "?");
		snprintf(cu, sizeof cu, "  culprit %c:%s%s%s",
			 stream_letter(m, c->pid, c->device_id, c->context_id, c->stream_id), cn, b,
			 e->n_culprits > 1 ? " +more" : "");
	}
	/* a possible episode (bounded block ends) is marked with a '?' */
	char kind[32];
	snprintf(kind, sizeof kind, "%s%s", model_event_kind_name(e->kind), e->possible ? "?" : "");
	snprintf(buf, len, "%10s  %-20s  %c:%s waited %s%s", t, kind,
		 stream_letter(m, e->pid, e->device_id, e->context_id, e->stream_id),
		 k ? model_kernel_short_name(m, k) : (e->name ? e->name : "?"), w, cu);
}

void events_view_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		      const struct model *m)
{
	if (!m->n_events) {
		canvas_print(c, r.x + 2, r.y, r.w - 2, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
			     "no blocking or inversion events");
		return;
	}
	for (int row = 0; row < r.h; row++) {
		size_t i = (size_t)(a->ev_scroll + row);
		if (i >= m->n_events)
			break;
		const struct smtop_event *e = &m->events[i].ev;
		int sel = (long)i == a->sel_event;
		int inv = e->kind == SMTOP_EV_INVERSION_RESIDENT ||
			  e->kind == SMTOP_EV_INVERSION_DISPATCH;
		char line[320];
		events_view_line(line, sizeof line, m, i);
		int attr = sel && a->pane == APP_PANE_EVENTS ? CANVAS_REVERSE : 0;
		canvas_print(c, r.x, r.y + row, 1, CANVAS_DEFAULT, CANVAS_DEFAULT, attr,
			     sel ? ">" : " ");
		canvas_print(c, r.x + 1, r.y + row, r.w - 1,
			     inv && a->colors ? CANVAS_RED : CANVAS_DEFAULT, CANVAS_DEFAULT,
			     attr | (inv ? CANVAS_BOLD : 0), line);
	}
}
