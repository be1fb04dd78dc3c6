/* The viewer's state and its key handling: a pure state machine, testable
 * without a terminal.  ui/tty.c turns terminal keys into APP_KEY_* codes;
 * ui/screen.c draws an app and a model and records the layout here so that
 * mouse clicks can be mapped back to rows. */
#ifndef SMTOP_UI_APP_H
#define SMTOP_UI_APP_H

#include <stdint.h>

#include "src/core/model.h"

struct guide;
struct lesson;
struct replay_clock;

enum app_key {
	APP_KEY_UP = 0x110000,          /* above every Unicode code point */
	APP_KEY_DOWN,
	APP_KEY_LEFT,
	APP_KEY_RIGHT,
	APP_KEY_PGUP,
	APP_KEY_PGDN,
	APP_KEY_HOME,
	APP_KEY_END,
	APP_KEY_ENTER,
	APP_KEY_ESC,
	APP_KEY_TAB,
	APP_KEY_BTAB,
	APP_KEY_BACKSPACE,
	APP_KEY_RESIZE,
};

enum app_pane { APP_PANE_SMS, APP_PANE_STREAMS, APP_PANE_EVENTS, APP_PANE_COUNT };
enum app_input { APP_INPUT_NONE, APP_INPUT_SEARCH, APP_INPUT_FILTER };

/* Where things were drawn last frame (columns and rows of the screen). */
struct app_layout {
	int w, h;
	int too_small;
	int plot_x, plot_w;             /* time columns shared by SMs and lanes */
	int sms_y, sms_rows;            /* first SM row, rows shown */
	int sms_per_row;
	int lanes_y, lanes_rows;
	int lane_of_row[64];            /* lanes: row -> stream rank, -1 */
	int events_y, events_rows, events_x, events_w;
	int details_x, details_w;
};

struct app;

/* A mode that takes keys and ticks before the app's own: the replay player
 * (ui/replay_player.c, replay_player_attach).  The app calls it through
 * these pointers and so never calls the player's file, which calls the
 * app's. */
struct app_mode {
	int (*key)(struct app *a, int key);     /* 1: handled, 0: the app's own */
	int (*tick)(struct app *a);             /* while a replay is under way */
};

struct app {
	const struct model *model;
	uint64_t t0;                    /* window start, ns on CUPTI time */
	uint64_t col_ns;                /* ns per column */
	int follow;                     /* window end tracks the newest data */
	int pane;
	int sm_zoom;                    /* 1: one SM per row */
	int sm_row;                     /* selected SM row (in zoom: the SM) */
	int sm_scroll;
	int sel_stream;                 /* rank */
	long sel_kernel;                /* model kernel index, -1 */
	long sel_event;                 /* model event index, -1 */
	int ev_scroll;
	uint64_t hidden;                /* streams filtered out, bit per rank */
	int input;                      /* enum app_input */
	char search[64];
	int help;
	int quit;
	int library;                    /* o: leave for the session list (quit is set too) */
	int ascii;                      /* no UTF-8: ASCII glyphs */
	int colors;                     /* 0 monochrome, 8, 256 */
	int dense;                      /* two SM groups per cell with half blocks */
	char msg[96];                   /* one-shot message for the status line */
	/* x: asks the recorded process for an exact window now and writes its
	 * answer into msg (the app floor sends it); NULL: not a live view */
	void (*exact_window)(void *ud, char *msg, size_t len);
	void *exact_window_ud;
	struct app_layout layout;
	/* replay and lessons (ui/replay_player.c, ui/lesson_view.c); NULL when absent */
	struct replay_clock *replay;          /* saved sessions: the replay clock */
	const struct app_mode *mode;    /* takes keys and ticks first (the player), or NULL */
	const struct lesson *lesson;    /* the demo scenario's lesson */
	const struct guide *guide;      /* stops of a guided replay */
	int lesson_panel;               /* lesson shown beside the view */
	uint64_t select_at;             /* replay: select the event that begins here, 0 */
	int stop_shown;                 /* replay: the guided stop last selected, -1 */
	uint64_t fit_t0, fit_col_ns;    /* the window app_fit chose last */
	/* A block-detail read in progress (ui/ui.c): the model's detail level
	 * for [t0, t1); started once its first part was asked for. */
	struct { int on, started; uint64_t t0, t1; } fetch;
	/* the selected kernel's blocks being read for the details pane */
	struct { int on; long kernel; uint64_t blocks_seen; } focusing;
};

void app_init(struct app *a, const struct model *m);
/* Handles one key; returns 1 if the screen should be redrawn. */
int app_handle_key(struct app *a, int key);

/* The keys that move a list's selection *sel (n rows, page of them a
 * page): up, down, page up and down, home, end, and j k g G.  1 when key
 * is one of them, *sel then within the list (0 when it is empty). */
int app_list_move(int *sel, int key, int page, int n);
/* Scrolls *scroll (the first row shown of a pane rows high) the least
 * that brings row into sight, never above the first row. */
void app_scroll_to(int *scroll, int row, int rows);
/* What a key did to a one-line text field (app_text_key). */
enum app_text {
	APP_TEXT_EDIT,          /* edited it, or nothing: the field stays open */
	APP_TEXT_ENTER,         /* Enter: take the text */
	APP_TEXT_CANCEL,        /* Esc */
};
/* A key typed into the text field buf (size bytes): backspace and
 * printable ASCII edit it, Enter and Esc close it. */
enum app_text app_text_key(char *buf, size_t size, int key);
/* A click at screen cell (x, y): selects what is there. */
int app_handle_mouse(struct app *a, int x, int y);
/* Moves a following window on (live data, or the replay clock); called
 * every tick (dt in ns of wall time). */
int app_tick(struct app *a, uint64_t dt_ns);

uint64_t app_t1(const struct app *a);
int app_cols(const struct app *a);
/* The window's columns *c0..*c1 that [start, end] covers, cut to the
 * window (no length: its start's column); 0 when it lies outside. */
int app_span_cols(const struct app *a, uint64_t start, uint64_t end, int *c0, int *c1);
/* Shows the whole session. */
void app_fit(struct app *a);
/* After the plot width changed: a window that showed the whole session (and
 * was not moved since) fits the new width. */
void app_refit(struct app *a);
/* Centres the window on event i and selects it. */
void app_goto_event(struct app *a, long i);
/* The 1-2-5 scale at or above ns per column. */
uint64_t app_round_scale(uint64_t ns);
/* Window start as offset from the session's first record, for labels. */
uint64_t app_session_t0(const struct app *a);
/* 1 while a replay is under way. */
int app_replaying(const struct app *a);

#endif
