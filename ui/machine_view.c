#include "ui/machine_view.h"

#include <stdio.h>
#include <string.h>

#include "ui/app.h"

#define MACHINE_VIEW_MIN_W 60
#define MACHINE_VIEW_MIN_H 8
/* columns before COMMAND: mark, PID, USER, GPU MEM, SM, SMTOP */
#define MV_PID_W 8
#define MV_USER_W 10
#define MV_MEM_W 10
#define MV_SM_W 5
#define MV_SMTOP_W 20

/* A line of the list: a GPU, one of its processes, or a note. */
enum mv_line_kind { MV_GPU, MV_PROC, MV_NONE, MV_UNPLACED };

struct mv_line {
	enum mv_line_kind kind;
	int i;                        /* GPU or process index */
};

#define MV_LINES_MAX (2 * MACHINE_MAX_GPUS + MACHINE_MAX_PROCS + 1)

static const char *const help_lines[] = {
	"up/down, j/k    select a process (PgUp/PgDn, Home/End)",
	"r               switch recording on/off in a process of yours started",
	"                by smtop launch (a new session in the library each time)",
	"Enter           the live per-SM view of the session it records now",
	"                (q there comes back here)",
	"a               the live view of every process of yours recording,",
	"                their sessions side by side as smtop open A B draws them",
	"?               this help;  q quit",
	"",
	"SMTOP: the collector's --sm mode and whether it records; only your",
	"own processes started by smtop launch (OWN yes) can be controlled.",
	"N/A: a value the driver does not give.  The data refreshes every second.",
};

void machine_view_init(struct machine_view *v, struct machine *m)
{
	memset(v, 0, sizeof *v);
	v->m = m;
	v->colors = 8;
	v->sel_pid = -1;
}

const struct machine_proc *machine_view_selected(const struct machine_view *v)
{
	if (!v->m->n_procs || v->sel < 0 || (size_t)v->sel >= v->m->n_procs)
		return NULL;
	return &v->m->procs[v->sel];
}

static void remember_selection(struct machine_view *v)
{
	const struct machine_proc *p = machine_view_selected(v);

	v->sel_pid = p ? p->pid : -1;
	v->sel_gpu = p ? p->gpu : 0;
}

void machine_view_resync(struct machine_view *v)
{
	for (size_t i = 0; i < v->m->n_procs; i++) {
		if (v->m->procs[i].pid == v->sel_pid && v->m->procs[i].gpu == v->sel_gpu) {
			v->sel = (int)i;
			return;
		}
	}
	/* its process ended: the row that took its place */
	if (v->sel >= (int)v->m->n_procs)
		v->sel = (int)v->m->n_procs - 1;
	if (v->sel < 0)
		v->sel = 0;
	remember_selection(v);
}

/* r: only an own process that carries the collector can be switched. */
static void ask_record(struct machine_view *v)
{
	const struct machine_proc *p = machine_view_selected(v);

	if (!p)
		snprintf(v->msg, sizeof v->msg, "r: no process selected");
	else if (!p->own)
		snprintf(v->msg, sizeof v->msg, "r: process %d belongs to %s: smtop controls only your own processes",
			 (int)p->pid, p->user[0] ? p->user : "another user");
	else if (!p->collector)
		snprintf(v->msg, sizeof v->msg, "r: process %d was not started by smtop launch (no control socket)",
			 (int)p->pid);
	else
		v->result = MACHINE_VIEW_RECORD;
}

static void ask_open(struct machine_view *v)
{
	const struct machine_proc *p = machine_view_selected(v);

	if (!p)
		snprintf(v->msg, sizeof v->msg, "Enter: no process selected");
	else if (!p->collector || !p->own)
		snprintf(v->msg, sizeof v->msg, "Enter: process %d carries no collector of yours: nothing per SM to show",
			 (int)p->pid);
	else if (!p->recording || !p->session[0])
		snprintf(v->msg, sizeof v->msg, "Enter: process %d is not recording; r starts a session", (int)p->pid);
	else
		v->result = MACHINE_VIEW_OPEN;
}

size_t machine_view_recording(const struct machine_view *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->m->n_procs; i++) {
		const struct machine_proc *p = &v->m->procs[i];

		n += p->own && p->collector && p->recording && p->session[0];
	}
	return n;
}

static void ask_open_all(struct machine_view *v)
{
	if (!machine_view_recording(v))
		snprintf(v->msg, sizeof v->msg, "a: no process of yours is recording; r starts a session");
	else
		v->result = MACHINE_VIEW_OPEN_ALL;
}

int machine_view_handle_key(struct machine_view *v, int key)
{
	int n = (int)v->m->n_procs, page = v->rows > 1 ? v->rows - 1 : 1;

	v->msg[0] = 0;
	if (v->help) {
		v->help = 0;
		return 1;
	}
	if (app_list_move(&v->sel, key, page, n)) {
		remember_selection(v);
		return 1;
	}
	switch (key) {
	case 'r': ask_record(v); return 1;
	case APP_KEY_ENTER: ask_open(v); return 1;
	case 'a': ask_open_all(v); return 1;
	case '?': v->help = 1; return 1;
	case 'q': case APP_KEY_ESC: v->result = MACHINE_VIEW_QUIT; return 1;
	case APP_KEY_RESIZE: return 1;
	default: return 0;
	}
}

/* The list's lines: each GPU, its processes (or a note that it has none),
 * then the launched processes seen on no GPU. */
static size_t build_lines(const struct machine *m, struct mv_line *l)
{
	size_t n = 0, p = 0;

	for (size_t g = 0; g < m->n_gpus; g++) {
		int any = 0;

		l[n++] = (struct mv_line){ MV_GPU, (int)g };
		for (; p < m->n_procs && m->procs[p].gpu == (int)g; p++, any = 1)
			l[n++] = (struct mv_line){ MV_PROC, (int)p };
		if (!any)
			l[n++] = (struct mv_line){ MV_NONE, (int)g };
	}
	if (p < m->n_procs)
		l[n++] = (struct mv_line){ MV_UNPLACED, -1 };
	for (; p < m->n_procs; p++)
		l[n++] = (struct mv_line){ MV_PROC, (int)p };
	return n;
}

static void keep_visible(struct machine_view *v, const struct mv_line *l, size_t n)
{
	int at = 0, rows = v->rows > 0 ? v->rows : 1;

	for (size_t i = 0; i < n; i++)
		if (l[i].kind == MV_PROC && l[i].i == v->sel)
			at = (int)i;
	/* the GPU line above the first process stays in sight */
	if (at == 1)
		at = 0;
	if (v->scroll > (int)n - rows)
		v->scroll = (int)n - rows;
	app_scroll_to(&v->scroll, at, rows);
}

static void fmt_percent(char *buf, size_t len, int pct)
{
	if (pct == MACHINE_UNKNOWN)
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%d%%", pct);
}

static void format_gpu(const struct machine_gpu *g, char *buf, size_t len)
{
	char util[16], used[32], total[32];

	fmt_percent(util, sizeof util, g->util);
	machine_fmt_bytes(used, sizeof used, g->mem_used);
	machine_fmt_bytes(total, sizeof total, g->mem_total);
	snprintf(buf, len, "GPU %d  %-28.28s util %4s   memory %s / %s", g->index, g->name, util, used,
		 total);
}

static void format_smtop(const struct machine_proc *p, char *buf, size_t len)
{
	if (!p->collector)
		snprintf(buf, len, "-");
	else if (!p->sm_mode[0])
		snprintf(buf, len, "launch, N/A");
	else
		snprintf(buf, len, "%s %s", p->sm_mode, p->recording ? "recording" : "dormant");
}

static void format_proc(const struct machine_proc *p, char *buf, size_t len)
{
	char mem[32], sm[16], smtop[64];

	machine_fmt_bytes(mem, sizeof mem, p->mem_bytes);
	fmt_percent(sm, sizeof sm, p->sm_util);
	format_smtop(p, smtop, sizeof smtop);
	snprintf(buf, len, "%*d  %-*.*s %*s %*s  %-*.*s %-4s %s", MV_PID_W - 2, (int)p->pid,
		 MV_USER_W - 1, MV_USER_W - 1, p->user[0] ? p->user : "N/A", MV_MEM_W - 1, mem,
		 MV_SM_W - 1, sm, MV_SMTOP_W - 1, MV_SMTOP_W - 1, smtop, p->own ? "yes" : "no",
		 p->command[0] ? p->command : "N/A");
}

static void draw_header(struct canvas *c, const struct machine_view *v)
{
	const char *dot = v->ascii ? "|" : "·";
	size_t launched = 0;

	for (size_t i = 0; i < v->m->n_procs; i++)
		launched += v->m->procs[i].collector;
	canvas_printf(c, 0, 0, c->w - 16, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD,
		      "smtop  machine %s %zu GPU%s %s %zu process%s %s %zu with smtop's collector %s %s", dot,
		      v->m->n_gpus, v->m->n_gpus == 1 ? "" : "s", dot, v->m->n_procs,
		      v->m->n_procs == 1 ? "" : "es", dot, launched, dot,
		      v->m->driver[0] ? v->m->driver : "N/A");
	canvas_print(c, c->w - 14, 0, 14, CANVAS_DEFAULT, CANVAS_DEFAULT, 0, "refresh 1 s");
}

static void draw_line(struct canvas *c, const struct machine_view *v, const struct mv_line *l, int y,
		      int w)
{
	char buf[1024];
	int attr = 0, x = 3;

	switch (l->kind) {
	case MV_GPU:
		format_gpu(&v->m->gpus[l->i], buf, sizeof buf);
		attr = CANVAS_BOLD;
		x = 2;
		break;
	case MV_NONE:
		snprintf(buf, sizeof buf, "no compute processes");
		attr = CANVAS_DIM;
		break;
	case MV_UNPLACED:
		snprintf(buf, sizeof buf, "on no GPU yet (started by smtop launch, no CUDA context seen)");
		attr = CANVAS_BOLD;
		x = 2;
		break;
	case MV_PROC:
		format_proc(&v->m->procs[l->i], buf, sizeof buf);
		if (l->i == v->sel) {
			attr = CANVAS_REVERSE;
			canvas_print(c, 2, y, 1, CANVAS_DEFAULT, CANVAS_DEFAULT, attr, ">");
			canvas_fill(c, (struct canvas_rect){ 3, y, w - 2, 1 }, " ", CANVAS_DEFAULT,
				    CANVAS_DEFAULT, attr);
		}
		break;
	}
	int fg = l->kind == MV_PROC && v->m->procs[l->i].collector && v->colors ? CANVAS_GREEN
										 : CANVAS_DEFAULT;
	canvas_print(c, x, y, w + 1 - x, fg, CANVAS_DEFAULT, attr, buf);
}

static void draw_list(struct canvas *c, struct machine_view *v, int w)
{
	struct mv_line lines[MV_LINES_MAX];
	size_t n = build_lines(v->m, lines);
	char head[256];

	snprintf(head, sizeof head, "%*s  %-*s %*s %*s  %-*s %-4s %s", MV_PID_W - 2, "PID", MV_USER_W - 1,
		 "USER", MV_MEM_W - 1, "GPU MEM", MV_SM_W - 1, "SM", MV_SMTOP_W - 1, "SMTOP", "OWN",
		 "COMMAND");
	canvas_print(c, 3, v->list_y - 1, w - 2, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, head);
	if (!v->m->n_gpus) {
		canvas_print(c, 2, v->list_y, w - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
			     "no GPU seen (yet)");
		return;
	}
	keep_visible(v, lines, n);
	for (int row = 0; row < v->rows && v->scroll + row < (int)n; row++)
		draw_line(c, v, &lines[v->scroll + row], v->list_y + row, w);
}

static void draw_footer(struct canvas *c, const struct machine_view *v)
{
	const char *keys = v->ascii ? "up/down select  r record on/off  Enter live view  a all recording  ? help  q quit"
				    : "↑↓ select  r record on/off  Enter live view  a all recording  ? help  q quit";
	const struct machine_proc *p = machine_view_selected(v);
	char t[4608];

	if (v->msg[0])
		snprintf(t, sizeof t, "%s", v->msg);
	else if (p && p->recording && p->session[0])
		snprintf(t, sizeof t, "%d records into %s  %s  %s", (int)p->pid, p->session,
			 v->ascii ? "|" : "·", keys);
	else
		snprintf(t, sizeof t, "%s", keys);
	canvas_print(c, 0, c->h - 1, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, v->msg[0] ? CANVAS_BOLD : 0, t);
}

static void draw_help(struct canvas *c, const struct machine_view *v)
{
	int n = (int)(sizeof help_lines / sizeof *help_lines);
	int w = 76 < c->w ? 76 : c->w, h = n + 4 < c->h ? n + 4 : c->h;
	struct canvas_rect r = { (c->w - w) / 2, (c->h - h) / 2, w, h };

	canvas_fill(c, r, " ", CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_box(c, r, "machine view: keys (any key closes it)", v->ascii);
	for (int i = 0; i < n && i + 2 < h - 1; i++)
		canvas_print(c, r.x + 2, r.y + 2 + i, w - 4, CANVAS_DEFAULT, CANVAS_DEFAULT, 0, help_lines[i]);
}

void machine_view_draw(struct canvas *c, struct machine_view *v)
{
	canvas_clear(c);
	if (c->w < MACHINE_VIEW_MIN_W || c->h < MACHINE_VIEW_MIN_H) {
		canvas_printf(c, 0, 0, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD,
			      "the machine view needs %dx%d; q quits", MACHINE_VIEW_MIN_W, MACHINE_VIEW_MIN_H);
		v->rows = 0;
		return;
	}
	v->list_y = 3;
	v->rows = c->h - 2 - v->list_y;
	draw_header(c, v);
	canvas_box(c, (struct canvas_rect){ 0, 1, c->w, c->h - 2 }, "GPUs and their processes", v->ascii);
	draw_list(c, v, c->w - 2);
	draw_footer(c, v);
	if (v->help)
		draw_help(c, v);
}
