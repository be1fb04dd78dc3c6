/* The Compute Sanitizer backend's numbers for contexts, streams and
 * functions, and its host thread, which asks the driver about each of them
 * outside any callback (collectors/sanitizer.c). */
#ifdef SMTOP_HAVE_SANITIZER

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "collectors/log.h"
#include "collectors/ring.h"
#include "collectors/sanitizer_convert.h"
#include "collectors/sanitizer_funcs.h"
#include "collectors/sanitizer_state.h"
#include "src/core/clock.h"
#include "src/core/threads.h"

#define SZ_HOST_PERIOD_NS 20000000L
/* A kernel still short of blocks this long after its last one lost some
 * (the lanes counted them): its record goes out with what came. */
#define SZ_STALE_NS 2000000000ull
/* Under --sm entry a kernel's last blocks stay open until something bounds
 * their end (collectors/slot_bounds.h), and its lost blocks are counted at
 * its launch: only a kernel whose launch died waits this long. */
#define SZ_ENTRY_STALE_NS 30000000000ull
/* How long an unloading module waits for the host thread's question about
 * one of its functions: the driver frees them once the unload goes on. */
#define SZ_FORGET_WAIT_NS 1000000000ull

pthread_mutex_t sz_ids_lock = PTHREAD_MUTEX_INITIALIZER;
struct sz_context sz_contexts[SZ_MAX_CONTEXTS];
size_t sz_n_contexts;
static struct streams sz_streams;
static struct funcs sz_funcs;
/* The module of the function the host thread is asking the driver about
 * (NULL: none), and the signal that it is done (under sz_ids_lock). */
static const void *sz_asking_module;
static pthread_cond_t sz_asked = PTHREAD_COND_INITIALIZER;
static uint32_t sz_devices_described; /* bit d: device d's record sent */

/* Copies, memsets and events of streams not asked about yet (under
 * sz_ids_lock). */
struct sanitizer_parked sz_parked;

_Atomic int sz_host_stop;
_Atomic uint64_t sz_forget_waits;

/* ---- ids -------------------------------------------------------------------- */

/* Callers hold sz_ids_lock. */
struct sz_context *sz_context_of(CUcontext ctx, CUdevice device)
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

/* Stream's entry in context c; for a special handle, u is the thread that
 * used it.  Callers hold sz_ids_lock. */
struct stream_entry *sz_stream_in(CUstream stream, const struct sz_context *c, const struct stream_user *u)
{
	return streams_of(&sz_streams, stream, c ? c->id : 0, c ? (uint32_t)c->device : 0, u);
}

/* Stream's entry where the thread that used it does not matter (a stream
 * created or destroyed, the lanes' own): a special handle names the
 * context's own default stream. */
struct stream_entry *sz_stream_of(CUstream stream, const struct sz_context *c)
{
	return sz_stream_in(stream, c, NULL);
}

void sz_context_ids(CUcontext ctx, uint32_t *context_id, uint32_t *device_id)
{
	const struct sz_context *c;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(ctx, 0);
	*context_id = c ? c->id : 0;
	*device_id = c ? (uint32_t)c->device : 0;
	pthread_mutex_unlock(&sz_ids_lock);
}

/* Only for what waits for a stream's context: the launches find theirs
 * by handle. */
struct stream_entry *sz_stream_by_id(uint32_t id)
{
	return streams_by_id(&sz_streams, id);
}

uint32_t sz_stream_id(void *stream)
{
	struct stream_entry *s;
	uint32_t id = 0;

	pthread_mutex_lock(&sz_ids_lock);
	s = sz_stream_of(stream, sz_n_contexts ? &sz_contexts[0] : NULL);
	if (s)
		id = s->id;
	pthread_mutex_unlock(&sz_ids_lock);
	return id;
}

static void sz_put_attributes(struct launch_info *info, const struct func_attrs *a)
{
	info->registers = a->registers;
	info->static_smem = a->static_smem;
	info->local_mem = a->local_mem;
}

/* From a launch of f, of module: its record's attributes, when the host
 * thread knew them, and its function's key; 1 when f was not listed (its
 * first launch since its module loaded, or one of a full table). */
int sz_func_attributes(CUfunction f, CUmodule module, struct launch_info *info)
{
	struct func_attrs a;
	int first = funcs_launched(&sz_funcs, f, module, &info->function_key, &a);

	sz_put_attributes(info, &a);
	return first;
}

/* A held launch's function: its attributes once the driver answered; one
 * forgotten with its module before that (or never listed) goes without. */
static void sz_fill_function(struct launch_info *info)
{
	struct func_attrs a = { 0 };

	switch (funcs_known(&sz_funcs, info->function, info->function_key, &a)) {
	case FUNCS_WAITING:
		return;
	case FUNCS_KNOWN:
		sz_put_attributes(info, &a);
		if (a.registers)
			return;
		break;
	case FUNCS_GONE:
		break;
	}
	info->function = NULL; /* nothing more to wait for */
}

/* Module mod unloads: its functions are forgotten, once a question about
 * one of them under way has been answered. */
void sz_forget_module(CUmodule mod)
{
	struct timespec at = clock_mono_timespec(clock_mono_ns() + SZ_FORGET_WAIT_NS);
	int waited = 0, gave_up = 0;

	pthread_mutex_lock(&sz_ids_lock);
	while (mod && sz_asking_module == mod && !gave_up) {
		waited = 1;
		gave_up = pthread_cond_clockwait(&sz_asked, &sz_ids_lock, CLOCK_MONOTONIC, &at) == ETIMEDOUT &&
			  sz_asking_module == mod;
	}
	funcs_forget_module(&sz_funcs, mod);
	pthread_mutex_unlock(&sz_ids_lock);
	if (waited)
		atomic_fetch_add(&sz_forget_waits, 1);
	if (gave_up)
		log_debug("module %p unloads while the driver has not answered about one of its functions", (void *)mod);
}

/* The context a launch's record names, once the host thread has asked
 * about its stream: a green context's for its streams.  A stream whose
 * entry is gone names the launch's.  Under sz_ids_lock. */
static void sz_launch_stream_context(struct launch_info *info)
{
	const struct stream_entry *s = sz_stream_by_id(info->stream_id);

	if (s && !s->answered)
		return;
	info->record_context_id = s ? s->record_ctx : 0;
	info->stream_pending = 0;
}

/* launches_set_fill's: a function's first launch, or its stream's, came
 * before the host thread had asked the driver about it; by the time its
 * blocks are in, it usually has (called under a shard's lock; sz_ids_lock is
 * never held while taking one). */
void sz_fill_attributes(struct launch_info *info)
{
	pthread_mutex_lock(&sz_ids_lock);
	if (info->function && !info->registers)
		sz_fill_function(info);
	if (info->stream_pending)
		sz_launch_stream_context(info);
	pthread_mutex_unlock(&sz_ids_lock);
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

/* What the driver says of handle's context on this thread: its green
 * context, if it is one. */
static struct green_ref sz_ask_green(CUstream handle)
{
	struct green_ref g = { 0 };
	CUcontext ctx = NULL;

	if (!sz_cu.stream_get_ctx_v2 || sz_cu.stream_get_ctx_v2(handle, &ctx, &g.green) != CUDA_SUCCESS)
		g.green = NULL;
	if (g.green && (!sz_cu.green_ctx_get_id || sz_cu.green_ctx_get_id(g.green, &g.uid) != CUDA_SUCCESS))
		g.uid = 0;
	return g;
}

/* Asked on a workload's thread at a launch or synchronize call's entry,
 * where the driver holds nothing this call could wait for; the callbacks
 * of the call itself are ignored. */
struct green_ref sz_current_green(void)
{
	struct green_ref g;
	int own = sz_tls_own;

	sz_tls_own = 1;
	g = sz_ask_green((CUstream)CU_STREAM_LEGACY);
	sz_tls_own = own;
	return g;
}

/* Stream s's green context (NULL: none, or not to be asked).  A special
 * handle would name this thread's context, not the launching thread's,
 * which that thread told (sz_stream_in). */
static struct green_ref sz_stream_green(const struct stream_entry *s)
{
	struct green_ref none = { 0 };

	if (streams_special(s->stream))
		return s->user.green;
	if (s->gone)
		return none;
	return sz_ask_green(s->stream);
}

/* The number of green context g, whose streams launch through context
 * parent on device: a new one is numbered after the contexts seen so far,
 * as CUPTI numbers contexts as they come (*made set); 0 when the table is
 * full.  Under sz_ids_lock. */
static uint32_t sz_green_context_of(const struct green_ref *g, uint32_t parent, uint32_t device, int *made)
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
void sz_unpark(uint32_t stream_id, uint32_t context_id)
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
static void sz_stream_answered(size_t slot, const struct stream_entry *s, uint32_t record_ctx)
{
	pthread_mutex_lock(&sz_ids_lock);
	if (sz_streams.e[slot].id == s->id) {
		sz_streams.e[slot].record_ctx = record_ctx;
		sz_streams.e[slot].answered = 1;
	}
	sz_unpark(s->id, record_ctx);
	pthread_mutex_unlock(&sz_ids_lock);
}

/* The number of stream s's green context (0: none), whose record goes out
 * the first time one of its streams is seen. */
static uint32_t sz_stream_green_id(const struct stream_entry *s)
{
	struct green_ref g = sz_stream_green(s);
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
static void sz_describe_stream(size_t slot, const struct stream_entry *s)
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

static void sz_describe_function(const struct func_entry *f, struct func_attrs *a)
{
	CUfunction fn = (CUfunction)(uintptr_t)f->f;
	int v;

	*a = (struct func_attrs){ 0 };
	if (!sz_cu.func_get_attribute)
		return;
	if (sz_cu.func_get_attribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) == CUDA_SUCCESS)
		a->registers = (uint32_t)v;
	if (sz_cu.func_get_attribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) == CUDA_SUCCESS)
		a->static_smem = (uint32_t)v;
	if (sz_cu.func_get_attribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn) == CUDA_SUCCESS)
		a->local_mem = (uint32_t)v;
}

/* The driver's answer about f, which an unload of its module waits for. */
static void sz_ask_function(const struct func_entry *f)
{
	struct func_attrs a;

	sz_describe_function(f, &a);
	pthread_mutex_lock(&sz_ids_lock);
	funcs_answer(&sz_funcs, f->f, f->key, &a);
	sz_asking_module = NULL;
	pthread_cond_broadcast(&sz_asked);
	pthread_mutex_unlock(&sz_ids_lock);
}

/* Asks the driver about what the callbacks saw, one item at a time under
 * the lock (the driver call itself runs outside it: a launch callback waits
 * for the lock, and the driver may wait for that launch). */
void sz_describe_new(void)
{
	for (;;) {
		struct sz_context c = { 0 };
		struct stream_entry s = { 0 };
		struct func_entry f;
		size_t slot = 0;
		int what = 0;

		pthread_mutex_lock(&sz_ids_lock);
		for (size_t i = 0; !what && i < sz_n_contexts; i++)
			if (!sz_contexts[i].described) {
				sz_contexts[i].described = 1;
				c = sz_contexts[i];
				what = 1;
			}
		for (size_t i = 0; !what && i < sz_streams.n; i++)
			if (!sz_streams.e[i].described) {
				sz_streams.e[i].described = 1;
				s = sz_streams.e[i];
				slot = i;
				what = 2;
			}
		if (!what && funcs_take_question(&sz_funcs, &f)) {
			sz_asking_module = f.module;
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
			sz_ask_function(&f);
		} else {
			return;
		}
	}
}

void *sz_host_main(void *arg)
{
	struct timespec period = { 0, SZ_HOST_PERIOD_NS };

	(void)arg;
	sz_tls_own = 1;
	while (!atomic_load(&sz_host_stop)) {
		nanosleep(&period, NULL);
		sz_describe_new();
		sz_flush_stale(sz_entries ? SZ_ENTRY_STALE_NS : SZ_STALE_NS);
		sz_release_held(0);
	}
	/* the last questions now: stopped at exit before the CUDA runtime's
	 * exit handlers, while the driver still knows the functions (the
	 * collector's final flush comes after those handlers) */
	sz_describe_new();
	return NULL;
}

/* Recording switched on opens a new session, which lacks the device,
 * context and stream records sent before: the host thread sends them
 * again. */
void sz_describe_again(void)
{
	pthread_mutex_lock(&sz_ids_lock);
	for (size_t i = 0; i < sz_n_contexts; i++)
		sz_contexts[i].described = 0;
	for (size_t i = 0; i < sz_streams.n; i++)
		sz_streams.e[i].described = sz_streams.e[i].gone;
	sz_devices_described = 0;
	pthread_mutex_unlock(&sz_ids_lock);
}

#endif
