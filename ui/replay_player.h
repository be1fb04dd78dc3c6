/* Replay in the viewer: the keys that drive the replay clock (src/core/replay_clock.h),
 * the window following it as it follows a live session's newest data, the
 * selection of each guided stop's episode, and the status line's replay
 * part.  Like ui/app.c, a pure state machine: the loader feeds the model up
 * to the clock in the data source's poll. */
#ifndef SMTOP_UI_REPLAY_PLAYER_H
#define SMTOP_UI_REPLAY_PLAYER_H

#include <stddef.h>
#include <stdint.h>

#include "ui/app.h"

/* Real time the window shows when a replay starts (the scale follows the speed). */
#define PLAYER_WINDOW_REAL_NS 5000000000ULL

/* Makes r the app's replay clock and the player its mode (keys and ticks
 * go to the player first). */
void replay_player_attach(struct app *a, struct replay_clock *r);
/* 1 while a replay is under way. */
int replay_player_active(const struct app *a);
/* Handles a replay or lesson key; returns 1 if it did (0: the app's own). */
int replay_player_key(struct app *a, int key);
/* Called every tick while replaying: the window follows the clock, the
 * episode of a guided stop or of an n/N step gets selected.  Returns 1 if
 * the screen changed. */
int replay_player_tick(struct app *a);
/* Starts a replay from t (guided: pausing at the guide's stops). */
void replay_player_begin(struct app *a, uint64_t t, int guided);
/* "replay 5.196000 ms · x1000 (1 us = 1.0 ms) · playing": the clock from the
 * session's start, the speed, the state. */
void replay_player_status(const struct app *a, char *buf, size_t len);

#endif
