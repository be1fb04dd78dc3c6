#define NCURSES_WIDECHAR 1
#include "ui/tty.h"

#include <langinfo.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "ui/app.h"

static SCREEN *screen;
static int colors;
static short pairs[17][17];            /* fg+1, bg+1 -> pair, 0 = not yet */
static short next_pair = 1;
static volatile sig_atomic_t interrupted;

static void restore(void)
{
	if (screen && !isendwin())
		endwin();
}

static void on_fatal(int sig)
{
	/* the terminal first, so the user can read what went wrong */
	restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

int tty_interrupted(void)
{
	return interrupted;
}

static void install_handlers(void)
{
	static int done;
	if (!done)
		atexit(restore);
	done = 1;
	signal(SIGINT, on_interrupt);
	int fatal[] = { SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL };
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		signal(fatal[i], on_fatal);
}

static void setup_colors(void)
{
	const char *nc = getenv("NO_COLOR");
	colors = 0;
	if ((nc && *nc) || !has_colors())
		return;
	start_color();
	use_default_colors();
	colors = COLORS >= 16 ? 16 : 8;
	memset(pairs, 0, sizeof pairs);
	next_pair = 1;
}

int tty_open(struct tty_caps *caps, char *err, size_t errlen)
{
	/* a second screen would take the terminal from under the loop drawing
	 * on the first: the screens of a run share one (ui_term_open) */
	if (screen) {
		snprintf(err, errlen, "smtop: the terminal is already open");
		return -1;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "smtop: not a terminal (stdin and stdout must be a tty); "
			 "use a text dump instead");
		return -1;
	}
	setlocale(LC_ALL, "");
	const char *term = getenv("TERM");
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		snprintf(err, errlen, "smtop: cannot use terminal type \"%s\" (set TERM)",
			 term ? term : "");
		return -1;
	}
	set_term(screen);
	/* a terminal that cannot move the cursor (TERM=dumb) would get a
	 * scrolling mess: refuse it while it still shows the message */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		endwin();
		delscreen(screen);
		screen = NULL;
		snprintf(err, errlen, "smtop: terminal type \"%s\" cannot move the cursor (set TERM, "
			 "for example TERM=xterm-256color)", term ? term : "");
		return -1;
	}
	install_handlers();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	setup_colors();
	caps->colors = colors;
	caps->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	return 0;
}

void tty_close(void)
{
	restore();
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
}

void tty_size(int *w, int *h)
{
	getmaxyx(stdscr, *h, *w);
}

static short pair_for(int fg, int bg)
{
	if (!colors || (fg < 0 && bg < 0))
		return 0;
	if (colors < 16) {
		fg = fg >= 8 ? fg - 8 : fg;
		bg = bg >= 8 ? bg - 8 : bg;
	}
	short *p = &pairs[fg + 1][bg + 1];
	if (!*p && next_pair < COLOR_PAIRS && next_pair < 32767) {
		init_pair(next_pair, (short)fg, (short)bg);
		*p = next_pair++;
	}
	return *p;
}

static attr_t attrs(const struct canvas_cell *cl)
{
	attr_t a = 0;
	if (cl->attr & CANVAS_BOLD)
		a |= A_BOLD;
	if (cl->attr & CANVAS_DIM)
		a |= A_DIM;
	if (cl->attr & CANVAS_REVERSE)
		a |= A_REVERSE;
	if (cl->attr & CANVAS_UNDERLINE)
		a |= A_UNDERLINE;
	/* on 8-colour terminals bright colours become bold */
	if (colors && colors < 16 && cl->fg >= 8)
		a |= A_BOLD;
	return a;
}

void tty_blit(const struct canvas *c)
{
	static int last_w = -1, last_h = -1;
	int w, h;
	tty_size(&w, &h);
	/* after a resize, cells the canvas no longer covers keep old glyphs */
	if (w != last_w || h != last_h)
		clear();
	last_w = w;
	last_h = h;
	for (int y = 0; y < c->h && y < h; y++)
		for (int x = 0; x < c->w && x < w; x++) {
			/* the bottom-right cell would scroll some terminals */
			if (y == h - 1 && x == w - 1)
				continue;
			const struct canvas_cell *cl = &c->cells[y * c->w + x];
			wchar_t wc[2] = { L'?', 0 };
			mbstate_t st;
			memset(&st, 0, sizeof st);
			if (mbrtowc(&wc[0], cl->glyph, strlen(cl->glyph), &st) == (size_t)-1)
				wc[0] = L'?';
			cchar_t cc;
			setcchar(&cc, wc, attrs(cl), pair_for(cl->fg, cl->bg), NULL);
			mvadd_wch(y, x, &cc);
		}
	refresh();
}

static int map_key(int ch)
{
	switch (ch) {
	case KEY_UP: return APP_KEY_UP;
	case KEY_DOWN: return APP_KEY_DOWN;
	case KEY_LEFT: return APP_KEY_LEFT;
	case KEY_RIGHT: return APP_KEY_RIGHT;
	case KEY_PPAGE: return APP_KEY_PGUP;
	case KEY_NPAGE: return APP_KEY_PGDN;
	case KEY_HOME: return APP_KEY_HOME;
	case KEY_END: return APP_KEY_END;
	case KEY_ENTER: return APP_KEY_ENTER;
	case KEY_BTAB: return APP_KEY_BTAB;
	case KEY_BACKSPACE: return APP_KEY_BACKSPACE;
	case KEY_RESIZE: return APP_KEY_RESIZE;
	}
	return 0;
}

void tty_read(struct tty_input *in, int timeout_ms)
{
	memset(in, 0, sizeof *in);
	timeout(timeout_ms);
	wint_t ch;
	int r = get_wch(&ch);
	if (r == ERR)
		return;
	if (r == KEY_CODE_YES) {
		if (ch == KEY_MOUSE) {
			MEVENT ev;
			if (getmouse(&ev) == OK) {
				in->mouse = 1;
				in->x = ev.x;
				in->y = ev.y;
			}
			return;
		}
		in->key = map_key((int)ch);
		return;
	}
	switch (ch) {
	case '\r': case '\n': in->key = APP_KEY_ENTER; break;
	case 27: in->key = APP_KEY_ESC; break;
	case '\t': in->key = APP_KEY_TAB; break;
	case 127: case 8: in->key = APP_KEY_BACKSPACE; break;
	default: in->key = (int)ch;
	}
}
