/* The replay clock: plays a saved session as if it were live, slowed down.
 *
 * A pure state machine.  Real time comes from an injected clock function and
 * the times that stepping goes to come from the loader (struct replay_clock_marks),
 * so tests drive it with a fake clock and fake marks.  The clock is on the
 * session's (CUPTI) timebase: everything at or before it has happened.  The
 * loader (db/session/replay_feed.c) feeds the model up to the clock, and the
 * viewer follows the clock as it follows a live session's newest data.
 *
 * Speed X: one ns of GPU time takes X ns of real time (X = 1e4: one
 * microsecond of GPU time takes 10 ms). */
#ifndef SMTOP_REPLAY_CLOCK_H
#define SMTOP_REPLAY_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_CLOCK_SPEED_MIN 1.0
#define REPLAY_CLOCK_SPEED_MAX 1e6
#define REPLAY_CLOCK_SPEED_DEFAULT 1000.0
#define REPLAY_CLOCK_MAX_STOPS 16

/* Real (monotonic) time in ns. */
typedef uint64_t (*replay_clock_now_fn)(void *ud);

enum replay_clock_mark {
	REPLAY_CLOCK_MARK_DISPATCH,           /* a thread block starts on an SM */
	REPLAY_CLOCK_MARK_EVENT,              /* a blocking or inversion episode begins */
};

/* Where the loader finds the times that stepping goes to. */
struct replay_clock_marks {
	void *ud;
	/* The first mark after t (dir > 0) or the last before t (dir < 0);
	 * dispatches only count on SMs [sm0, sm1).  Returns 0 with *out set,
	 * or -1 when there is none. */
	int (*find)(void *ud, enum replay_clock_mark kind, int dir, uint64_t t, uint32_t sm0,
		    uint32_t sm1, uint64_t *out);
};

struct replay_clock {
	uint64_t t_first, t_last;       /* what can be replayed */
	uint64_t clock;                 /* GPU ns; everything at or before it is shown */
	double speed;                   /* real ns per GPU ns */
	int active;                     /* 0: not replaying, the whole session is shown */
	int paused;
	int ended;                      /* the clock reached t_last */
	int guided;                     /* pause at each stop */
	uint64_t stops[REPLAY_CLOCK_MAX_STOPS]; /* ascending */
	size_t n_stops;
	size_t next_stop;               /* first stop after the clock */
	int at_stop;                    /* the stop the clock waits at, -1 none */
	replay_clock_now_fn now;
	void *now_ud;
	uint64_t anchor_real, anchor_clock; /* clock = anchor_clock + (now - anchor_real) / speed */
	struct replay_clock_marks marks;
};

/* Not replaying yet: the clock at t_last, speed REPLAY_CLOCK_SPEED_DEFAULT. */
void replay_clock_init(struct replay_clock *r, uint64_t t_first, uint64_t t_last,
		       replay_clock_now_fn now, void *now_ud);
/* Starts playing from t (clamped to the span). */
void replay_clock_start(struct replay_clock *r, uint64_t t);
/* Leaves the replay: the clock goes to t_last, everything is shown. */
void replay_clock_stop(struct replay_clock *r);

/* Moves the clock on by the real time passed (unless paused), stopping at
 * the next stop when guided and at t_last.  Returns 1 if the clock moved. */
int replay_clock_update(struct replay_clock *r);

void replay_clock_set_paused(struct replay_clock *r, int paused);
/* Clamps x to [REPLAY_CLOCK_SPEED_MIN, REPLAY_CLOCK_SPEED_MAX]; the clock goes on from
 * where it is. */
void replay_clock_set_speed(struct replay_clock *r, double x);
/* Puts the clock at t (clamped); playing or paused as before. */
void replay_clock_seek(struct replay_clock *r, uint64_t t);
/* Pauses and moves the clock to the next (dir > 0) or previous (dir < 0)
 * mark of that kind; dispatches on SMs [sm0, sm1).  Returns 0, or -1 when
 * there is none (the clock stays). */
int replay_clock_step(struct replay_clock *r, enum replay_clock_mark kind, int dir, uint32_t sm0,
		      uint32_t sm1);

/* Guided stops: at most REPLAY_CLOCK_MAX_STOPS times (sorted here). */
void replay_clock_set_stops(struct replay_clock *r, const uint64_t *t, size_t n);
void replay_clock_set_guided(struct replay_clock *r, int on);

/* GPU ns of real time ns at the current speed, and back. */
uint64_t replay_clock_gpu_ns(const struct replay_clock *r, uint64_t real_ns);

#endif
