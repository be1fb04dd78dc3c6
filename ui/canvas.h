/* An in-memory screen: a grid of cells, each one glyph (UTF-8, one column),
 * a foreground and background colour index and attributes.  Views draw here;
 * only ui/tty.c copies a canvas to the terminal, and canvas_dump_* turn it
 * into text for golden files and screenshots. */
#ifndef SMTOP_UI_CANVAS_H
#define SMTOP_UI_CANVAS_H

#include <stddef.h>
#include <stdio.h>

#define CANVAS_DEFAULT (-1)             /* terminal's own colour */

/* Colour indices: the 8 ANSI colours, then their bright variants. */
enum canvas_colour {
	CANVAS_BLACK, CANVAS_RED, CANVAS_GREEN, CANVAS_YELLOW,
	CANVAS_BLUE, CANVAS_MAGENTA, CANVAS_CYAN, CANVAS_WHITE,
	CANVAS_BRIGHT = 8,
};

enum canvas_attr {
	CANVAS_BOLD = 1,
	CANVAS_DIM = 2,
	CANVAS_REVERSE = 4,
	CANVAS_UNDERLINE = 8,
};

struct canvas_cell {
	char glyph[5];                  /* NUL-terminated UTF-8, one column */
	signed char fg, bg;
	unsigned char attr;
};

struct canvas {
	int w, h;
	struct canvas_cell *cells;
};

struct canvas_rect {
	int x, y, w, h;
};

int canvas_init(struct canvas *c, int w, int h);
void canvas_free(struct canvas *c);
int canvas_resize(struct canvas *c, int w, int h);
void canvas_clear(struct canvas *c);

struct canvas_cell *canvas_cell(struct canvas *c, int x, int y);
/* Writes the first UTF-8 character of glyph at (x, y); outside is ignored. */
void canvas_put(struct canvas *c, int x, int y, const char *glyph, int fg, int bg, int attr);
/* Writes s from (x, y), at most maxw columns (-1: to the edge); returns columns used. */
int canvas_print(struct canvas *c, int x, int y, int maxw, int fg, int bg, int attr,
		 const char *s);
int canvas_printf(struct canvas *c, int x, int y, int maxw, int fg, int bg, int attr,
		  const char *fmt, ...) __attribute__((format(printf, 8, 9)));
void canvas_fill(struct canvas *c, struct canvas_rect r, const char *glyph, int fg, int bg,
		 int attr);
/* A frame around r with an optional title in the top edge. */
void canvas_box(struct canvas *c, struct canvas_rect r, const char *title, int ascii);

/* Plain text, one line per row, trailing blanks trimmed. */
void canvas_dump_text(const struct canvas *c, FILE *f);
/* The same as a malloc'd string (NULL on failure). */
char *canvas_dump_text_str(const struct canvas *c);
/* Text with ANSI SGR colour codes, for screenshots. */
void canvas_dump_ansi(const struct canvas *c, FILE *f);

/* The colour and attribute plane: one character per cell naming its style
 * ('.' the terminal's default, then a letter per style in order of first
 * appearance), trailing default cells trimmed, then a key naming each style
 * ("black on blue, bold").  Golden files keep it to check colours and
 * monochrome attributes as text.  NULL on failure; free() the result. */
char *canvas_dump_styles_str(const struct canvas *c);

/* Columns (code points) in a UTF-8 string. */
size_t canvas_utf8_width(const char *s);

#endif
