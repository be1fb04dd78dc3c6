#include "src/core/replay_clock.h"

#include <stdlib.h>
#include <string.h>

static uint64_t clamp_time(const struct replay_clock *r, uint64_t t)
{
	if (t < r->t_first)
		return r->t_first;
	return t > r->t_last ? r->t_last : t;
}

/* From here on the clock counts from (now, clock): speed changes, pauses
 * and seeks never make it jump. */
static void anchor(struct replay_clock *r)
{
	r->anchor_real = r->now(r->now_ud);
	r->anchor_clock = r->clock;
}

/* The stops after the clock are still ahead; one exactly at the clock is
 * where the clock waits (its caption shows). */
static void sync_stops(struct replay_clock *r)
{
	r->next_stop = 0;
	while (r->next_stop < r->n_stops && r->stops[r->next_stop] < r->clock)
		r->next_stop++;
	r->at_stop = -1;
	if (r->guided && r->next_stop < r->n_stops && r->stops[r->next_stop] == r->clock)
		r->at_stop = (int)r->next_stop++;
}

void replay_clock_init(struct replay_clock *r, uint64_t t_first, uint64_t t_last,
		       replay_clock_now_fn now, void *now_ud)
{
	memset(r, 0, sizeof *r);
	r->t_first = t_first;
	r->t_last = t_last > t_first ? t_last : t_first;
	r->clock = r->t_last;
	r->speed = REPLAY_CLOCK_SPEED_DEFAULT;
	r->now = now;
	r->now_ud = now_ud;
	r->at_stop = -1;
	r->ended = 1;
	anchor(r);
}

void replay_clock_seek(struct replay_clock *r, uint64_t t)
{
	r->clock = clamp_time(r, t);
	r->ended = r->clock >= r->t_last;
	if (r->ended)
		r->paused = 1;
	sync_stops(r);
	if (r->at_stop >= 0)
		r->paused = 1;
	anchor(r);
}

void replay_clock_start(struct replay_clock *r, uint64_t t)
{
	r->active = 1;
	r->paused = 0;
	replay_clock_seek(r, t);
}

void replay_clock_stop(struct replay_clock *r)
{
	r->active = 0;
	r->guided = 0;
	r->paused = 0;
	replay_clock_seek(r, r->t_last);
}

int replay_clock_update(struct replay_clock *r)
{
	if (!r->active || r->paused || r->ended)
		return 0;
	uint64_t real = r->now(r->now_ud);
	uint64_t dt = real > r->anchor_real ? real - r->anchor_real : 0;
	double gpu = (double)dt / r->speed;
	uint64_t t = r->anchor_clock + (uint64_t)gpu;
	if (gpu >= (double)(r->t_last - r->anchor_clock))
		t = r->t_last;
	if (r->guided && r->next_stop < r->n_stops && t >= r->stops[r->next_stop]) {
		r->clock = r->stops[r->next_stop];
		r->at_stop = (int)r->next_stop++;
		r->paused = 1;
		anchor(r);
		return 1;
	}
	int moved = t != r->clock;
	r->clock = t;
	if (t >= r->t_last) {
		r->ended = 1;
		r->paused = 1;
	}
	return moved;
}

void replay_clock_set_paused(struct replay_clock *r, int paused)
{
	if (!paused && r->ended)
		return;
	replay_clock_update(r);
	r->paused = paused;
	if (!paused)
		r->at_stop = -1;
	anchor(r);
}

void replay_clock_set_speed(struct replay_clock *r, double x)
{
	replay_clock_update(r);
	if (!(x >= REPLAY_CLOCK_SPEED_MIN)) /* NaN too */
		x = REPLAY_CLOCK_SPEED_MIN;
	if (x > REPLAY_CLOCK_SPEED_MAX)
		x = REPLAY_CLOCK_SPEED_MAX;
	r->speed = x;
	anchor(r);
}

int replay_clock_step(struct replay_clock *r, enum replay_clock_mark kind, int dir, uint32_t sm0,
		      uint32_t sm1)
{
	replay_clock_update(r);
	r->paused = 1;
	uint64_t t;
	if (!r->marks.find || r->marks.find(r->marks.ud, kind, dir, r->clock, sm0, sm1, &t) != 0 ||
	    (dir > 0 && t <= r->clock) || (dir < 0 && t >= r->clock)) {
		anchor(r);
		return -1;
	}
	replay_clock_seek(r, t);
	r->paused = 1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void replay_clock_set_stops(struct replay_clock *r, const uint64_t *t, size_t n)
{
	if (n > REPLAY_CLOCK_MAX_STOPS)
		n = REPLAY_CLOCK_MAX_STOPS;
	if (n)
		memcpy(r->stops, t, n * sizeof *t);
	r->n_stops = n;
	qsort(r->stops, n, sizeof *r->stops, cmp_u64);
	sync_stops(r);
}

void replay_clock_set_guided(struct replay_clock *r, int on)
{
	r->guided = on;
	sync_stops(r);
	if (r->at_stop >= 0)
		r->paused = 1;
}

uint64_t replay_clock_gpu_ns(const struct replay_clock *r, uint64_t real_ns)
{
	return (uint64_t)((double)real_ns / r->speed);
}
