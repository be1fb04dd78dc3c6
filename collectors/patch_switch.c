#include "collectors/patch_switch.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "collectors/log.h"
#include "src/core/clock.h"
#include "src/core/threads.h"

#define PATCH_SWITCH_MODULES 8192
#define PATCH_SWITCH_ROUNDS 2000        /* of 1 ms, waiting for loading threads */
#define PATCH_SWITCH_UNLOAD_WAIT 2000   /* ms an unloading thread waits for a switch */
/* A launch call still inside the driver this long after the gate closed
 * may wait for a thread the gate holds: the switch is given up. */
#define PATCH_SWITCH_GATE_NS 1000000000ull
#define PATCH_SWITCH_DRAIN_NS 5000000000ull /* ops.drain_limit_ns's default */
#define PATCH_SWITCH_BACK_TRIES 30
#define PATCH_SWITCH_BACK_PAUSE_NS 500000000ull /* the gate open between them, at most */
/* Not before the program is under way: its start loads modules and makes
 * the entries' arena inside its first launch call. */
#define PATCH_SWITCH_FIRST_NS 1000000000ull
/* Periodic windows' switches take at most 1 / PATCH_SWITCH_DUTY of the
 * time: each one held the program's launches back for its length. */
#define PATCH_SWITCH_DUTY 20
/* A window that saw fewer launch calls than this in its length stays open
 * until it has, up to PATCH_WINDOW_STRETCH times its length: one that fell
 * on a sparse phase (compiling, loading) measured next to nothing. */
#define PATCH_WINDOW_MIN_LAUNCHES 16
#define PATCH_WINDOW_STRETCH 10
/* A switch this long is told under SMTOP_DEBUG. */
#define PATCH_SWITCH_SLOW_NS 250000000ull

/* How long a loading thread waits for the sanitizer's patch calls to be
 * free: a switch's call that waits for a lock the loading call holds
 * in the driver would wait for ever. */
#define PATCH_SWITCH_LOAD_WAIT_MS 2000

/* A module's state: who may call the sanitizer on it now.  GONE: unloaded
 * while a thread held it BUSY, which frees the slot when it lets go; FREE:
 * unloaded, the slot free for a module loaded later (a program that loads
 * and unloads modules for its whole life must not run out of them). */
enum { MOD_IDLE = 1, MOD_BUSY, MOD_GONE, MOD_FREE };

struct patch_module {
	_Atomic(CUmodule) mod;          /* a freed slot is taken again while others read it */
	_Atomic int state;
	enum patch_mode mode;           /* what it is patched in; written while BUSY */
	_Atomic int used;               /* a function of it was launched */
};

static struct patch_switch_ops ps_ops;
static int ps_can_unpatch;
static pthread_mutex_t ps_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct patch_module ps_modules[PATCH_SWITCH_MODULES];
static _Atomic size_t ps_n_modules;
static size_t ps_n_free;                /* FREE slots, under ps_list_lock */
static _Atomic int ps_target;           /* the mode a module loading now is patched in */
/* The process is exiting: no module is patched or unpatched any more.  The
 * CUDA runtime's exit handlers free the modules of the context. */
static _Atomic int ps_closed;

static pthread_mutex_t ps_switch_lock = PTHREAD_MUTEX_INITIALIZER; /* one switch at a time */
/* The sanitizer's patch calls, on any module, one at a time: it leaves
 * their results undefined otherwise (sanitizer_patching.h). */
static pthread_mutex_t ps_patching_lock = PTHREAD_MUTEX_INITIALIZER;
static enum patch_mode ps_base = PATCH_ENTRY;                      /* under ps_switch_lock */

/* The window thread's orders, under ps_order_lock. */
static pthread_mutex_t ps_order_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ps_order = PTHREAD_COND_INITIALIZER;
static uint64_t ps_asked_ns;            /* a window asked for, of this long */
/* Switches off (recording off) waiting for the switch lock: an open
 * window ends at once, one not yet open does not open (the switch waits
 * for the window, and the process's exit for the switch). */
static int ps_off_pending;
static uint64_t ps_every_ns, ps_for_ns;
static int ps_stop, ps_started;
static pthread_t ps_thread;

static _Atomic uint64_t ps_switches, ps_windows, ps_failures, ps_switch_ns_total, ps_switch_ns_max,
	ps_window_ns_total, ps_given_up, ps_loaded_ungated, ps_load_timeouts;
static _Atomic uint64_t ps_used;        /* modules launched from */
static _Atomic uint64_t ps_loaded;      /* modules loaded, slots freed since or not */
static _Atomic int ps_used_unknown;     /* a launch from a module not listed: windows patch all */

/* The gate: closed during a switch; inside counts the launch and load
 * calls in the driver. */
static pthread_mutex_t ps_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ps_gate = PTHREAD_COND_INITIALIZER;
static int ps_gate_closed, ps_inside;
static _Thread_local int ps_tls_inside;
/* Launch calls the window thread waits for, counted down by them (under
 * ps_gate_lock): one for a window that fell due, a window's least. */
static pthread_cond_t ps_launched = PTHREAD_COND_INITIALIZER;
static uint64_t ps_launches_awaited;

void patch_switch_init(const struct patch_switch_ops *ops, enum patch_mode mode, int can_unpatch)
{
	ps_ops = *ops;
	ps_can_unpatch = can_unpatch;
	ps_base = mode;
	if (mode == PATCH_EXACT && ops->exits)
		ops->exits(1);
	atomic_store(&ps_target, (int)mode);
}

int patch_switch_recording(void)
{
	return atomic_load(&ps_target) != PATCH_OFF;
}

static int ps_apply(struct patch_module *m, enum patch_mode mode)
{
	int r = 0;

	if (m->mode != PATCH_OFF && (r = ps_ops.unpatch(m->mod)) != 0) {
		atomic_fetch_add(&ps_failures, 1);
		return -1;
	}
	m->mode = PATCH_OFF;
	if (mode != PATCH_OFF && (r = ps_ops.patch(m->mod, mode)) != 0) {
		atomic_fetch_add(&ps_failures, 1);
		return -1;
	}
	m->mode = mode;
	return 0;
}

int patch_switch_lock_patching(void)
{
	struct timespec ms = { 0, 1000000L };

	for (int i = 0; i < PATCH_SWITCH_LOAD_WAIT_MS; i++) {
		if (pthread_mutex_trylock(&ps_patching_lock) == 0)
			return 0;
		nanosleep(&ms, NULL);
	}
	atomic_fetch_add(&ps_load_timeouts, 1);
	return -1;
}

void patch_switch_unlock_patching(void)
{
	pthread_mutex_unlock(&ps_patching_lock);
}

static int ps_unloaded(int state)
{
	return state == MOD_GONE || state == MOD_FREE;
}

static void ps_free_slot(struct patch_module *m)
{
	pthread_mutex_lock(&ps_list_lock);
	atomic_store(&m->state, MOD_FREE);
	ps_n_free++;
	pthread_mutex_unlock(&ps_list_lock);
}

/* m, which this thread held BUSY, free again; one whose unload gave up
 * waiting for it (MOD_GONE) is never touched again (no later switch may
 * call the sanitizer on a module the driver has freed): its slot is. */
static void ps_release(struct patch_module *m)
{
	int busy = MOD_BUSY;

	if (!atomic_compare_exchange_strong(&m->state, &busy, MOD_IDLE) && busy == MOD_GONE)
		ps_free_slot(m);
}

/* A slot for a module loading now, BUSY (under ps_list_lock): a freed one
 * first; NULL when none is left. */
static struct patch_module *ps_take_slot(void)
{
	size_t n = atomic_load(&ps_n_modules);
	struct patch_module *m;

	for (size_t i = 0; ps_n_free && i < n; i++) {
		int spare = MOD_FREE;

		if (atomic_compare_exchange_strong(&ps_modules[i].state, &spare, MOD_BUSY)) {
			ps_n_free--;
			return &ps_modules[i];
		}
	}
	if (n == PATCH_SWITCH_MODULES)
		return NULL;
	m = &ps_modules[n];
	atomic_store(&m->state, MOD_BUSY);
	atomic_store(&ps_n_modules, n + 1);
	return m;
}

void patch_switch_module_loaded(CUmodule mod)
{
	struct patch_module *m;

	atomic_fetch_add(&ps_loaded, 1);
	if (!ps_tls_inside)
		atomic_fetch_add(&ps_loaded_ungated, 1);
	pthread_mutex_lock(&ps_list_lock);
	m = ps_take_slot();
	if (!m) {
		pthread_mutex_unlock(&ps_list_lock);
		log_debug("more than %d modules loaded at once: module %p left unpatched", PATCH_SWITCH_MODULES,
			  (void *)mod);
		atomic_fetch_add(&ps_failures, 1);
		return;
	}
	/* BUSY already: the other threads pass over it until it is released */
	m->mod = mod;
	m->mode = PATCH_OFF;
	atomic_store(&m->used, 0);
	pthread_mutex_unlock(&ps_list_lock);
	/* read after it is listed: a switch that set another mode before
	 * listing it finds it BUSY and comes back to it; one that keeps the
	 * patch calls past the wait goes over it once more at its end */
	if (atomic_load(&ps_closed)) {
		m->mode = PATCH_OFF;
	} else if (patch_switch_lock_patching() == 0) {
		ps_apply(m, (enum patch_mode)atomic_load(&ps_target));
		patch_switch_unlock_patching();
	} else {
		log_debug("module %p loaded unpatched: the patch calls stayed taken", (void *)mod);
	}
	ps_release(m);
}

/* mod, in m, is being unloaded: its slot freed once no thread holds it;
 * a switch on it is waited for, but never hangs the unload (GONE).  A load
 * may have taken m again since it was read as mod's, for another module:
 * that one stays. */
static void ps_forget(struct patch_module *m, CUmodule mod)
{
	struct timespec ms = { 0, 1000000L };

	for (int w = 0; atomic_load(&m->mod) == mod; w++) {
		int seen = MOD_IDLE, busy = MOD_BUSY;

		if (atomic_compare_exchange_strong(&m->state, &seen, MOD_GONE)) {
			if (atomic_load(&m->mod) != mod) {
				atomic_store(&m->state, MOD_IDLE);
				return;
			}
			ps_free_slot(m);
			return;
		}
		if (ps_unloaded(seen))
			return;
		if (w >= PATCH_SWITCH_UNLOAD_WAIT && atomic_compare_exchange_strong(&m->state, &busy, MOD_GONE))
			return;
		nanosleep(&ms, NULL);
	}
}

void patch_switch_module_unloading(CUmodule mod)
{
	size_t n = atomic_load(&ps_n_modules);

	for (size_t i = 0; i < n; i++) {
		struct patch_module *m = &ps_modules[i];

		if (m->mod == mod && !ps_unloaded(atomic_load(&m->state)))
			ps_forget(m, mod);
	}
}

void patch_switch_module_used(CUmodule mod)
{
	/* a full table of functions calls at every launch; a module loaded
	 * since may have taken the handle of one unloaded */
	static _Thread_local CUmodule last;
	static _Thread_local size_t last_n;
	size_t n = atomic_load(&ps_n_modules);

	if (mod && mod == last && n == last_n)
		return;
	last = mod;
	last_n = n;
	for (size_t i = 0; mod && i < n; i++) {
		struct patch_module *m = &ps_modules[i];

		if (m->mod != mod || ps_unloaded(atomic_load(&m->state)))
			continue;
		if (atomic_exchange(&m->used, 1) == 0)
			atomic_fetch_add(&ps_used, 1);
		return;
	}
	if (atomic_exchange(&ps_used_unknown, 1) == 0)
		log_debug("a launch from a module the patch switch does not know: windows patch every module");
}

/* The mode m goes into when the process goes into mode: a window's exits
 * only where the program has launched from.  Under ps_switch_lock. */
static enum patch_mode ps_mode_for(struct patch_module *m, enum patch_mode mode)
{
	if (mode != PATCH_EXACT || atomic_load(&m->used) || atomic_load(&ps_used_unknown))
		return mode;
	return ps_base;
}

/* Modules the running switch patched anew (under ps_switch_lock). */
static size_t ps_repatched;

/* One pass over the modules; how many a loading thread still holds. */
static size_t ps_pass(enum patch_mode mode)
{
	size_t n = atomic_load(&ps_n_modules), busy = 0;

	for (size_t i = 0; i < n; i++) {
		struct patch_module *m = &ps_modules[i];
		int idle = MOD_IDLE;
		enum patch_mode want;

		if (!atomic_compare_exchange_strong(&m->state, &idle, MOD_BUSY)) {
			busy += idle == MOD_BUSY;
			continue;
		}
		want = ps_mode_for(m, mode);
		if (m->mode != want) {
			pthread_mutex_lock(&ps_patching_lock);
			ps_apply(m, want);
			pthread_mutex_unlock(&ps_patching_lock);
			ps_repatched++;
		}
		ps_release(m);
	}
	return busy;
}

static void ps_count_switch(uint64_t ns)
{
	uint64_t max = atomic_load(&ps_switch_ns_max);

	atomic_fetch_add(&ps_switches, 1);
	atomic_fetch_add(&ps_switch_ns_total, ns);
	while (ns > max && !atomic_compare_exchange_weak(&ps_switch_ns_max, &max, ns))
		;
}

/* ns from now, on the clock of the condition variables' waits. */
static struct timespec ps_deadline(uint64_t ns)
{
	return clock_mono_timespec(clock_mono_ns() + ns);
}

static int ps_timedwait(pthread_cond_t *cond, pthread_mutex_t *lock, const struct timespec *at)
{
	return pthread_cond_clockwait(cond, lock, CLOCK_MONOTONIC, at);
}

void patch_switch_call_enter(enum patch_call kind)
{
	pthread_mutex_lock(&ps_gate_lock);
	/* a call made from inside a gated call (none known) must not wait
	 * for a switch that waits for the call */
	while (ps_gate_closed && !ps_tls_inside)
		pthread_cond_wait(&ps_gate, &ps_gate_lock);
	ps_inside++;
	ps_tls_inside++;
	if (kind == PATCH_CALL_LAUNCH && ps_launches_awaited && --ps_launches_awaited == 0)
		pthread_cond_signal(&ps_launched);
	pthread_mutex_unlock(&ps_gate_lock);
}

void patch_switch_call_exit(void)
{
	if (!ps_tls_inside)
		return;
	pthread_mutex_lock(&ps_gate_lock);
	ps_tls_inside--;
	if (--ps_inside == 0)
		pthread_cond_broadcast(&ps_gate);
	pthread_mutex_unlock(&ps_gate_lock);
}

static void ps_open_gate(void)
{
	pthread_mutex_lock(&ps_gate_lock);
	ps_gate_closed = 0;
	pthread_cond_broadcast(&ps_gate);
	pthread_mutex_unlock(&ps_gate_lock);
}

/* Until no launch or load call is inside the driver, at most ns; under
 * ps_gate_lock. */
static void ps_wait_none_inside(uint64_t ns)
{
	struct timespec at = ps_deadline(ns);
	int r = 0;

	while (ps_inside && r != ETIMEDOUT)
		r = ps_timedwait(&ps_gate, &ps_gate_lock, &at);
}

/* Closes the gate and waits until no launch or load call is inside; -1
 * (the gate open again) when one stays. */
static int ps_close_gate(void)
{
	int r;

	pthread_mutex_lock(&ps_gate_lock);
	ps_gate_closed = 1;
	ps_wait_none_inside(PATCH_SWITCH_GATE_NS);
	r = ps_inside ? -1 : 0;
	pthread_mutex_unlock(&ps_gate_lock);
	if (r)
		ps_open_gate();
	return r;
}

/* The drain on a thread of its own, so that a switch can give up on it;
 * one at a time: a drain given up still waits for the GPU, and the next
 * switch is given up until it has returned. */
static pthread_mutex_t ps_drain_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ps_drain_done = PTHREAD_COND_INITIALIZER;
static int ps_draining;

static void *ps_drain_main(void *arg)
{
	(void)arg;
	ps_ops.drain();
	pthread_mutex_lock(&ps_drain_lock);
	ps_draining = 0;
	pthread_cond_broadcast(&ps_drain_done);
	pthread_mutex_unlock(&ps_drain_lock);
	return NULL;
}

/* Until no drain runs or the deadline; under ps_drain_lock. */
static void ps_wait_drained(const struct timespec *at)
{
	int r = 0;

	while (ps_draining && r != ETIMEDOUT)
		r = ps_timedwait(&ps_drain_done, &ps_drain_lock, at);
}

/* 0 once the GPU has drained, -1 when it did not within the limit.  A
 * drain given up before is waited for first, in the same limit: it began
 * before the gate closed, so a new one follows it. */
static int ps_drain(void)
{
	uint64_t limit = ps_ops.drain_limit_ns ? ps_ops.drain_limit_ns : PATCH_SWITCH_DRAIN_NS;
	struct timespec at = ps_deadline(limit);
	pthread_t t;
	int r;

	pthread_mutex_lock(&ps_drain_lock);
	ps_wait_drained(&at);
	if (ps_draining) {
		pthread_mutex_unlock(&ps_drain_lock);
		return -1;
	}
	ps_draining = 1;
	if (thread_start(&t, "smtop-drain", ps_drain_main, NULL) != 0) {
		pthread_mutex_unlock(&ps_drain_lock);
		ps_drain_main(NULL); /* no thread: waited for here, as before */
		return 0;
	}
	pthread_detach(t);
	ps_wait_drained(&at);
	r = ps_draining ? -1 : 0;
	pthread_mutex_unlock(&ps_drain_lock);
	return r;
}

/* A slow switch, under SMTOP_DEBUG: whether the drain or the patch calls
 * took the time, and over how many modules. */
static void ps_tell_slow(enum patch_mode mode, uint64_t ns, uint64_t drained_ns)
{
	log_debug("patch switch to %s took %" PRIu64 " ms (%" PRIu64 " ms until the GPU drained):"
		  " %zu of %zu modules patched anew",
		  mode == PATCH_EXACT ? "entry and exit" : mode == PATCH_ENTRY ? "entry" : "none",
		  ns / 1000000, drained_ns / 1000000, ps_repatched, atomic_load(&ps_n_modules));
}

/* Every module into mode; under ps_switch_lock.  -1 when no switch could
 * be made. */
static int ps_switch_to(enum patch_mode mode)
{
	struct timespec ms = { 0, 1000000L };
	uint64_t t0 = clock_mono_ns(), drained;

	if (atomic_load(&ps_closed))
		return -1;
	if (ps_close_gate() != 0) {
		atomic_fetch_add(&ps_given_up, 1);
		log_debug("patch switch given up: a launch or load call stayed inside the driver");
		return -1;
	}
	ps_repatched = 0;
	if (ps_ops.drain && ps_drain() != 0) {
		ps_open_gate();
		atomic_fetch_add(&ps_given_up, 1);
		log_debug("patch switch given up: the GPU did not drain (a kernel may wait for a launch the gate held)");
		return -1;
	}
	drained = clock_mono_ns() - t0;
	if (mode == PATCH_EXACT && ps_ops.exits)
		ps_ops.exits(1);
	atomic_store(&ps_target, (int)mode);
	for (int round = 0; round < PATCH_SWITCH_ROUNDS && ps_pass(mode); round++)
		nanosleep(&ms, NULL);
	ps_pass(mode); /* modules listed meanwhile */
	if (mode != PATCH_EXACT && ps_ops.exits)
		ps_ops.exits(0);
	ps_open_gate();
	t0 = clock_mono_ns() - t0;
	ps_count_switch(t0);
	if (t0 > PATCH_SWITCH_SLOW_NS)
		ps_tell_slow(mode, t0, drained);
	return 0;
}

static void ps_note_off(int d);
static int ps_off_waits(void);

/* Why no switch or window can be asked for (-1 with reason), or 0. */
static int ps_refuse(char *reason, size_t len)
{
	if (!ps_can_unpatch)
		snprintf(reason, len, "this Compute Sanitizer cannot remove patches (no sanitizerUnpatchModule)");
	else if (atomic_load(&ps_closed))
		snprintf(reason, len, "the process is exiting");
	else
		return 0;
	return -1;
}

int patch_switch_set_base(enum patch_mode mode, char *reason, size_t len)
{
	if (ps_refuse(reason, len) != 0)
		return -1;
	int r = 0;

	if (mode == PATCH_OFF)
		ps_note_off(1);
	pthread_mutex_lock(&ps_switch_lock);
	if (ps_base != mode && (r = ps_switch_to(mode)) == 0)
		ps_base = mode;
	pthread_mutex_unlock(&ps_switch_lock);
	if (mode == PATCH_OFF)
		ps_note_off(-1);
	if (r)
		snprintf(reason, len, "a launch or load call stayed inside the driver for a second, or the GPU"
			 " did not drain: not switched");
	return r;
}

/* Whether a wait of the window thread is over: a stop ends any; an order
 * the wait for the next window (for_order); a switch off pending a
 * window's own waits.  Under ps_order_lock. */
static int ps_wait_over(int for_order)
{
	return ps_stop || (for_order ? ps_asked_ns != 0 : ps_off_pending != 0);
}

/* Sleeps until `until` (monotonic ns; UINT64_MAX: until woken) or the wait
 * is over; 1 when stopped. */
static int ps_wait_until(uint64_t until, int for_order)
{
	struct timespec at = clock_mono_timespec(until);
	int stopped;

	pthread_mutex_lock(&ps_order_lock);
	while (!ps_wait_over(for_order) && clock_mono_ns() < until) {
		/* no period: only an order or a stop wakes the thread */
		if (until == UINT64_MAX)
			pthread_cond_wait(&ps_order, &ps_order_lock);
		else if (ps_timedwait(&ps_order, &ps_order_lock, &at) == ETIMEDOUT)
			break;
	}
	stopped = ps_stop;
	pthread_mutex_unlock(&ps_order_lock);
	return stopped;
}

/* After a switch given up, with the gate open: until no launch or load
 * call is inside, at most ns.  A call inside may wait for one the gate
 * held (a collective launched from two threads); closing the gate again
 * at once kept that one out, try after try. */
static void ps_let_calls_out(uint64_t ns)
{
	pthread_mutex_lock(&ps_gate_lock);
	ps_wait_none_inside(ns);
	pthread_mutex_unlock(&ps_gate_lock);
}

static void ps_await_launches(uint64_t n);
static int ps_wait_for_launches(uint64_t until, int for_order);

/* An exact window of ns at least; how long its switches held launches
 * back. */
static uint64_t ps_run_window(uint64_t ns)
{
	uint64_t start, end, t0 = clock_mono_ns(), open;

	pthread_mutex_lock(&ps_switch_lock);
	/* recording went off since the window was asked for or fell due: a
	 * dormant process's launches must not be recorded */
	if (ps_base == PATCH_OFF || ps_off_waits()) {
		pthread_mutex_unlock(&ps_switch_lock);
		return 0;
	}
	ps_await_launches(PATCH_WINDOW_MIN_LAUNCHES);
	if (ps_switch_to(PATCH_EXACT) != 0) {
		ps_await_launches(0);
		pthread_mutex_unlock(&ps_switch_lock);
		return clock_mono_ns() - t0;
	}
	start = clock_real_ns();
	open = clock_mono_ns();
	ps_wait_until(open + ns, 0);
	ps_wait_for_launches(open + ns * PATCH_WINDOW_STRETCH, 0);
	end = clock_real_ns();
	/* back, at a second a try: the exits cost 3 times the work; but a
	 * launch call that never leaves must not hang the process's exit.
	 * At exit the window stays open: its modules may be freed. */
	for (int i = 0; i < PATCH_SWITCH_BACK_TRIES && !atomic_load(&ps_closed) && ps_switch_to(ps_base) != 0; i++)
		ps_let_calls_out(PATCH_SWITCH_BACK_PAUSE_NS);
	atomic_fetch_add(&ps_windows, 1);
	atomic_fetch_add(&ps_window_ns_total, end - start);
	/* before a switch off that waits for this lock ends the session */
	if (ps_ops.window)
		ps_ops.window(start, end);
	pthread_mutex_unlock(&ps_switch_lock);
	t0 = clock_mono_ns() - t0;
	return t0 > end - start ? t0 - (end - start) : 0;
}

/* An order or a stop for a window thread that waits for a launch.  Not
 * under the orders' lock: the waiting thread takes that one inside the
 * gate's. */
static void ps_wake_from_launch_wait(void)
{
	pthread_mutex_lock(&ps_gate_lock);
	pthread_cond_signal(&ps_launched);
	pthread_mutex_unlock(&ps_gate_lock);
}

/* ps_wait_over, from a thread that does not hold ps_order_lock. */
static int ps_interrupted(int for_order)
{
	int r;

	pthread_mutex_lock(&ps_order_lock);
	r = ps_wait_over(for_order);
	pthread_mutex_unlock(&ps_order_lock);
	return r;
}

/* *v, one of the window thread's order state, under ps_order_lock. */
static int ps_order_read(const int *v)
{
	int r;

	pthread_mutex_lock(&ps_order_lock);
	r = *v;
	pthread_mutex_unlock(&ps_order_lock);
	return r;
}

static int ps_stopped(void)
{
	return ps_order_read(&ps_stop);
}

/* Whether a switch off waits for the switch lock. */
static int ps_off_waits(void)
{
	return ps_order_read(&ps_off_pending);
}

/* A switch off begins (1) or is done (-1): while one waits, a window
 * ends or does not open. */
static void ps_note_off(int d)
{
	pthread_mutex_lock(&ps_order_lock);
	ps_off_pending += d;
	pthread_cond_signal(&ps_order);
	pthread_mutex_unlock(&ps_order_lock);
	if (d > 0)
		ps_wake_from_launch_wait();
}

/* The next n launch calls are counted down for ps_wait_for_launches. */
static void ps_await_launches(uint64_t n)
{
	pthread_mutex_lock(&ps_gate_lock);
	ps_launches_awaited = n;
	pthread_mutex_unlock(&ps_gate_lock);
}

/* Sleeps until the launch calls awaited have been made, until (monotonic
 * ns; UINT64_MAX: no limit) or the wait is over (ps_wait_over); 1 when
 * stopped. */
static int ps_wait_for_launches(uint64_t until, int for_order)
{
	struct timespec at = clock_mono_timespec(until);

	pthread_mutex_lock(&ps_gate_lock);
	/* an order or a stop signals under this lock too: none is missed */
	while (ps_launches_awaited && !ps_interrupted(for_order) && clock_mono_ns() < until) {
		if (until == UINT64_MAX)
			pthread_cond_wait(&ps_launched, &ps_gate_lock);
		else if (ps_timedwait(&ps_launched, &ps_gate_lock, &at) == ETIMEDOUT)
			break;
	}
	ps_launches_awaited = 0;
	pthread_mutex_unlock(&ps_gate_lock);
	return ps_stopped();
}

static void *ps_main(void *arg)
{
	uint64_t first = ps_every_ns / 5 > PATCH_SWITCH_FIRST_NS ? ps_every_ns / 5 : PATCH_SWITCH_FIRST_NS;
	uint64_t next = ps_every_ns ? clock_mono_ns() + first : UINT64_MAX;

	(void)arg;
	for (;;) {
		uint64_t ns;

		if (ps_wait_until(next, 1))
			break;
		pthread_mutex_lock(&ps_order_lock);
		ns = ps_asked_ns;
		ps_asked_ns = 0;
		pthread_mutex_unlock(&ps_order_lock);
		if (!ns) {
			if (clock_mono_ns() < next)
				continue;
			ns = ps_for_ns;
			next += ps_every_ns;
			ps_await_launches(1);
			if (ps_wait_for_launches(UINT64_MAX, 1))
				break;
		}
		uint64_t held = ps_run_window(ns), now = clock_mono_ns();

		if (ps_every_ns && next < now)
			next = now + ps_every_ns;
		/* switches slow to make (thousands of modules loaded eagerly)
		 * space the windows out rather than stall the program */
		if (ps_every_ns && next < now + held * PATCH_SWITCH_DUTY)
			next = now + held * PATCH_SWITCH_DUTY;
	}
	return NULL;
}

int patch_switch_window(uint64_t ns, char *reason, size_t len)
{
	if (ps_refuse(reason, len) != 0)
		return -1;
	if (!ps_started) {
		snprintf(reason, len, "exact windows are not running in this process");
		return -1;
	}
	if (!patch_switch_recording()) {
		snprintf(reason, len, "not recording");
		return -1;
	}
	pthread_mutex_lock(&ps_order_lock);
	ps_asked_ns = ns ? ns : 1;
	pthread_cond_signal(&ps_order);
	pthread_mutex_unlock(&ps_order_lock);
	ps_wake_from_launch_wait();
	return 0;
}

int patch_switch_start(uint64_t every_ns, uint64_t for_ns)
{
	if (!ps_can_unpatch || ps_started)
		return -1;
	ps_every_ns = every_ns;
	ps_for_ns = for_ns;
	ps_stop = 0;
	if (thread_start(&ps_thread, "smtop-switch", ps_main, NULL) != 0)
		return -1;
	ps_started = 1;
	return 0;
}

void patch_switch_stop(void)
{
	atomic_store(&ps_closed, 1);
	if (ps_started) {
		pthread_mutex_lock(&ps_order_lock);
		ps_stop = 1;
		pthread_cond_signal(&ps_order);
		pthread_mutex_unlock(&ps_order_lock);
		ps_wake_from_launch_wait();
		pthread_join(ps_thread, NULL);
		ps_started = 0;
	}
	/* a switch being made (recording switched on or off) ends first */
	pthread_mutex_lock(&ps_switch_lock);
	pthread_mutex_unlock(&ps_switch_lock);
}

void patch_switch_stats(struct patch_switch_stats *out)
{
	out->switches = atomic_load(&ps_switches);
	out->windows = atomic_load(&ps_windows);
	out->modules = atomic_load(&ps_loaded);
	out->failures = atomic_load(&ps_failures);
	out->given_up = atomic_load(&ps_given_up);
	out->loaded_ungated = atomic_load(&ps_loaded_ungated);
	out->load_timeouts = atomic_load(&ps_load_timeouts);
	out->used = atomic_load(&ps_used);
	out->used_unknown = atomic_load(&ps_used_unknown);
	out->switch_ns_total = atomic_load(&ps_switch_ns_total);
	out->switch_ns_max = atomic_load(&ps_switch_ns_max);
	out->window_ns_total = atomic_load(&ps_window_ns_total);
}
