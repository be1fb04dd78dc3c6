/* The Compute Sanitizer backend's table of streams
 * (collectors/sanitizer_streams.c): a handle's stream, the default streams
 * of contexts and green contexts behind one special handle, and handles
 * destroyed and made again. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "collectors/sanitizer_streams.h"

static struct streams t;

static void reset(void)
{
	memset(&t, 0, sizeof t);
}

static void *handle(uintptr_t v)
{
	return (void *)v;
}

static uint32_t id_of(uintptr_t stream, uint32_t ctx, const struct stream_user *u)
{
	struct stream_entry *s = streams_of(&t, handle(stream), ctx, 0, u);

	cr_assert_not_null(s, "stream %#lx of context %u has no entry", (unsigned long)stream, ctx);
	return s->id;
}

TestSuite(sanitizer_streams, .init = reset);

Test(sanitizer_streams, streams_numbered_as_they_come)
{
	cr_expect_eq(id_of(0x1000, 1, NULL), 1);
	cr_expect_eq(id_of(0x2000, 1, NULL), 2);
	cr_expect_eq(id_of(0x1000, 1, NULL), 1, "a stream seen again keeps its number");
	cr_expect_eq(streams_by_id(&t, 2)->stream, handle(0x2000));
	cr_expect_null(streams_by_id(&t, 3));
}

Test(sanitizer_streams, the_special_handles)
{
	cr_expect(streams_special(NULL));
	cr_expect(streams_special(handle(1)), "CU_STREAM_LEGACY");
	cr_expect(streams_special(handle(2)), "CU_STREAM_PER_THREAD");
	cr_expect_not(streams_special(handle(0x1000)));
}

/* The green-contexts demo: each partition's thread makes its green context
 * current and launches its set-up kernels on the legacy stream, which the
 * sanitizer's callbacks name by the primary context (1) and the handle. */
Test(sanitizer_streams, each_green_context_has_its_default_stream)
{
	struct stream_user inference = { { handle(0xa000), 7 }, 1 }, training = { { handle(0xb000), 8 }, 2 };
	uint32_t primary = id_of(1, 1, NULL);
	uint32_t a = id_of(1, 1, &inference), b = id_of(1, 1, &training);

	cr_expect_neq(a, primary);
	cr_expect_neq(b, primary);
	cr_expect_neq(a, b);
	cr_expect_eq(id_of(1, 1, &inference), a);
	cr_expect_eq(id_of(1, 1, &training), b);
	cr_expect_eq(streams_by_id(&t, a)->user.green.green, inference.green.green);
	cr_expect_eq(streams_by_id(&t, a)->user.green.uid, 7);
	cr_expect_null(streams_by_id(&t, primary)->user.green.green);
}

/* A green context's handle freed and taken by another: told apart by the
 * driver's id. */
Test(sanitizer_streams, a_reused_green_handle_is_another_green_context)
{
	struct stream_user first = { { handle(0xa000), 7 }, 1 }, second = { { handle(0xa000), 9 }, 1 };

	cr_expect_neq(id_of(0, 1, &first), id_of(0, 1, &second));
}

/* CU_STREAM_PER_THREAD is each thread's own stream; the legacy stream is
 * one for all the threads of a context. */
Test(sanitizer_streams, each_thread_has_its_per_thread_stream)
{
	struct stream_user one = { { NULL, 0 }, 0x100 }, two = { { NULL, 0 }, 0x200 };
	uint32_t a = id_of(2, 1, &one), b = id_of(2, 1, &two);

	cr_expect_neq(a, b);
	cr_expect_eq(id_of(2, 1, &one), a);
	cr_expect_eq(id_of(1, 1, &one), id_of(1, 1, &two), "the legacy stream is the context's");
	cr_expect_eq(id_of(0, 1, &one), id_of(0, 1, &two), "so is the NULL stream");
}

Test(sanitizer_streams, two_contexts_have_two_null_streams)
{
	uint32_t dev0 = id_of(0, 1, NULL), dev1 = id_of(0, 2, NULL);

	cr_expect_neq(dev0, dev1);
	cr_expect_eq(streams_by_id(&t, dev1)->context_id, 2);
	cr_expect_eq(id_of(0, 2, NULL), dev1);
}

/* A stream made by the program is its handle's, whatever the thread had
 * current: its green context is asked of the driver by handle. */
Test(sanitizer_streams, a_made_stream_ignores_the_thread_green_context)
{
	struct stream_user g = { { handle(0xa000), 7 }, 1 };
	uint32_t s = id_of(0x1000, 1, NULL);

	cr_expect_eq(id_of(0x1000, 1, &g), s);
	cr_expect_eq(id_of(0x1000, 2, NULL), s, "a made stream is found by its handle alone");
	cr_expect_null(streams_by_id(&t, s)->user.green.green);
}

Test(sanitizer_streams, a_destroyed_handle_made_again_is_a_new_stream)
{
	uint32_t old = id_of(0x1000, 1, NULL);

	streams_by_id(&t, old)->gone = 1;
	cr_expect_neq(id_of(0x1000, 1, NULL), old);
	cr_expect_eq(streams_by_id(&t, old)->stream, handle(0x1000), "the old entry stays for its held launches");
}

/* A program that makes and destroys streams all along reuses the entries
 * of streams gone and answered, never one still waiting for the driver. */
Test(sanitizer_streams, a_full_table_reuses_answered_streams_gone)
{
	for (uintptr_t i = 0; i < STREAMS_MAX; i++)
		id_of(0x10000 + i * 16, 1, NULL);
	cr_expect_null(streams_of(&t, handle(0x8), 1, 0, NULL), "full of live streams");
	streams_by_id(&t, 5)->gone = 1;
	cr_expect_null(streams_of(&t, handle(0x8), 1, 0, NULL), "gone but not answered: launches may wait on it");
	streams_by_id(&t, 5)->answered = 1;
	cr_expect_eq(id_of(0x8, 1, NULL), STREAMS_MAX + 1);
	cr_expect_null(streams_by_id(&t, 5));
	cr_expect_eq(t.n, STREAMS_MAX);
}
