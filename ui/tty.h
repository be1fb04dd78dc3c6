/* The terminal: the only file that talks to ncurses.  Opens the terminal
 * (locale, colours, mouse; NO_COLOR respected), copies canvases to it, reads
 * keys, and puts the terminal back on every way out: normal close, exit(),
 * and fatal signals. */
#ifndef SMTOP_UI_TTY_H
#define SMTOP_UI_TTY_H

#include <stddef.h>

#include "ui/canvas.h"

struct tty_caps {
	int colors;                     /* 0 (monochrome or NO_COLOR), 8 or 16 */
	int utf8;                       /* the locale's charset is UTF-8 */
};

struct tty_input {
	int key;                        /* a code point or APP_KEY_*; 0 = nothing */
	int mouse;                      /* 1: a click at (x, y) */
	int x, y;
};

/* Returns 0, or -1 with one line in err (not a terminal, unknown TERM, or
 * already open: the screens of a run share one, ui/ui.h's ui_term). */
int tty_open(struct tty_caps *caps, char *err, size_t errlen);
void tty_close(void);
void tty_size(int *w, int *h);
void tty_blit(const struct canvas *c);
/* Waits up to timeout_ms for a key or click. */
void tty_read(struct tty_input *in, int timeout_ms);
/* Set by SIGINT: the main loop should leave. */
int tty_interrupted(void);

#endif
