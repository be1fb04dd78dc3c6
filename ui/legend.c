#include "ui/legend.h"

#include <stdio.h>

/* Red is kept for inversions, so streams never use it. */
static const int palette[] = {
	CANVAS_BLUE, CANVAS_GREEN, CANVAS_YELLOW, CANVAS_MAGENTA, CANVAS_CYAN,
	CANVAS_BRIGHT + CANVAS_BLUE, CANVAS_BRIGHT + CANVAS_GREEN,
	CANVAS_BRIGHT + CANVAS_MAGENTA, CANVAS_BRIGHT + CANVAS_CYAN, CANVAS_WHITE,
};

int legend_colour(const struct app *a, int rank)
{
	if (!a->colors || rank < 0)
		return CANVAS_DEFAULT;
	int n = a->colors >= 16 ? (int)(sizeof palette / sizeof *palette) : 5;
	return palette[rank % n];
}

char legend_letter(const struct model *m, int stream, int full)
{
	if (stream < 0 || (size_t)stream >= m->n_streams)
		return '?';
	char l = m->streams[stream].letter;
	return (!full && l >= 'A' && l <= 'Z') ? (char)(l + 32) : l;
}

const char *legend_idle(const struct app *a)
{
	return a->ascii ? "." : "·";
}

const char *legend_wait(const struct app *a)
{
	return a->ascii ? ":" : "░";
}

const char *legend_busy(const struct app *a)
{
	return a->ascii ? "=" : "█";
}

void legend_draw(struct canvas *c, struct canvas_rect r, const struct app *a,
		 const struct model *m)
{
	int x = r.x, end = r.x + r.w;
	for (size_t rank = 0; rank < m->n_streams && x < end; rank++) {
		const struct model_stream *s = model_stream_by_rank(m, rank);
		char t[48];
		if (!s->n_kernels)
			continue;
		if (s->priority == SMTOP_PRIORITY_UNKNOWN)
			snprintf(t, sizeof t, " s%u prio N/A  ", s->stream_id);
		else
			snprintf(t, sizeof t, " s%u prio %d  ", s->stream_id, s->priority);
		int hidden = rank < 64 && (a->hidden >> rank & 1);
		char l[2] = { s->letter, 0 };
		x += canvas_print(c, x, r.y, end - x, legend_colour(a, (int)rank), CANVAS_DEFAULT,
				  CANVAS_BOLD | (hidden ? CANVAS_DIM : 0), l);
		x += canvas_print(c, x, r.y, end - x, CANVAS_DEFAULT, CANVAS_DEFAULT,
				  hidden ? CANVAS_DIM : 0, t);
	}
	char g[160];
	/* under --sm entry a block is drawn up to its end's bound */
	snprintf(g, sizeof g, "a: <%d%% full  %s idle%s  ! inversion  %s waiting%s",
		 (int)(LEGEND_FULL * 100), legend_idle(a),
		 m->n_dropped_ranges ? "  " LEGEND_UNKNOWN " not recorded" : "", legend_wait(a),
		 m->ends_bounded & MODEL_ENDS_BOUND	       ? "  ends: bounds"
		 : m->ends_bounded & MODEL_ENDS_BOUND_BUT_MARKED ? "  ends: bounds, marked exact"
								 : "");
	if ((int)canvas_utf8_width(g) <= end - x)
		canvas_print(c, end - (int)canvas_utf8_width(g), r.y, end - x, CANVAS_DEFAULT,
			     CANVAS_DEFAULT, CANVAS_DIM, g);
}
