/* The collector's backends behind one small interface, one struct of
 * function pointers each (as nvtop keeps one per GPU vendor).  Both feed the
 * same ring, writer thread, per-SM lanes, drop counters and chunk format:
 *   - cupti ("marked"): CUPTI activity records and API callbacks; thread
 *     blocks only of kernels compiled with src/core/smtop_trace.cuh;
 *   - sanitizer ("all"): the Compute Sanitizer patches every loaded module
 *     at block entry and exit, so every block of every kernel is recorded
 *     (cuBLAS, cuDNN, Triton, CUDA graphs); kernel records come from its
 *     launch callbacks and the blocks (CUPTI cannot run beside it);
 *   - sanitizer entries ("entry"): the same with block entry alone patched,
 *     each launch's blocks written into a buffer of its own, their ends
 *     bounded by what entered after them (collectors/entries.c), exact
 *     in windows that patch the exits for a few milliseconds
 *     (collectors/patch_switch.c);
 *   - sanitizer entries with exits ("exact"): the same with the exits
 *     patched throughout, every block's end exact.
 * inject.c picks one by SMTOP_SM, which `smtop record --sm` sets ("stub",
 * a backend that traces nothing, serves the tests without a GPU). */
#ifndef SMTOP_COLLECTORS_BACKEND_H
#define SMTOP_COLLECTORS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct ring;
struct smtop_record;

struct collector_backend {
	const char *name;       /* the --sm value: "marked", "entry" or "all" */
	/* Starts tracing into ring; -1 with a one-line reason, leaving the
	 * process untraced. */
	int (*start)(struct ring *ring, uint32_t pid, char *reason, size_t len);
	/* Hands over what is buffered; forced also takes unfinished records. */
	void (*flush)(int forced);
	/* Stops the backend's periodic threads, before the final flush. */
	void (*stop_threads)(void);
	/* After the last blocks were drained, at the end; may be NULL. */
	void (*finish)(void);
	/* Makes every callback a no-op: in a forked child, or at the end.
	 * Takes no lock (a child may hold none of them). */
	void (*disable)(void);
	/* Pushes rec (an NVTX range), whose times are the host's
	 * CLOCK_REALTIME, on the session's timebase, the one its kernels are
	 * on.  Any thread; may be NULL (the same clock: pushed as it is). */
	void (*push_host_timed)(struct smtop_record *rec);
	/* Recording switched on (1) or off (0) in a running process: off, the
	 * GPU runs the workload's code alone.  From the collector's own
	 * threads, never from inside a CUDA or sanitizer callback (a switch
	 * may wait for the GPU to drain).  0, or -1 with a one-line reason.
	 * NULL: the backend records from start to end. */
	int (*set_recording)(int on, char *reason, size_t len);
	/* Block ends exact (entry and exit patched) for the next ns, then back
	 * to what was recorded before; the same threads and return as
	 * set_recording.  NULL: the backend has no windows. */
	int (*exact_window)(uint64_t ns, char *reason, size_t len);
};

extern const struct collector_backend collector_backend_cupti;
extern const struct collector_backend collector_backend_sanitizer;
extern const struct collector_backend collector_backend_entries;
extern const struct collector_backend collector_backend_exact;

/* The backend for an SMTOP_SM value; NULL or "" gives the default mode's
 * (sm_mode_default), an unknown name NULL. */
const struct collector_backend *collector_backend_named(const char *name);

#pragma GCC visibility pop

#endif
