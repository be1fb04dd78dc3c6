/* The Compute Sanitizer backend: every thread block of every kernel.  The
 * sanitizer patches each module as it loads with collectors/sanitizer_patch.cu,
 * whose entry and exit patches write the per-SM lanes of the block tracer
 * (collectors/blocks.c); each launch hands the patches its context's ring as
 * their userdata.
 *
 * CUPTI cannot run beside it (measured on the H200, CUDA 13.0: subscribed
 * first, the sanitizer's subscription succeeds but no callback ever comes;
 * subscribed second, CUPTI refuses with MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED).
 * So the kernel records come from the launch callbacks and the blocks
 * (collectors/launches.c): start and end from the first and last block on
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

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <sanitizer.h>

#include "collectors/backend.h"
#include "collectors/blocks.h"
#include "collectors/convert.h"
#include "collectors/driver.h"
#include "collectors/entries.h"
#include "collectors/graphs.h"
#include "collectors/launch_shards.h"
#include "collectors/launches.h"
#include "collectors/log.h"
#include "collectors/patch_switch.h"
#include "collectors/ptrset.h"
#include "collectors/ring.h"
#include "collectors/sanitizer_convert.h"
#include "collectors/writer_thread.h"
#include "src/core/smtop_trace_abi.h"
#include "src/core/clock.h"
#include "src/core/sm_modes.h"

#define SZ_ENTER_PATCH "smtop_sz_block_enter"
#define SZ_EXIT_PATCH "smtop_sz_block_exit"
#define SZ_ENTRY_PATCH "smtop_sz_entry" /* --sm entry */
#define SZ_ENTRY_EXIT_PATCH "smtop_sz_entry_exit" /* its exact windows, --sm exact */
#define SZ_PATCH_FILE "smtop-patches.fatbin"
#define SZ_MAX_CONTEXTS 64
#define SZ_MAX_STREAMS 4096
#define SZ_MAX_FUNCS 8192               /* functions whose attributes are known; a power of two */
#define SZ_HOST_PERIOD_NS 20000000L
/* A kernel still short of blocks this long after its last one lost some
 * (the lanes counted them): its record goes out with what came. */
#define SZ_STALE_NS 2000000000ull
/* Under --sm entry a kernel's last blocks stay open until something bounds
 * their end (collectors/slot_bounds.h), and its lost blocks are counted at
 * its launch: only a kernel whose launch died waits this long. */
#define SZ_ENTRY_STALE_NS 30000000000ull

struct sz_api {
	__typeof__(sanitizerSubscribe) *subscribe;
	__typeof__(sanitizerUnsubscribe) *unsubscribe;
	__typeof__(sanitizerEnableDomain) *enable_domain;
	__typeof__(sanitizerEnableCallback) *enable_callback;
	__typeof__(sanitizerAddPatchesFromFile) *add_patches_from_file;
	__typeof__(sanitizerPatchInstructions) *patch_instructions;
	__typeof__(sanitizerPatchModule) *patch_module;
	__typeof__(sanitizerSetCallbackData) *set_callback_data;
	__typeof__(sanitizerSetLaunchCallbackData) *set_launch_callback_data;
	__typeof__(sanitizerGetResultString) *result_string;
	__typeof__(sanitizerAlloc) *alloc;
	__typeof__(sanitizerAllocHost) *alloc_host;
	__typeof__(sanitizerMemset) *memset;
	__typeof__(sanitizerMemcpyHostToDeviceAsync) *upload;
	__typeof__(sanitizerStreamSynchronize) *stream_synchronize;
	__typeof__(sanitizerMemcpyDeviceToHost) *download;
	__typeof__(sanitizerGetStreamHandle) *get_stream_handle;
	__typeof__(sanitizerUnpatchModule) *unpatch_module; /* NULL: the mode never switches */
};

struct sz_symbol {
	const char *name;
	size_t offset;
};

#define SZ_SYM(field, name) { name, offsetof(struct sz_api, field) }
static const struct sz_symbol sz_symbols[] = {
	SZ_SYM(subscribe, "sanitizerSubscribe"),
	SZ_SYM(unsubscribe, "sanitizerUnsubscribe"),
	SZ_SYM(enable_domain, "sanitizerEnableDomain"),
	SZ_SYM(enable_callback, "sanitizerEnableCallback"),
	SZ_SYM(add_patches_from_file, "sanitizerAddPatchesFromFile"),
	SZ_SYM(patch_instructions, "sanitizerPatchInstructions"),
	SZ_SYM(patch_module, "sanitizerPatchModule"),
	SZ_SYM(set_callback_data, "sanitizerSetCallbackData"),
	SZ_SYM(set_launch_callback_data, "sanitizerSetLaunchCallbackData"),
	SZ_SYM(result_string, "sanitizerGetResultString"),
	SZ_SYM(alloc, "sanitizerAlloc"),
	SZ_SYM(alloc_host, "sanitizerAllocHost"),
	SZ_SYM(memset, "sanitizerMemset"),
	SZ_SYM(upload, "sanitizerMemcpyHostToDeviceAsync"),
	SZ_SYM(stream_synchronize, "sanitizerStreamSynchronize"),
	SZ_SYM(download, "sanitizerMemcpyDeviceToHost"),
	SZ_SYM(get_stream_handle, "sanitizerGetStreamHandle"),
};

/* The driver calls of the host thread (collectors/driver.h). */
struct sz_cu {
	__typeof__(cuStreamGetPriority) *stream_get_priority;
	__typeof__(cuStreamGetFlags) *stream_get_flags;
	__typeof__(cuDeviceGetAttribute) *device_get_attribute;
	__typeof__(cuDeviceGetName) *device_get_name;
	__typeof__(cuDeviceTotalMem) *device_total_mem;
	__typeof__(cuFuncGetAttribute) *func_get_attribute;
	/* CUDA 12.5+ drivers: the green context of a stream, which its launch
	 * data do not name (they name the primary context), and that green
	 * context's id, unique over the program's life (handles are reused).
	 * NULL with an older driver: records name the launch's context, as
	 * before.  Spelled out: older cuda.h headers have no CUgreenCtx. */
	CUresult (*stream_get_ctx_v2)(CUstream stream, CUcontext *ctx, void **green);
	CUresult (*green_ctx_get_id)(void *green, unsigned long long *id);
	/* the drain before a patch switch (patch_switch.h) */
	__typeof__(cuCtxPushCurrent) *ctx_push;
	__typeof__(cuCtxPopCurrent) *ctx_pop;
	__typeof__(cuCtxSynchronize) *ctx_synchronize;
};

/* Every one may be missing: what it would describe stays N/A. */
#define SZ_CU_SYM(field, name) DRIVER_SYMBOL(struct sz_cu, field, name, 1)
static const struct driver_symbol sz_cu_symbols[] = {
	SZ_CU_SYM(stream_get_priority, "cuStreamGetPriority"),
	SZ_CU_SYM(stream_get_flags, "cuStreamGetFlags"),
	SZ_CU_SYM(device_get_attribute, "cuDeviceGetAttribute"),
	SZ_CU_SYM(device_get_name, "cuDeviceGetName"),
	SZ_CU_SYM(device_total_mem, "cuDeviceTotalMem_v2"),
	SZ_CU_SYM(func_get_attribute, "cuFuncGetAttribute"),
	SZ_CU_SYM(stream_get_ctx_v2, "cuStreamGetCtx_v2"),
	SZ_CU_SYM(green_ctx_get_id, "cuGreenCtxGetId"),
	SZ_CU_SYM(ctx_push, "cuCtxPushCurrent_v2"),
	SZ_CU_SYM(ctx_pop, "cuCtxPopCurrent_v2"),
	SZ_CU_SYM(ctx_synchronize, "cuCtxSynchronize"),
};

static struct sz_api sz;
static struct sz_cu sz_cu;
static const struct sanitizer_numbering *sz_ids;
static Sanitizer_SubscriberHandle sz_subscriber;
static _Atomic int sz_active;
static struct ring *sz_ring;
static uint32_t sz_pid;
static char sz_patch_path[PATH_MAX];
static _Atomic uint64_t sz_modules_patched, sz_patch_failures, sz_launches;
/* Lazily loaded functions patched as their module is (CUDA 13), counted
 * for the debug log: they follow the module's mode. */
static _Atomic uint64_t sz_lazy_patched;
static uint32_t sz_correlation; /* under sz_ids_lock */
static _Thread_local int sz_tls_own;
/* What the driver launch call being made on this thread knows and its
 * launch callback does not: the dynamic shared memory (-1: no call). */
static _Thread_local struct sanitizer_launch_shape sz_tls_smem_shape;
static _Thread_local int64_t sz_tls_smem = -1;
static _Atomic uint64_t sz_launch_calls, sz_smem_taken;
/* The synchronize call this thread is in: its start (0: none) and the
 * stream it waits for. */
static _Thread_local uint64_t sz_tls_sync_start;
static _Thread_local void *sz_tls_sync_stream;
static _Thread_local uint64_t sz_tls_sync_seq; /* --sm entry: launches before it */
/* The graph launch whose nodes this thread is launching, and its number. */
static _Thread_local const void *sz_tls_graph_exec;
static _Thread_local uint32_t sz_tls_graph_launch, sz_tls_graph_corr;
/* Inside a graph launch call on this thread: its stream and start. */
static _Thread_local int sz_tls_in_graph_launch;
static _Thread_local uint32_t sz_tls_graph_stream, sz_tls_graph_device;
static _Thread_local uint64_t sz_tls_graph_start;
static int sz_no_patches; /* SMTOP_PATCH=off: callbacks only, to measure them alone */
static int sz_entry_only; /* SMTOP_PATCH=entry: the exits are not patched */
static int sz_entries;    /* --sm entry: per-launch entries, ends bounded (collectors/entries.c) */
static int sz_exact;      /* --sm exact: the same with the exits patched throughout */

/* Functions whose launches already carry their context's ring. */
static pthread_mutex_t sz_set_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptrset sz_set;
/* Executable graph nodes whose dependencies were asked, by node id, each
 * with its kernel's dynamic shared memory (under sz_set_lock). */
static struct ptrmap sz_graph_nodes;
#define SZ_SMEM_ASKING UINT32_MAX /* the node's first launch is asking the driver */
static _Atomic uint64_t sz_node_smem_asked;

/* Contexts and streams, numbered by this backend (CUPTI's ids are out of
 * reach); the host thread asks the driver about each once.  A green
 * context is one of them, numbered when the host thread first finds a
 * stream of it (its launches name the primary context, ctx): green is its
 * handle, green_uid the driver's id of it (0: not known), parent the
 * number of the context its streams launch through. */
struct sz_context {
	CUcontext ctx;
	CUdevice device;
	uint32_t id;
	int described;
	void *green;
	unsigned long long green_uid;
	uint32_t parent;
};

/* record_ctx: the context the stream's records name when it is not the
 * one their callbacks name: its green context's number (0: none);
 * answered once the host thread asked the driver. */
struct sz_stream {
	CUstream stream;
	uint32_t id, context_id, device_id;
	uint32_t record_ctx;
	int described, answered, gone;
};

struct sz_func {
	CUfunction f;
	int asked;
	uint32_t registers, static_smem, local_mem;
};

static pthread_mutex_t sz_ids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sz_context sz_contexts[SZ_MAX_CONTEXTS];
static size_t sz_n_contexts;
static struct sz_stream sz_streams[SZ_MAX_STREAMS];
static size_t sz_n_streams;
static uint32_t sz_next_stream_id = 1;
static struct sz_func sz_funcs[SZ_MAX_FUNCS];
static size_t sz_n_funcs;
static uint32_t sz_devices_described; /* bit d: device d's record sent */

/* Copies, memsets and events of streams not asked about yet (under
 * sz_ids_lock). */
static struct sanitizer_parked sz_parked;

/* Launches waiting for their blocks. */
static struct launch_shards *sz_table;

static pthread_t sz_host_thread;
static int sz_host_started;
static _Atomic int sz_host_stop;

static const char *sz_error(SanitizerResult r)
{
	const char *s = NULL;

	if (!sz.result_string || sz.result_string(r, &s) != SANITIZER_SUCCESS || !s)
		return "unknown Compute Sanitizer error";
	return s;
}

/* ---- the library ---------------------------------------------------------- */

static int sz_load_symbols(void *lib, const char *path, char *reason, size_t len)
{
	for (size_t i = 0; i < sizeof(sz_symbols) / sizeof(sz_symbols[0]); i++) {
		void *p = dlsym(lib, sz_symbols[i].name);

		if (!p) {
			snprintf(reason, len, "%s lacks %s", path, sz_symbols[i].name);
			return -1;
		}
		memcpy((char *)&sz + sz_symbols[i].offset, &p, sizeof(p));
	}
	/* without it patches stay as they were first put: no windows */
	sz.unpatch_module = (__typeof__(sz.unpatch_module))dlsym(lib, "sanitizerUnpatchModule");
	return 0;
}

/* The CUDA major version of the toolkit holding the library at path
 * (TOOLKIT/compute-sanitizer/libsanitizer-public.so): its version.json,
 * else the folder's name. */
static unsigned sz_toolkit_major(const char *path)
{
	char json[PATH_MAX], text[4096];
	const char *slash = strrchr(path, '/');
	unsigned major = 0;
	int fd, n = slash ? (int)(slash - path) : 0;
	ssize_t got;

	snprintf(json, sizeof(json), "%.*s/../version.json", n, path);
	fd = open(json, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (got > 0) {
			text[got] = '\0';
			major = sanitizer_major_of_version_json(text);
		}
	}
	return major ? major : sanitizer_major_of_path(path);
}

/* The callback numbers moved between releases: the library's own CUDA
 * version picks them (the toolkit's version.json, else the library's path;
 * the library's version_env overrides). */
static int sz_pick_numbering(const struct sm_mode_library *need, const char *path, char *reason, size_t len)
{
	const char *v = need->version_env ? getenv(need->version_env) : NULL;
	unsigned major = v && *v ? (unsigned)strtoul(v, NULL, 10) : sz_toolkit_major(path);

	sz_ids = sanitizer_numbering_of(major);
	if (!sz_ids) {
		snprintf(reason, len, "the Compute Sanitizer of CUDA %u is not supported "
			 "(smtop knows the callbacks of CUDA 11.8 and 13)", major);
		return -1;
	}
	return 0;
}

/* The mode this backend was started as (src/core/sm_modes.c): its library
 * is where `smtop record` said. */
static const struct sm_mode *sz_mode(void)
{
	return sm_mode_named(sz_exact ? collector_backend_exact.name
			     : sz_entries ? collector_backend_entries.name : collector_backend_sanitizer.name);
}

static int sz_load(char *reason, size_t len)
{
	const struct sm_mode *mode = sz_mode();
	const struct sm_mode_library *need = mode->setup->library;
	const char *path = getenv(need->env);
	char why[256];
	void *lib;

	if (!path || !*path) {
		snprintf(reason, len, "--sm %s needs %s", mode->name, need->missing);
		return -1;
	}
	if (sz_pick_numbering(need, path, reason, len) != 0)
		return -1;
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(reason, len, "cannot load the Compute Sanitizer: %s", dlerror());
		return -1;
	}
	if (sz_load_symbols(lib, path, reason, len) != 0)
		return -1;
	if (driver_resolve(&sz_cu, sz_cu_symbols, sizeof(sz_cu_symbols) / sizeof(sz_cu_symbols[0]),
			   why, sizeof(why)) != 0)
		log_debug("streams, devices and functions stay undescribed: %s", why);
	return 0;
}

/* The patches lie beside libsmtop-inject.so (SMTOP_PATCHES overrides). */
static int sz_find_patches(char *reason, size_t len)
{
	const char *env = getenv("SMTOP_PATCHES");
	Dl_info info;
	const char *slash;

	if (env && *env)
		snprintf(sz_patch_path, sizeof(sz_patch_path), "%s", env);
	else if (dladdr((void *)sz_find_patches, &info) && info.dli_fname &&
		 (slash = strrchr(info.dli_fname, '/')))
		snprintf(sz_patch_path, sizeof(sz_patch_path), "%.*s/%s",
			 (int)(slash - info.dli_fname), info.dli_fname, SZ_PATCH_FILE);
	else
		snprintf(sz_patch_path, sizeof(sz_patch_path), "%s", SZ_PATCH_FILE);
	if (access(sz_patch_path, R_OK) != 0) {
		snprintf(reason, len, "the block patches %s are missing (make builds them)", sz_patch_path);
		return -1;
	}
	return 0;
}

/* ---- the sanitizer's memory calls, the lanes' host operations ------------------ */

static int sz_mem_alloc(CUcontext ctx, void **dev, size_t bytes)
{
	return sz.alloc(ctx, dev, bytes) == SANITIZER_SUCCESS ? 0 : -1;
}

static int sz_mem_alloc_host(CUcontext ctx, void **host, size_t bytes)
{
	return sz.alloc_host(ctx, host, bytes) == SANITIZER_SUCCESS ? 0 : -1;
}

static int sz_mem_set(void *dev, int value, size_t bytes, void *stream)
{
	return sz.memset(dev, value, bytes, stream) == SANITIZER_SUCCESS ? 0 : -1;
}

static int sz_mem_upload(void *dev, const void *host, size_t bytes, void *stream)
{
	return sz.upload(dev, (void *)host, bytes, stream) == SANITIZER_SUCCESS ? 0 : -1;
}

static int sz_mem_download(void *host, const void *dev, size_t bytes, void *stream)
{
	return sz.download(host, (void *)dev, bytes, stream) == SANITIZER_SUCCESS ? 0 : -1;
}

static void *sz_mem_stream_handle(CUcontext ctx, CUstream stream)
{
	Sanitizer_StreamHandle h = NULL;

	return sz.get_stream_handle(ctx, stream, &h) == SANITIZER_SUCCESS ? h : NULL;
}

static int sz_mem_sync(void *stream)
{
	return sz.stream_synchronize(stream) == SANITIZER_SUCCESS ? 0 : -1;
}

/* ---- ids -------------------------------------------------------------------- */

/* Callers hold sz_ids_lock. */
static struct sz_context *sz_context_of(CUcontext ctx, CUdevice device)
{
	for (size_t i = 0; i < sz_n_contexts; i++)
		if (sz_contexts[i].ctx == ctx && !sz_contexts[i].green)
			return &sz_contexts[i];
	if (sz_n_contexts == SZ_MAX_CONTEXTS)
		return NULL;
	sz_contexts[sz_n_contexts] = (struct sz_context){ .ctx = ctx, .device = device,
							  .id = (uint32_t)sz_n_contexts + 1 };
	return &sz_contexts[sz_n_contexts++];
}

static struct sz_stream *sz_stream_of(CUstream stream, const struct sz_context *c)
{
	struct sz_stream *slot = NULL;

	for (size_t i = sz_n_streams; i-- > 0;)
		if (sz_streams[i].stream == stream && !sz_streams[i].gone)
			return &sz_streams[i];
	if (sz_n_streams < SZ_MAX_STREAMS) {
		slot = &sz_streams[sz_n_streams++];
	} else {
		/* a program that makes and destroys streams all along: reuse the
		 * entry of one gone and already described (its context known,
		 * which held launches and parked records look up by id) */
		for (size_t i = 0; i < sz_n_streams && !slot; i++)
			if (sz_streams[i].gone && sz_streams[i].answered)
				slot = &sz_streams[i];
		if (!slot)
			return NULL;
	}
	*slot = (struct sz_stream){
		.stream = stream, .id = sz_next_stream_id++,
		.context_id = c ? c->id : 0, .device_id = c ? (uint32_t)c->device : 0,
	};
	return slot;
}

/* The stream numbered id, or NULL (its entry was reused).  Only for what
 * waits for a stream's context: the launches find theirs by handle. */
static struct sz_stream *sz_stream_by_id(uint32_t id)
{
	for (size_t i = sz_n_streams; i-- > 0;)
		if (sz_streams[i].id == id)
			return &sz_streams[i];
	return NULL;
}

static uint32_t sz_stream_id(void *stream)
{
	struct sz_stream *s;
	uint32_t id = 0;

	pthread_mutex_lock(&sz_ids_lock);
	s = sz_stream_of(stream, sz_n_contexts ? &sz_contexts[0] : NULL);
	if (s)
		id = s->id;
	pthread_mutex_unlock(&sz_ids_lock);
	return id;
}

/* The attributes a launch record carries, when the host thread knew them
 * (an open-addressing table by function: this runs at every launch). */
static void sz_func_attributes(CUfunction f, struct launch_info *info)
{
	uint64_t x = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(x >> 40) & (SZ_MAX_FUNCS - 1);

	for (size_t probes = 0; probes < SZ_MAX_FUNCS; probes++, i = (i + 1) & (SZ_MAX_FUNCS - 1)) {
		struct sz_func *e = &sz_funcs[i];

		if (e->f == f) {
			info->registers = e->registers;
			info->static_smem = e->static_smem;
			info->local_mem = e->local_mem;
			return;
		}
		if (!e->f) {
			if (sz_n_funcs * 2 < SZ_MAX_FUNCS) { /* past half full, new ones go without */
				*e = (struct sz_func){ .f = f };
				sz_n_funcs++;
			}
			return;
		}
	}
}

/* The context a launch's record names, once the host thread has asked
 * about its stream: a green context's for its streams.  A stream whose
 * entry is gone names the launch's.  Under sz_ids_lock. */
static void sz_launch_stream_context(struct launch_info *info)
{
	const struct sz_stream *s = sz_stream_by_id(info->stream_id);

	if (s && !s->answered)
		return;
	info->record_context_id = s ? s->record_ctx : 0;
	info->stream_pending = 0;
}

/* launches_set_fill's: a function's first launch, or its stream's, came
 * before the host thread had asked the driver about it; by the time its
 * blocks are in, it usually has (called under a shard's lock; sz_ids_lock is
 * never held while taking one). */
static void sz_fill_attributes(struct launch_info *info)
{
	pthread_mutex_lock(&sz_ids_lock);
	if (info->function && !info->registers)
		sz_func_attributes((CUfunction)(uintptr_t)info->function, info);
	if (info->stream_pending)
		sz_launch_stream_context(info);
	pthread_mutex_unlock(&sz_ids_lock);
}

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

static void sz_push_records(struct smtop_record *recs, size_t n);
static void sz_add_launch(const struct launch_info *info);

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

/* --sm entry and exact: block entry, with the patch that writes the
 * launch's own entries, and in exact windows the exits (patch_switch.h). */
static int sz_patch_as(CUmodule mod, enum patch_mode mode)
{
	SanitizerResult r;

	if ((r = sz.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, mod, SZ_ENTRY_PATCH)) != SANITIZER_SUCCESS ||
	    (mode == PATCH_EXACT &&
	     (r = sz.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_EXIT, mod, SZ_ENTRY_EXIT_PATCH)) !=
		     SANITIZER_SUCCESS) ||
	    (r = sz.patch_module(mod)) != SANITIZER_SUCCESS) {
		atomic_fetch_add(&sz_patch_failures, 1);
		log_debug("module %p left unpatched: %s", (void *)mod, sz_error(r));
		return -1;
	}
	atomic_fetch_add(&sz_modules_patched, 1);
	return 0;
}

static int sz_unpatch(CUmodule mod)
{
	SanitizerResult r = sz.unpatch_module(mod);

	if (r != SANITIZER_SUCCESS) {
		log_debug("module %p kept its patches: %s", (void *)mod, sz_error(r));
		return -1;
	}
	return 0;
}

static void sz_on_module(CUmodule mod)
{
	SanitizerResult r;

	if (sz_no_patches)
		return;
	if (sz_entries) {
		patch_switch_module_loaded(mod);
		return;
	}

	/* An exit patch that would return at once still costs its call in
	 * every thread (docs/performance.md): entry only patches no exit. */
	if ((r = sz.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, mod, SZ_ENTER_PATCH)) != SANITIZER_SUCCESS ||
	    (!sz_entry_only &&
	     (r = sz.patch_instructions(SANITIZER_INSTRUCTION_BLOCK_EXIT, mod, SZ_EXIT_PATCH)) != SANITIZER_SUCCESS) ||
	    (r = sz.patch_module(mod)) != SANITIZER_SUCCESS) {
		atomic_fetch_add(&sz_patch_failures, 1);
		log_debug("module %p left unpatched: %s", (void *)mod, sz_error(r));
		return;
	}
	atomic_fetch_add(&sz_modules_patched, 1);
}

static void sz_on_stream(const Sanitizer_ResourceStreamData *d, int created)
{
	struct sz_context *c;
	struct sz_stream *s;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(d->context, 0);
	s = sz_stream_of(d->stream, c);
	if (s && !created)
		s->gone = 1; /* a later stream may reuse the handle */
	pthread_mutex_unlock(&sz_ids_lock);
}

static void sz_on_resource(Sanitizer_CallbackId cbid, const void *data)
{
	if (cbid == sz_ids->context_created)
		sz_on_context(data);
	else if (cbid == sz_ids->module_loaded)
		sz_on_module(((const Sanitizer_ResourceModuleData *)data)->module);
	else if (sz_ids->functions_lazy_patched && cbid == sz_ids->functions_lazy_patched)
		atomic_fetch_add(&sz_lazy_patched, 1);
	else if (cbid == sz_ids->module_unloading && sz_entries)
		patch_switch_module_unloading(((const Sanitizer_ResourceModuleData *)data)->module);
	else if (cbid == sz_ids->module_unloading)
		sz_set_clear();
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
	};

	entries_on_launch(&e);
}

static int sz_set_launch_data(void *launch, CUfunction f, void *stream, const void *data)
{
	SanitizerResult r = sz.set_launch_callback_data(launch, f, stream, data);

	if (r != SANITIZER_SUCCESS)
		log_debug("a launch carries no entries: %s", sz_error(r));
	return r == SANITIZER_SUCCESS ? 0 : -1;
}

/* The GPU clock of device at host_ns, at most: the host's clock plus the
 * least lag of a first block behind its launch (launches.h). */
static uint64_t sz_gpu_clock_bound(uint32_t device, uint64_t host_ns)
{
	if (!sz_table || !launch_shards_bound_known(sz_table, device))
		return 0;
	return host_ns + (uint64_t)launch_shards_bound(sz_table, device);
}

/* Registers the launch for its kernel record, and gives f's launches from
 * now on the ring, graph replays included (they fire no launch callback of
 * their own, but their kernel nodes do: g, NULL for a plain launch). */
static void sz_on_launch(const Sanitizer_LaunchData *ld, const Sanitizer_GraphNodeLaunchData *g)
{
	struct launch_info info;
	struct sz_context *c;
	struct sz_stream *s;
	uint64_t ring;
	SanitizerResult r;
	uint32_t exec_seq;

	atomic_fetch_add_explicit(&sz_launches, 1, memory_order_relaxed);
	if (sz_entries && !patch_switch_recording())
		return; /* recording is off: its blocks run unpatched */
	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(ld->context, ld->device);
	s = sz_stream_of(ld->stream, c);
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
	sz_func_attributes(ld->function, &info);
	pthread_mutex_unlock(&sz_ids_lock);
	if (g) {
		info.graph_node_id = sanitizer_graph_node_id(exec_seq, g->node);
		info.dynamic_smem = sz_on_graph_node(g, info.graph_node_id, exec_seq);
	} else if (sz_tls_smem >= 0 && sanitizer_launch_has_shape(ld, &sz_tls_smem_shape)) {
		info.dynamic_smem = (uint32_t)sz_tls_smem;
		atomic_fetch_add_explicit(&sz_smem_taken, 1, memory_order_relaxed);
	}
	sz_add_launch(&info);
	if (sz_entries) {
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

struct sz_call;
static void sz_push(struct smtop_record *recs, size_t n);
static void sz_send_host_timed(struct smtop_record *rec, const struct sz_call *k, uint32_t device);

/* A graph launch call begins: its nodes' launches take its number, and at
 * its end it is recorded as an API call with its stream, whose priority
 * its kernels run at (they run on streams of the graph's own). */
static void sz_on_graph_launch_begin(const Sanitizer_GraphLaunchData *d)
{
	struct sz_context *c;
	struct sz_stream *s;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(d->context, 0);
	s = sz_stream_of(d->stream, c);
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
static void sz_on_launch_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d)
{
	if (d->callbackSite == SANITIZER_API_ENTER) {
		if (sz_entries)
			patch_switch_launch_enter();
		sz_tls_smem = sanitizer_launch_dynamic_smem(cbid, d->functionParams, &sz_tls_smem_shape);
		atomic_fetch_add_explicit(&sz_launch_calls, 1, memory_order_relaxed);
	} else {
		sz_tls_smem = -1;
		if (sz_entries)
			patch_switch_launch_exit();
	}
}


/* The backend's numbers of an operation's context and stream (none when
 * !has_stream: a context or event synchronize), and its call number,
 * shared with the launches.  ctx_id is the context its records name
 * (the stream's green context's, see sz_stream); pending: the host thread
 * has not asked about the stream yet (ctx_id is the callback's). */
struct sz_call {
	uint32_t corr, dev, ctx_id, stream_id;
	int pending;
};

static struct sz_call sz_call_of(CUcontext ctx, CUstream stream, int has_stream)
{
	struct sz_call k;
	struct sz_context *c;
	struct sz_stream *s;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(ctx, 0);
	s = has_stream ? sz_stream_of(stream, c) : NULL;
	k.corr = ++sz_correlation;
	k.dev = c ? (uint32_t)c->device : 0;
	k.ctx_id = s && s->record_ctx ? s->record_ctx : c ? c->id : 0;
	k.stream_id = s ? s->id : 0;
	k.pending = s && !s->answered;
	pthread_mutex_unlock(&sz_ids_lock);
	return k;
}

/* A copy's, memset's or event's record goes out, unless its stream was not
 * asked about yet: then it waits (sz_parked) for the host thread, so that
 * it names the context its stream's kernels will.  Looked at again under
 * the lock, which the host thread holds while it answers and sends what
 * waited: nothing is left behind. */
static void sz_send_call(struct smtop_record *rec, const struct sz_call *k)
{
	const struct sz_stream *s;
	int parked = 0;

	if (k->pending) {
		pthread_mutex_lock(&sz_ids_lock);
		s = sz_stream_by_id(k->stream_id);
		if (s && !s->answered)
			parked = sanitizer_park(&sz_parked, rec) == 0;
		else if (s && s->record_ctx)
			sanitizer_record_set_context(rec, s->record_ctx);
		pthread_mutex_unlock(&sz_ids_lock);
	}
	if (!parked)
		sz_push(rec, 1);
}

/* Asynchronous copies and memsets hold their stream back; a synchronous
 * one holds the host, whose next launch call bounds what follows. */
static void sz_on_copy(Sanitizer_CallbackDomain domain, const void *data)
{
	struct smtop_record rec;
	struct sz_call k;

	if (domain == SANITIZER_CB_DOMAIN_MEMCPY) {
		const Sanitizer_MemcpyData *d = data;

		if (!d->isAsync)
			return;
		k = sz_call_of(d->srcContext ? d->srcContext : d->dstContext,
			       d->srcStream ? d->srcStream : d->dstStream, 1);
		sanitizer_memcpy(d, sz_pid, k.dev, k.ctx_id, k.stream_id, k.corr, &rec);
	} else {
		const Sanitizer_MemsetData *d = data;

		if (!d->isAsync)
			return;
		k = sz_call_of(d->context, d->stream, 1);
		sanitizer_memset(d, sz_pid, k.dev, k.ctx_id, k.stream_id, k.corr, &rec);
	}
	sz_send_call(&rec, &k);
}

/* cudaEventRecord and cudaStreamWaitEvent, numbered with the launches. */
/* --sm entry: what each event's last record followed (its stream and the
 * launches made by then), so that a synchronize on it bounds them.  Direct
 * mapped: an event that loses its place only loses its bound. */
#define SZ_EVENTS 1024
struct sz_event_mark {
	CUevent event;
	uint32_t stream;
	uint64_t seq;
};
static pthread_mutex_t sz_events_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sz_event_mark sz_events[SZ_EVENTS];

static struct sz_event_mark *sz_event_slot(CUevent e)
{
	return &sz_events[((uintptr_t)e >> 4) % SZ_EVENTS];
}

static void sz_event_recorded(CUevent e, CUcontext ctx, uint32_t stream)
{
	struct sz_event_mark m = { .event = e, .stream = stream, .seq = entries_launched(ctx) };

	pthread_mutex_lock(&sz_events_lock);
	*sz_event_slot(e) = m;
	pthread_mutex_unlock(&sz_events_lock);
}

/* The mark of event e, 0 when not known. */
static int sz_event_mark(CUevent e, struct sz_event_mark *out)
{
	int found;

	pthread_mutex_lock(&sz_events_lock);
	*out = *sz_event_slot(e);
	pthread_mutex_unlock(&sz_events_lock);
	found = out->event == e && out->seq;
	return found;
}

/* --sm entry: the launches a synchronize call waited for had all ended
 * when it returned (an event's: those before its last record). */
static void sz_entries_synced(int32_t type, void *handle, const Sanitizer_CallbackData *d, uint32_t stream,
			      uint64_t end)
{
	struct sz_event_mark m;

	if (type == SANITIZER_SYNC_EVENT) {
		if (handle && sz_event_mark(handle, &m))
			entries_synced(d->context, m.stream, m.seq, end);
		return;
	}
	entries_synced(d->context, type == SANITIZER_SYNC_STREAM ? stream : 0, sz_tls_sync_seq, end);
}

static void sz_on_event(Sanitizer_CallbackId cbid, const Sanitizer_EventData *d)
{
	struct smtop_record rec;
	struct sz_call k = sz_call_of(d->context, d->stream, 1);

	if (sz_entries && cbid == sz_ids->event_record)
		sz_event_recorded(d->event, d->context, k.stream_id);
	if (cbid == sz_ids->event_record) {
		sanitizer_event_record(d, sz_pid, k.dev, k.ctx_id, k.stream_id, k.corr, &rec);
		sz_send_call(&rec, &k);
	} else {
		sanitizer_stream_wait(d, sz_pid, k.ctx_id, k.stream_id, k.corr, clock_real_ns(), &rec);
		sz_send_host_timed(&rec, &k, k.dev);
	}
}

/* A driver synchronize call (cuStreamSynchronize, cuCtxSynchronize,
 * cuEventSynchronize): the host waits from its ENTER to its EXIT, and its
 * record goes out at EXIT as CUPTI's SYNCHRONIZATION row.  The stream is
 * the one the sanitizer's synchronize callback named inside the call, as
 * its launch callbacks name streams (a special handle such as NULL in the
 * call's own parameters is not the stream the launches name). */
static void sz_on_sync_call(int32_t type, void *handle, const Sanitizer_CallbackData *d)
{
	struct smtop_record rec;
	struct sz_call k;
	uint64_t end;

	if (d->callbackSite == SANITIZER_API_ENTER) {
		sz_tls_sync_start = clock_real_ns();
		sz_tls_sync_stream = handle;
		sz_tls_sync_seq = sz_entries ? entries_launched(d->context) : 0;
		return;
	}
	end = clock_real_ns();
	if (!sz_tls_sync_start)
		return;
	k = sz_call_of(d->context, sz_tls_sync_stream, type == SANITIZER_SYNC_STREAM);
	sanitizer_synchronization(type, sz_pid, k.ctx_id, k.stream_id, handle, k.corr, sz_tls_sync_start, end,
				  &rec);
	sz_tls_sync_start = 0;
	if (sz_entries)
		sz_entries_synced(type, handle, d, k.stream_id, end);
	sz_send_host_timed(&rec, &k, k.dev);
}

/* The stream a cuStreamSynchronize on this thread is waiting for, as the
 * sanitizer names it. */
static void sz_on_stream_synchronized(const Sanitizer_SynchronizeData *d)
{
	if (sz_tls_sync_start)
		sz_tls_sync_stream = d->stream;
}

/* A driver API callback: a synchronize call, or a launch call. */
static void sz_on_driver_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d)
{
	void *handle;
	int32_t type = sanitizer_sync_call_type(sz_ids, cbid, d->functionParams, &handle);

	if (type)
		sz_on_sync_call(type, handle, d);
	else
		sz_on_launch_call(cbid, d);
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

/* ---- kernel records, from the drains ------------------------------------------ */

static void sz_push(struct smtop_record *recs, size_t n)
{
	if (n)
		ring_push_many(sz_ring, recs, n);
}

static void sz_push_records(struct smtop_record *recs, size_t n)
{
	sz_push(recs, n);
}

/* A record timed by the host's clock, sent now or held. */
struct sz_held {
	struct smtop_record rec;
	struct sz_call k;
	int call;        /* k applies: the record is a call's (sz_send_call) */
	uint32_t device; /* whose %globaltimer its times go onto */
};

/* Records timed by the host's clock (synchronize calls, stream waits, graph
 * launch calls, NVTX ranges) wait here with their times raw until a
 * kernel's first block has told CLOCK_REALTIME and their device's
 * %globaltimer apart (the launches' bound: they differ by tens of
 * microseconds), then go out on that timer (sz_release_held, from the host
 * thread, and at the end with what is known by then).  Mapped with no
 * bound, a short program's synchronizations on the H200 ended some 20 us
 * before the kernels they waited for.  Past SZ_HELD_MAX, records go out
 * unmapped. */
#define SZ_HELD_MAX 1024
static pthread_mutex_t sz_held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sz_held sz_held[SZ_HELD_MAX];
static size_t sz_n_held;

/* NVTX ranges belong to no GPU: they go onto the first device's timer, the
 * one the viewer opens on. */
#define SZ_NVTX_DEVICE 0

static int sz_bound_known(uint32_t device)
{
	/* NVTX may call before the table exists, or after a start that failed */
	return sz_table && launch_shards_bound_known(sz_table, device);
}

static void sz_send_mapped(struct sz_held *h)
{
	convert_host_times(&h->rec, sz_table ? launch_shards_bound(sz_table, h->device) : 0);
	if (h->call)
		sz_send_call(&h->rec, &h->k);
	else
		sz_push(&h->rec, 1);
}

/* 1 when h was held: its device's bound is still unknown (asked again under
 * the lock, which sz_release_held takes records out under: once known, it
 * stays known). */
static int sz_hold(const struct sz_held *h)
{
	int held = 0;

	pthread_mutex_lock(&sz_held_lock);
	if (!sz_bound_known(h->device) && sz_n_held < SZ_HELD_MAX) {
		sz_held[sz_n_held++] = *h;
		held = 1;
	}
	pthread_mutex_unlock(&sz_held_lock);
	return held;
}

/* rec, timed by the host's clock, onto device's %globaltimer: through
 * sz_send_call when k (a call's record), else straight into the ring. */
static void sz_send_host_timed(struct smtop_record *rec, const struct sz_call *k, uint32_t device)
{
	struct sz_held h = { .rec = *rec, .call = k != NULL, .device = device };

	if (k)
		h.k = *k;
	if (sz_bound_known(device) || !sz_hold(&h))
		sz_send_mapped(&h);
}

/* The held records whose device's bound is known; all of them at the end
 * (forced). */
static void sz_release_held(int forced)
{
	static struct sz_held out[SZ_HELD_MAX];
	size_t n = 0, keep = 0;

	/* out is only used here, by the host thread or at the end after it
	 * stopped */
	pthread_mutex_lock(&sz_held_lock);
	for (size_t i = 0; i < sz_n_held; i++) {
		if (forced || sz_bound_known(sz_held[i].device))
			out[n++] = sz_held[i];
		else
			sz_held[keep++] = sz_held[i];
	}
	sz_n_held = keep;
	pthread_mutex_unlock(&sz_held_lock);
	for (size_t i = 0; i < n; i++)
		sz_send_mapped(&out[i]);
}

/* NVTX ranges, as the other host-timed records. */
static void sz_push_host_timed(struct smtop_record *rec)
{
	sz_send_host_timed(rec, NULL, SZ_NVTX_DEVICE);
}

static void sz_add_launch(const struct launch_info *info)
{
	/* its idle age starts now */
	if (launch_shards_add(sz_table, clock_mono_ns(), info) != 0)
		log_debug("out of memory: the kernel record of %s is lost", info->name ? info->name : "?");
}

static void sz_observe_blocks(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	launch_shards_note_blocks(sz_table, clock_mono_ns(), context_id, b, n);
}

static void sz_flush_stale(uint64_t idle_ns)
{
	launch_shards_take_stale(sz_table, clock_mono_ns(), idle_ns);
}

/* ---- the host thread: what must be asked of the driver ----------------------------- */

static int sz_attr(CUdevice d, CUdevice_attribute a)
{
	int v = 0;

	if (!sz_cu.device_get_attribute || sz_cu.device_get_attribute(&v, a, d) != CUDA_SUCCESS)
		return 0;
	return v;
}

static void sz_describe_device(CUdevice d)
{
	struct smtop_record rec = { .kind = SMTOP_REC_DEVICE };
	struct smtop_device *o = &rec.u.device;
	char name[256] = "";
	size_t bytes = 0;

	o->pid = sz_pid;
	o->device_id = (uint32_t)d;
	o->sm_count = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	o->cc_major = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	o->cc_minor = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	o->max_threads_per_sm = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	o->max_blocks_per_sm = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
	o->max_regs_per_sm = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
	o->max_smem_per_sm = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
	o->max_threads_per_block = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	o->warp_size = (uint32_t)sz_attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
	if (sz_cu.device_total_mem && sz_cu.device_total_mem(&bytes, d) == CUDA_SUCCESS)
		o->global_memory_bytes = bytes;
	if (sz_cu.device_get_name)
		sz_cu.device_get_name(name, sizeof(name), d);
	o->name = strdup(name);
	ring_push(sz_ring, &rec);
}

static void sz_describe_context(const struct sz_context *c)
{
	struct smtop_record rec = { .kind = SMTOP_REC_CONTEXT };

	rec.u.context.pid = sz_pid;
	rec.u.context.device_id = (uint32_t)c->device;
	rec.u.context.context_id = c->id;
	ring_push(sz_ring, &rec);
}

/* What the driver says of a stream's context: its green context (NULL:
 * none, or not to be asked) and the driver's id of that one (0: unknown). */
struct sz_green {
	void *green;
	unsigned long long uid;
};

static struct sz_green sz_stream_green(const struct sz_stream *s)
{
	struct sz_green g = { 0 };
	CUcontext ctx = NULL;

	/* the special handles (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD)
	 * would name this thread's context, not the launching thread's */
	if (s->gone || !sz_cu.stream_get_ctx_v2 || (uintptr_t)s->stream <= 2)
		return g;
	if (sz_cu.stream_get_ctx_v2(s->stream, &ctx, &g.green) != CUDA_SUCCESS)
		g.green = NULL;
	if (g.green && (!sz_cu.green_ctx_get_id || sz_cu.green_ctx_get_id(g.green, &g.uid) != CUDA_SUCCESS))
		g.uid = 0;
	return g;
}

/* The number of green context g, whose streams launch through context
 * parent on device: a new one is numbered after the contexts seen so far,
 * as CUPTI numbers contexts as they come (*made set); 0 when the table is
 * full.  Under sz_ids_lock. */
static uint32_t sz_green_context_of(const struct sz_green *g, uint32_t parent, uint32_t device, int *made)
{
	*made = 0;
	for (size_t i = 0; i < sz_n_contexts; i++)
		if (sz_contexts[i].green == g->green && sz_contexts[i].green_uid == g->uid)
			return sz_contexts[i].id;
	if (sz_n_contexts == SZ_MAX_CONTEXTS)
		return 0;
	sz_contexts[sz_n_contexts] = (struct sz_context){
		.device = (CUdevice)device, .id = (uint32_t)sz_n_contexts + 1, .described = 1,
		.green = g->green, .green_uid = g->uid, .parent = parent,
	};
	*made = 1;
	return sz_contexts[sz_n_contexts++].id;
}

/* Sends the parked records of stream_id (0: all) naming context_id (0: as
 * they are).  Under sz_ids_lock. */
static void sz_unpark(uint32_t stream_id, uint32_t context_id)
{
	struct smtop_record out[64];
	size_t n;

	do {
		n = sanitizer_unpark(&sz_parked, stream_id, context_id, out, sizeof out / sizeof out[0]);
		sz_push(out, n);
	} while (n == sizeof out / sizeof out[0]);
}

/* The context stream s's records name from now on (record_ctx, 0: the
 * ones their callbacks name; slot: its entry, which may have been reused
 * while the driver was asked), and what waited for it: the held kernels
 * ask at the next stale sweep, the parked copies and events go now, under
 * the lock (sz_send_call). */
static void sz_stream_answered(size_t slot, const struct sz_stream *s, uint32_t record_ctx)
{
	pthread_mutex_lock(&sz_ids_lock);
	if (sz_streams[slot].id == s->id) {
		sz_streams[slot].record_ctx = record_ctx;
		sz_streams[slot].answered = 1;
	}
	sz_unpark(s->id, record_ctx);
	pthread_mutex_unlock(&sz_ids_lock);
}

/* The number of stream s's green context (0: none), whose record goes out
 * the first time one of its streams is seen. */
static uint32_t sz_stream_green_id(const struct sz_stream *s)
{
	struct sz_green g = sz_stream_green(s);
	struct smtop_record rec;
	uint32_t id;
	int made;

	if (!g.green)
		return 0;
	pthread_mutex_lock(&sz_ids_lock);
	id = sz_green_context_of(&g, s->context_id, s->device_id, &made);
	pthread_mutex_unlock(&sz_ids_lock);
	if (made) {
		sanitizer_green_context(sz_pid, s->device_id, id, s->context_id, &rec);
		ring_push(sz_ring, &rec);
	}
	return id;
}

/* The driver's priority and green context of a stream; a stream already
 * gone stays unknown.  Its record names the context its launches name, as
 * today and as CUPTI's stream record does; a green context's stream gets a
 * second one under the green context, which its kernels name (CUPTI's
 * backend adds the same, convert_stream_context). */
static void sz_describe_stream(size_t slot, const struct sz_stream *s)
{
	struct smtop_record rec = { .kind = SMTOP_REC_STREAM };
	uint32_t green = sz_stream_green_id(s);
	int prio = 0;
	unsigned flags = 0;

	rec.u.stream.pid = sz_pid;
	rec.u.stream.device_id = s->device_id;
	rec.u.stream.context_id = s->context_id;
	rec.u.stream.stream_id = s->id;
	rec.u.stream.priority = SMTOP_PRIORITY_UNKNOWN;
	if (!s->gone && sz_cu.stream_get_priority && sz_cu.stream_get_priority(s->stream, &prio) == CUDA_SUCCESS)
		rec.u.stream.priority = prio;
	if (!s->gone && sz_cu.stream_get_flags && sz_cu.stream_get_flags(s->stream, &flags) == CUDA_SUCCESS)
		rec.u.stream.flags = flags;
	ring_push(sz_ring, &rec);
	if (green) {
		rec.u.stream.context_id = green;
		ring_push(sz_ring, &rec);
	}
	sz_stream_answered(slot, s, green);
}

static void sz_describe_function(struct sz_func *f)
{
	int v;

	f->asked = 1;
	if (!sz_cu.func_get_attribute)
		return;
	if (sz_cu.func_get_attribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f->f) == CUDA_SUCCESS)
		f->registers = (uint32_t)v;
	if (sz_cu.func_get_attribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f->f) == CUDA_SUCCESS)
		f->static_smem = (uint32_t)v;
	if (sz_cu.func_get_attribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f->f) == CUDA_SUCCESS)
		f->local_mem = (uint32_t)v;
}

/* Asks the driver about what the callbacks saw, one item at a time under
 * the lock (the driver call itself runs outside it: a launch callback waits
 * for the lock, and the driver may wait for that launch). */
static void sz_describe_new(void)
{
	for (;;) {
		struct sz_context c = { 0 };
		struct sz_stream s = { 0 };
		struct sz_func *f = NULL;
		size_t slot = 0;
		int what = 0;

		pthread_mutex_lock(&sz_ids_lock);
		for (size_t i = 0; !what && i < sz_n_contexts; i++)
			if (!sz_contexts[i].described) {
				sz_contexts[i].described = 1;
				c = sz_contexts[i];
				what = 1;
			}
		for (size_t i = 0; !what && i < sz_n_streams; i++)
			if (!sz_streams[i].described) {
				sz_streams[i].described = 1;
				s = sz_streams[i];
				slot = i;
				what = 2;
			}
		for (size_t i = 0; !what && sz_n_funcs && i < SZ_MAX_FUNCS; i++)
			if (sz_funcs[i].f && !sz_funcs[i].asked) {
				sz_funcs[i].asked = 1;
				f = &sz_funcs[i];
				what = 3;
			}
		pthread_mutex_unlock(&sz_ids_lock);
		if (what == 1) {
			if (c.device < 32 && !(sz_devices_described & (1u << c.device))) {
				sz_devices_described |= 1u << c.device;
				sz_describe_device(c.device);
			}
			sz_describe_context(&c);
		} else if (what == 2) {
			sz_describe_stream(slot, &s);
		} else if (what == 3) {
			struct sz_func copy = *f;

			sz_describe_function(&copy);
			pthread_mutex_lock(&sz_ids_lock);
			f->registers = copy.registers;
			f->static_smem = copy.static_smem;
			f->local_mem = copy.local_mem;
			pthread_mutex_unlock(&sz_ids_lock);
		} else {
			return;
		}
	}
}

static void *sz_host_main(void *arg)
{
	struct timespec period = { 0, SZ_HOST_PERIOD_NS };
	sigset_t all;

	(void)arg;
	sz_tls_own = 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!atomic_load(&sz_host_stop)) {
		nanosleep(&period, NULL);
		sz_describe_new();
		sz_flush_stale(sz_entries ? SZ_ENTRY_STALE_NS : SZ_STALE_NS);
		sz_release_held(0);
	}
	return NULL;
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
static void sz_enable_callback(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid)
{
	SanitizerResult r = sz.enable_callback(1, sz_subscriber, domain, cbid);

	if (r != SANITIZER_SUCCESS)
		log_debug("callback %u of domain %d refused: %s", (unsigned)cbid, (int)domain, sz_error(r));
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
	SanitizerResult r = sz.subscribe(&sz_subscriber, sz_callback, NULL);

	if (r != SANITIZER_SUCCESS) {
		snprintf(reason, len, "the Compute Sanitizer refused to subscribe: %s", sz_error(r));
		return -1;
	}
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
		r = sz.enable_domain(1, sz_subscriber, domains[i]);
		if (r != SANITIZER_SUCCESS) {
			snprintf(reason, len, "Compute Sanitizer callbacks refused: %s", sz_error(r));
			sz.unsubscribe(sz_subscriber);
			return -1;
		}
	}
	/* without these the blocks still come; waits behind what they hold
	 * back then read as blocking */
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		r = sz.enable_domain(1, sz_subscriber, optional[i]);
		if (r != SANITIZER_SUCCESS)
			log_debug("callbacks of domain %d refused: %s", (int)optional[i], sz_error(r));
	}
	/* the launch and synchronize calls alone, not the whole driver API
	 * (frameworks make millions of other calls): without them dynamic
	 * shared memory is N/A and no synchronization is recorded */
	for (size_t i = 0; sanitizer_launch_calls[i]; i++)
		sz_enable_callback(SANITIZER_CB_DOMAIN_DRIVER_API, sanitizer_launch_calls[i]);
	for (size_t i = 0; sz_ids->sync_calls[i]; i++)
		sz_enable_callback(SANITIZER_CB_DOMAIN_DRIVER_API, sz_ids->sync_calls[i]);
	sz_enable_callback(SANITIZER_CB_DOMAIN_SYNCHRONIZE, sz_ids->stream_synchronized);
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

/* ---- patches switched at run time (--sm entry and exact) ------------------------ */

/* An exact window as an NVTX range of smtop's own, on the session's
 * timeline. */
static void sz_window_range(uint64_t start, uint64_t end)
{
	struct smtop_record rec = { .kind = SMTOP_REC_NVTX };

	rec.u.nvtx.start = start;
	rec.u.nvtx.end = end;
	rec.u.nvtx.pid = sz_pid;
	rec.u.nvtx.tid = (uint32_t)syscall(SYS_gettid);
	rec.u.nvtx.text = strdup("exact block ends");
	rec.u.nvtx.domain = strdup("smtop");
	sz_push_host_timed(&rec);
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

static void sz_start_switching(const struct blocks_host *mem)
{
	static const struct patch_switch_ops ops = {
		.drain = sz_drain_gpu,
		.patch = sz_patch_as,
		.unpatch = sz_unpatch,
		.exits = entries_exits,
		.window = sz_window_range,
	};

	entries_start(mem, sz_set_launch_data, sz_observe_blocks, sz_gpu_clock_bound);
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
static void sz_start_windows(void)
{
	uint64_t every = sz_env_ns("SMTOP_EXACT_EVERY"), span = sz_env_ns("SMTOP_EXACT_FOR");

	if (!sz.unpatch_module) {
		log_debug("no exact windows: the Compute Sanitizer has no sanitizerUnpatchModule");
		return;
	}
	if (patch_switch_start(span ? every : 0, span) != 0)
		log_debug("no exact windows: no thread for them");
}

static void sz_stop_switching(void)
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
	log_debug("patches: %" PRIu64 " modules, %" PRIu64 " switches (%" PRIu64 " ns mean, %" PRIu64
		  " ns at most), %" PRIu64 " exact windows of %" PRIu64 " ns in all, %" PRIu64 " failures",
		  st.modules, st.switches, st.switches ? st.switch_ns_total / st.switches : 0, st.switch_ns_max,
		  st.windows, st.window_ns_total, st.failures);
}

/* Recording switched on opens a new session, which lacks the device,
 * context and stream records sent before: the host thread sends them
 * again. */
static void sz_describe_again(void)
{
	pthread_mutex_lock(&sz_ids_lock);
	for (size_t i = 0; i < sz_n_contexts; i++)
		sz_contexts[i].described = 0;
	for (size_t i = 0; i < sz_n_streams; i++)
		sz_streams[i].described = sz_streams[i].gone;
	sz_devices_described = 0;
	pthread_mutex_unlock(&sz_ids_lock);
}

static int sz_set_recording(int on, char *reason, size_t len)
{
	if (sz_exact) {
		snprintf(reason, len, "--sm exact records every block's end: it has no switch");
		return -1;
	}
	if (on)
		sz_describe_again();
	return patch_switch_set_base(on ? PATCH_ENTRY : PATCH_OFF, reason, len);
}

static int sz_exact_window(uint64_t ns, char *reason, size_t len)
{
	if (sz_exact) {
		snprintf(reason, len, "--sm exact: every block's end is exact already");
		return -1;
	}
	return patch_switch_window(ns, reason, len);
}

static int sz_start(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	/* The lanes reach the GPU through the sanitizer's memory calls alone.
	 * Every kernel's blocks come: on the H200 (16 CPUs) a 50 M blocks/s
	 * storm lost 18% of its blocks with 4 drain threads and none with 8. */
	static struct blocks_host host = {
		.alloc = sz_mem_alloc,
		.alloc_host = sz_mem_alloc_host,
		.memset = sz_mem_set,
		.upload = sz_mem_upload,
		.download = sz_mem_download,
		.sync = sz_mem_sync,
		.stream_handle = sz_mem_stream_handle,
		.stream_id = sz_stream_id,
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
	if (pthread_create(&sz_host_thread, NULL, sz_host_main, NULL) == 0)
		sz_host_started = 1;
	else
		log_debug("no host thread: streams keep unknown priorities");
	sz_note_session();
	atomic_store(&sz_active, 1);
	log_debug("Compute Sanitizer backend on (CUDA %u numbering), patches %s", sz_ids->major, sz_patch_path);
	return 0;
}

static void sz_stop_threads(void)
{
	if (sz_entries)
		sz_stop_switching();
	if (sz_host_started) {
		atomic_store(&sz_host_stop, 1);
		pthread_join(sz_host_thread, NULL);
		sz_host_started = 0;
	}
	log_debug("Compute Sanitizer: %llu lazily loaded function sets patched", (unsigned long long)atomic_load(&sz_lazy_patched));
	log_debug("Compute Sanitizer: %llu modules patched, %llu refusals, %llu launches seen,"
		  " %llu launch calls, %llu with their dynamic shared memory, %llu graph kernel nodes' from the driver",
		  (unsigned long long)atomic_load(&sz_modules_patched),
		  (unsigned long long)atomic_load(&sz_patch_failures),
		  (unsigned long long)atomic_load(&sz_launches),
		  (unsigned long long)atomic_load(&sz_launch_calls),
		  (unsigned long long)atomic_load(&sz_smem_taken),
		  (unsigned long long)atomic_load(&sz_node_smem_asked));
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
	sz_entries = 1;
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
	.exact_window = sz_exact_window,
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
