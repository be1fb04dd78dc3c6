#include "collectors/sanitizer_streams.h"

int streams_special(void *stream)
{
	return (uintptr_t)stream <= 2;
}

static int streams_is(const struct stream_entry *s, void *stream, uint32_t context_id,
		      const struct green_ref *g)
{
	if (s->stream != stream || s->gone)
		return 0;
	if (!streams_special(stream))
		return 1;
	return s->context_id == context_id && s->green.green == g->green && s->green.uid == g->uid;
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
				const struct green_ref *g)
{
	static const struct green_ref none;
	struct stream_entry *slot;

	if (!g || !streams_special(stream))
		g = &none;
	for (size_t i = t->n; i-- > 0;)
		if (streams_is(&t->e[i], stream, context_id, g))
			return &t->e[i];
	slot = streams_free_entry(t);
	if (slot)
		*slot = (struct stream_entry){ .stream = stream, .id = ++t->last_id, .context_id = context_id,
					       .device_id = device_id, .green = *g };
	return slot;
}

struct stream_entry *streams_by_id(struct streams *t, uint32_t id)
{
	for (size_t i = t->n; i-- > 0;)
		if (t->e[i].id == id)
			return &t->e[i];
	return NULL;
}
