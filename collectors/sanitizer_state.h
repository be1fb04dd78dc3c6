/* The Compute Sanitizer backend's state and the functions its files share:
 * collectors/sanitizer.c (the callbacks, module patching, start and stop,
 * the backends), sanitizer_lib.c (the libraries and the sanitizer's memory
 * calls), sanitizer_host.c (contexts', streams' and functions' numbers, and
 * the host thread that asks the driver about them), sanitizer_calls.c (the
 * records of synchronize calls, copies, memsets and events),
 * sanitizer_records.c (kernel records and the records held until their
 * host times can be mapped) and sanitizer_switch.c (--sm entry's patches
 * switched at run time).  Private to them, and only with the sanitizer's
 * headers (SMTOP_HAVE_SANITIZER): everything else goes through
 * collectors/sanitizer.h. */
#ifndef SMTOP_COLLECTORS_SANITIZER_STATE_H
#define SMTOP_COLLECTORS_SANITIZER_STATE_H

#ifdef SMTOP_HAVE_SANITIZER

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <sanitizer.h>

#include "collectors/blocks.h"
#include "collectors/patch_switch.h"
#include "collectors/sanitizer_convert.h"
#include "collectors/sanitizer_streams.h"
#include "src/core/records.h"

#pragma GCC visibility push(hidden)

#define SZ_MAX_CONTEXTS 64

struct launch_info;
struct launch_shards;
struct ring;

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

/* The backend's numbers of an operation's context and stream (none when
 * !has_stream: a context or event synchronize), and its call number,
 * shared with the launches.  ctx_id is the context its records name
 * (the stream's green context's, see stream_entry); pending: the host thread
 * has not asked about the stream yet (ctx_id is the callback's). */
struct sz_call {
	uint32_t corr, dev, ctx_id, stream_id;
	int pending;
};

/* collectors/sanitizer.c */
extern struct ring *sz_ring;
extern uint32_t sz_pid;
extern uint32_t sz_correlation; /* under sz_ids_lock */
extern _Thread_local int sz_tls_own;
extern int sz_entries;          /* --sm entry (and exact) */
extern int sz_exact;            /* --sm exact */
extern int sz_entry_warps;      /* SMTOP_ENTRY_PER=warp */
extern struct launch_shards *sz_table;
int sz_patch_as(CUmodule mod, enum patch_mode mode);
int sz_unpatch(CUmodule mod);
int sz_set_launch_data(void *launch, CUfunction f, void *stream, const void *data);
uint64_t sz_gpu_clock_bound(uint32_t device, uint64_t host_ns);
void sz_on_launch_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d);
/* The callbacks that only feed a recording, on or off (off while recording
 * is, unless SMTOP_DORMANT_QUIET=0). */
void sz_recording_callbacks(int on);
/* Counts the times they came back on: a call whose enter callback came
 * before is not paired with its exit after. */
extern _Atomic uint64_t sz_callbacks_epoch;
void sz_gate_callbacks(int on, int with_modules);
/* Leaves the sanitizer loaded with no subscriber (SMTOP_DORMANT_BARE=3):
 * nothing of smtop's is called from then on. */
void sz_unsubscribe(void);

/* collectors/sanitizer_lib.c */
extern struct sz_api sz;
extern struct sz_cu sz_cu;
extern const struct sanitizer_numbering *sz_ids;
extern char sz_patch_path[PATH_MAX];
const char *sz_error(SanitizerResult r);
int sz_load(char *reason, size_t len);
int sz_find_patches(char *reason, size_t len);
int sz_mem_alloc(CUcontext ctx, void **dev, size_t bytes);
int sz_mem_alloc_host(CUcontext ctx, void **host, size_t bytes);
int sz_mem_set(void *dev, int value, size_t bytes, void *stream);
int sz_mem_upload(void *dev, const void *host, size_t bytes, void *stream);
int sz_mem_download(void *host, const void *dev, size_t bytes, void *stream);
void *sz_mem_stream_handle(CUcontext ctx, CUstream stream);
int sz_mem_sync(void *stream);

/* collectors/sanitizer_host.c */
extern pthread_mutex_t sz_ids_lock;
extern struct sz_context sz_contexts[SZ_MAX_CONTEXTS];
extern size_t sz_n_contexts;
extern struct sanitizer_parked sz_parked;
extern _Atomic int sz_host_stop;
/* Unloads that waited for the host thread's question about one of their
 * functions. */
extern _Atomic uint64_t sz_forget_waits;
struct sz_context *sz_context_of(CUcontext ctx, CUdevice device);
struct stream_entry *sz_stream_of(CUstream stream, const struct sz_context *c);
struct stream_entry *sz_stream_in(CUstream stream, const struct sz_context *c, const struct stream_user *u);
/* The green context current to this thread (none for a regular one). */
struct green_ref sz_current_green(void);
struct stream_entry *sz_stream_by_id(uint32_t id);
uint32_t sz_stream_id(void *stream);

/* blocks_host.context_ids: ctx's numbers as the records give them (its
 * resource callback named it before any launch in it). */
void sz_context_ids(CUcontext ctx, uint32_t *context_id, uint32_t *device_id);
int sz_func_attributes(CUfunction f, CUmodule module, struct launch_info *info);
void sz_forget_module(CUmodule mod);
void sz_fill_attributes(struct launch_info *info);
void sz_unpark(uint32_t stream_id, uint32_t context_id);
void sz_describe_new(void);
void *sz_host_main(void *arg);
void sz_describe_again(void);

/* collectors/sanitizer_calls.c */
struct stream_user sz_thread_user(void);
void sz_send_call(struct smtop_record *rec, const struct sz_call *k);
void sz_on_copy(Sanitizer_CallbackDomain domain, const void *data);
void sz_on_event(Sanitizer_CallbackId cbid, const Sanitizer_EventData *d);
void sz_on_stream_synchronized(const Sanitizer_SynchronizeData *d);
void sz_on_driver_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d);

/* collectors/sanitizer_records.c */
void sz_push(struct smtop_record *recs, size_t n);
void sz_push_records(struct smtop_record *recs, size_t n);
void sz_send_host_timed(struct smtop_record *rec, const struct sz_call *k, uint32_t device);
void sz_release_held(int forced);
void sz_push_host_timed(struct smtop_record *rec);
void sz_add_launch(const struct launch_info *info);
void sz_observe_blocks(uint32_t context_id, const struct smtop_block *b, size_t n);
/* The entry drain's closed blocks (launch_shards_note_scattered). */
void sz_observe_entries(uint32_t context_id, const struct smtop_block *b, size_t n);
void sz_flush_stale(uint64_t idle_ns);

/* collectors/sanitizer_switch.c */
void sz_start_switching(const struct blocks_host *mem);
void sz_start_windows(void);
void sz_stop_switching(void);
int sz_set_recording(int on, char *reason, size_t len);

#pragma GCC visibility pop

#endif /* SMTOP_HAVE_SANITIZER */

#endif
