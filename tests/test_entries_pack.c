/* Entry-only tracing's packer (collectors/entries_pack.c): every block
 * handed to it is observed and packed exactly once, one SM a chunk, a chunk
 * at most DB_BLOCKCODEC_MAX_BLOCKS and packed once it is old. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <time.h>

#include "collectors/entries_pack.h"
#include "db/blockcodec.h"

#define BLOCKS 300000u
#define SMS 132u /* %smid of the H200 */

static uint8_t *packed_count; /* by block index */
static size_t observed, chunks, mixed_chunks, oversized_chunks;

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
	chunks++;
	oversized_chunks += n > DB_BLOCKCODEC_MAX_BLOCKS;
	for (uint32_t i = 0; i < n; i++) {
		mixed_chunks += b[i].sm != b[0].sm;
		packed_count[b[i].block]++;
	}
}

static void reset(void)
{
	packed_count = calloc(BLOCKS, 1);
	observed = chunks = mixed_chunks = oversized_chunks = 0;
}

static void put_all(struct entries_packer *p, uint64_t now)
{
	static struct smtop_block batch[4096];
	uint32_t at = 0;

	while (at < BLOCKS) {
		size_t n = 0;

		for (; n < 4096 && at < BLOCKS; n++, at++)
			batch[n] = (struct smtop_block){ .grid_id = 1 + at / 2048, .block = at, .sm = (uint16_t)(at % SMS),
							 .start = 1000 + at, .end = 2000 + at };
		entries_packer_put(p, batch, n, now);
	}
}

Test(entries_pack, every_block_is_observed_and_packed_once, .init = reset)
{
	struct entries_packer *p = entries_packer_start(2, 7, observe, pack);
	size_t wrong = 0;

	cr_assert_not_null(p);
	put_all(p, 1000);
	cr_expect_eq(observed, BLOCKS, "observed as they are put");
	entries_packer_stop(p);
	for (uint32_t i = 0; i < BLOCKS; i++)
		wrong += packed_count[i] != 1;
	cr_expect_eq(wrong, 0, "%zu blocks packed other than once", wrong);
	cr_expect_eq(mixed_chunks, 0, "a chunk holds one SM's blocks");
	cr_expect_eq(oversized_chunks, 0);
	cr_expect_geq(chunks, BLOCKS / DB_BLOCKCODEC_MAX_BLOCKS);
	free(packed_count);
}

Test(entries_pack, a_chunk_is_packed_once_it_is_old, .init = reset)
{
	struct entries_packer *p = entries_packer_start(2, 7, observe, pack);
	struct smtop_block b = { .grid_id = 1, .block = 5, .sm = 3, .start = 10, .end = 20 };

	entries_packer_put(p, &b, 1, 1000);
	entries_packer_tick(p, 1000 + ENTRIES_PACK_AGE_NS - 1);
	cr_expect_eq(chunks, 0, "younger than ENTRIES_PACK_AGE_NS");
	entries_packer_tick(p, 1000 + ENTRIES_PACK_AGE_NS);
	cr_expect_eq(chunks, 1);
	cr_expect_eq(packed_count[5], 1);
	entries_packer_stop(p);
	cr_expect_eq(chunks, 1, "nothing left to pack");
	free(packed_count);
}
