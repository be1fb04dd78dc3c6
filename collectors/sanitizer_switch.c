/* --sm entry and exact: the Compute Sanitizer backend's glue to the patches
 * switched at run time (collectors/patch_switch.c) and to the per-launch
 * entries (collectors/entries.c); collectors/sanitizer.c starts them. */
#ifdef SMTOP_HAVE_SANITIZER

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/entries.h"
#include "collectors/log.h"
#include "collectors/patch_switch.h"
#include "collectors/sanitizer_state.h"
#include "collectors/writer_thread.h"
#include "src/core/fmt.h"

/* ---- patches switched at run time (--sm entry and exact) ------------------------ */

/* How long recording off waits for the entry drains to take what is left. */
#define SZ_SETTLE_NS 5000000000ull

/* A range of smtop's own on the session's NVTX row (text copied), from
 * this thread. */
static struct smtop_record sz_own_range(uint64_t start, uint64_t end, const char *text)
{
	struct smtop_record rec = { .kind = SMTOP_REC_NVTX };

	rec.u.nvtx.start = start;
	rec.u.nvtx.end = end;
	rec.u.nvtx.pid = sz_pid;
	rec.u.nvtx.tid = (uint32_t)syscall(SYS_gettid);
	rec.u.nvtx.text = strdup(text);
	rec.u.nvtx.domain = strdup(SMTOP_NVTX_DOMAIN);
	return rec;
}

/* An exact window as an NVTX range of smtop's own, on the session's
 * timeline. */
static void sz_window_range(uint64_t start, uint64_t end)
{
	struct smtop_record rec = sz_own_range(start, end, "exact block ends");

	sz_push_host_timed(&rec);
}

/* Launches the entry arena had no room for, as an NVTX range of smtop's
 * own where their kernels ran (on the GPU's clock, the session's): the
 * viewer's idle SMs there are work not recorded. */
static void sz_dropped_range(uint64_t from, uint64_t to, uint64_t launches, uint64_t blocks)
{
	char text[128], l[32], b[32];
	struct smtop_record rec;

	snprintf(text, sizeof text, SMTOP_DROPPED_RANGE_TEXT ": %s launch%s, %s blocks (no room)",
		 fmt_count_exact(l, sizeof l, launches), launches == 1 ? "" : "es",
		 fmt_count_exact(b, sizeof b, blocks));
	rec = sz_own_range(from, to > from ? to : from + 1, text);
	sz_push(&rec, 1);
}

/* Every context's work done, with launches held at the gate: no kernel
 * that was queued before the switch starts while its code is rewritten. */
static void sz_drain_gpu(void)
{
	CUcontext ctxs[SZ_MAX_CONTEXTS], popped;
	size_t n = 0;

	if (!sz_cu.ctx_push || !sz_cu.ctx_pop || !sz_cu.ctx_synchronize)
		return;
	pthread_mutex_lock(&sz_ids_lock);
	for (size_t i = 0; i < sz_n_contexts; i++)
		if (sz_contexts[i].ctx && !sz_contexts[i].green)
			ctxs[n++] = sz_contexts[i].ctx;
	pthread_mutex_unlock(&sz_ids_lock);
	sz_tls_own = 1;
	for (size_t i = 0; i < n; i++) {
		if (sz_cu.ctx_push(ctxs[i]) != CUDA_SUCCESS)
			continue;
		if (sz_cu.ctx_synchronize() != CUDA_SUCCESS)
			log_debug("a context did not drain before a patch switch");
		sz_cu.ctx_pop(&popped);
	}
	sz_tls_own = 0;
}

void sz_start_switching(const struct blocks_host *mem)
{
	static const struct patch_switch_ops ops = {
		.drain = sz_drain_gpu,
		.patch = sz_patch_as,
		.unpatch = sz_unpatch,
		.exits = entries_exits,
		.window = sz_window_range,
	};

	const char *per = getenv("SMTOP_ENTRY_PER");

	/* a warp's entry each, to weigh its cost and accuracy against a
	 * block's (docs/performance.md) */
	sz_entry_warps = per && !strcmp(per, "warp");
	static const struct entries_hooks hooks = {
		.set_data = sz_set_launch_data,
		.observer = sz_observe_entries,
		.clock = sz_gpu_clock_bound,
		.copy_stream = blocks_patch_copy_stream,
		.pack = blocks_pack,
		.dropped = sz_dropped_range,
	};

	entries_start(mem, &hooks, sz_entry_warps);
	patch_switch_init(&ops, sz_exact ? PATCH_EXACT : PATCH_ENTRY, sz.unpatch_module != NULL);
}

static uint64_t sz_env_ns(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 10) : 0;
}

/* SMTOP_EXACT_EVERY and SMTOP_EXACT_FOR (ns), which smtop record sets
 * from --exact-every and --exact-for; the thread runs for windows asked
 * on demand too. */
void sz_start_windows(void)
{
	uint64_t every = sz_env_ns("SMTOP_EXACT_EVERY"), span = sz_env_ns("SMTOP_EXACT_FOR");

	if (!sz.unpatch_module) {
		log_debug("no exact windows: the Compute Sanitizer has no sanitizerUnpatchModule");
		return;
	}
	if (patch_switch_start(span ? every : 0, span) != 0)
		log_debug("no exact windows: no thread for them");
}

void sz_stop_switching(void)
{
	struct patch_switch_stats st;
	char v[160];

	patch_switch_stop();
	patch_switch_stats(&st);
	snprintf(v, sizeof v, "%" PRIu64, st.windows);
	writer_thread_set_meta("exact_windows", v);
	if (st.switches) {
		snprintf(v, sizeof v, "n=%" PRIu64 " mean=%" PRIu64 " max=%" PRIu64, st.switches,
			 st.switch_ns_total / st.switches, st.switch_ns_max);
		writer_thread_set_meta("patch_switch_ns", v);
	}
	log_debug("patches: %" PRIu64 " modules (%" PRIu64 " loaded by no gated call, %" PRIu64
		  " loaded unpatched after waiting, %" PRIu64 " launched from%s), %" PRIu64 " switches (%" PRIu64
		  " ns mean, %" PRIu64 " ns at most, %" PRIu64 " given up), %" PRIu64 " exact windows of %" PRIu64
		  " ns in all, %" PRIu64 " failures",
		  st.modules, st.loaded_ungated, st.load_timeouts, st.used,
		  st.used_unknown ? ", and one not listed" : "", st.switches,
		  st.switches ? st.switch_ns_total / st.switches : 0, st.switch_ns_max, st.given_up, st.windows,
		  st.window_ns_total, st.failures);
}

/* While nothing is recorded, the callbacks that only feed a recording are
 * off too (SMTOP_DORMANT_QUIET=0 keeps them): a dormant CUDA graph replay
 * paid for them alone (docs/performance.md). */
static int sz_quiet_dormant(void)
{
	const char *v = getenv("SMTOP_DORMANT_QUIET");

	return !(v && !strcmp(v, "0"));
}

/* SMTOP_DORMANT_BARE, a measurement aid: 1 turns the calls the gate counts
 * off too while dormant, 2 the module callbacks as well, 3 unsubscribes
 * smtop from the sanitizer, to tell smtop's callbacks' cost from the
 * dormant sanitizer's own, and a subscriber's from a loaded sanitizer's.
 * Such a process never records: its gate no longer knows which calls are
 * inside the driver. */
static int sz_bare_dormant(void)
{
	const char *v = getenv("SMTOP_DORMANT_BARE");

	return v ? atoi(v) : 0;
}

/* Recording went off (the GPU drained, the patches removed): what the
 * entry drains and the kernel table still hold goes to the session that
 * ends, not to the next one or nowhere: the last block on each warp slot,
 * the launches of the drain's last period, and kernels short of them; and
 * the host-timed records (synchronize calls, NVTX ranges) still held for a
 * device whose first block has not run, mapped as at the end. */
static void sz_hand_over(void)
{
	if (entries_settle(SZ_SETTLE_NS) != 0)
		log_debug("recording off: an entry drain did not settle in %llu ms",
			  (unsigned long long)(SZ_SETTLE_NS / 1000000));
	if (sz_table)
		sz_flush_stale(0);
	sz_release_held(1);
}

/* --sm entry only: the exact backend has neither hook.  Off: the patches
 * go first, through the gate, then the callbacks; on: the callbacks come
 * back before the patches, so that no launch patched goes unseen. */
int sz_set_recording(int on, char *reason, size_t len)
{
	int r, bare = sz_bare_dormant();

	if (!on) {
		if ((r = patch_switch_set_base(PATCH_OFF, reason, len)) != 0)
			return r;
		sz_hand_over();
		if (sz_quiet_dormant() || bare)
			sz_recording_callbacks(0);
		if (bare)
			sz_gate_callbacks(0, bare > 1);
		if (bare > 2)
			sz_unsubscribe();
		return 0;
	}
	if (bare) {
		snprintf(reason, len, "SMTOP_DORMANT_BARE is set: this process measures the dormant cost and cannot record");
		return -1;
	}
	if (sz_quiet_dormant())
		sz_recording_callbacks(1);
	sz_describe_again();
	r = patch_switch_set_base(PATCH_ENTRY, reason, len);
	if (r != 0 && sz_quiet_dormant()) /* dormant still: as cheap as before */
		sz_recording_callbacks(0);
	return r;
}

#endif
