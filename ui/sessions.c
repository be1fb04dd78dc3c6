#include "ui/sessions.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ui/app.h"
#include "src/core/fmt.h"

#define SESSIONS_MIN_W 60
#define SESSIONS_MIN_H 8
#define SESSIONS_MIN_CMD_W 20
#define SESSIONS_MIN_FILE_W 24

void sessions_init(struct sessions_view *v, struct library *lib, const char *current)
{
	struct stat sb;

	memset(v, 0, sizeof *v);
	v->lib = lib;
	v->colors = 8;
	if (current && stat(current, &sb) == 0) {
		v->has_current = 1;
		v->cur_dev = sb.st_dev;
		v->cur_ino = sb.st_ino;
	}
	/* start on the session the viewer shows, if it is in the list */
	for (size_t i = 0; v->has_current && i < lib->n; i++)
		if (stat(lib->e[i].path, &sb) == 0 && sb.st_dev == v->cur_dev &&
		    sb.st_ino == v->cur_ino)
			v->sel = (int)i;
}

const struct library_entry *sessions_selected(const struct sessions_view *v)
{
	if (!v->lib->n)
		return NULL;
	return &v->lib->e[v->sel];
}

static int is_current(const struct sessions_view *v, const struct library_entry *e)
{
	struct stat sb;

	return v->has_current && stat(e->path, &sb) == 0 && sb.st_dev == v->cur_dev &&
	       sb.st_ino == v->cur_ino;
}

static void keep_visible(struct sessions_view *v)
{
	int n = (int)v->lib->n, rows = v->rows > 0 ? v->rows : 1;

	if (v->sel >= n)
		v->sel = n - 1;
	if (v->sel < 0)
		v->sel = 0;
	/* no blank rows below the last entry while entries are hidden above */
	if (v->scroll > n - rows)
		v->scroll = n - rows;
	app_scroll_to(&v->scroll, v->sel, rows);
}

/* Library errors name the full path; the list names files. */
static void set_error(struct sessions_view *v, const struct library_entry *e, const char *err)
{
	size_t n = strlen(e->path);

	if (strncmp(err, e->path, n) == 0)
		snprintf(v->msg, sizeof v->msg, "%s%s", e->name, err + n);
	else
		snprintf(v->msg, sizeof v->msg, "%s", err);
}

static void open_selected(struct sessions_view *v)
{
	const struct library_entry *e = sessions_selected(v);

	if (!e)
		return;
	if (e->error)
		snprintf(v->msg, sizeof v->msg, "%s: %s", e->name, e->error);
	else
		v->result = is_current(v, e) ? SESSIONS_BACK : SESSIONS_OPEN;
}

/* r and d: not on the session the viewer has open behind the list. */
static int begin_input(struct sessions_view *v, int input)
{
	const struct library_entry *e = sessions_selected(v);

	if (!e)
		return 1;
	if (is_current(v, e)) {
		snprintf(v->msg, sizeof v->msg, "%s is open in the viewer; open another first",
			 e->name);
		return 1;
	}
	v->input = input;
	v->text[0] = 0;
	return 1;
}

static void rename_selected(struct sessions_view *v)
{
	const struct library_entry *e = sessions_selected(v);
	char err[PATH_MAX + 128], old[NAME_MAX + 1];

	if (!e || !v->text[0])
		return;
	snprintf(old, sizeof old, "%s", e->name);
	if (library_rename(v->lib, (size_t)v->sel, v->text, err, sizeof err) != 0)
		set_error(v, e, err);
	else
		snprintf(v->msg, sizeof v->msg, "renamed %s to %s", old, v->lib->e[v->sel].name);
}

static void delete_selected(struct sessions_view *v)
{
	const struct library_entry *e = sessions_selected(v);
	char err[PATH_MAX + 128], name[NAME_MAX + 1];

	if (!e)
		return;
	snprintf(name, sizeof name, "%s", e->name);
	if (library_remove(v->lib, (size_t)v->sel, err, sizeof err) != 0) {
		set_error(v, e, err);
		return;
	}
	snprintf(v->msg, sizeof v->msg, "deleted %s", name);
	keep_visible(v);
}

static int input_key(struct sessions_view *v, int key)
{
	if (v->input == SESSIONS_INPUT_DELETE) {
		v->input = SESSIONS_INPUT_NONE;
		if (key == 'y' || key == 'Y')
			delete_selected(v);
		else
			snprintf(v->msg, sizeof v->msg, "not deleted");
		return 1;
	}
	enum app_text t = app_text_key(v->text, sizeof v->text, key);
	if (t != APP_TEXT_EDIT)
		v->input = SESSIONS_INPUT_NONE;
	if (t == APP_TEXT_ENTER)
		rename_selected(v);
	return 1;
}

int sessions_handle_key(struct sessions_view *v, int key)
{
	int page = v->rows > 1 ? v->rows - 1 : 1;

	v->msg[0] = 0;
	if (v->input != SESSIONS_INPUT_NONE)
		return input_key(v, key);
	if (app_list_move(&v->sel, key, page, (int)v->lib->n)) {
		keep_visible(v);
		return 1;
	}
	switch (key) {
	case APP_KEY_ENTER: open_selected(v); break;
	case 'r': return begin_input(v, SESSIONS_INPUT_RENAME);
	case 'd': return begin_input(v, SESSIONS_INPUT_DELETE);
	case 'q': case APP_KEY_ESC: v->result = SESSIONS_BACK; break;
	case APP_KEY_RESIZE: break;
	default: return 0;
	}
	keep_visible(v);
	return 1;
}

int sessions_handle_mouse(struct sessions_view *v, int x, int y)
{
	(void)x;
	if (v->input != SESSIONS_INPUT_NONE || y < v->list_y || y >= v->list_y + v->rows)
		return 0;
	int i = v->scroll + (y - v->list_y);
	if (i >= (int)v->lib->n)
		return 0;
	v->sel = i;
	return 1;
}

/* Command and file widths for an inner width; hides columns that do not fit. */
static void plan_columns(const struct sessions_view *v, int iw, int *cmd_w, int *file_w,
			 unsigned *hide)
{
	int names = 4;

	for (size_t i = 0; i < v->lib->n; i++) {
		int n = (int)canvas_utf8_width(v->lib->e[i].name);
		names = n > names ? n : names;
	}
	*hide = 0;
	int left = iw - library_line_width(0, 0, 0);
	if (left >= SESSIONS_MIN_CMD_W + SESSIONS_MIN_FILE_W) {
		*file_w = names < left - SESSIONS_MIN_CMD_W ? names : left - SESSIONS_MIN_CMD_W;
		*cmd_w = left - *file_w;
		return;
	}
	/* narrow: the status line names the selected file instead */
	*file_w = 0;
	*hide = LIBRARY_HIDE_FILE;
	*cmd_w = iw - library_line_width(0, 0, *hide);
	if (*cmd_w < SESSIONS_MIN_CMD_W) {
		*hide |= LIBRARY_HIDE_GPU;
		*cmd_w = iw - library_line_width(0, 0, *hide);
	}
	if (*cmd_w < 4)
		*cmd_w = 4;
}

static void draw_header(struct canvas *c, const struct sessions_view *v)
{
	const char *dot = v->ascii ? "|" : "·";
	char left[PATH_MAX + 96], right[64], th[32];
	size_t bad = 0;

	for (size_t i = 0; i < v->lib->n; i++)
		bad += v->lib->e[i].error != NULL;
	int n = snprintf(left, sizeof left, "smtop  session library %s %zu session%s", dot,
			 v->lib->n - bad, v->lib->n - bad == 1 ? "" : "s");
	if (bad && n > 0 && (size_t)n < sizeof left)
		n += snprintf(left + n, sizeof left - (size_t)n, ", %zu other file%s", bad,
			      bad == 1 ? "" : "s");
	/* the directory last: on a narrow screen it is what gets cut */
	if (n > 0 && (size_t)n < sizeof left)
		snprintf(left + n, sizeof left - (size_t)n, " %s %s", dot,
			 v->lib->dir ? v->lib->dir : "N/A");
	snprintf(right, sizeof right, "threshold %s",
		 fmt_duration(th, sizeof th, v->lib->threshold_ns, v->lib->threshold_ns != 0));
	int rw = (int)canvas_utf8_width(right);
	canvas_print(c, 0, 0, c->w - rw - 2, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, left);
	canvas_print(c, c->w - rw, 0, rw, CANVAS_DEFAULT, CANVAS_DEFAULT, 0, right);
}

static void draw_rows(struct canvas *c, struct sessions_view *v, int iw)
{
	int cmd_w, file_w;
	unsigned hide;
	char line[1024];
	struct library_row r;

	plan_columns(v, iw - 1, &cmd_w, &file_w, &hide);
	canvas_print(c, 2, v->list_y - 1, iw - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD,
		     library_format_line(NULL, cmd_w, file_w, hide, line, sizeof line));
	if (!v->lib->n) {
		/* most first-time users have no GPU: the bundled sessions work anyway */
		canvas_print(c, 2, v->list_y, iw - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
			     "no sessions here yet: smtop record -- CMD saves one (GPU needed)");
		canvas_print(c, 2, v->list_y + 1, iw - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
			     "no GPU? plain smtop opens a bundled H200 session; smtop ls tests/fixtures");
		canvas_print(c, 2, v->list_y + 2, iw - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_DIM,
			     "lists them all (in the source tree)");
		return;
	}
	for (int row = 0; row < v->rows; row++) {
		int i = v->scroll + row;
		if (i >= (int)v->lib->n)
			break;
		const struct library_entry *e = &v->lib->e[i];
		int sel = i == v->sel;
		int attr = (sel ? CANVAS_REVERSE : 0) | (e->error ? CANVAS_DIM : 0);
		library_row(e, &r);
		/* without a file column, a stray file still says its name */
		if (r.stray && (hide & LIBRARY_HIDE_FILE))
			snprintf(r.command, sizeof r.command, "%s: %s", e->name, e->error);
		library_format_line(&r, cmd_w, file_w, hide, line, sizeof line);
		canvas_print(c, 1, v->list_y + row, 1, CANVAS_DEFAULT, CANVAS_DEFAULT, attr,
			     sel ? ">" : " ");
		/* the whole width, so the selection shows as a bar */
		canvas_fill(c, (struct canvas_rect){ 2, v->list_y + row, iw - 1, 1 }, " ",
			    CANVAS_DEFAULT, CANVAS_DEFAULT, attr);
		canvas_print(c, 2, v->list_y + row, iw - 1, CANVAS_DEFAULT, CANVAS_DEFAULT, attr, line);
	}
}

static void draw_footer(struct canvas *c, const struct sessions_view *v, int file_hidden)
{
	const struct library_entry *e = sessions_selected(v);
	const char *dot = v->ascii ? "|" : "·";
	const char *keys = v->ascii ? "Enter open  r rename  d delete  up/down move  q back"
				    : "Enter open  r rename  d delete  ↑↓ move  q back";
	char t[PATH_MAX + 256];
	int attr = CANVAS_BOLD;

	if (v->input == SESSIONS_INPUT_RENAME)
		snprintf(t, sizeof t, "rename %s to: %s_   (Enter rename, Esc cancel)",
			 e ? e->name : "", v->text);
	else if (v->input == SESSIONS_INPUT_DELETE)
		snprintf(t, sizeof t, "delete %s and its files? y/n", e ? e->name : "");
	else if (v->msg[0])
		snprintf(t, sizeof t, "%s", v->msg);
	else {
		attr = 0;
		if (file_hidden && e)
			snprintf(t, sizeof t, "%s %s %s", e->name, dot, keys);
		else
			snprintf(t, sizeof t, "%s", keys);
	}
	canvas_print(c, 0, c->h - 1, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, attr, t);
}

void sessions_draw(struct canvas *c, struct sessions_view *v)
{
	int cmd_w, file_w;
	unsigned hide;

	canvas_clear(c);
	if (c->w < SESSIONS_MIN_W || c->h < SESSIONS_MIN_H) {
		canvas_printf(c, 0, 0, c->w, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD,
			      "the session list needs %dx%d; q goes back", SESSIONS_MIN_W,
			      SESSIONS_MIN_H);
		v->rows = 0;
		return;
	}
	int iw = c->w - 2;
	v->list_y = 3;
	v->rows = c->h - 2 - v->list_y;
	keep_visible(v);
	draw_header(c, v);
	canvas_box(c, (struct canvas_rect){ 0, 1, c->w, c->h - 2 }, "sessions", v->ascii);
	draw_rows(c, v, iw);
	plan_columns(v, iw - 1, &cmd_w, &file_w, &hide);
	draw_footer(c, v, (hide & LIBRARY_HIDE_FILE) != 0);
}
