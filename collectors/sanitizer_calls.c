/* The Compute Sanitizer backend's records of driver calls: synchronize
 * calls, asynchronous copies and memsets, event records and stream waits,
 * each numbered with the launches (collectors/sanitizer.c). */
#ifdef SMTOP_HAVE_SANITIZER

#include <pthread.h>

#include "collectors/entries.h"
#include "collectors/patch_switch.h"
#include "collectors/sanitizer_convert.h"
#include "collectors/sanitizer_state.h"
#include "src/core/clock.h"

/* The synchronize call this thread is in: its start (0: none) and the
 * stream it waits for. */
static _Thread_local uint64_t sz_tls_sync_start;
static _Thread_local void *sz_tls_sync_stream;
static _Thread_local uint64_t sz_tls_sync_seq; /* --sm entry: launches before it */
static _Thread_local uint64_t sz_tls_sync_epoch; /* sz_callbacks_epoch at its start */

/* --sm entry: a synchronous copy to the host that this thread began.  It
 * returns only once the copy, and so every launch before it on its stream,
 * has ended; its return is not seen, so the thread's next call that smtop
 * sees stands for it.  seq 0: none. */
struct sz_copy_wait {
	CUcontext ctx;
	uint32_t stream;
	uint64_t seq, epoch;
};
static _Thread_local struct sz_copy_wait sz_tls_copy;

/* The green context current to this thread (none for a regular context),
 * asked whenever its launch or stream synchronize call into a special
 * handle names another context.  Its work on a special handle (the NULL or
 * legacy stream) runs on that green context's default stream, though the
 * sanitizer's callbacks inside the calls name the primary context and the
 * handle; a copy, memset or event in a domain callback takes the one of
 * this thread's last such call. */
static _Thread_local struct green_ref sz_tls_green;
static _Thread_local const void *sz_tls_green_of;

static void sz_note_call_context(const void *ctx)
{
	if (ctx == sz_tls_green_of)
		return;
	sz_tls_green_of = ctx;
	sz_tls_green = sz_current_green();
}

/* A launch or stream synchronize call into a special handle, whose stream
 * depends on the thread's current context.  Only these ask the driver: a
 * thread whose calls name made streams alone (one capturing a graph, say)
 * is never asked about. */
static int sz_call_on_special_stream(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d, int32_t type,
				     void *handle)
{
	CUstream stream;

	if (type)
		return type == SANITIZER_SYNC_STREAM && streams_special(handle);
	return sanitizer_launch_stream(cbid, d->functionParams, &stream) && streams_special(stream);
}

/* This thread, as its special handles' streams are keyed: its green
 * context, and a key unique among live threads (its variable's address)
 * for its own per-thread stream. */
struct stream_user sz_thread_user(void)
{
	return (struct stream_user){ .green = sz_tls_green, .thread = (uint64_t)(uintptr_t)&sz_tls_green };
}

static struct sz_call sz_call_of(CUcontext ctx, CUstream stream, int has_stream)
{
	struct stream_user user;
	struct sz_call k;
	struct sz_context *c;
	struct stream_entry *s;

	pthread_mutex_lock(&sz_ids_lock);
	c = sz_context_of(ctx, 0);
	user = sz_thread_user();
	s = has_stream ? sz_stream_in(stream, c, &user) : NULL;
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
void sz_send_call(struct smtop_record *rec, const struct sz_call *k)
{
	const struct stream_entry *s;
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

/* The synchronous copy this thread began has returned by now: the
 * launches before it on its stream had ended (unless the callbacks went
 * off and on since, which began another recording). */
static void sz_copy_returned(void)
{
	if (!sz_tls_copy.seq)
		return;
	if (sz_tls_copy.epoch == atomic_load(&sz_callbacks_epoch))
		entries_synced(sz_tls_copy.ctx, sz_tls_copy.stream, sz_tls_copy.seq, clock_real_ns());
	sz_tls_copy.seq = 0;
}

/* A synchronous copy to the host waits for its stream, as a synchronize
 * call on it would (one from the host or between devices need not). */
static void sz_copy_began(const Sanitizer_MemcpyData *d, CUcontext ctx, CUstream stream)
{
	struct sz_call k;

	if (!sz_entries || d->direction != SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_HOST)
		return;
	k = sz_call_of(ctx, stream, 1);
	if (k.stream_id) /* 0 would bound every stream */
		sz_tls_copy = (struct sz_copy_wait){ .ctx = ctx, .stream = k.stream_id,
						     .seq = entries_launched(ctx),
						     .epoch = atomic_load(&sz_callbacks_epoch) };
}

/* Asynchronous copies and memsets hold their stream back; a synchronous
 * copy to the host holds the host too. */
void sz_on_copy(Sanitizer_CallbackDomain domain, const void *data)
{
	struct smtop_record rec;
	struct sz_call k;

	sz_copy_returned();
	if (domain == SANITIZER_CB_DOMAIN_MEMCPY) {
		const Sanitizer_MemcpyData *d = data;
		CUcontext ctx = d->srcContext ? d->srcContext : d->dstContext;
		CUstream stream = d->srcStream ? d->srcStream : d->dstStream;

		if (!d->isAsync) {
			sz_copy_began(d, ctx, stream);
			return;
		}
		k = sz_call_of(ctx, stream, 1);
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

void sz_on_event(Sanitizer_CallbackId cbid, const Sanitizer_EventData *d)
{
	struct smtop_record rec;
	struct sz_call k;

	sz_copy_returned();
	k = sz_call_of(d->context, d->stream, 1);
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
		sz_tls_sync_epoch = atomic_load(&sz_callbacks_epoch);
		return;
	}
	end = clock_real_ns();
	/* a call that began before the callbacks went off and on again
	 * began in another recording */
	if (!sz_tls_sync_start || sz_tls_sync_epoch != atomic_load(&sz_callbacks_epoch)) {
		sz_tls_sync_start = 0;
		return;
	}
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
void sz_on_stream_synchronized(const Sanitizer_SynchronizeData *d)
{
	if (sz_tls_sync_start)
		sz_tls_sync_stream = d->stream;
}

/* A call that loads code waits at the patch switch's gate as a launch
 * does: inside the driver it patches its modules, holding the driver's
 * locks, which a switch beside it could wait for. */
static void sz_on_load_call(const Sanitizer_CallbackData *d)
{
	if (!sz_entries)
		return;
	if (d->callbackSite == SANITIZER_API_ENTER)
		patch_switch_call_enter(PATCH_CALL_LOAD);
	else
		patch_switch_call_exit();
}

/* A driver API callback: a synchronize call, a load call, or a launch
 * call. */
void sz_on_driver_call(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *d)
{
	void *handle;
	int32_t type = sanitizer_sync_call_type(sz_ids, cbid, d->functionParams, &handle);

	sz_copy_returned();
	if (sanitizer_is_load_call(sz_ids, cbid)) {
		sz_on_load_call(d);
		return;
	}
	/* at the entry of a launch or synchronize call the driver holds
	 * nothing that asking it could wait for */
	if (d->callbackSite == SANITIZER_API_ENTER && sz_call_on_special_stream(cbid, d, type, handle))
		sz_note_call_context(d->context);
	if (type)
		sz_on_sync_call(type, handle, d);
	else
		sz_on_launch_call(cbid, d);
}

#endif
