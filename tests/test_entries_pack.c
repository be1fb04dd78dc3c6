/* The packers of entry-only tracing (collectors/entries_pack.c): every block
 * handed to them is shown to the observer and packed exactly once, each
 * chunk holds one SM's blocks, and a packer that falls behind makes the
 * drain wait rather than lose blocks. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/entries_pack.h"
#include "db/blockcodec.h"

#define BLOCKS 300000u
#define SMS 132u /* %smid of the H200 */

static pthread_mutex_t packed_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *packed_count; /* by block index */
static _Atomic size_t observed, chunks, mixed_chunks, oversized_chunks;
static _Atomic int slow_ms;

static void observe(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	(void)b;
	cr_expect_eq(context_id, 7);
	observed += n;
}

static void pack(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id, uint8_t *scratch)
{
	(void)scratch;
	cr_expect_eq(device_id, 2);
	cr_expect_eq(context_id, 7);
	if (slow_ms) {
		struct timespec t = { 0, slow_ms * 1000000L };
		nanosleep(&t, NULL);
	}
	chunks++;
	oversized_chunks += n > DB_BLOCKCODEC_MAX_BLOCKS;
	pthread_mutex_lock(&packed_lock);
	for (uint32_t i = 0; i < n; i++) {
		mixed_chunks += b[i].sm != b[0].sm;
		packed_count[b[i].block]++;
	}
	pthread_mutex_unlock(&packed_lock);
}

static void put_all(struct entries_packers *p, unsigned sms)
{
	static struct smtop_block batch[4096];
	uint32_t at = 0;

	while (at < BLOCKS) {
		size_t n = 0;

		for (; n < 4096 && at < BLOCKS; n++, at++)
			batch[n] = (struct smtop_block){ .grid_id = 1 + at / 2048, .block = at, .sm = (uint16_t)(at % sms),
							 .start = 1000 + at, .end = 2000 + at };
		entries_packers_put(p, batch, n);
	}
}

static void check_each_once(void)
{
	size_t wrong = 0;

	for (uint32_t i = 0; i < BLOCKS; i++)
		wrong += packed_count[i] != 1;
	cr_expect_eq(wrong, 0, "%zu blocks packed other than once", wrong);
	cr_expect_eq(observed, BLOCKS);
	cr_expect_eq(mixed_chunks, 0, "a chunk holds one SM's blocks");
	cr_expect_eq(oversized_chunks, 0);
}

static void reset(void)
{
	packed_count = calloc(BLOCKS, 1);
	observed = chunks = mixed_chunks = oversized_chunks = 0;
	slow_ms = 0;
}

Test(entries_pack, every_block_is_observed_and_packed_once, .init = reset)
{
	struct entries_packers *p = entries_packers_start(3, 2, 7, observe, pack);

	cr_assert_not_null(p);
	put_all(p, SMS);
	entries_packers_stop(p);
	check_each_once();
	cr_expect_geq(chunks, BLOCKS / DB_BLOCKCODEC_MAX_BLOCKS);
	free(packed_count);
}

Test(entries_pack, a_packer_behind_makes_the_drain_wait_and_loses_nothing, .init = reset)
{
	/* 2 ms a chunk of 4 SMs' blocks, 73 chunks: its queue (65,536 blocks)
	 * fills and the puts wait */
	struct entries_packers *p;

	slow_ms = 2;
	p = entries_packers_start(1, 2, 7, observe, pack);
	cr_assert_not_null(p);
	put_all(p, 4);
	entries_packers_stop(p);
	check_each_once();
	free(packed_count);
}

Test(entries_pack, without_threads_the_caller_packs_alike, .init = reset)
{
	struct entries_packers *p = entries_packers_start(0, 2, 7, observe, pack);

	cr_assert_not_null(p);
	put_all(p, SMS);
	cr_expect_eq(observed, BLOCKS, "observed as they are put");
	entries_packers_stop(p);
	check_each_once();
	free(packed_count);
}

Test(entries_pack, the_count_is_bounded)
{
	cr_expect_null(entries_packers_start(ENTRIES_PACKERS_MAX + 1, 0, 0, NULL, pack));
}
