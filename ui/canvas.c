#include "ui/canvas.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static size_t utf8_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 1; /* a stray continuation byte counts as one column */
}

size_t canvas_utf8_width(const char *s)
{
	size_t n = 0;
	while (*s) {
		size_t l = utf8_len((unsigned char)*s);
		for (size_t i = 0; i < l && *s; i++)
			s++;
		n++;
	}
	return n;
}

static void cell_blank(struct canvas_cell *cl)
{
	cl->glyph[0] = ' ';
	cl->glyph[1] = 0;
	cl->fg = cl->bg = CANVAS_DEFAULT;
	cl->attr = 0;
}

int canvas_init(struct canvas *c, int w, int h)
{
	c->w = c->h = 0;
	c->cells = NULL;
	return canvas_resize(c, w, h);
}

void canvas_free(struct canvas *c)
{
	free(c->cells);
	c->cells = NULL;
	c->w = c->h = 0;
}

int canvas_resize(struct canvas *c, int w, int h)
{
	if (w < 0 || h < 0)
		return -1;
	struct canvas_cell *n = calloc((size_t)(w ? w : 1) * (size_t)(h ? h : 1), sizeof *n);
	if (!n)
		return -1;
	free(c->cells);
	c->cells = n;
	c->w = w;
	c->h = h;
	canvas_clear(c);
	return 0;
}

void canvas_clear(struct canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++)
		cell_blank(&c->cells[i]);
}

struct canvas_cell *canvas_cell(struct canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return NULL;
	return &c->cells[y * c->w + x];
}

/* Copies one UTF-8 character; returns bytes consumed. */
static size_t put_one(struct canvas *c, int x, int y, const char *g, int fg, int bg, int attr)
{
	size_t l = utf8_len((unsigned char)*g);
	struct canvas_cell *cl = canvas_cell(c, x, y);
	size_t i = 0;
	if (cl) {
		for (; i < l && g[i]; i++)
			cl->glyph[i] = g[i];
		cl->glyph[i] = 0;
		if ((unsigned char)cl->glyph[0] < 0x20) {
			cl->glyph[0] = '?';
			cl->glyph[1] = 0;
		}
		cl->fg = (signed char)fg;
		cl->bg = (signed char)bg;
		cl->attr = (unsigned char)attr;
	}
	for (i = 0; i < l && g[i]; i++)
		;
	return i ? i : 1;
}

void canvas_put(struct canvas *c, int x, int y, const char *glyph, int fg, int bg, int attr)
{
	if (glyph && *glyph)
		put_one(c, x, y, glyph, fg, bg, attr);
}

int canvas_print(struct canvas *c, int x, int y, int maxw, int fg, int bg, int attr,
		 const char *s)
{
	int n = 0;
	if (maxw < 0)
		maxw = c->w - x;
	while (s && *s && n < maxw) {
		s += put_one(c, x + n, y, s, fg, bg, attr);
		n++;
	}
	return n;
}

int canvas_printf(struct canvas *c, int x, int y, int maxw, int fg, int bg, int attr,
		  const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return canvas_print(c, x, y, maxw, fg, bg, attr, buf);
}

void canvas_fill(struct canvas *c, struct canvas_rect r, const char *glyph, int fg, int bg,
		 int attr)
{
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++)
			canvas_put(c, x, y, glyph, fg, bg, attr);
}

void canvas_box(struct canvas *c, struct canvas_rect r, const char *title, int ascii)
{
	if (r.w < 2 || r.h < 2)
		return;
	const char *h = ascii ? "-" : "─", *v = ascii ? "|" : "│";
	const char *tl = ascii ? "+" : "┌", *tr = ascii ? "+" : "┐";
	const char *bl = ascii ? "+" : "└", *br = ascii ? "+" : "┘";
	for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
		canvas_put(c, x, r.y, h, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
		canvas_put(c, x, r.y + r.h - 1, h, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	}
	for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
		canvas_put(c, r.x, y, v, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
		canvas_put(c, r.x + r.w - 1, y, v, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	}
	canvas_put(c, r.x, r.y, tl, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_put(c, r.x + r.w - 1, r.y, tr, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_put(c, r.x, r.y + r.h - 1, bl, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	canvas_put(c, r.x + r.w - 1, r.y + r.h - 1, br, CANVAS_DEFAULT, CANVAS_DEFAULT, 0);
	if (title && *title && r.w > 4) {
		char t[256];
		snprintf(t, sizeof t, " %s ", title);
		canvas_print(c, r.x + 1, r.y, r.w - 2, CANVAS_DEFAULT, CANVAS_DEFAULT, CANVAS_BOLD, t);
	}
}

/* Appends the text of row y without trailing blanks. */
static size_t row_text(const struct canvas *c, int y, char *out)
{
	size_t n = 0, keep = 0;
	for (int x = 0; x < c->w; x++) {
		const char *g = c->cells[y * c->w + x].glyph;
		size_t l = strlen(g);
		memcpy(out + n, g, l);
		n += l;
		if (!(l == 1 && g[0] == ' '))
			keep = n;
	}
	out[keep] = '\n';
	return keep + 1;
}

char *canvas_dump_text_str(const struct canvas *c)
{
	char *s = malloc((size_t)c->w * (size_t)c->h * 4 + (size_t)c->h + 1);
	if (!s)
		return NULL;
	size_t n = 0;
	for (int y = 0; y < c->h; y++)
		n += row_text(c, y, s + n);
	s[n] = 0;
	return s;
}

void canvas_dump_text(const struct canvas *c, FILE *f)
{
	char *s = canvas_dump_text_str(c);
	if (s)
		fputs(s, f);
	free(s);
}

static void sgr(FILE *f, const struct canvas_cell *cl)
{
	fputs("\033[0", f);
	if (cl->attr & CANVAS_BOLD)
		fputs(";1", f);
	if (cl->attr & CANVAS_DIM)
		fputs(";2", f);
	if (cl->attr & CANVAS_UNDERLINE)
		fputs(";4", f);
	if (cl->attr & CANVAS_REVERSE)
		fputs(";7", f);
	if (cl->fg >= 0)
		fprintf(f, ";%d", cl->fg < 8 ? 30 + cl->fg : 90 + cl->fg - 8);
	if (cl->bg >= 0)
		fprintf(f, ";%d", cl->bg < 8 ? 40 + cl->bg : 100 + cl->bg - 8);
	fputc('m', f);
}

void canvas_dump_ansi(const struct canvas *c, FILE *f)
{
	for (int y = 0; y < c->h; y++) {
		const struct canvas_cell *prev = NULL;
		for (int x = 0; x < c->w; x++) {
			const struct canvas_cell *cl = &c->cells[y * c->w + x];
			if (!prev || prev->fg != cl->fg || prev->bg != cl->bg || prev->attr != cl->attr)
				sgr(f, cl);
			fputs(cl->glyph, f);
			prev = cl;
		}
		fputs("\033[0m\n", f);
	}
}

static const char *const colour_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static int same_style(const struct canvas_cell *a, const struct canvas_cell *b)
{
	return a->fg == b->fg && a->bg == b->bg && a->attr == b->attr;
}

static void colour_name(char *buf, size_t len, int colour)
{
	if (colour < 0)
		snprintf(buf, len, "default");
	else
		snprintf(buf, len, "%s%s", colour >= CANVAS_BRIGHT ? "bright " : "",
			 colour_names[colour % CANVAS_BRIGHT]);
}

/* "blue on default, bold, reverse" */
static void style_name(char *buf, size_t len, const struct canvas_cell *cl)
{
	static const char *const attrs[] = { "bold", "dim", "reverse", "underline" };
	char fg[24], bg[24];
	colour_name(fg, sizeof fg, cl->fg);
	colour_name(bg, sizeof bg, cl->bg);
	int n = snprintf(buf, len, "%s on %s", fg, bg);
	for (int i = 0; i < 4 && n > 0 && (size_t)n < len; i++)
		if (cl->attr >> i & 1)
			n += snprintf(buf + n, len - (size_t)n, ", %s", attrs[i]);
}

#define CANVAS_STYLE_KEYS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

char *canvas_dump_styles_str(const struct canvas *c)
{
	enum { MAX = sizeof CANVAS_STYLE_KEYS - 1 };
	struct canvas_cell seen[MAX];
	int n_seen = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	for (int y = 0; y < c->h; y++) {
		int keep = 0;
		for (int x = 0; x < c->w; x++) {
			const struct canvas_cell *cl = &c->cells[y * c->w + x];
			if (cl->fg != CANVAS_DEFAULT || cl->bg != CANVAS_DEFAULT || cl->attr)
				keep = x + 1;
		}
		for (int x = 0; x < keep; x++) {
			const struct canvas_cell *cl = &c->cells[y * c->w + x];
			char k = '.';
			if (cl->fg != CANVAS_DEFAULT || cl->bg != CANVAS_DEFAULT || cl->attr) {
				int i = 0;
				while (i < n_seen && !same_style(&seen[i], cl))
					i++;
				if (i == n_seen && n_seen < MAX)
					seen[n_seen++] = *cl;
				k = i < MAX ? CANVAS_STYLE_KEYS[i] : '?';
			}
			fputc(k, f);
		}
		fputc('\n', f);
	}
	fputs("key:\n  . default on default\n", f);
	for (int i = 0; i < n_seen; i++) {
		char name[96];
		style_name(name, sizeof name, &seen[i]);
		fprintf(f, "  %c %s\n", CANVAS_STYLE_KEYS[i], name);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
