#include "collectors/blocks.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/driver.h"
#include "collectors/drops.h"
#include "collectors/log.h"
#include "collectors/ptrset.h"
#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/blockcodec.h"
#include "src/core/clock.h"

#define BLOCKS_MAX_CONTEXTS 64
#define BLOCKS_MAX_GROUPS 8             /* drain threads per context, at most */
#define BLOCKS_DRAIN_PERIOD_NS 5000000L
/* A claimed slot still half-written after this many drains (~0.5 s) belongs to
 * a block that died between its claim and its stores: skip it. */
#define BLOCKS_STALL_DRAINS 100
#define BLOCKS_TICK_SAMPLES 4096
#define BLOCKS_JOIN_TIMEOUT_MS 500
/* Blocks drained but not yet stored, at most (packed into chunks, 6-8 bytes
 * each in memory: 100-130 MB).  Past this the drain leaves blocks on the
 * GPU, whose full lanes then count exact drops, instead of growing the
 * workload's memory without bound.  With 8 M a 50 M blocks/s storm on the
 * H200 held drains back while the writer, busy 2.7 s of 5, kept up on
 * average. */
#define BLOCKS_MAX_IN_FLIGHT (16u << 20)

#define BLOCKS_GRID_MASK 0xffffffffffffull
/* A lane's blocks wait in its stage until a chunk is full or this old, so a
 * block reaches the session within ~100 ms (drain + stage + writer period). */
#define BLOCKS_STAGE_AGE_NS 40000000ull

/* ---- the pure part ------------------------------------------------------ */

int blocks_await_start(_Atomic int *state, _Atomic int *stop, int starting, int ready)
{
	struct timespec pause = { 0, 100000 };

	while (atomic_load(state) == starting && !atomic_load(stop))
		nanosleep(&pause, NULL);
	return atomic_load(state) == ready && !atomic_load(stop);
}

static int blocks_slot_complete(const struct smtop_trace_slot *s, uint64_t index,
				uint32_t capacity)
{
	uint16_t tag = smtop_trace_tag(index, capacity);

	return s->tag == tag && (uint16_t)(s->grid_tag >> 48) == tag;
}

size_t blocks_collect(const struct smtop_trace_slot *slots, uint32_t capacity,
		      uint64_t read, uint64_t head, uint16_t device_id,
		      struct smtop_block *out)
{
	uint64_t mask = (uint64_t)capacity - 1;
	size_t n = 0;

	if (capacity == 0 || (capacity & (capacity - 1)) != 0 || head <= read)
		return 0;
	if (head - read > capacity)
		head = read + capacity;
	for (uint64_t i = read; i < head; i++, n++) {
		const struct smtop_trace_slot *s = &slots[i & mask];

		if (!blocks_slot_complete(s, i, capacity))
			break;
		if (out) {
			out[n].grid_id = s->grid_tag & BLOCKS_GRID_MASK;
			out[n].start = s->start;
			out[n].end = s->end;
			out[n].block = s->block;
			out[n].sm = s->sm;
			out[n].device_id = device_id;
		}
	}
	return n;
}

static uint64_t blocks_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

uint64_t blocks_timer_tick(const struct smtop_block *b, size_t n, uint64_t tick)
{
	for (size_t i = 0; i < n; i++) {
		tick = blocks_gcd(tick, b[i].start);
		tick = blocks_gcd(tick, b[i].end);
	}
	return tick;
}

/* ---- the driver (collectors/driver.h) ------------------------------------ */

/* What the lanes ask of the driver themselves, whatever the backend: their
 * own streams and contexts, the SM count, the launch hook's modules.  The
 * memory calls are the backend's (struct blocks_host). */
struct blocks_cu {
	__typeof__(cuStreamCreate) *stream_create;
	__typeof__(cuModuleGetGlobal) *module_get_global;
	__typeof__(cuFuncGetModule) *func_get_module;
	__typeof__(cuKernelGetFunction) *kernel_get_function;
	__typeof__(cuCtxSetCurrent) *ctx_set_current;
	__typeof__(cuCtxPushCurrent) *ctx_push_current;
	__typeof__(cuCtxPopCurrent) *ctx_pop_current;
	__typeof__(cuThreadExchangeStreamCaptureMode) *exchange_capture_mode;
	__typeof__(cuCtxGetDevice) *ctx_get_device;
	__typeof__(cuDeviceGetAttribute) *device_get_attribute;
};

#define BLOCKS_SYM(field, name, opt) DRIVER_SYMBOL(struct blocks_cu, field, name, opt)
static const struct driver_symbol blocks_symbols[] = {
	BLOCKS_SYM(stream_create, "cuStreamCreate", 0),
	BLOCKS_SYM(module_get_global, "cuModuleGetGlobal_v2", 0),
	BLOCKS_SYM(func_get_module, "cuFuncGetModule", 0),
	BLOCKS_SYM(kernel_get_function, "cuKernelGetFunction", 1),
	BLOCKS_SYM(ctx_set_current, "cuCtxSetCurrent", 0),
	BLOCKS_SYM(ctx_push_current, "cuCtxPushCurrent_v2", 0),
	BLOCKS_SYM(ctx_pop_current, "cuCtxPopCurrent_v2", 0),
	BLOCKS_SYM(exchange_capture_mode, "cuThreadExchangeStreamCaptureMode", 1),
	BLOCKS_SYM(ctx_get_device, "cuCtxGetDevice", 1),
	BLOCKS_SYM(device_get_attribute, "cuDeviceGetAttribute", 1),
};

static struct blocks_cu blocks_cu;

/* ---- per-context state -------------------------------------------------- */

enum blocks_ctx_state {
	BLOCKS_CTX_IDLE = 0,            /* known, but no instrumented module seen yet */
	BLOCKS_CTX_SETUP,               /* patched: ring on the GPU, first drain thread starting */
	BLOCKS_CTX_READY,
	BLOCKS_CTX_FAILED,
	BLOCKS_CTX_DEAD,                /* a drain failed: no more CUDA calls */
	BLOCKS_CTX_FINISHED,            /* final drain done */
};

/* One lane's blocks on their way into a chunk (the lane is one SM). */
struct blocks_stage {
	struct smtop_block *b;          /* DB_BLOCKCODEC_MAX_BLOCKS, at first use */
	uint32_t n;
	uint64_t since;                 /* monotonic ns when the first arrived */
};

struct blocks_ctx;

/* A drain thread and the lanes [lo, hi) it owns.  Groups share nothing but
 * the pinned image, where their lanes are disjoint, so they drain in
 * parallel: one thread alone tops out near 20 M blocks/s on the H200's host. */
struct blocks_group {
	struct blocks_ctx *c;
	unsigned lo, hi;
	CUstream stream;                /* drain copies */
	void *copy;                     /* stream as the host's memory calls take it */
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock;           /* one drain of these lanes at a time */
	uint64_t dropped_seen;
	uint64_t drain_ns, drained;     /* time in drains, blocks staged (SMTOP_DEBUG) */
	uint64_t fetch_ns, observe_ns;  /* of it: copies off the GPU, the observer's */
	uint64_t pack_ns;               /* of it: packing chunks */
	uint64_t slowest_ns;            /* the longest drain */
	uint64_t held_back;             /* drains that left the slots on the GPU: writer behind */
	uint64_t busiest;               /* most new slots of one lane, last drain */
	uint8_t *packed;                /* encoding scratch */
};

struct blocks_ctx {
	CUcontext ctx;
	uint32_t context_id, device_id;
	_Atomic int state;
	_Atomic int stop;
	_Atomic uint32_t n_own_streams;
	uint32_t own_stream_ids[BLOCKS_MAX_GROUPS + 1];
	struct blocks_group groups[BLOCKS_MAX_GROUPS];
	unsigned n_groups;
	CUstream setup_stream;          /* module pointer stores, from launching threads */
	void *setup;                    /* setup_stream as the host's memory calls take it */
	CUdeviceptr ring;
	CUdeviceptr open_blocks;        /* patched modules: the open-block table */
	uint64_t ring_value;            /* host copy of the pointer stored in modules */
	struct smtop_trace_ring *host;  /* pinned image of the whole ring */
	uint64_t read[SMTOP_TRACE_LANES];
	unsigned stall[SMTOP_TRACE_LANES];
	uint64_t fresh[SMTOP_TRACE_LANES]; /* slots copied in this drain */
	struct blocks_stage stage[SMTOP_TRACE_LANES];
	pthread_mutex_t setup_lock;     /* the sets, module stores */
	struct ptrset funcs, modules;
};

static struct ring *blocks_ring;
static uint32_t blocks_pid;
static int blocks_enabled;
static pthread_mutex_t blocks_ctxs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct blocks_ctx *blocks_ctxs[BLOCKS_MAX_CONTEXTS];
static _Atomic size_t blocks_n_ctxs;
static _Thread_local int blocks_tls_own;
static _Atomic uint64_t blocks_tick;
static _Atomic size_t blocks_tick_samples;
static _Atomic int blocks_tick_stored;
static _Atomic uint64_t blocks_in_flight;
static _Atomic uint64_t blocks_most_in_flight; /* SMTOP_DEBUG */
/* The backend's (blocks_set_host). */
static const struct blocks_host *blocks_host;

void blocks_released(uint64_t n)
{
	atomic_fetch_sub(&blocks_in_flight, n);
}

int blocks_in_own_code(void)
{
	return blocks_tls_own;
}

int blocks_wanted(void)
{
	const char *v = getenv("SMTOP_BLOCKS");

	return !(v && strcmp(v, "0") == 0);
}

void blocks_set_host(const struct blocks_host *host)
{
	blocks_host = host;
}

int blocks_init(struct ring *ring, uint32_t pid)
{
	char why[256];

	if (!blocks_wanted())
		return -1;
	blocks_ring = ring;
	blocks_pid = pid;
	if (!blocks_host) {
		log_debug("block tracing off: the backend reaches no GPU memory");
		return -1;
	}
	if (driver_resolve(&blocks_cu, blocks_symbols, sizeof(blocks_symbols) / sizeof(blocks_symbols[0]),
			   why, sizeof(why)) != 0) {
		log_debug("block tracing off: %s", why);
		return -1;
	}
	blocks_enabled = 1;
	return 0;
}

/* ---- capture mode -------------------------------------------------------- */

/* Our copies go to our own streams, never into a graph being captured; the
 * relaxed mode keeps a capture in another thread from being invalidated by
 * our allocations and synchronisations. */
static CUstreamCaptureMode blocks_relax(void)
{
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;

	if (blocks_cu.exchange_capture_mode)
		blocks_cu.exchange_capture_mode(&mode);
	return mode;
}

static void blocks_unrelax(CUstreamCaptureMode mode)
{
	if (blocks_cu.exchange_capture_mode)
		blocks_cu.exchange_capture_mode(&mode);
}

/* ---- context setup ------------------------------------------------------- */

static size_t blocks_open_bytes(void)
{
	return (size_t)SMTOP_TRACE_LANES * sizeof(struct smtop_open_lane);
}

static size_t blocks_ring_bytes(void)
{
	return sizeof(struct smtop_trace_ring) +
	       (size_t)SMTOP_TRACE_LANES * BLOCKS_LANE_CAPACITY * sizeof(struct smtop_trace_slot);
}

static struct smtop_trace_slot *blocks_lane_slots(struct blocks_ctx *c, unsigned l)
{
	return &c->host->slots[(size_t)l * BLOCKS_LANE_CAPACITY];
}

static struct blocks_ctx *blocks_find(CUcontext ctx)
{
	size_t n = atomic_load_explicit(&blocks_n_ctxs, memory_order_acquire);

	for (size_t i = 0; i < n; i++)
		if (blocks_ctxs[i]->ctx == ctx)
			return blocks_ctxs[i];
	return NULL;
}

/* Our streams' copies would pollute the session: the backend's records
 * give them ids to leave out (blocks_is_own_stream). */
static void blocks_note_own_stream(struct blocks_ctx *c, CUstream s)
{
	uint32_t id;
	uint32_t n = atomic_load(&c->n_own_streams);

	if (!blocks_host->own_stream_id)
		return;
	if (n < BLOCKS_MAX_GROUPS + 1 && blocks_host->own_stream_id(c->ctx, s, &id) == 0) {
		c->own_stream_ids[n] = id;
		atomic_store(&c->n_own_streams, n + 1);
	}
}

/* A stream of ours on the current context, and its handle for the host's
 * memory calls. */
static int blocks_own_stream(struct blocks_ctx *c, CUstream *stream, void **handle)
{
	if (blocks_cu.stream_create(stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
	    !(*handle = blocks_host->stream_handle(c->ctx, *stream)))
		return -1;
	blocks_note_own_stream(c, *stream);
	return 0;
}

/* Each group's drain stream and its packing scratch. */
static int blocks_open_groups(struct blocks_ctx *c)
{
	for (unsigned i = 0; i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		if (blocks_own_stream(c, &g->stream, &g->copy) != 0 ||
		    !(g->packed = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS))))
			return -1;
	}
	return 0;
}

static int blocks_alloc(struct blocks_ctx *c)
{
	size_t bytes = blocks_ring_bytes();
	void *ring = NULL, *host = NULL;

	if (blocks_own_stream(c, &c->setup_stream, &c->setup) != 0 || blocks_open_groups(c) != 0 ||
	    blocks_host->alloc(c->ctx, &ring, bytes) != 0 || blocks_host->alloc_host(c->ctx, &host, bytes) != 0)
		return -1;
	c->ring = (CUdeviceptr)(uintptr_t)ring;
	c->host = host;
	c->ring_value = (uint64_t)c->ring;
	return 0;
}

/* The ring's header in the pinned image: every lane open to its capacity. */
static void blocks_fill_header(struct blocks_ctx *c)
{
	struct smtop_trace_ring *h = c->host;

	memset(h, 0, sizeof(*h));
	for (unsigned l = 0; l < SMTOP_TRACE_LANES; l++)
		h->limit[l] = BLOCKS_LANE_CAPACITY;
	h->capacity = BLOCKS_LANE_CAPACITY;
	h->lanes = SMTOP_TRACE_LANES;
	h->abi_version = SMTOP_TRACE_ABI_VERSION;
	h->patch_flags = blocks_host->patch_flags;
	h->open_blocks = (uint64_t)c->open_blocks;
}

/* Zeroed slots are never complete (tags start at 1), whatever the memory held. */
static int blocks_init_ring(struct blocks_ctx *c)
{
	void *ring = (void *)(uintptr_t)c->ring;

	blocks_fill_header(c);
	if (blocks_host->memset(ring, 0, blocks_ring_bytes(), c->setup) != 0 ||
	    blocks_host->upload(ring, c->host, sizeof(*c->host), c->setup) != 0 || blocks_host->sync(c->setup) != 0)
		return -1;
	return 0;
}

static void *blocks_drain_main(void *arg);

/* The context's SM count, 0 if the driver will not say. */
static unsigned blocks_sm_count(void)
{
	CUdevice dev;
	int n = 0;

	if (!blocks_cu.ctx_get_device || !blocks_cu.device_get_attribute ||
	    blocks_cu.ctx_get_device(&dev) != CUDA_SUCCESS ||
	    blocks_cu.device_get_attribute(&n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS)
		return 0;
	return n > 0 ? (unsigned)n : 0;
}

/* A drain thread per blocks_host.cpus_per_drain CPUs, at most
 * BLOCKS_MAX_GROUPS (SMTOP_DRAIN_THREADS overrides), each owning an equal
 * share of the SMs' lanes. */
static void blocks_plan_groups(struct blocks_ctx *c)
{
	const char *env = getenv("SMTOP_DRAIN_THREADS");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned per = blocks_host->cpus_per_drain ? blocks_host->cpus_per_drain : 1;
	unsigned n = cpus > 0 ? (unsigned)(cpus / per) : 1, span = blocks_sm_count();

	if (env && atoi(env) > 0)
		n = (unsigned)atoi(env);
	n = n < 1 ? 1 : n > BLOCKS_MAX_GROUPS ? BLOCKS_MAX_GROUPS : n;
	if (span == 0 || span > SMTOP_TRACE_LANES)
		span = SMTOP_TRACE_LANES;
	c->n_groups = n;
	for (unsigned i = 0; i < n; i++) {
		struct blocks_group *g = &c->groups[i];

		g->c = c;
		g->lo = i * span / n;
		g->hi = i + 1 == n ? SMTOP_TRACE_LANES : (i + 1) * span / n;
		pthread_mutex_init(&g->lock, NULL);
	}
}

/* Group i has no thread: the group before it takes its lanes. */
static void blocks_merge_group(struct blocks_ctx *c, unsigned i)
{
	c->groups[i - 1].hi = c->groups[c->n_groups - 1].hi;
	c->n_groups = i;
}

/* The ring (32 MiB on the GPU and as much pinned) and its drain thread exist
 * only once a module that can use them is launched: a workload without
 * instrumented kernels (PyTorch) pays nothing for them. */
static void blocks_start_ring(struct blocks_ctx *c)
{
	int err;

	blocks_plan_groups(c);
	err = blocks_alloc(c);
	if (!err)
		err = blocks_init_ring(c);
	for (unsigned i = 0; !err && i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		if (pthread_create(&g->thread, NULL, blocks_drain_main, g) == 0)
			g->thread_started = 1;
		else if (i == 0)
			err = -1;
		else
			blocks_merge_group(c, i); /* its lanes go to the group before */
	}
	if (err) {
		log_debug("block tracing off for context %u: its ring or drain threads could not be set up",
			  c->context_id);
		atomic_store(&c->state, BLOCKS_CTX_FAILED);
		return;
	}
	atomic_store(&c->state, BLOCKS_CTX_READY);
	log_debug("block ring of %u lanes x %u slots for context %u (device %u), %u drain threads",
		  SMTOP_TRACE_LANES, BLOCKS_LANE_CAPACITY, c->context_id, c->device_id, c->n_groups);
}

static struct blocks_ctx *blocks_create(CUcontext ctx)
{
	struct blocks_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ctx = ctx;
	pthread_mutex_init(&c->setup_lock, NULL);
	if (blocks_host->context_ids)
		blocks_host->context_ids(ctx, &c->context_id, &c->device_id);
	return c;
}

/* Contexts are few and never removed: readers scan without the lock. */
static struct blocks_ctx *blocks_get(CUcontext ctx)
{
	struct blocks_ctx *c = blocks_find(ctx);
	size_t n;

	if (c)
		return c;
	pthread_mutex_lock(&blocks_ctxs_lock);
	c = blocks_find(ctx);
	n = atomic_load(&blocks_n_ctxs);
	if (!c && n < BLOCKS_MAX_CONTEXTS) {
		c = blocks_create(ctx);
		if (c) {
			blocks_ctxs[n] = c;
			atomic_store_explicit(&blocks_n_ctxs, n + 1, memory_order_release);
		}
	}
	pthread_mutex_unlock(&blocks_ctxs_lock);
	return c;
}

/* ---- launches ------------------------------------------------------------- */

/* Runtime launches may hand a CUkernel where a CUfunction is expected. */
static CUmodule blocks_module_of(CUfunction f)
{
	CUmodule mod = NULL;
	CUfunction g = NULL;

	if (blocks_cu.func_get_module(&mod, f) == CUDA_SUCCESS && mod)
		return mod;
	if (blocks_cu.kernel_get_function &&
	    blocks_cu.kernel_get_function(&g, (CUkernel)f) == CUDA_SUCCESS && g &&
	    blocks_cu.func_get_module(&mod, g) == CUDA_SUCCESS)
		return mod;
	return NULL;
}

static void blocks_hand_ring(struct blocks_ctx *c, CUmodule mod)
{
	CUdeviceptr global = 0;
	size_t bytes = 0;

	if (blocks_cu.module_get_global(&global, &bytes, mod, SMTOP_TRACE_SYMBOL) != CUDA_SUCCESS)
		return; /* not an instrumented module */
	if (bytes != sizeof(uint64_t)) {
		log_debug("module %p: %s has %zu bytes, not a pointer", (void *)mod,
			  SMTOP_TRACE_SYMBOL, bytes);
		return;
	}
	if (atomic_load(&c->state) == BLOCKS_CTX_IDLE)
		blocks_start_ring(c);
	if (atomic_load(&c->state) != BLOCKS_CTX_READY)
		return;
	if (blocks_host->upload((void *)(uintptr_t)global, &c->ring_value, sizeof(c->ring_value), c->setup) != 0 ||
	    blocks_host->sync(c->setup) != 0)
		log_debug("module %p: storing the block ring failed", (void *)mod);
	else
		log_debug("block tracing on for module %p in context %u", (void *)mod, c->context_id);
}

/* Called on every launch: the common case (a function seen before) takes
 * one lock and one hash probe, and makes no driver call. */
void blocks_on_launch(CUcontext ctx, CUfunction f)
{
	struct blocks_ctx *c;
	CUstreamCaptureMode mode;
	CUmodule mod;
	int state;

	if (!blocks_enabled || !ctx || !f || blocks_tls_own)
		return;
	c = blocks_get(ctx);
	if (!c)
		return;
	state = atomic_load(&c->state);
	if (state != BLOCKS_CTX_IDLE && state != BLOCKS_CTX_READY)
		return;
	pthread_mutex_lock(&c->setup_lock);
	if (ptrset_add(&c->funcs, f)) {
		blocks_tls_own = 1;
		mode = blocks_relax();
		mod = blocks_module_of(f);
		if (mod && ptrset_add(&c->modules, mod))
			blocks_hand_ring(c, mod);
		blocks_unrelax(mode);
		blocks_tls_own = 0;
	}
	pthread_mutex_unlock(&c->setup_lock);
}

/* For a patching backend, inside its launch callback, where a driver call
 * can deadlock: the ring, its open-block table and the pinned image come
 * from the host's memory calls, initialised on the launch's stream before
 * the kernel runs.  The first drain thread does the driver's part
 * (streams, the SM count, the other threads) from outside the callback;
 * blocks written meanwhile wait in their lanes. */
static int blocks_start_patched(struct blocks_ctx *c, void *launch_stream)
{
	const struct blocks_host *m = blocks_host;
	void *ring = NULL, *open = NULL, *host = NULL;
	struct smtop_trace_ring *h;

	if (m->alloc(c->ctx, &ring, blocks_ring_bytes()) != 0 ||
	    m->alloc(c->ctx, &open, blocks_open_bytes()) != 0 ||
	    m->alloc_host(c->ctx, &host, blocks_ring_bytes()) != 0)
		return -1;
	c->ring = (CUdeviceptr)(uintptr_t)ring;
	c->open_blocks = (CUdeviceptr)(uintptr_t)open;
	c->host = h = host;
	c->ring_value = (uint64_t)c->ring;
	blocks_fill_header(c);
	if (m->memset(open, 0, blocks_open_bytes(), launch_stream) != 0 ||
	    m->memset(ring, 0, blocks_ring_bytes(), launch_stream) != 0 ||
	    m->upload(ring, h, sizeof(*h), launch_stream) != 0 || m->sync(launch_stream) != 0)
		return -1;
	c->n_groups = 1;
	c->groups[0].c = c;
	c->groups[0].lo = 0;
	c->groups[0].hi = SMTOP_TRACE_LANES;
	pthread_mutex_init(&c->groups[0].lock, NULL);
	if (pthread_create(&c->groups[0].thread, NULL, blocks_drain_main, &c->groups[0]) != 0)
		return -1;
	c->groups[0].thread_started = 1;
	return 0;
}

/* The first drain thread of a patched context, outside any callback: its
 * streams, the lanes split by the SM count, the other drain threads. */
static int blocks_finish_patched(struct blocks_ctx *c)
{
	unsigned n;

	if (blocks_cu.ctx_set_current(c->ctx) != CUDA_SUCCESS)
		return -1;
	blocks_plan_groups(c); /* group 0, this thread, drains nothing yet */
	n = c->n_groups;
	if (blocks_open_groups(c) != 0)
		return -1;
	atomic_store(&c->state, BLOCKS_CTX_READY);
	for (unsigned i = 1; i < n; i++) {
		struct blocks_group *g = &c->groups[i];

		if (pthread_create(&g->thread, NULL, blocks_drain_main, g) == 0) {
			g->thread_started = 1;
			continue;
		}
		pthread_mutex_lock(&c->groups[i - 1].lock);
		blocks_merge_group(c, i);
		pthread_mutex_unlock(&c->groups[i - 1].lock);
		break;
	}
	log_debug("block ring of %u lanes x %u slots for context %u (device %u), %u drain threads, patched",
		  SMTOP_TRACE_LANES, BLOCKS_LANE_CAPACITY, c->context_id, c->device_id, c->n_groups);
	return 0;
}

uint64_t blocks_context_ring(CUcontext ctx, uint32_t context_id, uint32_t device_id, void *launch_stream)
{
	struct blocks_ctx *c;
	uint64_t ring = 0;
	int state;

	if (!blocks_enabled || !ctx || blocks_tls_own || !(c = blocks_get(ctx)))
		return 0;
	state = atomic_load(&c->state);
	if (state == BLOCKS_CTX_READY || state == BLOCKS_CTX_SETUP)
		return c->ring_value;
	pthread_mutex_lock(&c->setup_lock);
	if (atomic_load(&c->state) == BLOCKS_CTX_IDLE) {
		c->context_id = context_id;
		c->device_id = device_id;
		blocks_tls_own = 1;
		atomic_store(&c->state, blocks_start_patched(c, launch_stream) == 0 ? BLOCKS_CTX_SETUP
										 : BLOCKS_CTX_FAILED);
		blocks_tls_own = 0;
		if (atomic_load(&c->state) == BLOCKS_CTX_FAILED)
			log_debug("block tracing off for context %u: the backend's memory calls failed",
				  context_id);
	}
	state = atomic_load(&c->state);
	if (state == BLOCKS_CTX_READY || state == BLOCKS_CTX_SETUP)
		ring = c->ring_value;
	pthread_mutex_unlock(&c->setup_lock);
	return ring;
}

void blocks_set_own_code(int own)
{
	blocks_tls_own = own;
}

void *blocks_patch_copy_stream(CUcontext ctx)
{
	CUstream s;

	if (!blocks_enabled || blocks_cu.ctx_set_current(ctx) != CUDA_SUCCESS ||
	    blocks_cu.stream_create(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
		return NULL;
	blocks_relax();
	return blocks_host->stream_handle(ctx, s);
}

/* A new module may reuse an unloaded one's address: forget what we saw. */
void blocks_on_module_unload(CUcontext ctx)
{
	struct blocks_ctx *c = blocks_find(ctx);

	if (!c)
		return;
	pthread_mutex_lock(&c->setup_lock);
	ptrset_clear(&c->funcs);
	ptrset_clear(&c->modules);
	pthread_mutex_unlock(&c->setup_lock);
}

int blocks_is_own_stream(uint32_t context_id, uint32_t stream_id)
{
	size_t n = atomic_load_explicit(&blocks_n_ctxs, memory_order_acquire);

	for (size_t i = 0; i < n; i++) {
		struct blocks_ctx *c = blocks_ctxs[i];
		uint32_t k = atomic_load(&c->n_own_streams);

		if (c->context_id != context_id)
			continue;
		for (uint32_t j = 0; j < k; j++)
			if (c->own_stream_ids[j] == stream_id)
				return 1;
	}
	return 0;
}

/* ---- draining ------------------------------------------------------------- */

/* The drain's copies, on the group's stream.  A patching backend's ring
 * lives in the sanitizer's memory, which the driver's copies refuse (CUDA
 * error on the H200): the host's calls are the sanitizer's own there. */
static int blocks_dtoh(struct blocks_group *g, void *dst, CUdeviceptr src, size_t bytes)
{
	return blocks_host->download(dst, (const void *)(uintptr_t)src, bytes, g->copy);
}

static int blocks_htod(struct blocks_group *g, CUdeviceptr dst, const void *src, size_t bytes)
{
	return blocks_host->upload((void *)(uintptr_t)dst, src, bytes, g->copy);
}

static int blocks_sync(struct blocks_group *g)
{
	return blocks_host->sync(g->copy);
}

/* Queues the copy of lane l's slots [from, from + n) into the pinned image. */
static int blocks_copy_lane(struct blocks_group *g, unsigned l, uint64_t from, uint64_t n)
{
	struct blocks_ctx *c = g->c;
	uint64_t mask = BLOCKS_LANE_CAPACITY - 1;
	size_t slot = sizeof(struct smtop_trace_slot);
	size_t base = offsetof(struct smtop_trace_ring, slots) + (size_t)l * BLOCKS_LANE_CAPACITY * slot;

	while (n > 0) {
		uint64_t pos = from & mask;
		uint64_t len = BLOCKS_LANE_CAPACITY - pos;

		if (len > n)
			len = n;
		if (blocks_dtoh(g, &blocks_lane_slots(c, l)[pos], c->ring + base + pos * slot, len * slot) != 0)
			return -1;
		from += len;
		n -= len;
	}
	return 0;
}

static void blocks_note_tick(const struct smtop_block *b, size_t n)
{
	char value[32];
	uint64_t tick;

	if (atomic_load(&blocks_tick_stored))
		return;
	tick = blocks_timer_tick(b, n, atomic_load(&blocks_tick));
	atomic_store(&blocks_tick, tick);
	if (atomic_fetch_add(&blocks_tick_samples, n) + n < BLOCKS_TICK_SAMPLES || tick == 0)
		return;
	if (atomic_exchange(&blocks_tick_stored, 1))
		return;
	snprintf(value, sizeof(value), "%" PRIu64, tick);
	writer_thread_set_meta("globaltimer_ns_per_tick", value);
}

static void blocks_note_in_flight(uint64_t n)
{
	uint64_t most = atomic_load_explicit(&blocks_most_in_flight, memory_order_relaxed);

	while (n > most && !atomic_compare_exchange_weak(&blocks_most_in_flight, &most, n))
		;
}

/* Packs n blocks of one SM into one chunk record for the writer.  Encoding
 * here, in the drain threads, keeps the one writer thread to SQLite work:
 * that is what lets the store keep up with tens of millions of blocks/s. */
void blocks_pack(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
		 uint8_t *scratch)
{
	struct smtop_record rec = { .kind = SMTOP_REC_CHUNK };
	struct smtop_chunk *k = &rec.u.chunk;

	if (n == 0)
		return;
	blocks_note_tick(b, n);
	k->len = (uint32_t)db_blockcodec_encode(b, n, scratch);
	k->data = malloc(k->len);
	if (!k->data) {
		drops_add(DROPS_BLOCKS, n);
		return;
	}
	memcpy(k->data, scratch, k->len);
	k->pid = blocks_pid;
	k->device_id = device_id;
	k->context_id = context_id;
	k->sm = b[0].sm;
	k->count = n;
	k->start = b[0].start;
	for (uint32_t i = 0; i < n; i++)
		if (b[i].end > k->end)
			k->end = b[i].end;
	blocks_note_in_flight(atomic_fetch_add(&blocks_in_flight, n) + n);
	if (ring_push(blocks_ring, &rec) != 0) {
		atomic_fetch_sub(&blocks_in_flight, n);
		drops_add(DROPS_BLOCKS, n);
		free(k->data);
	}
}

static void blocks_pack_stage(struct blocks_group *g, unsigned l)
{
	struct blocks_ctx *c = g->c;
	struct blocks_stage *st = &c->stage[l];
	uint32_t n = st->n;

	st->n = 0;
	blocks_pack(st->b, n, c->device_id, c->context_id, g->packed);
}

static void blocks_flush_stage(struct blocks_group *g, unsigned l)
{
	uint64_t t0 = clock_mono_ns();

	blocks_pack_stage(g, l);
	g->pack_ns += clock_mono_ns() - t0;
}

/* Stages that are old enough (or all of them, at the end) become chunks. */
static void blocks_flush_stages(struct blocks_group *g, uint64_t now, int all)
{
	for (unsigned l = g->lo; l < g->hi; l++)
		if (g->c->stage[l].n && (all || now - g->c->stage[l].since >= BLOCKS_STAGE_AGE_NS))
			blocks_flush_stage(g, l);
}

static int blocks_give_back(struct blocks_group *g)
{
	struct blocks_ctx *c = g->c;
	size_t off = offsetof(struct smtop_trace_ring, limit) + g->lo * sizeof(c->host->limit[0]);

	for (unsigned l = g->lo; l < g->hi; l++)
		c->host->limit[l] = c->read[l] + BLOCKS_LANE_CAPACITY;
	if (blocks_htod(g, c->ring + off, &c->host->limit[g->lo], (g->hi - g->lo) * sizeof(c->host->limit[0])) != 0)
		return -1;
	return blocks_sync(g);
}

/* Copies the group's lane counters, then, unless the writer is too far
 * behind, its lanes' new slots, with one synchronisation for all.  Slots left
 * on the GPU fill their lanes, whose drops the GPU counts.  The last drain
 * copies whatever is there: no later drain would store or count it. */
static int blocks_fetch(struct blocks_group *g, uint64_t *total, int last)
{
	struct blocks_ctx *c = g->c;
	size_t off = offsetof(struct smtop_trace_ring, lane) + g->lo * sizeof(c->host->lane[0]);
	int copy = last || atomic_load(&blocks_in_flight) <= BLOCKS_MAX_IN_FLIGHT;
	uint64_t dropped = 0;

	if (blocks_dtoh(g, &c->host->lane[g->lo], c->ring + off, (g->hi - g->lo) * sizeof(c->host->lane[0])) != 0 ||
	    blocks_sync(g) != 0)
		return -1;
	*total = 0;
	g->busiest = 0;
	for (unsigned l = g->lo; l < g->hi; l++) {
		uint64_t head = c->host->lane[l].head, n = head > c->read[l] ? head - c->read[l] : 0;

		dropped += c->host->lane[l].dropped;
		if (n > BLOCKS_LANE_CAPACITY)
			n = BLOCKS_LANE_CAPACITY;
		if (copy && n > g->busiest)
			g->busiest = n;
		c->fresh[l] = copy ? n : 0;
		g->held_back += !copy && n;
		*total += c->fresh[l];
		if (c->fresh[l] && blocks_copy_lane(g, l, c->read[l], n) != 0)
			return -1;
	}
	if (dropped > g->dropped_seen) {
		drops_add(DROPS_BLOCKS, dropped - g->dropped_seen);
		g->dropped_seen = dropped;
	}
	return *total && blocks_sync(g) != 0 ? -1 : 0;
}

/* Moves lane l's complete prefix into its stage, a chunk at a time. */
static size_t blocks_stage_lane(struct blocks_group *g, unsigned l, uint64_t now)
{
	struct blocks_ctx *c = g->c;
	struct blocks_stage *st = &c->stage[l];
	uint64_t left = c->fresh[l];
	size_t got = 0;

	if (!st->b && !(st->b = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof(*st->b))))
		return 0; /* the slots stay on the GPU: its full lane counts the drops */
	while (left) {
		uint64_t room = DB_BLOCKCODEC_MAX_BLOCKS - st->n, want = left < room ? left : room;
		size_t k = blocks_collect(blocks_lane_slots(c, l), BLOCKS_LANE_CAPACITY, c->read[l],
					  c->read[l] + want, (uint16_t)c->device_id, st->b + st->n);

		if (k && !st->n)
			st->since = now;
		if (k && blocks_host->observer) {
			uint64_t t0 = clock_mono_ns();
			blocks_host->observer(c->context_id, st->b + st->n, k);
			g->observe_ns += clock_mono_ns() - t0;
		}
		st->n += (uint32_t)k;
		c->read[l] += k;
		got += k;
		left -= k;
		if (st->n == DB_BLOCKCODEC_MAX_BLOCKS)
			blocks_flush_stage(g, l);
		if (k < want)
			break;
	}
	return got;
}

/* Keeps each lane's complete prefix; a slot half-written for too long belongs
 * to a block that died between its claim and its stores, and is skipped. */
static size_t blocks_collect_lanes(struct blocks_group *g, uint64_t now)
{
	struct blocks_ctx *c = g->c;
	size_t got = 0;

	for (unsigned l = g->lo; l < g->hi; l++) {
		size_t k = c->fresh[l] ? blocks_stage_lane(g, l, now) : 0;

		got += k;
		c->stall[l] = (k || !c->fresh[l]) ? 0 : c->stall[l] + 1;
		if (c->stall[l] >= BLOCKS_STALL_DRAINS) {
			drops_add(DROPS_BLOCKS, 1);
			c->read[l]++;
			c->stall[l] = 0;
		}
	}
	return got;
}

/* One pass over the group's lanes; `last` flushes every stage.  -1 on a CUDA
 * error. */
static int blocks_drain_once(struct blocks_group *g, int last)
{
	uint64_t total, now = clock_mono_ns();
	int r;

	if (blocks_fetch(g, &total, last) != 0)
		return -1;
	g->fetch_ns += clock_mono_ns() - now;
	if (total)
		g->drained += blocks_collect_lanes(g, now);
	blocks_flush_stages(g, now, last);
	r = total ? blocks_give_back(g) : 0;
	now = clock_mono_ns() - now;
	g->drain_ns += now;
	if (now > g->slowest_ns)
		g->slowest_ns = now;
	return r;
}

static void blocks_drain_locked(struct blocks_group *g, int last)
{
	struct blocks_ctx *c = g->c;

	if (atomic_load(&c->state) != BLOCKS_CTX_READY)
		return;
	if (blocks_drain_once(g, last) != 0) {
		blocks_flush_stages(g, 0, 1); /* what was staged is still good */
		/* The context is going or broken: stop touching it. */
		log_debug("block drain for context %u stopped after a CUDA error", c->context_id);
		atomic_store(&c->state, BLOCKS_CTX_DEAD);
	}
}

static void *blocks_drain_main(void *arg)
{
	struct blocks_group *g = arg;
	struct blocks_ctx *c = g->c;
	struct timespec period = { 0, BLOCKS_DRAIN_PERIOD_NS };

	blocks_tls_own = 1;
	if (atomic_load(&c->state) == BLOCKS_CTX_SETUP && g == &c->groups[0] &&
	    blocks_finish_patched(c) != 0) {
		log_debug("block tracing off for context %u: its drain could not start", c->context_id);
		atomic_store(&c->state, BLOCKS_CTX_DEAD);
		return NULL;
	}
	if (blocks_await_start(&c->state, &c->stop, BLOCKS_CTX_IDLE, BLOCKS_CTX_READY) &&
	    blocks_cu.ctx_set_current(c->ctx) == CUDA_SUCCESS) {
		blocks_relax();
		while (!atomic_load(&c->stop) && atomic_load(&c->state) == BLOCKS_CTX_READY) {
			/* A lane a quarter full means a burst: drain again at once,
			 * before the GPU starts dropping. */
			if (g->busiest < BLOCKS_LANE_CAPACITY / 4)
				nanosleep(&period, NULL);
			pthread_mutex_lock(&g->lock);
			if (!atomic_load(&c->stop))
				blocks_drain_locked(g, 0);
			pthread_mutex_unlock(&g->lock);
		}
	}
	return NULL;
}

/* Waits for a drain thread to leave, at most BLOCKS_JOIN_TIMEOUT_MS: it may
 * be stuck in a driver call that waits for the thread that called us. */
static int blocks_stop_group(struct blocks_group *g)
{
	struct timespec deadline;

	if (!g->thread_started)
		return 0;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += BLOCKS_JOIN_TIMEOUT_MS * 1000000L;
	deadline.tv_sec += deadline.tv_nsec / 1000000000L;
	deadline.tv_nsec %= 1000000000L;
	g->thread_started = 0;
	if (pthread_timedjoin_np(g->thread, NULL, &deadline) != 0) {
		pthread_detach(g->thread);
		return -1;
	}
	return 0;
}

static int blocks_stop_threads(struct blocks_ctx *c)
{
	int stuck = 0;

	atomic_store(&c->stop, 1);
	for (unsigned i = 0; i < c->n_groups; i++)
		stuck |= blocks_stop_group(&c->groups[i]) != 0;
	return stuck ? -1 : 0;
}

/* Drains every group twice (blocks still being written get a second
 * chance), the last time flushing every stage. */
static void blocks_drain_all(struct blocks_ctx *c)
{
	CUstreamCaptureMode mode;
	CUcontext popped;

	if (blocks_cu.ctx_push_current(c->ctx) != CUDA_SUCCESS)
		return;
	mode = blocks_relax();
	for (unsigned i = 0; i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		pthread_mutex_lock(&g->lock);
		blocks_drain_locked(g, 0);
		blocks_drain_locked(g, 1);
		pthread_mutex_unlock(&g->lock);
	}
	blocks_unrelax(mode);
	blocks_cu.ctx_pop_current(&popped);
}

/* Whatever is staged still reaches the session, even when the context broke.
 * A group whose thread is stuck keeps its lock, and its stages. */
static void blocks_flush_all_stages(struct blocks_ctx *c)
{
	uint64_t drained = 0, drain_ns = 0, fetch_ns = 0, observe_ns = 0, pack_ns = 0, slowest = 0, held = 0;

	for (unsigned i = 0; i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		if (pthread_mutex_trylock(&g->lock) != 0)
			continue;
		blocks_flush_stages(g, 0, 1);
		pthread_mutex_unlock(&g->lock);
		drained += g->drained;
		drain_ns += g->drain_ns;
		fetch_ns += g->fetch_ns;
		observe_ns += g->observe_ns;
		pack_ns += g->pack_ns;
		held += g->held_back;
		slowest = g->slowest_ns > slowest ? g->slowest_ns : slowest;
	}
	log_debug("context %u: %llu blocks drained by %u threads in %.3f s of drain time"
		  " (%.3f s copying them off the GPU, %.3f s in the kernel table, %.3f s packing chunks);"
		  " slowest drain %.1f ms; %llu lane drains held back, most blocks in flight %llu",
		  c->context_id, (unsigned long long)drained, c->n_groups, (double)drain_ns / 1e9,
		  (double)fetch_ns / 1e9, (double)observe_ns / 1e9, (double)pack_ns / 1e9, (double)slowest / 1e6,
		  (unsigned long long)held, (unsigned long long)atomic_load(&blocks_most_in_flight));
}

/* The last drain of a context, from whichever thread ends it. */
static void blocks_final_drain(struct blocks_ctx *c)
{
	int own = blocks_tls_own;
	int state = atomic_load(&c->state), stuck;

	if (state != BLOCKS_CTX_READY && state != BLOCKS_CTX_DEAD && state != BLOCKS_CTX_SETUP)
		return;
	stuck = blocks_stop_threads(c) != 0;
	blocks_tls_own = 1;
	if (!stuck && atomic_load(&c->state) == BLOCKS_CTX_READY)
		blocks_drain_all(c);
	blocks_flush_all_stages(c);
	atomic_store(&c->state, BLOCKS_CTX_FINISHED);
	blocks_tls_own = own;
}

void blocks_on_context_destroy(CUcontext ctx)
{
	struct blocks_ctx *c = blocks_find(ctx);

	if (c)
		blocks_final_drain(c);
}

void blocks_shutdown(void)
{
	size_t n = atomic_load(&blocks_n_ctxs);

	for (size_t i = 0; i < n; i++)
		blocks_final_drain(blocks_ctxs[i]);
}

/* ---- requests from demo workloads ----------------------------------------- */

__attribute__((visibility("default")))
void smtop_note_request(void *stream, uint64_t start_ns, uint64_t end_ns, const char *label)
{
	struct smtop_record rec = { .kind = SMTOP_REC_REQUEST };
	uint32_t id = 0;

	if (!blocks_ring || !writer_thread_running())
		return;
	if (blocks_host && blocks_host->stream_id)
		id = blocks_host->stream_id(stream);
	rec.u.request.start = start_ns;
	rec.u.request.end = end_ns;
	rec.u.request.pid = blocks_pid;
	rec.u.request.stream_id = id;
	rec.u.request.label = label ? strdup(label) : NULL;
	ring_push(blocks_ring, &rec);
}
