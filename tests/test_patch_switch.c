/* Patches switched at run time (collectors/patch_switch.c), with a fake
 * sanitizer that records which module went into which mode when. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>

#include "collectors/patch_switch.h"

#define MODS 16
static int mode_of[MODS];               /* 0 unpatched, else the enum patch_mode */
static int exits_on, exits_calls, windows_seen, patched_while_exits_off;
static uint64_t window_start, window_end;

static int fake_index(CUmodule m)
{
	return (int)(uintptr_t)m;
}

static long patch_sleep_ns; /* how long a fake patch call takes */
static _Atomic int in_patch, patch_overlaps; /* calls running at once */

static int fake_patch(CUmodule m, enum patch_mode mode)
{
	struct timespec t = { patch_sleep_ns / 1000000000L, patch_sleep_ns % 1000000000L };

	if (atomic_fetch_add(&in_patch, 1) != 0)
		atomic_fetch_add(&patch_overlaps, 1);
	if (patch_sleep_ns)
		nanosleep(&t, NULL);
	atomic_fetch_sub(&in_patch, 1);
	cr_expect_eq(mode_of[fake_index(m)], 0, "a module is unpatched before it is patched again");
	patched_while_exits_off += mode == PATCH_EXACT && !exits_on;
	mode_of[fake_index(m)] = (int)mode;
	return 0;
}

static int fake_unpatch(CUmodule m)
{
	mode_of[fake_index(m)] = 0;
	return 0;
}

static void fake_exits(int on)
{
	exits_on = on;
	exits_calls++;
}

static void fake_window(uint64_t start, uint64_t end)
{
	windows_seen++;
	window_start = start;
	window_end = end;
}

static const struct patch_switch_ops fake_ops = {
	.patch = fake_patch,
	.unpatch = fake_unpatch,
	.exits = fake_exits,
	.window = fake_window,
};

static void wait_for_windows(int n)
{
	struct timespec ms = { 0, 1000000L };

	for (int i = 0; i < 5000 && windows_seen < n; i++)
		nanosleep(&ms, NULL);
}

Test(patch_switch, a_module_loads_patched_in_the_current_mode)
{
	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	cr_expect(patch_switch_recording());
}

/* Modules 1 and 2 loaded, those in used[] launched from (a 0 ends it),
 * and a window of ns asked for. */
static void window_over_two_modules(const uintptr_t *used, uint64_t ns)
{
	char why[128];

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_module_loaded((CUmodule)2);
	for (size_t i = 0; used[i]; i++)
		patch_switch_module_used((CUmodule)used[i]);
	cr_assert_eq(patch_switch_start(0, 0), 0);
	cr_assert_eq(patch_switch_window(ns, why, sizeof why), 0, "%s", why);
}

static void wait_for_mode(int k, int mode)
{
	for (int i = 0; i < 5000 && mode_of[k] != mode; i++)
		nanosleep(&(struct timespec){ 0, 1000000L }, NULL);
}

Test(patch_switch, a_window_patches_the_exits_and_puts_entry_back)
{
	window_over_two_modules((const uintptr_t[]){ 1, 2, 0 }, 3000000);
	wait_for_windows(1);
	patch_switch_stop();
	cr_assert_eq(windows_seen, 1);
	cr_expect_geq(window_end - window_start, 3000000ull, "the window lasted as asked");
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	cr_expect_eq(mode_of[2], PATCH_ENTRY);
	cr_expect_eq(patched_while_exits_off, 0, "launches are told before the exits are patched");
	cr_expect_eq(exits_on, 0, "and after they are removed");
	cr_expect_eq(exits_calls, 2);
	struct patch_switch_stats st;
	patch_switch_stats(&st);
	cr_expect_eq(st.switches, 2);
	cr_expect_eq(st.windows, 1);
	cr_expect_eq(st.modules, 2);
}

/* A program at work: a launch call every launch_gap_ns (a millisecond)
 * until stopped. */
static _Atomic int launching;
static long launch_gap_ns = 1000000L;

static void *launch_loop(void *arg)
{
	struct timespec ms = { 0, launch_gap_ns };

	(void)arg;
	while (atomic_load(&launching)) {
		patch_switch_call_enter(PATCH_CALL_LAUNCH);
		patch_switch_call_exit();
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void start_launching(pthread_t *t)
{
	atomic_store(&launching, 1);
	cr_assert_eq(pthread_create(t, NULL, launch_loop, NULL), 0);
}

static void stop_launching(pthread_t t)
{
	atomic_store(&launching, 0);
	pthread_join(t, NULL);
}

/* A window patches the exits of the modules the program launched from:
 * with eager loading the others are thousands, each one a switch would
 * go over twice. */
Test(patch_switch, a_window_patches_the_exits_of_the_modules_launched_from)
{
	struct patch_switch_stats st;

	window_over_two_modules((const uintptr_t[]){ 1, 1, 0 }, 100000000);
	wait_for_mode(1, PATCH_EXACT);
	cr_expect_eq(mode_of[1], PATCH_EXACT);
	cr_expect_eq(mode_of[2], PATCH_ENTRY, "never launched from: its entries alone");
	wait_for_windows(1);
	patch_switch_stop();
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	patch_switch_stats(&st);
	cr_expect_eq(st.used, 1);
	cr_expect_eq(st.used_unknown, 0);
}

Test(patch_switch, a_launch_from_a_module_not_listed_makes_windows_patch_all)
{
	window_over_two_modules((const uintptr_t[]){ 3, 0 }, 100000000);
	wait_for_mode(2, PATCH_EXACT);
	cr_expect_eq(mode_of[1], PATCH_EXACT);
	cr_expect_eq(mode_of[2], PATCH_EXACT);
	wait_for_windows(1);
	patch_switch_stop();
}

/* The process's exit: the CUDA runtime's exit handlers may have freed the
 * modules already, so no call reaches the sanitizer after the stop. */
Test(patch_switch, a_stop_at_exit_leaves_a_window_open_and_patches_nothing_more)
{
	struct timespec t0, t1;
	char why[128];

	window_over_two_modules((const uintptr_t[]){ 1, 0 }, 10000000000ull);
	wait_for_mode(1, PATCH_EXACT);
	cr_assert_eq(mode_of[1], PATCH_EXACT);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	patch_switch_stop();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_expect_lt(t1.tv_sec - t0.tv_sec, 2, "the stop does not wait for the window's 10 s");
	cr_expect_eq(mode_of[1], PATCH_EXACT, "no unpatch call at exit");
	patch_switch_module_loaded((CUmodule)3);
	cr_expect_eq(mode_of[3], 0, "a module loaded after the stop is not patched");
	cr_expect_neq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "nor switched");
	cr_expect(strstr(why, "exiting"), "and says why: %s", why);
	why[0] = '\0';
	cr_expect_neq(patch_switch_window(1000000, why, sizeof why), 0, "no window is asked for");
	cr_expect(strstr(why, "exiting"), "and says why: %s", why);
	cr_expect_eq(mode_of[1], PATCH_EXACT);
}

/* A window of ns asked for; how long it was open. */
static uint64_t one_window(uint64_t ns)
{
	window_over_two_modules((const uintptr_t[]){ 1, 0 }, ns);
	wait_for_windows(1);
	patch_switch_stop();
	cr_assert_eq(windows_seen, 1);
	return window_end - window_start;
}

/* One that falls on a phase that launches little (compiling, loading)
 * would measure next to nothing in its length. */
Test(patch_switch, a_window_that_sees_few_launches_stays_open_up_to_ten_times_longer)
{
	uint64_t ns = one_window(20000000);

	cr_expect_geq(ns, 200000000ull, "open %llu ns", (unsigned long long)ns);
	cr_expect_lt(ns, 600000000ull, "but no longer than ten times: %llu ns", (unsigned long long)ns);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
}

Test(patch_switch, a_window_that_sees_launches_enough_ends_after_its_length)
{
	pthread_t t;

	launch_gap_ns = 50000L; /* 16 launches in about 1 ms */
	start_launching(&t);
	uint64_t ns = one_window(20000000);

	stop_launching(t);
	cr_expect_geq(ns, 20000000ull);
	cr_expect_lt(ns, 150000000ull, "open %llu ns", (unsigned long long)ns);
}

Test(patch_switch, windows_come_every_period)
{
	pthread_t t;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	start_launching(&t);
	cr_assert_eq(patch_switch_start(20000000, 1000000), 0);
	wait_for_windows(3);
	patch_switch_stop();
	stop_launching(t);
	cr_expect_geq(windows_seen, 3);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
}

Test(patch_switch, a_due_window_waits_for_the_programs_next_launch)
{
	struct timespec ms = { 0, 1000000L }, s13 = { 1, 300000000L };

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	cr_assert_eq(patch_switch_start(20000000, 1000000), 0);
	/* the first window falls due after a second; calls that only load
	 * code are no sign of work */
	for (int i = 0; i < 1300; i++) {
		patch_switch_call_enter(PATCH_CALL_LOAD);
		patch_switch_call_exit();
		nanosleep(&ms, NULL);
	}
	cr_expect_eq(windows_seen, 0, "no window while nothing is launched");
	nanosleep(&s13, NULL);
	cr_expect_eq(windows_seen, 0);
	patch_switch_call_enter(PATCH_CALL_LAUNCH);
	patch_switch_call_exit();
	wait_for_windows(1);
	patch_switch_stop();
	cr_expect_eq(windows_seen, 1, "the launch opened the window that was due, and one only");
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
}

/* Switches that take long (thousands of modules) space the periodic
 * windows out: their switching stays a twentieth of the time. */
Test(patch_switch, slow_switches_space_the_windows_out)
{
	struct timespec s2 = { 2, 0 };
	pthread_t t;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_module_used((CUmodule)1);
	patch_sleep_ns = 15000000L; /* 30 ms a window in its two switches */
	start_launching(&t);
	cr_assert_eq(patch_switch_start(20000000, 1000000), 0);
	wait_for_windows(1);
	nanosleep(&s2, NULL);
	patch_switch_stop();
	stop_launching(t);
	/* every 20 ms, 2 s would hold 40; 600 ms apart or more, at most 5 */
	cr_expect_geq(windows_seen, 1);
	cr_expect_leq(windows_seen, 5, "%d windows in 2 s of 30 ms switches", windows_seen);
}

/* Modules loading on a thread of the program's, outside any gated call,
 * while a switch patches. */
static void *load_modules(void *arg)
{
	(void)arg;
	for (uintptr_t k = 4; k < 4 + 6; k++)
		patch_switch_module_loaded((CUmodule)k);
	return NULL;
}

Test(patch_switch, patch_calls_never_run_at_once)
{
	pthread_t t;
	char why[128];

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_sleep_ns = 5000000L;
	for (uintptr_t k = 1; k < 4; k++) {
		patch_switch_module_loaded((CUmodule)k);
		patch_switch_module_used((CUmodule)k);
	}
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "%s", why);
	cr_assert_eq(pthread_create(&t, NULL, load_modules, NULL), 0);
	cr_assert_eq(patch_switch_set_base(PATCH_ENTRY, why, sizeof why), 0, "%s", why);
	pthread_join(t, NULL);
	cr_expect_eq(patch_overlaps, 0, "the sanitizer's patch calls overlapped");
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "%s", why);
	cr_assert_eq(patch_switch_set_base(PATCH_ENTRY, why, sizeof why), 0, "%s", why);
	for (int k = 1; k < 4 + 6; k++)
		cr_expect_eq(mode_of[k], PATCH_ENTRY, "module %d", k);
}

Test(patch_switch, a_load_that_cannot_take_the_patch_calls_leaves_its_module_for_the_next_switch)
{
	struct patch_switch_stats st;
	char why[128];

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	cr_assert_eq(patch_switch_lock_patching(), 0);
	patch_switch_module_loaded((CUmodule)3);
	patch_switch_unlock_patching();
	cr_expect_eq(mode_of[3], 0, "given up after the wait, not hung");
	patch_switch_stats(&st);
	cr_expect_eq(st.load_timeouts, 1);
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "%s", why);
	cr_assert_eq(patch_switch_set_base(PATCH_ENTRY, why, sizeof why), 0, "%s", why);
	cr_expect_eq(mode_of[3], PATCH_ENTRY);
}

Test(patch_switch, a_module_loaded_outside_a_gated_call_is_counted)
{
	struct patch_switch_stats st;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_call_enter(PATCH_CALL_LOAD);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_call_exit();
	patch_switch_module_loaded((CUmodule)2);
	patch_switch_stats(&st);
	cr_expect_eq(st.modules, 2);
	cr_expect_eq(st.loaded_ungated, 1);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	cr_expect_eq(mode_of[2], PATCH_ENTRY);
}

Test(patch_switch, recording_off_unpatches_and_new_modules_stay_unpatched)
{
	char why[128];

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0);
	cr_expect_eq(mode_of[1], 0);
	cr_expect_not(patch_switch_recording());
	patch_switch_module_loaded((CUmodule)2);
	cr_expect_eq(mode_of[2], 0);
	cr_assert_eq(patch_switch_set_base(PATCH_ENTRY, why, sizeof why), 0);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	cr_expect_eq(mode_of[2], PATCH_ENTRY);
}

/* A dormant process (smtop launch) records nothing: a window would patch
 * exits into kernels whose launches no session takes. */
/* Module 1 launched from, then recording off, as `record --attach` leaves
 * a process. */
static void dormant_after_a_launch(void)
{
	char why[128];

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_module_used((CUmodule)1);
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0);
}

Test(patch_switch, no_window_is_asked_for_while_recording_is_off)
{
	char why[128];

	dormant_after_a_launch();
	cr_assert_eq(patch_switch_start(0, 0), 0);
	cr_expect_eq(patch_switch_window(1000000, why, sizeof why), -1);
	cr_expect_str_eq(why, "not recording");
	patch_switch_stop();
	cr_expect_eq(windows_seen, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Recording off ends an open window rather than wait for it: a window
 * that sees few launches may stay open ten times its length, and the
 * process's exit waits for the switch off. */
Test(patch_switch, recording_off_ends_an_open_window)
{
	char why[128];
	uint64_t t0;

	window_over_two_modules((const uintptr_t[]){ 1, 0 }, 2000000000ull);
	wait_for_mode(1, PATCH_EXACT);
	t0 = mono_ns();
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "%s", why);
	cr_expect_lt(mono_ns() - t0, 500000000ull, "the switch off waited %.2f s", (mono_ns() - t0) / 1e9);
	wait_for_windows(1);
	patch_switch_stop();
	cr_expect_eq(windows_seen, 1);
	cr_expect_eq(mode_of[1], 0, "off, not back to entry");
	cr_expect_eq(mode_of[2], 0);
}

Test(patch_switch, a_window_due_while_recording_is_off_does_not_run)
{
	struct timespec s13 = { 1, 300000000L };
	pthread_t t;

	dormant_after_a_launch();
	start_launching(&t);
	/* the first window falls due after a second, at a launch */
	cr_assert_eq(patch_switch_start(20000000, 1000000), 0);
	nanosleep(&s13, NULL);
	patch_switch_stop();
	stop_launching(t);
	cr_expect_eq(windows_seen, 0);
	cr_expect_eq(mode_of[1], 0, "its exits never patched");
	cr_expect_eq(exits_on, 0);
}

Test(patch_switch, an_unloaded_module_is_left_alone)
{
	char why[128];

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_module_loaded((CUmodule)2);
	patch_switch_module_unloading((CUmodule)1);
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0);
	cr_expect_eq(mode_of[1], PATCH_ENTRY, "gone: never touched again");
	cr_expect_eq(mode_of[2], 0);
}

static void *switch_on(void *arg)
{
	char why[128];

	*(int *)arg = patch_switch_set_base(PATCH_ENTRY, why, sizeof why);
	return NULL;
}

/* An unload that gave up waiting for a switch busy on its module (a
 * patch call that takes seconds): the driver frees the module, so no
 * later switch may call the sanitizer on it. */
Test(patch_switch, a_module_unloaded_during_a_long_patch_call_stays_gone)
{
	struct timespec ms100 = { 0, 100000000L };
	char why[128];
	pthread_t t;
	int rc = -1;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0);
	patch_sleep_ns = 2500000000L; /* past the unload's 2 s wait */
	cr_assert_eq(pthread_create(&t, NULL, switch_on, &rc), 0);
	nanosleep(&ms100, NULL);
	patch_switch_module_unloading((CUmodule)1);
	pthread_join(t, NULL);
	cr_assert_eq(rc, 0);
	patch_sleep_ns = 0;
	cr_assert_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0);
	cr_expect_eq(mode_of[1], PATCH_ENTRY, "the freed module was not unpatched");
}

/* A program that loads and unloads modules all its life (a JIT, a
 * plugin reloaded) outlives the table's size: freed slots serve again,
 * and the last module loaded is patched like the first. */
Test(patch_switch, unloaded_modules_free_their_slots_for_later_loads)
{
	struct patch_switch_stats st;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	for (int i = 0; i < 9000; i++) {
		CUmodule h = (CUmodule)(uintptr_t)(i % (MODS - 2) + 1);

		patch_switch_module_loaded(h);
		cr_assert_eq(mode_of[fake_index(h)], PATCH_ENTRY, "load %d patched", i);
		patch_switch_module_unloading(h);
		mode_of[fake_index(h)] = 0; /* the driver freed it, patches and all */
	}
	patch_switch_module_loaded((CUmodule)(MODS - 1));
	cr_expect_eq(mode_of[MODS - 1], PATCH_ENTRY);
	patch_switch_stats(&st);
	cr_expect_eq(st.failures, 0);
	cr_expect_eq(st.modules, 9001);
}

/* A program that loads a module, launches from it and unloads it, round
 * after round, 8 modules live (build/gpu/module_churn on the GPU). */
static void *churn_loop(void *arg)
{
	struct timespec gap = { 0, 500000L };
	uintptr_t round = 0;

	(void)arg;
	while (atomic_load(&launching)) {
		CUmodule h = (CUmodule)(uintptr_t)(round % (MODS - 2) + 1);
		CUmodule old = (CUmodule)(uintptr_t)((round + MODS - 2 - 8) % (MODS - 2) + 1);

		patch_switch_call_enter(PATCH_CALL_LOAD);
		patch_switch_module_loaded(h);
		patch_switch_call_exit();
		patch_switch_call_enter(PATCH_CALL_LAUNCH);
		patch_switch_module_used(h);
		patch_switch_call_exit();
		if (round >= 8) {
			patch_switch_module_unloading(old);
			mode_of[fake_index(old)] = 0;
		}
		round++;
		nanosleep(&gap, NULL);
	}
	return NULL;
}

Test(patch_switch, windows_keep_coming_while_modules_come_and_go)
{
	struct patch_switch_stats st;
	pthread_t t;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	atomic_store(&launching, 1);
	cr_assert_eq(pthread_create(&t, NULL, churn_loop, NULL), 0);
	cr_assert_eq(patch_switch_start(20000000, 1000000), 0);
	wait_for_windows(4);
	patch_switch_stop();
	stop_launching(t);
	patch_switch_stats(&st);
	cr_expect_geq(windows_seen, 4, "%d windows", windows_seen);
	cr_expect_eq(st.failures, 0);
	cr_expect_eq(st.given_up, 0);
}

Test(patch_switch, without_unpatch_nothing_switches_and_it_says_why)
{
	char why[128] = "";

	patch_switch_init(&fake_ops, PATCH_ENTRY, 0);
	patch_switch_module_loaded((CUmodule)1);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	cr_expect_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), -1);
	cr_expect(strstr(why, "sanitizerUnpatchModule"), "%s", why);
	cr_expect_eq(patch_switch_window(1000000, why, sizeof why), -1);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
}

Test(patch_switch, exact_from_the_start_tells_launches_first)
{
	patch_switch_init(&fake_ops, PATCH_EXACT, 1);
	cr_expect_eq(exits_on, 1);
	patch_switch_module_loaded((CUmodule)3);
	cr_expect_eq(mode_of[3], PATCH_EXACT);
	cr_expect_eq(patched_while_exits_off, 0);
}

static void *switch_off(void *arg)
{
	char why[128];

	*(int *)arg = patch_switch_set_base(PATCH_OFF, why, sizeof why);
	return NULL;
}

/* A switch off, made while a call of kind is inside the driver (a module
 * loading in it), waits until the call leaves. */
static void switch_waits_for_call(enum patch_call kind)
{
	struct timespec ms20 = { 0, 20000000L };
	pthread_t t;
	int rc = 99;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_call_enter(kind);
	patch_switch_module_loaded((CUmodule)2);
	cr_assert_eq(pthread_create(&t, NULL, switch_off, &rc), 0);
	nanosleep(&ms20, NULL);
	cr_expect_eq(mode_of[1], PATCH_ENTRY, "not rewritten while the call is inside");
	patch_switch_call_exit();
	pthread_join(t, NULL);
	cr_expect_eq(rc, 0);
	cr_expect_eq(mode_of[1], 0);
	cr_expect_eq(mode_of[2], 0);
}

Test(patch_switch, a_switch_waits_for_the_launch_call_inside_the_driver)
{
	switch_waits_for_call(PATCH_CALL_LAUNCH);
}

Test(patch_switch, a_switch_waits_for_the_load_call_inside_the_driver)
{
	switch_waits_for_call(PATCH_CALL_LOAD);
}

Test(patch_switch, a_launch_call_that_never_leaves_makes_the_switch_give_up)
{
	char why[128] = "";

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	patch_switch_call_enter(PATCH_CALL_LAUNCH);
	cr_expect_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), -1);
	cr_expect(strstr(why, "launch or load call"), "%s", why);
	cr_expect_eq(mode_of[1], PATCH_ENTRY);
	patch_switch_call_exit();
	cr_expect_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "the gate opened again");
}

static double cpu_seconds(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* A launch call inside the driver that waits for another thread's launch,
 * which the gate holds (a collective over two GPUs from two threads). */
static _Atomic int held_passed, held_stop;

static void *launch_waiting_for_another(void *arg)
{
	struct timespec ms = { 0, 1000000L };

	(void)arg;
	patch_switch_call_enter(PATCH_CALL_LAUNCH);
	while (!atomic_load(&held_passed))
		nanosleep(&ms, NULL);
	patch_switch_call_exit();
	return NULL;
}

static void *launch_after_a_while(void *arg)
{
	struct timespec ms = { 0, 1000000L }, ms700 = { 0, 700000000L };

	(void)arg;
	nanosleep(&ms700, NULL); /* the window's switch back has closed the gate */
	patch_switch_call_enter(PATCH_CALL_LAUNCH);
	atomic_store(&held_passed, 1);
	patch_switch_call_exit();
	while (!atomic_load(&held_stop))
		nanosleep(&ms, NULL);
	return NULL;
}

/* The switch back gives up after a second and must then let the held
 * launch through, not close the gate again at once. */
Test(patch_switch, a_switch_back_that_gives_up_lets_the_held_launch_through)
{
	pthread_t a, b;

	/* open 200 ms at most: it sees two launch calls */
	window_over_two_modules((const uintptr_t[]){ 1, 0 }, 20000000);
	wait_for_mode(1, PATCH_EXACT);
	cr_assert_eq(pthread_create(&a, NULL, launch_waiting_for_another, NULL), 0);
	cr_assert_eq(pthread_create(&b, NULL, launch_after_a_while, NULL), 0);
	wait_for_windows(1);
	pthread_join(a, NULL);
	atomic_store(&held_stop, 1);
	pthread_join(b, NULL);
	patch_switch_stop();
	cr_expect_eq(windows_seen, 1);
	cr_expect_eq(mode_of[1], PATCH_ENTRY, "back after one try given up");
	struct patch_switch_stats st;
	patch_switch_stats(&st);
	cr_expect_eq(st.given_up, 1, "%llu tries given up", (unsigned long long)st.given_up);
}

/* A kernel that waits for another launch (a collective over two GPUs
 * launched from one thread): the drain waits for it, and it for a launch
 * the gate holds. */
static _Atomic int kernel_released;

static void drain_until_released(void)
{
	while (!atomic_load(&kernel_released))
		nanosleep(&(struct timespec){ 0, 1000000L }, NULL);
}

static void *launch_the_awaited_kernel(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ 0, 50000000L }, NULL); /* the gate is closed by then */
	patch_switch_call_enter(PATCH_CALL_LAUNCH);
	atomic_store(&kernel_released, 1);
	patch_switch_call_exit();
	return NULL;
}

Test(patch_switch, a_drain_that_waits_for_a_held_launch_gives_the_switch_up)
{
	struct patch_switch_ops ops = fake_ops;
	struct patch_switch_stats st;
	char why[256];
	pthread_t t;
	uint64_t t0;

	ops.drain = drain_until_released;
	ops.drain_limit_ns = 300000000ull;
	patch_switch_init(&ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	cr_assert_eq(pthread_create(&t, NULL, launch_the_awaited_kernel, NULL), 0);
	t0 = mono_ns();
	cr_expect_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), -1);
	cr_expect_lt(mono_ns() - t0, 1000000000ull, "given up after %.2f s", (mono_ns() - t0) / 1e9);
	cr_expect(strstr(why, "did not drain"), "%s", why);
	pthread_join(t, NULL);
	cr_expect_eq(mode_of[1], PATCH_ENTRY, "untouched");
	/* the next switch waits for the drain given up, then drains anew */
	cr_expect_eq(patch_switch_set_base(PATCH_OFF, why, sizeof why), 0, "%s", why);
	cr_expect_eq(mode_of[1], 0);
	patch_switch_stats(&st);
	cr_expect_eq(st.given_up, 1);
}

Test(patch_switch, without_a_period_the_window_thread_sleeps_until_asked)
{
	struct timespec ms300 = { 0, 300000000L };
	char why[128];
	double before;

	patch_switch_init(&fake_ops, PATCH_ENTRY, 1);
	patch_switch_module_loaded((CUmodule)1);
	cr_assert_eq(patch_switch_start(0, 0), 0);
	before = cpu_seconds();
	nanosleep(&ms300, NULL);
	cr_expect_lt(cpu_seconds() - before, 0.1, "the idle thread spent %.3f s of CPU in 0.3 s",
		     cpu_seconds() - before);
	cr_assert_eq(patch_switch_window(1000000, why, sizeof why), 0, "%s", why);
	wait_for_windows(1);
	patch_switch_stop();
	cr_expect_eq(windows_seen, 1, "an order still wakes it");
}
