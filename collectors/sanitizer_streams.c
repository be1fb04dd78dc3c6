#include "collectors/sanitizer_streams.h"

int streams_special(void *stream)
{
	return (uintptr_t)stream <= 2;
}

/* CU_STREAM_PER_THREAD: each thread's own default stream. */
static int streams_per_thread(void *stream)
{
	return (uintptr_t)stream == 2;
}

static int streams_is(const struct stream_entry *s, void *stream, uint32_t context_id,
		      const struct stream_user *u)
{
	if (s->stream != stream || s->gone)
		return 0;
	if (!streams_special(stream))
		return 1;
	return s->context_id == context_id && s->user.green.green == u->green.green &&
	       s->user.green.uid == u->green.uid && s->user.thread == u->thread;
}

/* The entry a new stream takes: a free one, else one of a stream gone and
 * already answered (held launches and parked records look streams up by
 * id, and an answered one has none waiting). */
static struct stream_entry *streams_free_entry(struct streams *t)
{
	if (t->n < STREAMS_MAX)
		return &t->e[t->n++];
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].gone && t->e[i].answered)
			return &t->e[i];
	return NULL;
}

struct stream_entry *streams_of(struct streams *t, void *stream, uint32_t context_id, uint32_t device_id,
				const struct stream_user *u)
{
	struct stream_user key = { 0 };
	struct stream_entry *slot;

	if (u && streams_special(stream)) {
		key.green = u->green;
		key.thread = streams_per_thread(stream) ? u->thread : 0;
	}
	for (size_t i = t->n; i-- > 0;)
		if (streams_is(&t->e[i], stream, context_id, &key))
			return &t->e[i];
	slot = streams_free_entry(t);
	if (slot)
		*slot = (struct stream_entry){ .stream = stream, .id = ++t->last_id, .context_id = context_id,
					       .device_id = device_id, .user = key };
	return slot;
}

struct stream_entry *streams_by_id(struct streams *t, uint32_t id)
{
	for (size_t i = t->n; i-- > 0;)
		if (t->e[i].id == id)
			return &t->e[i];
	return NULL;
}
