/* The Compute Sanitizer backend's records into the ring: kernel records
 * from the launches and the blocks the drains take, and the records timed
 * by the host's clock, held until they can go onto %globaltimer
 * (collectors/sanitizer.c). */
#ifdef SMTOP_HAVE_SANITIZER

#include <pthread.h>

#include "collectors/convert.h"
#include "collectors/launch_shards.h"
#include "collectors/log.h"
#include "collectors/ring.h"
#include "collectors/sanitizer_state.h"
#include "src/core/clock.h"

/* ---- kernel records, from the drains ------------------------------------------ */

void sz_push(struct smtop_record *recs, size_t n)
{
	if (n)
		ring_push_many(sz_ring, recs, n);
}

void sz_push_records(struct smtop_record *recs, size_t n)
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
 * thread, and at the end with what is known by then): mapped with no
 * bound, synchronizations ended before the kernels they waited for
 * (docs/collector.md).  Past SZ_HELD_MAX, records go out unmapped. */
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
void sz_send_host_timed(struct smtop_record *rec, const struct sz_call *k, uint32_t device)
{
	struct sz_held h = { .rec = *rec, .call = k != NULL, .device = device };

	if (k)
		h.k = *k;
	if (sz_bound_known(device) || !sz_hold(&h))
		sz_send_mapped(&h);
}

/* The held records whose device's bound is known; all of them at the end
 * and when recording goes off (forced). */
void sz_release_held(int forced)
{
	/* the host thread and a switch off may release at once: out is theirs
	 * in turn, and records go out in the order they were held */
	static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;
	static struct sz_held out[SZ_HELD_MAX];
	size_t n = 0, keep = 0;

	pthread_mutex_lock(&release_lock);
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
	pthread_mutex_unlock(&release_lock);
}

/* NVTX ranges, as the other host-timed records. */
void sz_push_host_timed(struct smtop_record *rec)
{
	sz_send_host_timed(rec, NULL, SZ_NVTX_DEVICE);
}

void sz_add_launch(const struct launch_info *info)
{
	/* its idle age starts now */
	if (launch_shards_add(sz_table, clock_mono_ns(), info) != 0)
		log_debug("out of memory: the kernel record of %s is lost", info->name ? info->name : "?");
}

void sz_observe_blocks(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	launch_shards_note_blocks(sz_table, clock_mono_ns(), context_id, b, n);
}

void sz_observe_entries(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	launch_shards_note_scattered(sz_table, clock_mono_ns(), context_id, b, n);
}

void sz_flush_stale(uint64_t idle_ns)
{
	launch_shards_take_stale(sz_table, clock_mono_ns(), idle_ns);
}

#endif
