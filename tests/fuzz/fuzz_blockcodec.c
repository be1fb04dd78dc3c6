/* The block chunk codec (db/blockcodec.c, format in docs/session-format.md).
 * Decoding takes any bytes: damage is refused, never read past.  What decodes
 * must encode and decode back to the same blocks (sorted, with an end before
 * its start moved to the start, as the encoder stores them).  The input read
 * as raw blocks must survive encode and decode unchanged the same way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/blockcodec.h"
#include "tests/fuzz/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct smtop_block blocks[DB_BLOCKCODEC_MAX_BLOCKS];
static struct smtop_block again[DB_BLOCKCODEC_MAX_BLOCKS];
static uint8_t packed[DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS)];

static int same_blocks(const struct smtop_block *a, const struct smtop_block *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].start != b[i].start || a[i].end != b[i].end || a[i].grid_id != b[i].grid_id ||
		    a[i].block != b[i].block || a[i].sm != b[i].sm || a[i].device_id != b[i].device_id ||
		    a[i].flags != b[i].flags)
			return 0;
	return 1;
}

/* Encodes blocks[0..n) (what the writer would store for SM 7 of device 1)
 * and checks that decoding gives them back in the encoder's order. */
static void check_round_trip(size_t n)
{
	struct smtop_block want[DB_BLOCKCODEC_MAX_BLOCKS];
	size_t len;
	long got;

	for (size_t i = 0; i < n; i++) {
		blocks[i].sm = 7;
		blocks[i].device_id = 1;
		if (blocks[i].end < blocks[i].start)
			blocks[i].end = blocks[i].start;
	}
	memcpy(want, blocks, n * sizeof *want);
	qsort(want, n, sizeof *want, db_blockcodec_cmp);
	len = db_blockcodec_encode(blocks, n, packed);
	fuzz_check(n == 0 ? len == 0 : len > 0, "encode refused blocks it should take");
	if (!n)
		return;
	fuzz_check(len <= DB_BLOCKCODEC_MAX_BYTES(n), "encode wrote past its worst case");
	got = db_blockcodec_decode(packed, len, 7, 1, again, n);
	fuzz_check(got == (long)n, "an encoded chunk does not decode");
	fuzz_check(same_blocks(want, again, n), "decode(encode(blocks)) differs from the blocks");
	if (n > 1)
		fuzz_check(db_blockcodec_decode(packed, len, 7, 1, again, n - 1) == -1,
			   "decode wrote more blocks than its room");
}

/* The input as a chunk blob. */
static void decode_input(const uint8_t *data, size_t size)
{
	uint32_t count = 0;
	uint64_t base = 0;
	long n = db_blockcodec_decode(data, size, 7, 1, blocks, DB_BLOCKCODEC_MAX_BLOCKS);
	int header = db_blockcodec_header(data, size, &count, &base);

	if (n < 0)
		return;
	fuzz_check(header == 0 && count == (uint32_t)n, "header and decode disagree on the count");
	/* a smaller room must be refused, not overrun */
	if (n > 0) {
		struct smtop_block *tight = malloc((size_t)(n - 1) * sizeof *tight + 1);

		fuzz_check(db_blockcodec_decode(data, size, 7, 1, tight, (size_t)n - 1) == -1,
			   "decode wrote more blocks than its room");
		free(tight);
	}
	check_round_trip((size_t)n);
}

/* The input as raw blocks: 28 bytes each (start, duration, grid, block);
 * the start's low bit says whether the end is a bound. */
static void encode_input(const uint8_t *data, size_t size)
{
	size_t n = size / 28;

	if (n > DB_BLOCKCODEC_MAX_BLOCKS)
		n = DB_BLOCKCODEC_MAX_BLOCKS;
	for (size_t i = 0; i < n; i++, data += 28) {
		uint64_t dur;

		memcpy(&blocks[i].start, data, 8);
		memcpy(&dur, data + 8, 8);
		memcpy(&blocks[i].grid_id, data + 16, 8);
		memcpy(&blocks[i].block, data + 24, 4);
		blocks[i].end = blocks[i].start + dur;
		/* an end that is a bound (--sm entry): version 2 chunks */
		blocks[i].flags = data[0] & SMTOP_BLOCK_END_BOUND;
	}
	check_round_trip(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_input(data, size);
	encode_input(data, size);
	return 0;
}
