/* The Compute Sanitizer backend: every thread block of every kernel.  The
 * sanitizer patches each module as it loads with collectors/sanitizer_patch.cu,
 * whose entry and exit patches write the per-SM lanes of the block tracer
 * (collectors/blocks.c); each launch hands the patches its context's ring as
 * their userdata.
 *
 * CUPTI cannot run beside it (docs/collector.md).  So the kernel records
 * come from the launch callbacks and the blocks (collectors/launches.c): start and end from the first and last block on
 * %globaltimer, submission from the host's clock at the launch.  Streams'
 * priorities and green contexts, and the devices, are asked of the driver
 * by a host thread, never inside a callback, where only the sanitizer's own
 * calls are safe.
 *
 * libsanitizer-public.so ships with the CUDA Toolkit, not the driver: it is
 * reached with dlopen at the path `smtop record` found (SMTOP_SANITIZER_LIB),
 * so a process without it still runs, untraced, after one line. */
#include "collectors/sanitizer.h"

#ifdef SMTOP_HAVE_SANITIZER

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/backend.h"
#include "collectors/blocks.h"
#include "collectors/entries.h"
#include "collectors/graphs.h"
#include "collectors/launch_ctx.h"
#include "collectors/launch_shards.h"
#include "collectors/launches.h"
#include "collectors/log.h"
#include "collectors/marked_funcs.h"
#include "collectors/patch_switch.h"
#include "collectors/ptrset.h"
#include "collectors/sanitizer_convert.h"
#include "collectors/sanitizer_state.h"
#include "collectors/writer_thread.h"
#include "src/core/smtop_trace_abi.h"
#include "src/core/clock.h"
#include "src/core/threads.h"

#define SZ_ENTER_PATCH "smtop_sz_block_enter"
#define SZ_EXIT_PATCH "smtop_sz_block_exit"
#define SZ_ENTRY_PATCH "smtop_sz_entry" /* --sm entry */
#define SZ_ENTRY_WARP_PATCH "smtop_sz_entry_warp" /* the same, SMTOP_ENTRY_PER=warp */
#define SZ_ENTRY_EXIT_PATCH "smtop_sz_entry_exit" /* its exact windows, --sm exact */
#define SZ_ENTRY_EXIT_HOST_PATCH "smtop_sz_entry_exit_host" /* the same, arena in host memory */

static Sanitizer_SubscriberHandle sz_subscriber;
static _Atomic int sz_active;
struct ring *sz_ring;
uint32_t sz_pid;
static _Atomic uint64_t sz_modules_patched, sz_patch_failures, sz_launches;
/* Lazily loaded functions patched as their module is (CUDA 13), counted
 * for the debug log: they follow the module's mode. */
static _Atomic uint64_t sz_lazy_patched;
uint32_t sz_correlation; /* under sz_ids_lock */
_Thread_local int sz_tls_own;
/* What the driver launch call being made on this thread knows and its
 * launch callback does not: the dynamic shared memory (-1: no call). */
static _Thread_local struct sanitizer_launch_shape sz_tls_smem_shape;
static _Thread_local int64_t sz_tls_smem = -1;
static _Atomic uint64_t sz_launch_calls, sz_smem_taken;
/* The graph launch whose nodes this thread is launching, and its number. */
static _Thread_local const void *sz_tls_graph_exec;
static _Thread_local uint32_t sz_tls_graph_launch, sz_tls_graph_corr;
/* Inside a graph launch call on this thread: its stream and start. */
static _Thread_local int sz_tls_in_graph_launch;
static _Thread_local uint32_t sz_tls_graph_stream, sz_tls_graph_device;
static _Thread_local uint64_t sz_tls_graph_start;
static int sz_no_patches; /* SMTOP_PATCH=off: callbacks only, to measure them alone */
static int sz_entry_only; /* SMTOP_PATCH=entry: the exits are not patched */
int sz_entries;    /* --sm entry: per-launch entries, ends bounded (collectors/entries.c) */
/* Under --sm entry (unless SMTOP_ENTRY_MARKS=0), kernels built with the
 * block tracer header (src/core/smtop_trace.cuh) time their own blocks,
 * exact, and take no entries. */
static int sz_marks;
static _Thread_local int sz_tls_marked; /* this thread's launch call's kernel times its blocks */
static _Thread_local const void *sz_tls_call_ctx; /* the context its launch call named */
static struct launch_ctx_table sz_call_ctxs;
static _Atomic uint64_t sz_marked_launches;
/* Modules loaded whose image may hold the header's ring: none, and the
 * launch calls ask nothing (blocks_image_may_hold_ring). */
static _Atomic uint64_t sz_markable_modules;
static struct marked_modules sz_marked_modules; /* under sz_ids_lock */
int sz_exact;      /* --sm exact: the same with the exits patched throughout */
int sz_entry_warps; /* SMTOP_ENTRY_PER=warp: an entry for every warp */

/* Functions whose launches already carry their context's ring. */
static pthread_mutex_t sz_set_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptrset sz_set;
/* Executable graph nodes whose dependencies were asked, by node id, each
 * with its kernel's dynamic shared memory (under sz_set_lock). */
static struct ptrmap sz_graph_nodes;
#define SZ_SMEM_ASKING UINT32_MAX /* the node's first launch is asking the driver */
static _Atomic uint64_t sz_node_smem_asked;

/* Launches waiting for their blocks. */
struct launch_shards *sz_table;

static pthread_t sz_host_thread;
static int sz_host_started;

/* ---- callbacks ---------------------------------------------------------------- */

/* 1 when f was not given its ring yet (it is now taken as given). */
static int sz_set_add(const void *f)
{
	int added;

	pthread_mutex_lock(&sz_set_lock);
	added = ptrset_add(&sz_set, f);
	pthread_mutex_unlock(&sz_set_lock);
	return added;
}

/* Executable graphs by handle, numbered as they are first launched: a node
 * is named by its handle and its graph's number, since handles are reused
 * once a graph is destroyed (under sz_ids_lock). */
#define SZ_MAX_EXECS 256
static struct {
	const void *exec;
	uint32_t seq;
} sz_execs[SZ_MAX_EXECS];
static uint32_t sz_exec_count;

static uint32_t sz_exec_seq(const void *exec)
{
	size_t free_slot = SZ_MAX_EXECS;
	for (size_t i = 0; i < SZ_MAX_EXECS; i++) {
		if (sz_execs[i].exec == exec && sz_execs[i].seq)
			return sz_execs[i].seq;
		if (!sz_execs[i].seq && free_slot == SZ_MAX_EXECS)
			free_slot = i;
	}
	if (free_slot == SZ_MAX_EXECS) /* full: the slots go round, the oldest first */
		free_slot = sz_exec_count % SZ_MAX_EXECS;
	sz_execs[free_slot].exec = exec;
	sz_execs[free_slot].seq = ++sz_exec_count;
	return sz_exec_count;
}

static void sz_on_graph_exec_destroyed(const Sanitizer_GraphExecData *d)
{
	pthread_mutex_lock(&sz_ids_lock);
	for (size_t i = 0; d && i < SZ_MAX_EXECS; i++)
		if (sz_execs[i].exec == d->graphExec)
			sz_execs[i].seq = 0;
	pthread_mutex_unlock(&sz_ids_lock);
}

/* ud: the number of the executable graph the node is of. */
static uint64_t sz_graph_node_id(void *node, void *ud)
{
	return sanitizer_graph_node_id(*(const uint32_t *)ud, node);
}

/* A graph kernel node's dynamic shared memory, asked of the driver (0 when
 * it does not say). */
static uint32_t sz_kernel_node_smem(void *node)
{
	int64_t smem = graphs_kernel_node_smem(node);

	atomic_fetch_add_explicit(&sz_node_smem_asked, smem >= 0, memory_order_relaxed);
	return smem > 0 ? (uint32_t)smem : 0;
}

/* A graph node's launch.  At its first: its dependencies, in the executable
 * graph's own node handles (the driver clones the source graph's nodes, and
 * which of them a launch names differs: the source's for a graph built node
 * by node, the clone's for a captured one), and its dynamic shared memory,
 * which its launches make no launch call to read from; the driver's answer
 * is kept for the replays.  The node's parameters as the driver holds them:
 * a value changed in the executable graph since its first launch is not
 * seen.  id: the node's, as its records carry it.  Returns the node's
 * dynamic shared memory. */
static uint32_t sz_on_graph_node(const Sanitizer_GraphNodeLaunchData *g, uint64_t id, uint32_t exec_seq)
{
	const void *key = (const void *)(uintptr_t)id;
	uint32_t smem = SZ_SMEM_ASKING;
	int added;

	pthread_mutex_lock(&sz_set_lock);
	added = ptrmap_add(&sz_graph_nodes, key, &smem);
	pthread_mutex_unlock(&sz_set_lock);
	if (!added && smem != SZ_SMEM_ASKING)
		return smem;
	if (added)
		graphs_node_launched(g->node, sz_pid, sz_graph_node_id, &exec_seq, sz_push_records);
	smem = sz_kernel_node_smem(g->node);
	if (added) {
		pthread_mutex_lock(&sz_set_lock);
		ptrmap_put(&sz_graph_nodes, key, smem);
		pthread_mutex_unlock(&sz_set_lock);
	}
	return smem;
}

static void sz_set_clear(void)
{
	pthread_mutex_lock(&sz_set_lock);
	ptrset_clear(&sz_set);
	pthread_mutex_unlock(&sz_set_lock);
}

static void sz_on_context(const Sanitizer_ResourceContextData *d)
{
	SanitizerResult r = sz.add_patches_from_file(sz_patch_path, d->context);

	pthread_mutex_lock(&sz_ids_lock);
	sz_context_of(d->context, d->device);
	pthread_mutex_unlock(&sz_ids_lock);
	if (r != SANITIZER_SUCCESS) {
		atomic_fetch_add(&sz_patch_failures, 1);
		log_debug("block patches refused for a context: %s", sz_error(r));
	}
}

/* mod's block entries patched with enter, its exits with exit_patch
 * (NULL: none), then the module itself; counted and told on failure.  The
 * caller holds the sanitizer's patch calls (patch_switch_lock_patching). */
static int sz_patch_with(CUmodule mod, const char *enter, const char *exit_patch)
{
	SanitizerResult r = sz.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, mod, enter);

	if (r == SANITIZER_SUCCESS && exit_patch)
		r = sz.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_EXIT, mod, exit_patch);
	if (r == SANITIZER_SUCCESS)
		r = sz.patch_module(mod);
	if (r != SANITIZER_SUCCESS) {
		atomic_fetch_add(&sz_patch_failures, 1);
		log_debug("module %p left unpatched: %s", (void *)mod, sz_error(r));
		return -1;
	}
	atomic_fetch_add(&sz_modules_patched, 1);
	return 0;
}

/* --sm entry and exact: block entry, with the patch that writes the
 * launch's own entries, and in exact windows the exits (patch_switch.h). */
int sz_patch_as(CUmodule mod, enum patch_mode mode)
{
	const char *entry = sz_entry_warps ? SZ_ENTRY_WARP_PATCH : SZ_ENTRY_PATCH;
	const char *exits = entries_arena_in_host() ? SZ_ENTRY_EXIT_HOST_PATCH : SZ_ENTRY_EXIT_PATCH;

	return sz_patch_with(mod, entry, mode == PATCH_EXACT ? exits : NULL);
}

int sz_unpatch(CUmodule mod)
{
	SanitizerResult r = sz.unpatch_module(mod);

	if (r != SANITIZER_SUCCESS) {
		log_debug("module %p kept its patches: %s", (void *)mod, sz_error(r));
		return -1;
	}
	return 0;
}

static void sz_on_module(const Sanitizer_ResourceModuleData *d)
{
	CUmodule mod = d->module;

	if (sz_marks && blocks_image_may_hold_ring(d->pCubin, d->cubinSize)) {
		atomic_fetch_add(&sz_markable_modules, 1);
		pthread_mutex_lock(&sz_ids_lock);
		marked_modules_add(&sz_marked_modules, mod, d->pCubin, d->cubinSize);
		pthread_mutex_unlock(&sz_ids_lock);
	}
	if (sz_no_patches)
		return;
	if (sz_entries) {
		patch_switch_module_loaded(mod);
		return;
	}

	/* An exit patch that would return at once still costs its call in
	 * every thread (docs/performance.md): entry only patches no exit.
	 * Threads loading modules at once take turns. */
	if (patch_switch_lock_patching() != 0) {
		atomic_fetch_add(&sz_patch_failures, 1);
		log_debug("module %p left unpatched: the patch calls stayed taken", (void *)mod);
		return;
	}
	sz_patch_with(mod, SZ_ENTER_PATCH, sz_entry_only ? NULL : SZ_EXIT_PATCH);
	patch_switch_unlock_patching();
}

static void sz_on_stream(const Sanitizer_ResourceStreamData *d, int created)
{
	struct sz_context *c;
	struct stream_entry *s;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(d->context, 0);
	s = sz_stream_of(d->stream, c);
	if (s && !created)
		s->gone = 1; /* a later stream may reuse the handle */
	pthread_mutex_unlock(&sz_ids_lock);
}

/* The marks are on and some module loaded may hold the header's ring:
 * until then a launch asks nothing about them. */
static int sz_marks_may_apply(void)
{
	return sz_marks && atomic_load_explicit(&sz_markable_modules, memory_order_relaxed);
}

/* A later module's functions may take the handles of this one's: what
 * was kept by handle goes, and no question about them reaches the driver
 * once they are freed. */
static void sz_on_module_unloading(const Sanitizer_ResourceModuleData *d)
{
	sz_forget_module(d->module);
	if (sz_marks_may_apply()) {
		pthread_mutex_lock(&sz_ids_lock);
		marked_modules_forget(&sz_marked_modules, d->module);
		pthread_mutex_unlock(&sz_ids_lock);
	}
	if (sz_entries)
		patch_switch_module_unloading(d->module);
	else
		sz_set_clear();
	if (sz_marks_may_apply())
		blocks_on_module_unload(d->context);
}

static void sz_on_resource(Sanitizer_CallbackId cbid, const void *data)
{
	if (cbid == sz_ids->context_created)
		sz_on_context(data);
	else if (cbid == sz_ids->module_loaded)
		sz_on_module(data);
	else if (sz_ids->functions_lazy_patched && cbid == sz_ids->functions_lazy_patched)
		atomic_fetch_add(&sz_lazy_patched, 1);
	else if (cbid == sz_ids->module_unloading)
		sz_on_module_unloading(data);
	else if (cbid == sz_ids->stream_created)
		sz_on_stream(data, 1);
	else if (cbid == sz_ids->stream_destroying)
		sz_on_stream(data, 0);
	/* A context's end is drained at exit, not here: inside a callback the
	 * drain's driver calls could deadlock. */
}

/* No CUPTI to number launches: each gets its own, so the replays of a graph
 * (one grid id for all) stay apart, and the nodes of one graph launch share
 * theirs, as CUPTI's records do (the analysis reads a graph's edges within
 * a launch).  Under sz_ids_lock. */
static uint32_t sz_launch_correlation(const Sanitizer_GraphNodeLaunchData *g)
{
	if (g && sz_tls_graph_corr && g->graphExec == sz_tls_graph_exec &&
	    (sz_tls_in_graph_launch || g->launchId == sz_tls_graph_launch)) {
		sz_tls_graph_launch = g->launchId;
		return sz_tls_graph_corr;
	}
	uint32_t c = ++sz_correlation;
	if (g) {
		sz_tls_graph_exec = g->graphExec;
		sz_tls_graph_launch = g->launchId;
		sz_tls_graph_corr = c;
	}
	return c;
}

/* --sm entry: the launch's own stretch of entries, as its callback data.
 * Graph nodes run by the graph's edges, not their stream's order: no
 * stream bound for them. */
static void sz_launch_entries(const Sanitizer_LaunchData *ld, const struct launch_info *info)
{
	struct entries_launch_info e = {
		.ctx = ld->context,
		.context_id = info->context_id,
		.device_id = info->device_id,
		.stream_id = info->is_graph ? 0 : info->stream_id,
		.order_stream = info->stream_id,
		.correlation_id = info->correlation_id,
		.grid_id = ld->gridId,
		.blocks = (uint64_t)ld->gridDim_x * ld->gridDim_y * ld->gridDim_z,
		.threads = ld->blockDim_x * ld->blockDim_y * ld->blockDim_z,
		.launch = ld->hLaunch,
		.stream = ld->hStream,
		.function = ld->function,
		.kernel = info->function_key,
	};

	entries_on_launch(&e);
}

int sz_set_launch_data(void *launch, CUfunction f, void *stream, const void *data)
{
	SanitizerResult r = sz.set_launch_callback_data(launch, f, stream, data);

	if (r != SANITIZER_SUCCESS)
		log_debug("a launch carries no entries: %s", sz_error(r));
	return r == SANITIZER_SUCCESS ? 0 : -1;
}

/* The GPU clock of device at host_ns, at most: the host's clock plus the
 * least lag of a first block behind its launch (launches.h). */
uint64_t sz_gpu_clock_bound(uint32_t device, uint64_t host_ns)
{
	if (!sz_table || !launch_shards_bound_known(sz_table, device))
		return 0;
	return host_ns + (uint64_t)launch_shards_bound(sz_table, device);
}

/* Whether the launch's blocks come timed by the header's tracer, not by
 * entries: a plain launch as its call's entry found, or (a graph's kernel
 * node, a call that entered before recording was switched on) as its
 * module holds the ring, which some plain launch gave it; and the kernel
 * itself carries the marks (marks: what its module's cubin said), as a
 * module may hold kernels without them. */
static int sz_launch_marked(const Sanitizer_LaunchData *ld, const Sanitizer_GraphNodeLaunchData *g,
			    enum marked_answer marks)
{
	if (!sz_marks_may_apply() || marks == MARKED_NO)
		return 0;
	return (!g && sz_tls_marked) || blocks_module_traced(ld->context, ld->module);
}

/* The session says its ends are exact in marked kernels only once one ran:
 * a program without the header (PyTorch) reads as bounded throughout. */
static void sz_note_marked_launch(void)
{
	if (atomic_fetch_add_explicit(&sz_marked_launches, 1, memory_order_relaxed) == 0)
		writer_thread_set_meta("entry_marks", "on");
}

static void sz_stop_threads(void);
static _Atomic int sz_exit_hooked;
static pid_t sz_exit_pid;

static void sz_at_exit(void)
{
	if (getpid() == sz_exit_pid)
		sz_stop_threads();
}

/* The threads that call the sanitizer and the driver stop at exit before
 * the CUDA runtime's exit handlers free the context's modules: atexit
 * runs the last registered first, and the runtime registers its handlers
 * before its first launch.  A window still switching at the process's
 * atexit crashed the program in sanitizerUnpatchModule (docs/collector.md). */
static void sz_hook_exit(void)
{
	if (atomic_load_explicit(&sz_exit_hooked, memory_order_relaxed) || atomic_exchange(&sz_exit_hooked, 1))
		return;
	sz_exit_pid = getpid();
	atexit(sz_at_exit);
}

/* Registers the launch for its kernel record, and gives f's launches from
 * now on the ring, graph replays included (they fire no launch callback of
 * their own, but their kernel nodes do: g, NULL for a plain launch). */
static void sz_on_launch(const Sanitizer_LaunchData *ld, const Sanitizer_GraphNodeLaunchData *g)
{
	struct launch_info info;
	struct stream_user user;
	struct sz_context *c;
	struct stream_entry *s;
	uint64_t ring;
	SanitizerResult r;
	uint32_t exec_seq;
	enum marked_answer marks;
	int first;

	atomic_fetch_add_explicit(&sz_launches, 1, memory_order_relaxed);
	sz_hook_exit();
	if (sz_marks && !g)
		launch_ctx_note(&sz_call_ctxs, sz_tls_call_ctx, ld->context);
	if (sz_entries && !patch_switch_recording())
		return; /* recording is off: its blocks run unpatched */
	user = sz_thread_user();
	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(ld->context, ld->device);
	s = sz_stream_in(ld->stream, c, &user);
	sanitizer_launch_info(ld, c ? c->id : 0, s ? s->id : 0, clock_real_ns(), g != NULL, &info);
	/* A new stream's first launches come before the host thread asked
	 * the driver which context it is of (a green one's launches name the
	 * primary): the kernel record goes out only once its grid is
	 * complete, and a complete one waits for the answer (launches_hold),
	 * at most until it is stale.  Its blocks keep finding it by the
	 * launch's own context, whose ring they come through. */
	info.record_context_id = s ? s->record_ctx : 0;
	info.stream_pending = s && !s->answered;
	info.correlation_id = sz_launch_correlation(g);
	exec_seq = g ? sz_exec_seq(g->graphExec) : 0;
	info.function = ld->function;
	first = sz_func_attributes(ld->function, ld->module, &info);
	marks = sz_marks_may_apply() ? marked_modules_kernel(&sz_marked_modules, ld->module, ld->functionName)
				     : MARKED_UNKNOWN;
	pthread_mutex_unlock(&sz_ids_lock);
	if (first && sz_entries)
		patch_switch_module_used(ld->module);
	if (g) {
		info.graph_node_id = sanitizer_graph_node_id(exec_seq, g->node);
		info.dynamic_smem = sz_on_graph_node(g, info.graph_node_id, exec_seq);
	} else if (sz_tls_smem >= 0 && sanitizer_launch_has_shape(ld, &sz_tls_smem_shape)) {
		info.dynamic_smem = (uint32_t)sz_tls_smem;
		atomic_fetch_add_explicit(&sz_smem_taken, 1, memory_order_relaxed);
	}
	sz_add_launch(&info);
	if (sz_entries) {
		if (sz_launch_marked(ld, g, marks))
			sz_note_marked_launch();
		else
			sz_launch_entries(ld, &info);
		return;
	}
	if (!ld->function || !sz_set_add(ld->function))
		return;
	ring = blocks_context_ring(ld->context, info.context_id, info.device_id, ld->hStream);
	if (!ring)
		return;
	r = sz.set_callback_data(ld->function, (const void *)(uintptr_t)ring);
	if (r != SANITIZER_SUCCESS)
		log_debug("launches of %s carry no ring: %s", ld->functionName ? ld->functionName : "?",
			  sz_error(r));
}

/* A graph launch call begins: its nodes' launches take its number, and at
 * its end it is recorded as an API call with its stream, whose priority
 * its kernels run at (they run on streams of the graph's own). */
static void sz_on_graph_launch_begin(const Sanitizer_GraphLaunchData *d)
{
	struct stream_user user = sz_thread_user();
	struct sz_context *c;
	struct stream_entry *s;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(d->context, 0);
	s = sz_stream_in(d->stream, c, &user);
	sz_tls_graph_corr = ++sz_correlation;
	sz_tls_graph_stream = s ? s->id : 0;
	sz_tls_graph_device = c ? (uint32_t)c->device : 0;
	pthread_mutex_unlock(&sz_ids_lock);
	sz_tls_graph_exec = d->graphExec;
	sz_tls_graph_launch = UINT32_MAX;
	sz_tls_in_graph_launch = !d->isGraphUpload;
	sz_tls_graph_start = clock_real_ns();
}

static void sz_on_graph_launch_end(const Sanitizer_GraphLaunchData *d)
{
	struct smtop_record rec;

	if (!sz_tls_in_graph_launch || d->graphExec != sz_tls_graph_exec)
		return;
	sz_tls_in_graph_launch = 0;
	sanitizer_graph_launch_call(sz_pid, (uint32_t)syscall(SYS_gettid), sz_tls_graph_corr,
				    sz_tls_graph_start, clock_real_ns(), sz_tls_graph_stream, &rec);
	if (rec.u.api.name)
		sz_send_host_timed(&rec, NULL, sz_tls_graph_device);
}

/* A driver launch call: its dynamic shared memory, for the launch
 * callback inside it. */
void sz_on_launch_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d)
{
	if (d->callbackSite == SANITIZER_API_ENTER) {
		if (sz_entries)
			patch_switch_call_enter(PATCH_CALL_LAUNCH);
		/* at the call's entry the driver holds nothing a driver call of
		 * ours could wait for, as at CUPTI's (--sm marked); a context is
		 * handed a ring once its launches showed they are its own
		 * (collectors/launch_ctx.h: a green context's are not) */
		sz_tls_call_ctx = d->context;
		if (sz_marks_may_apply() && patch_switch_recording() &&
		    launch_ctx_kind(&sz_call_ctxs, d->context) == LAUNCH_CTX_SAME)
			sz_tls_marked = blocks_on_launch(d->context, sanitizer_launch_function(cbid, d->functionParams));
		sz_tls_smem = sanitizer_launch_dynamic_smem(cbid, d->functionParams, &sz_tls_smem_shape);
		atomic_fetch_add_explicit(&sz_launch_calls, 1, memory_order_relaxed);
	} else {
		sz_tls_smem = -1;
		sz_tls_marked = 0;
		sz_tls_call_ctx = NULL;
		if (sz_entries)
			patch_switch_call_exit();
	}
}

static void SANITIZERAPI sz_callback(void *userdata, Sanitizer_CallbackDomain domain,
				     Sanitizer_CallbackId cbid, const void *data)
{
	(void)userdata;
	if (!atomic_load_explicit(&sz_active, memory_order_relaxed) || sz_tls_own || blocks_in_own_code())
		return;
	if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
		sz_on_resource(cbid, data);
	} else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == sz_ids->launch_begin) {
		sz_on_launch(data, NULL);
	} else if (domain == SANITIZER_CB_DOMAIN_GRAPHS && cbid == sz_ids->graph_node_launch_begin) {
		const Sanitizer_LaunchData *ld = sanitizer_graph_node_launch(data);

		if (ld)
			sz_on_launch(ld, data);
	} else if (domain == SANITIZER_CB_DOMAIN_GRAPHS && cbid == sz_ids->graph_launch_begin) {
		sz_on_graph_launch_begin(data);
	} else if (domain == SANITIZER_CB_DOMAIN_GRAPHS && cbid == sz_ids->graph_launch_end) {
		sz_on_graph_launch_end(data);
	} else if (domain == SANITIZER_CB_DOMAIN_GRAPHS && sz_ids->graphexec_destroying &&
		   cbid == sz_ids->graphexec_destroying) {
		sz_on_graph_exec_destroyed(data);
	} else if (domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
		sz_on_driver_call(cbid, data);
	} else if (domain == SANITIZER_CB_DOMAIN_SYNCHRONIZE && cbid == sz_ids->stream_synchronized) {
		sz_on_stream_synchronized(data);
	} else if (domain == SANITIZER_CB_DOMAIN_EVENTS &&
		   (cbid == sz_ids->event_record || cbid == sz_ids->event_stream_wait)) {
		sz_on_event(cbid, data);
	} else if ((domain == SANITIZER_CB_DOMAIN_MEMCPY && cbid == sz_ids->memcpy_starting) ||
		   (domain == SANITIZER_CB_DOMAIN_MEMSET && cbid == sz_ids->memset_starting)) {
		sz_on_copy(domain, data);
	}
}

/* ---- start and stop ------------------------------------------------------------- */

/* SMTOP_PATCH=entry records blocks at entry only (no end); SMTOP_PATCH=gap
 * measures how long after thread 0 the last warp exits; SMTOP_PATCH=off
 * patches nothing, to measure the callbacks alone (docs/collector.md). */
static uint32_t sz_patch_flags(void)
{
	const char *v = getenv("SMTOP_PATCH");

	sz_entry_only = v && !strcmp(v, "entry");
	if (sz_entry_only)
		return SMTOP_PATCH_ENTRY_ONLY;
	if (v && !strcmp(v, "gap"))
		return SMTOP_PATCH_T0_GAP;
	sz_no_patches = v && !strcmp(v, "off");
	return 0;
}

/* One callback of a domain; without it the session lacks what it gives. */
static void sz_enable_callback(int on, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid)
{
	SanitizerResult r = sz.enable_callback((uint32_t)on, sz_subscriber, domain, cbid);

	if (r != SANITIZER_SUCCESS)
		log_debug("callback %u of domain %d not switched %s: %s", (unsigned)cbid, (int)domain,
			  on ? "on" : "off", sz_error(r));
}

/* SMTOP_CALLBACKS=handled: only the callback ids sz_callback handles,
 * not whole domains (a launch fires three launch callbacks, of which smtop
 * reads the first), to measure what the others cost the workload. */
static int sz_handled_only;

/* A domain's callbacks on or off: all of them, or the handled ones. */
static SanitizerResult sz_enable_domain(int on, Sanitizer_CallbackDomain d)
{
	Sanitizer_CallbackId ids[SANITIZER_HANDLED_MAX];
	SanitizerResult r = SANITIZER_SUCCESS;
	size_t n;

	if (!sz_handled_only)
		return sz.enable_domain((uint32_t)on, sz_subscriber, d);
	n = sanitizer_handled_ids(sz_ids, d, ids);
	for (size_t i = 0; i < n && r == SANITIZER_SUCCESS; i++)
		r = sz.enable_callback((uint32_t)on, sz_subscriber, d, ids[i]);
	return r;
}

/* The synchronize calls' callbacks and the stream synchronizations':
 * without them no synchronization is recorded. */
static void sz_sync_callbacks(int on)
{
	for (size_t i = 0; sz_ids->sync_calls[i]; i++)
		sz_enable_callback(on, SANITIZER_CB_DOMAIN_DRIVER_API, sz_ids->sync_calls[i]);
	sz_enable_callback(on, SANITIZER_CB_DOMAIN_SYNCHRONIZE, sz_ids->stream_synchronized);
}

/* The callbacks that only feed a recording: launches, graphs, events,
 * copies, sets and synchronizations.  Module, context and stream
 * callbacks stay on (the patches and the records of a later recording need
 * them), and so do the launch calls' (the patch switch's gate counts the
 * calls inside the driver). */
static const Sanitizer_CallbackDomain sz_recording_domains[] = {
	SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CB_DOMAIN_EVENTS,
	SANITIZER_CB_DOMAIN_MEMCPY, SANITIZER_CB_DOMAIN_MEMSET,
};

_Atomic uint64_t sz_callbacks_epoch;

void sz_recording_callbacks(int on)
{
	for (size_t i = 0; i < sizeof(sz_recording_domains) / sizeof(sz_recording_domains[0]); i++) {
		SanitizerResult r = sz_enable_domain(on, sz_recording_domains[i]);

		if (r != SANITIZER_SUCCESS)
			log_debug("callbacks of domain %d not switched %s: %s", (int)sz_recording_domains[i],
				  on ? "on" : "off", sz_error(r));
	}
	sz_sync_callbacks(on);
	if (on) { /* graphs made and destroyed meanwhile went unseen */
		atomic_fetch_add(&sz_callbacks_epoch, 1);
		pthread_mutex_lock(&sz_ids_lock);
		memset(sz_execs, 0, sizeof(sz_execs));
		pthread_mutex_unlock(&sz_ids_lock);
	}
}

/* The calls the patch switch's gate counts, on or off; with_modules: the
 * module, context and stream callbacks too (SMTOP_DORMANT_BARE). */
void sz_gate_callbacks(int on, int with_modules)
{
	for (size_t i = 0; sanitizer_launch_calls[i]; i++)
		sz_enable_callback(on, SANITIZER_CB_DOMAIN_DRIVER_API, sanitizer_launch_calls[i]);
	for (size_t i = 0; sz_entries && sz_ids->load_calls[i]; i++)
		sz_enable_callback(on, SANITIZER_CB_DOMAIN_DRIVER_API, sz_ids->load_calls[i]);
	if (with_modules && sz_enable_domain(on, SANITIZER_CB_DOMAIN_RESOURCE) != SANITIZER_SUCCESS)
		log_debug("resource callbacks not switched %s", on ? "on" : "off");
}

void sz_unsubscribe(void)
{
	SanitizerResult r = sz.unsubscribe(sz_subscriber);

	if (r != SANITIZER_SUCCESS)
		log_debug("the Compute Sanitizer refused to unsubscribe: %s", sz_error(r));
}

static int sz_subscribe(char *reason, size_t len)
{
	static const Sanitizer_CallbackDomain domains[] = {
		SANITIZER_CB_DOMAIN_RESOURCE,
		SANITIZER_CB_DOMAIN_LAUNCH,
		SANITIZER_CB_DOMAIN_GRAPHS,
	};
	static const Sanitizer_CallbackDomain optional[] = {
		SANITIZER_CB_DOMAIN_EVENTS,
		SANITIZER_CB_DOMAIN_MEMCPY,
		SANITIZER_CB_DOMAIN_MEMSET,
	};
	const char *handled = getenv("SMTOP_CALLBACKS");
	SanitizerResult r = sz.subscribe(&sz_subscriber, sz_callback, NULL);

	sz_handled_only = handled && !strcmp(handled, "handled");
	if (r != SANITIZER_SUCCESS) {
		snprintf(reason, len, "the Compute Sanitizer refused to subscribe: %s", sz_error(r));
		return -1;
	}
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
		r = sz_enable_domain(1, domains[i]);
		if (r != SANITIZER_SUCCESS) {
			snprintf(reason, len, "Compute Sanitizer callbacks refused: %s", sz_error(r));
			sz.unsubscribe(sz_subscriber);
			return -1;
		}
	}
	/* without these the blocks still come; waits behind what they hold
	 * back then read as blocking */
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		r = sz_enable_domain(1, optional[i]);
		if (r != SANITIZER_SUCCESS)
			log_debug("callbacks of domain %d refused: %s", (int)optional[i], sz_error(r));
	}
	/* the launch and synchronize calls alone, not the whole driver API
	 * (frameworks make millions of other calls): without them dynamic
	 * shared memory is N/A and no synchronization is recorded */
	sz_gate_callbacks(1, 0); /* the launch calls, and the calls that load code */
	sz_sync_callbacks(1);
	return 0;
}

/* How the session's times were obtained, for readers and smtop info. */
static void sz_note_session(void)
{
	writer_thread_set_meta("collector_backend", "sanitizer");
	writer_thread_set_meta("kernel_times", "blocks");
	if (sz_entries)
		writer_thread_set_meta("block_ends", sz_exact ? "exact" : "bound");
	writer_thread_set_meta("sm_mode", sz_exact ? "exact" : sz_entries ? "entry" : "all");
	writer_thread_set_meta("submit_times", "launch callback, host CLOCK_REALTIME + least first-block lag");
	/* Kernel and block times are one clock: no offset to measure. */
	writer_thread_set_meta("clock_ref_ns", "0");
	writer_thread_set_meta("clock_drift_ppb", "0");
	writer_thread_set_meta("clock_offset_ns", "0");
}

static int sz_start(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	/* The lanes reach the GPU through the sanitizer's memory calls alone.
	 * Every kernel's blocks come: a drain thread per two CPUs, as fewer
	 * lost blocks of a storm (docs/collector.md). */
	static struct blocks_host host = {
		.alloc = sz_mem_alloc,
		.alloc_host = sz_mem_alloc_host,
		.memset = sz_mem_set,
		.upload = sz_mem_upload,
		.download = sz_mem_download,
		.sync = sz_mem_sync,
		.stream_handle = sz_mem_stream_handle,
		.stream_id = sz_stream_id,
		.context_ids = sz_context_ids,
		.observer = sz_observe_blocks,
		.cpus_per_drain = 2,
	};

	sz_ring = ring;
	sz_pid = pid;
	if (sz_load(reason, len) != 0 || sz_find_patches(reason, len) != 0)
		return -1;
	if (!(sz_table = launch_shards_create(pid, sz_fill_attributes, sz_push))) {
		snprintf(reason, len, "out of memory");
		return -1;
	}
	host.patch_flags = sz_patch_flags();
	blocks_set_host(&host);
	if (sz_entries)
		sz_start_switching(&host);
	if (sz_subscribe(reason, len) != 0)
		return -1;
	if (sz_entries && !sz_exact)
		sz_start_windows();
	atomic_store(&sz_host_stop, 0);
	if (thread_start(&sz_host_thread, "smtop-host", sz_host_main, NULL) == 0)
		sz_host_started = 1;
	else
		log_debug("no host thread: streams keep unknown priorities");
	sz_note_session();
	atomic_store(&sz_active, 1);
	log_debug("Compute Sanitizer backend on (CUDA %u numbering), patches %s", sz_ids->major, sz_patch_path);
	return 0;
}

/* Once: at the exit hook of the first launch, and at the collector's own. */
static void sz_stop_threads(void)
{
	static int stopped;

	if (stopped)
		return;
	stopped = 1;
	if (sz_entries)
		sz_stop_switching();
	if (sz_host_started) {
		atomic_store(&sz_host_stop, 1);
		pthread_join(sz_host_thread, NULL);
		sz_host_started = 0;
	}
	log_debug("Compute Sanitizer: %llu lazily loaded function sets patched, %llu unloads waited for a question"
		  " about their functions", (unsigned long long)atomic_load(&sz_lazy_patched),
		  (unsigned long long)atomic_load(&sz_forget_waits));
	log_debug("Compute Sanitizer: %llu modules patched, %llu refusals, %llu launches seen,"
		  " %llu launch calls, %llu with their dynamic shared memory, %llu graph kernel nodes' from the driver",
		  (unsigned long long)atomic_load(&sz_modules_patched),
		  (unsigned long long)atomic_load(&sz_patch_failures),
		  (unsigned long long)atomic_load(&sz_launches),
		  (unsigned long long)atomic_load(&sz_launch_calls),
		  (unsigned long long)atomic_load(&sz_smem_taken),
		  (unsigned long long)atomic_load(&sz_node_smem_asked));
	if (sz_marks)
		log_debug("Compute Sanitizer: %llu launches timed their own blocks (the block tracer header),"
			  " %llu modules may hold its ring",
			  (unsigned long long)atomic_load(&sz_marked_launches),
			  (unsigned long long)atomic_load(&sz_markable_modules));
}

/* At the end (after the final drain: blocks_shutdown runs before disable):
 * streams not yet described, and the kernels still short of blocks. */
static void sz_flush(int forced)
{
	if (!forced)
		return;
	sz_tls_own = 1;
	sz_describe_new();
	/* every stream is answered now; whatever still waits goes as it is */
	pthread_mutex_lock(&sz_ids_lock);
	sz_unpark(0, 0);
	pthread_mutex_unlock(&sz_ids_lock);
	sz_tls_own = 0;
}

static void sz_disable(void)
{
	atomic_store(&sz_active, 0);
}

/* After the final drain: the kernels still short of blocks go out with
 * what came of them. */
static void sz_finish(void)
{
	uint64_t orphans;

	if (!sz_table)
		return;
	if (sz_entries)
		entries_shutdown();
	sz_flush_stale(0);
	sz_release_held(1);
	orphans = launch_shards_orphans(sz_table);
	if (orphans)
		log_debug("%" PRIu64 " blocks of no launch seen", orphans);
}

/* --sm entry: the same backend with entry patches alone. */
static int sz_start_entries(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	const char *marks = getenv("SMTOP_ENTRY_MARKS");

	sz_entries = 1;
	sz_marks = !sz_exact && !(marks && !strcmp(marks, "0"));
	return sz_start(ring, pid, reason, len);
}

/* --sm exact: the same with the exits patched from the start. */
static int sz_start_exact(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	sz_exact = 1;
	return sz_start_entries(ring, pid, reason, len);
}

const struct collector_backend collector_backend_entries = {
	.name = "entry",
	.start = sz_start_entries,
	.flush = sz_flush,
	.stop_threads = sz_stop_threads,
	.finish = sz_finish,
	.disable = sz_disable,
	.push_host_timed = sz_push_host_timed,
	.set_recording = sz_set_recording,
	.exact_window = patch_switch_window,
};

const struct collector_backend collector_backend_exact = {
	.name = "exact",
	.start = sz_start_exact,
	.flush = sz_flush,
	.stop_threads = sz_stop_threads,
	.finish = sz_finish,
	.disable = sz_disable,
	.push_host_timed = sz_push_host_timed,
};

const struct collector_backend collector_backend_sanitizer = {
	.name = "all",
	.start = sz_start,
	.flush = sz_flush,
	.stop_threads = sz_stop_threads,
	.finish = sz_finish,
	.disable = sz_disable,
	.push_host_timed = sz_push_host_timed,
};

#else /* built without the Compute Sanitizer API headers */

#include <stdio.h>

#include "src/core/sm_modes.h"

/* smtop itself refuses --sm all and entry then; a collector told to use
 * them all the same says why and leaves the process untraced. */
static int sz_unavailable_as(const char *mode, char *reason, size_t len)
{
	snprintf(reason, len, "--sm %s: this collector was built without %s", mode,
		 sm_mode_named(mode)->setup->unbuilt);
	return -1;
}

static int sz_unavailable(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	(void)ring;
	(void)pid;
	return sz_unavailable_as("all", reason, len);
}

static int sz_entries_unavailable(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	(void)ring;
	(void)pid;
	return sz_unavailable_as("entry", reason, len);
}

static int sz_exact_unavailable(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	(void)ring;
	(void)pid;
	return sz_unavailable_as("exact", reason, len);
}

static void sz_no_flush(int forced)
{
	(void)forced;
}

static void sz_nothing(void)
{
}

const struct collector_backend collector_backend_sanitizer = {
	.name = "all",
	.start = sz_unavailable,
	.flush = sz_no_flush,
	.stop_threads = sz_nothing,
	.disable = sz_nothing,
};

const struct collector_backend collector_backend_entries = {
	.name = "entry",
	.start = sz_entries_unavailable,
	.flush = sz_no_flush,
	.stop_threads = sz_nothing,
	.disable = sz_nothing,
};

const struct collector_backend collector_backend_exact = {
	.name = "exact",
	.start = sz_exact_unavailable,
	.flush = sz_no_flush,
	.stop_threads = sz_nothing,
	.disable = sz_nothing,
};

#endif
