#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "db/blockcodec.h"
#include "tests/support/db_support.h"

/* Encodes a copy of in[0..n), decodes, and checks the same multiset of blocks. */
static size_t round_trip(const struct smtop_block *in, size_t n, uint16_t sm)
{
	struct smtop_block *work = malloc(n * sizeof *work), *want = malloc(n * sizeof *want);
	struct smtop_block *got = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof *got);
	uint8_t *buf = malloc(DB_BLOCKCODEC_MAX_BYTES(n));
	size_t len;
	uint32_t count;
	uint64_t base;

	memcpy(work, in, n * sizeof *in);
	memcpy(want, in, n * sizeof *in);
	for (size_t i = 0; i < n; i++) {
		want[i].sm = sm;
		want[i].device_id = 3;
		if (want[i].end < want[i].start)
			want[i].end = want[i].start;
	}
	qsort(want, n, sizeof *want, db_blockcodec_cmp);
	len = db_blockcodec_encode(work, n, buf);
	cr_assert_gt(len, 0);
	cr_assert_leq(len, DB_BLOCKCODEC_MAX_BYTES(n));
	cr_assert_eq(db_blockcodec_header(buf, len, &count, &base), 0);
	cr_assert_eq(count, n);
	cr_assert_eq(base, want[0].start);
	cr_assert_eq(db_blockcodec_decode(buf, len, sm, 3, got, DB_BLOCKCODEC_MAX_BLOCKS), (long)n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(work[i].start, want[i].start, "block %zu sorted in place", i);
		cr_assert_eq(work[i].end, want[i].end, "block %zu sorted in place", i);
		cr_assert_eq(work[i].grid_id, want[i].grid_id, "block %zu sorted in place", i);
		cr_assert_eq(work[i].block, want[i].block, "block %zu sorted in place", i);
		cr_assert_eq(got[i].start, want[i].start, "block %zu start", i);
		cr_assert_eq(got[i].end, want[i].end, "block %zu end", i);
		cr_assert_eq(got[i].grid_id, want[i].grid_id, "block %zu grid", i);
		cr_assert_eq(got[i].block, want[i].block, "block %zu index", i);
		cr_assert_eq(got[i].sm, sm);
		cr_assert_eq(got[i].device_id, 3);
	}
	free(work);
	free(want);
	free(got);
	free(buf);
	return len;
}

Test(blockcodec, one_block)
{
	struct smtop_block b = { .grid_id = 42, .start = 1764480000123456789ull,
				 .end = 1764480000123466789ull, .block = 7, .sm = 5 };

	round_trip(&b, 1, 5);
}

Test(blockcodec, full_chunk_of_random_blocks)
{
	struct smtop_block *b = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof *b);
	uint64_t seed = 1;

	for (size_t i = 0; i < DB_BLOCKCODEC_MAX_BLOCKS; i++) {
		uint64_t s = 1000000000000ull + db_support_rand(&seed) % 100000000ull;

		b[i] = (struct smtop_block){ .grid_id = db_support_rand(&seed),
					     .start = s, .end = s + db_support_rand(&seed) % 1000000,
					     .block = (uint32_t)db_support_rand(&seed) };
	}
	round_trip(b, DB_BLOCKCODEC_MAX_BLOCKS, 131);
	free(b);
}

Test(blockcodec, equal_starts_and_zero_durations)
{
	struct smtop_block b[64];

	for (int i = 0; i < 64; i++)
		b[i] = (struct smtop_block){ .grid_id = 9, .start = 5000, .end = i % 2 ? 5000 : 9000,
					     .block = (uint32_t)(63 - i) };
	round_trip(b, 64, 0);
}

Test(blockcodec, huge_gaps_and_extremes)
{
	struct smtop_block b[] = {
		{ .grid_id = UINT64_MAX, .start = 0, .end = 1, .block = UINT32_MAX },
		{ .grid_id = 0, .start = 1, .end = UINT64_MAX / 2, .block = 0 },
		{ .grid_id = 1ull << 47, .start = UINT64_MAX / 4, .end = UINT64_MAX / 4 + 3,
		  .block = 1u << 31 },
		{ .grid_id = UINT64_MAX, .start = UINT64_MAX / 2, .end = UINT64_MAX / 2, .block = 1 },
	};

	round_trip(b, 4, 1);
}

Test(blockcodec, grid_id_going_backwards_and_interleaved)
{
	struct smtop_block b[300];

	for (int i = 0; i < 300; i++)
		b[i] = (struct smtop_block){ .grid_id = (uint64_t)(300 - i % 5 * 50),
					     .start = 1000 + (uint64_t)i * 64,
					     .end = 1000 + (uint64_t)i * 64 + 640,
					     .block = (uint32_t)(i / 5 * 132) };
	round_trip(b, 300, 2);
}

Test(blockcodec, end_before_start_is_clamped)
{
	struct smtop_block b = { .grid_id = 1, .start = 100, .end = 50, .block = 0 };

	round_trip(&b, 1, 0);
}

Test(blockcodec, realistic_blocks_pack_small)
{
	enum { N = 200000, SMS = 132 };
	struct smtop_block *all = malloc(N * sizeof *all), *per_sm = malloc(N * sizeof *per_sm);
	uint64_t seed = 7, bytes = 0, blocks = 0;

	db_support_synthetic_blocks(all, N, 1764480000000000000ull, SMS, &seed);
	for (uint16_t sm = 0; sm < SMS; sm++) {
		size_t n = 0;

		for (size_t i = 0; i < N; i++)
			if (all[i].sm == sm)
				per_sm[n++] = all[i];
		for (size_t off = 0; off < n; off += DB_BLOCKCODEC_MAX_BLOCKS) {
			size_t k = n - off < DB_BLOCKCODEC_MAX_BLOCKS ? n - off : DB_BLOCKCODEC_MAX_BLOCKS;

			bytes += round_trip(per_sm + off, k, sm);
			blocks += k;
		}
	}
	cr_log_info("%.2f bytes per block", (double)bytes / (double)blocks);
	cr_assert_lt((double)bytes / (double)blocks, 8.0);
	free(all);
	free(per_sm);
}

/* A lane's blocks as a drain stages them: in end order, each start up to
 * the SM's resident count of blocks from its place, on 32 ns ticks, with
 * equal starts of several grids; an odd count. */
Test(blockcodec, blocks_in_end_order_sort_as_the_comparison_orders_them)
{
	struct smtop_block b[4095];
	uint64_t free_at[32], seed = 11;

	for (size_t s = 0; s < 32; s++)
		free_at[s] = 1764480000000000000ull + 32 * s;
	for (size_t i = 0; i < 4095; i++) {
		size_t slot = i % 32;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		b[i] = (struct smtop_block){ .grid_id = 1 + (seed >> 60) % 3, .block = (uint32_t)(seed >> 40 & 0xfff),
					     .start = free_at[slot], .end = free_at[slot] + 32 * (1 + (seed >> 20) % 4000) };
		free_at[slot] = (seed >> 33) % 4 ? b[i].end : free_at[(slot + 1) % 32];
	}
	round_trip(b, 4095, 7);
}

Test(blockcodec, damaged_data_is_refused)
{
	struct smtop_block b[10], got[10];
	uint8_t buf[DB_BLOCKCODEC_MAX_BYTES(10)];
	size_t len;

	for (int i = 0; i < 10; i++)
		b[i] = (struct smtop_block){ .grid_id = 3, .start = 100u * (unsigned)i,
					     .end = 100u * (unsigned)i + 5000, .block = (uint32_t)i };
	len = db_blockcodec_encode(b, 10, buf);
	cr_assert_eq(db_blockcodec_decode(buf, len - 1, 0, 0, got, 10), -1);
	cr_assert_eq(db_blockcodec_decode(buf, len, 0, 0, got, 9), -1);
	buf[0] = 99;
	cr_assert_eq(db_blockcodec_decode(buf, len, 0, 0, got, 10), -1);
	cr_assert_eq(db_blockcodec_decode(buf, 1, 0, 0, got, 10), -1);
	cr_assert_eq(db_blockcodec_encode(b, 0, buf), 0);
	/* SQLite hands out an empty blob as NULL */
	cr_assert_eq(db_blockcodec_decode(NULL, 0, 0, 0, got, 10), -1);
	uint32_t count;
	uint64_t base;
	cr_assert_eq(db_blockcodec_header(NULL, 0, &count, &base), -1);
}

/* Every chunk of a recorded session, decoded, shuffled and encoded again,
 * gives the bytes stored: the encoder still writes what readers of older
 * builds read.  Returns the chunks compared. */
static size_t reencode_session(const char *path)
{
	struct smtop_block *b = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof *b);
	uint8_t *out = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS));
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t seed = 3;
	size_t chunks = 0;

	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT sm, data FROM smtop_block_chunk ORDER BY id", -1, &st, NULL),
		     SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const uint8_t *data = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		long n = db_blockcodec_decode(data, len, (uint16_t)sqlite3_column_int(st, 0), 0, b,
					      DB_BLOCKCODEC_MAX_BLOCKS);

		cr_assert_gt(n, 0, "%s: chunk %zu decodes", path, chunks);
		for (long i = n - 1; i > 0; i--) { /* the staging's order is not the chunk's */
			struct smtop_block x = b[i];
			long j;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			j = (long)((seed >> 33) % (uint64_t)(i + 1));
			b[i] = b[j];
			b[j] = x;
		}
		cr_assert_eq(db_blockcodec_encode(b, (size_t)n, out), len, "%s: chunk %zu's length", path, chunks);
		cr_assert_eq(memcmp(out, data, len), 0, "%s: chunk %zu's bytes", path, chunks);
		chunks++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(b);
	free(out);
	return chunks;
}

Test(blockcodec, recorded_chunks_encode_to_their_stored_bytes)
{
	/* exact ends (--sm marked) and bounded ones (--sm entry, version 2) */
	cr_expect_gt(reencode_session("tests/fixtures/head-of-line.smtop"), 0);
	cr_expect_gt(reencode_session("tests/fixtures/head-of-line-entry.smtop"), 0);
	cr_expect_gt(reencode_session("tests/fixtures/torch-sm-all.smtop"), 0);
}
