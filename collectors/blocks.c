#include "collectors/blocks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/blocks_state.h"
#include "collectors/driver.h"
#include "collectors/log.h"
#include "collectors/ptrset.h"
#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/blockcodec.h"
#include "src/core/pool.h"
#include "src/core/threads.h"

#define BLOCKS_GRID_MASK 0xffffffffffffull

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

struct blocks_cu blocks_cu;

/* ---- per-context state -------------------------------------------------- */

struct ring *blocks_ring;
uint32_t blocks_pid;
static int blocks_enabled;
static pthread_mutex_t blocks_ctxs_lock = PTHREAD_MUTEX_INITIALIZER;
struct blocks_ctx *blocks_ctxs[BLOCKS_MAX_CONTEXTS];
_Atomic size_t blocks_n_ctxs;
_Thread_local int blocks_tls_own;
/* The backend's (blocks_set_host). */
const struct blocks_host *blocks_host;

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
CUstreamCaptureMode blocks_relax(void)
{
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;

	if (blocks_cu.exchange_capture_mode)
		blocks_cu.exchange_capture_mode(&mode);
	return mode;
}

void blocks_unrelax(CUstreamCaptureMode mode)
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

struct smtop_trace_slot *blocks_lane_slots(struct blocks_ctx *c, unsigned l)
{
	return &c->host->slots[(size_t)l * BLOCKS_LANE_CAPACITY];
}

struct blocks_ctx *blocks_find(CUcontext ctx)
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

/* A drain thread per blocks_host.cpus_per_drain CPUs (or per CPU kept for
 * the collector), at most BLOCKS_MAX_GROUPS (SMTOP_DRAIN_THREADS
 * overrides), each owning an equal share of the SMs' lanes. */
static void blocks_plan_groups(struct blocks_ctx *c)
{
	unsigned n = (unsigned)pool_threads_beside_program(getenv("SMTOP_DRAIN_THREADS"), blocks_host->cpus_per_drain,
							   BLOCKS_MAX_GROUPS);
	unsigned span = blocks_sm_count();

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

/* A context whose ring cannot be had records no block of its kernels built
 * with the header: said once on stderr, not only under SMTOP_DEBUG, since
 * nothing else in the session would show the blocks are missing. */
static void blocks_off(struct blocks_ctx *c, const char *why)
{
	atomic_store(&c->state, BLOCKS_CTX_FAILED);
	log_fail("pid %u: thread blocks of CUDA context %u are not recorded: %s", blocks_pid, c->context_id, why);
}

/* The ring (on the GPU and as much pinned, blocks.h) and its drain threads exist
 * only once a module that can use them is launched: a workload without
 * instrumented kernels (PyTorch) pays nothing for them. */
static void blocks_start_ring_current(struct blocks_ctx *c)
{
	int err;

	blocks_plan_groups(c);
	err = blocks_alloc(c);
	if (!err)
		err = blocks_init_ring(c);
	for (unsigned i = 0; !err && i < c->n_groups; i++) {
		struct blocks_group *g = &c->groups[i];

		if (thread_start(&g->thread, "smtop-drain", blocks_drain_main, g) == 0)
			g->thread_started = 1;
		else if (i == 0)
			err = -1;
		else
			blocks_merge_group(c, i); /* its lanes go to the group before */
	}
	if (err) {
		blocks_off(c, "its block ring or drain threads could not be set up");
		return;
	}
	atomic_store(&c->state, BLOCKS_CTX_READY);
	log_debug("block ring of %u lanes x %u slots for context %u (device %u), %u drain threads",
		  SMTOP_TRACE_LANES, BLOCKS_LANE_CAPACITY, c->context_id, c->device_id, c->n_groups);
}

/* The launching thread's current context may be another: a green context
 * made current launches work that the sanitizer names under the primary,
 * and a stream made in the green one is no stream of the primary's (its
 * memset jumped to address 0 inside the driver).  The ring's streams,
 * memory and SM count are c's own. */
static void blocks_start_ring(struct blocks_ctx *c)
{
	CUcontext popped;

	if (blocks_cu.ctx_push_current(c->ctx) != CUDA_SUCCESS) {
		blocks_off(c, "it cannot be made current");
		return;
	}
	blocks_start_ring_current(c);
	blocks_cu.ctx_pop_current(&popped);
}

static struct blocks_ctx *blocks_create(CUcontext ctx)
{
	struct blocks_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ctx = ctx;
	pthread_mutex_init(&c->setup_lock, NULL);
	pthread_mutex_init(&c->traced_lock, NULL);
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

static void blocks_note_traced(struct blocks_ctx *c, CUmodule mod, int traced)
{
	pthread_mutex_lock(&c->traced_lock);
	ptrmap_put(&c->traced, mod, (uint32_t)traced);
	pthread_mutex_unlock(&c->traced_lock);
}

/* Under setup_lock: stores the ring in mod when it carries the header's
 * pointer; 1 when it does.  It counts as traced before the store, so that
 * a launch racing with it is never recorded twice (once by the backend,
 * once by the header); a failed store takes that back. */
static int blocks_hand_ring(struct blocks_ctx *c, CUmodule mod)
{
	CUdeviceptr global = 0;
	size_t bytes = 0;

	if (blocks_cu.module_get_global(&global, &bytes, mod, SMTOP_TRACE_SYMBOL) != CUDA_SUCCESS)
		return 0; /* not an instrumented module */
	if (bytes != sizeof(uint64_t)) {
		log_debug("module %p: %s has %zu bytes, not a pointer", (void *)mod,
			  SMTOP_TRACE_SYMBOL, bytes);
		return 0;
	}
	if (atomic_load(&c->state) == BLOCKS_CTX_IDLE)
		blocks_start_ring(c);
	if (atomic_load(&c->state) != BLOCKS_CTX_READY)
		return 0;
	blocks_note_traced(c, mod, 1);
	if (blocks_host->upload((void *)(uintptr_t)global, &c->ring_value, sizeof(c->ring_value), c->setup) != 0 ||
	    blocks_host->sync(c->setup) != 0) {
		blocks_note_traced(c, mod, 0);
		log_fail("pid %u: thread blocks of module %p are not recorded: storing the block ring into it failed",
			 blocks_pid, (void *)mod);
		return 0;
	}
	log_debug("block tracing on for module %p in context %u", (void *)mod, c->context_id);
	return 1;
}

int blocks_image_may_hold_ring(const void *image, size_t size)
{
	/* the symbol table holds the name with its terminating NUL */
	return !image || !size || memmem(image, size, SMTOP_TRACE_SYMBOL, sizeof SMTOP_TRACE_SYMBOL) != NULL;
}

/* Under setup_lock: whether mod holds the ring, handing it over at the
 * module's first sight. */
static uint32_t blocks_module_hold(struct blocks_ctx *c, CUmodule mod)
{
	uint32_t held = 0;

	if (!mod)
		return 0;
	if (ptrmap_get(&c->modules, mod, &held))
		return held;
	held = (uint32_t)blocks_hand_ring(c, mod);
	ptrmap_put(&c->modules, mod, held);
	return held;
}

/* Called on every launch: the common case (a function seen before) takes
 * one lock and one hash probe, and makes no driver call. */
int blocks_on_launch(CUcontext ctx, CUfunction f)
{
	struct blocks_ctx *c;
	CUstreamCaptureMode mode;
	uint32_t held = 0;
	int state;

	if (!blocks_enabled || !ctx || !f || blocks_tls_own)
		return 0;
	c = blocks_get(ctx);
	if (!c)
		return 0;
	state = atomic_load(&c->state);
	if (state != BLOCKS_CTX_IDLE && state != BLOCKS_CTX_READY)
		return 0;
	pthread_mutex_lock(&c->setup_lock);
	if (!ptrmap_get(&c->funcs, f, &held)) {
		blocks_tls_own = 1;
		mode = blocks_relax();
		held = blocks_module_hold(c, blocks_module_of(f));
		blocks_unrelax(mode);
		blocks_tls_own = 0;
		ptrmap_put(&c->funcs, f, held);
	}
	pthread_mutex_unlock(&c->setup_lock);
	return (int)held;
}

int blocks_module_traced(CUcontext ctx, CUmodule mod)
{
	struct blocks_ctx *c = ctx && mod ? blocks_find(ctx) : NULL;
	uint32_t traced = 0;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->traced_lock);
	if (!ptrmap_get(&c->traced, mod, &traced))
		traced = 0;
	pthread_mutex_unlock(&c->traced_lock);
	return traced != 0;
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
	if (thread_start(&c->groups[0].thread, "smtop-drain", blocks_drain_main, &c->groups[0]) != 0)
		return -1;
	c->groups[0].thread_started = 1;
	return 0;
}

/* The first drain thread of a patched context, outside any callback: its
 * streams, the lanes split by the SM count, the other drain threads. */
int blocks_finish_patched(struct blocks_ctx *c)
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

		if (thread_start(&g->thread, "smtop-drain", blocks_drain_main, g) == 0) {
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
		if (blocks_start_patched(c, launch_stream) == 0)
			atomic_store(&c->state, BLOCKS_CTX_SETUP);
		else
			blocks_off(c, "the Compute Sanitizer's memory calls failed");
		blocks_tls_own = 0;
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
	ptrmap_clear(&c->funcs);
	ptrmap_clear(&c->modules);
	pthread_mutex_lock(&c->traced_lock);
	ptrmap_clear(&c->traced);
	pthread_mutex_unlock(&c->traced_lock);
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
