/* The streams the Compute Sanitizer backend has seen, numbered as they
 * come, as CUPTI numbers them (collectors/sanitizer_host.c asks the driver
 * about each outside the callbacks).
 *
 * The callbacks name a stream by its handle.  A special handle (NULL,
 * CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) names a default stream of the
 * context current to the thread that used it: one stream per context, and
 * per green context made current in it, whose launches the callbacks name
 * by the primary context and the handle alone; the per-thread one is, in
 * addition, each thread's own.  A handle the program destroyed may come
 * back for a new stream, which gets a number of its own.
 *
 * Linear, newest first; a full table reuses the entry of a stream gone and
 * already answered.  Not thread-safe: the backend holds its ids lock. */
#ifndef SMTOP_COLLECTORS_SANITIZER_STREAMS_H
#define SMTOP_COLLECTORS_SANITIZER_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define STREAMS_MAX 4096

/* A green context as the driver names it: its handle (NULL: none) and its
 * id (0: unknown), which outlives the handle's reuse. */
struct green_ref {
	void *green;
	unsigned long long uid;
};

/* What a special handle names depends on the thread that used it: the
 * green context current to it, and for CU_STREAM_PER_THREAD the thread
 * itself (thread: any key unique among live threads). */
struct stream_user {
	struct green_ref green;
	uint64_t thread;
};

/* record_ctx: the context the stream's records name when it is not the
 * one their callbacks name: its green context's number (0: none);
 * answered once the host thread asked the driver.  user: for a special
 * handle, the thread that used it. */
struct stream_entry {
	void *stream;
	uint32_t id, context_id, device_id;
	uint32_t record_ctx;
	struct stream_user user;
	int described, answered, gone;
};

/* All zero is an empty table. */
struct streams {
	struct stream_entry e[STREAMS_MAX];
	size_t n;
	uint32_t last_id;
};

/* NULL, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD. */
int streams_special(void *stream);

/* The entry of stream in context context_id (on device_id), a new one if
 * it was not seen; u (NULL: no green context, no thread) is the thread
 * that used a special handle, and is ignored for any other.  NULL when the
 * table is full of live streams. */
struct stream_entry *streams_of(struct streams *t, void *stream, uint32_t context_id, uint32_t device_id,
				const struct stream_user *u);

/* The stream numbered id, or NULL (its entry was reused). */
struct stream_entry *streams_by_id(struct streams *t, uint32_t id);

#pragma GCC visibility pop

#endif
