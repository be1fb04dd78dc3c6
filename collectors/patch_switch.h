/* The Compute Sanitizer's patches switched at run time: every module the
 * process loads is patched in the current mode (nothing, block entry, or
 * entry and exit), and a switch re-patches them all.  An exact window is
 * a switch to entry and exit and, some milliseconds later, back.
 *
 * The sanitizer's patch and unpatch calls return only once the GPU has
 * drained, and must not run from two threads at once, on any modules.  A
 * kernel launched while its module is being rewritten runs half-patched
 * code (an illegal instruction, seen on the H200).  So switches run on the
 * collector's own threads, one at a time, holding no lock a CUDA or
 * sanitizer callback takes, behind a gate: launch and load calls entering
 * meanwhile wait at their API-enter callback, before the driver does
 * anything, and a switch starts only once no such call is inside the
 * driver.  A load call patches its modules inside the driver, holding its
 * locks: a switch beside it could wait for them while the loading thread
 * waits for the sanitizer (docs/collector.md).
 * A module loaded by no gated call is patched by its loading thread in the
 * mode it finds, and the switch goes over it again if that mode is
 * stale. */
#ifndef SMTOP_COLLECTORS_PATCH_SWITCH_H
#define SMTOP_COLLECTORS_PATCH_SWITCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#pragma GCC visibility push(hidden)

enum patch_mode { PATCH_OFF, PATCH_ENTRY, PATCH_EXACT };

struct patch_switch_ops {
	/* Waits until the GPU has run what was launched; may be NULL.  It
	 * runs on a thread of its own, waited for drain_limit_ns (0: five
	 * seconds): a kernel that waits for a launch the gate holds (a
	 * collective over two GPUs) never ends, and the switch is given up. */
	void (*drain)(void);
	uint64_t drain_limit_ns;
	/* Patches mod, unpatched now, in mode (not PATCH_OFF); 0 or -1. */
	int (*patch)(CUmodule mod, enum patch_mode mode);
	/* Removes mod's patches; 0 or -1. */
	int (*unpatch)(CUmodule mod);
	/* Before the exits are patched (1) and once they are all removed (0). */
	void (*exits)(int on);
	/* An exact window ran from start to end (host CLOCK_REALTIME ns). */
	void (*window)(uint64_t start, uint64_t end);
};

/* Before the first module loads; can_unpatch 0: the sanitizer has no
 * unpatch call, and the mode never changes. */
void patch_switch_init(const struct patch_switch_ops *ops, enum patch_mode mode, int can_unpatch);

/* From the module callbacks. */
void patch_switch_module_loaded(CUmodule mod);

/* The sanitizer's patch calls taken by a loading thread (the switch and
 * every other loading thread wait): 0, or -1 when they stayed taken for
 * two seconds and the module is left unpatched (its loading call may hold
 * what the holder waits for).  Unlock after the calls. */
int patch_switch_lock_patching(void);
void patch_switch_unlock_patching(void);
void patch_switch_module_unloading(CUmodule mod);

/* A function of mod is launched (at its first launch, from the launch
 * callback): a window patches the exits of the modules launched from
 * alone, so that its switches go over tens of modules, not the thousands
 * that eager loading loads.  A module not known here (NULL, or not
 * loaded through the module callback) makes windows patch every one. */
void patch_switch_module_used(CUmodule mod);

/* Whether modules are being patched now (not PATCH_OFF): launches of a
 * process whose recording is off carry no entries. */
int patch_switch_recording(void);

/* A launch call (kernel or graph) or a call that loads code (a module, a
 * library, a function) enters, from its API-enter callback: waits while a
 * switch is on; and leaves, from its API-exit callback.  Launches also
 * tell the window thread that the program is at work. */
enum patch_call { PATCH_CALL_LAUNCH, PATCH_CALL_LOAD };
void patch_switch_call_enter(enum patch_call kind);
void patch_switch_call_exit(void);

/* The mode between windows: PATCH_OFF to stop recording blocks, PATCH_ENTRY
 * to record them again.  From the collector's own threads only. */
int patch_switch_set_base(enum patch_mode mode, char *reason, size_t len);

/* An exact window of ns as soon as the running one (if any) ends; refused
 * while recording is off, and one asked for or due that finds it off when
 * its turn comes does not run. */
int patch_switch_window(uint64_t ns, char *reason, size_t len);

/* A window of for_ns every every_ns, the first one every_ns / 5 (at least
 * a second) from now (the kernels' block durations are learned early);
 * starts the thread that runs windows.  A window that falls due opens at
 * the program's next launch: one opened while it launches nothing would
 * measure nothing, and one that saw few launches in for_ns stays open
 * longer (PATCH_WINDOW_MIN_LAUNCHES).  every_ns 0: windows only on
 * request, which open at once. */
int patch_switch_start(uint64_t every_ns, uint64_t for_ns);

/* The process is exiting: ends the thread, and with it a window (left
 * open, its exits patched), after a switch being made; no module is patched
 * or unpatched after it returns. */
void patch_switch_stop(void);

/* What the switches cost, for the session's meta and the debug log. */
struct patch_switch_stats {
	uint64_t switches, windows, modules, failures;
	uint64_t given_up;              /* switches not made: a gated call stayed inside */
	uint64_t loaded_ungated;        /* modules loaded by no gated call */
	uint64_t load_timeouts;         /* modules left unpatched: the patch calls stayed taken */
	uint64_t used;                  /* modules launched from */
	int used_unknown;               /* a launch from a module not listed */
	uint64_t switch_ns_total, switch_ns_max;
	uint64_t window_ns_total;
};
void patch_switch_stats(struct patch_switch_stats *out);

#pragma GCC visibility pop

#endif
