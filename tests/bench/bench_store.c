/* Session-store benchmark: ingest rate of synthetic blocks through
 * db_writer_write, bytes per block on disk, and chunk decode rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/blockcodec.h"
#include "db/writer.h"
#include "tests/support/db_support.h"
#include "tests/bench/bench_util.h"

#define N_BLOCKS 10000000ull
#define N_SMS 132
#define BATCH 65536

static double ingest(const char *path)
{
	struct db_writer *w = db_support_writer(path, 1, 1);
	struct smtop_block *b = malloc(BATCH * sizeof *b);
	uint64_t seed = 11, t = 1764480000000000000ull, done = 0;
	double gen = 0, t0 = now_s();

	while (done < N_BLOCKS) {
		struct smtop_record rec;
		double g0 = now_s();

		db_support_synthetic_blocks(b, BATCH, t, N_SMS, &seed);
		t = b[BATCH - 1].start + 32;
		rec = (struct smtop_record){ .kind = SMTOP_REC_BLOCKS,
			.u.blocks = { .pid = 1, .device_id = 0, .context_id = 1, .count = BATCH,
				      .blocks = malloc(BATCH * sizeof *b) } };
		for (size_t i = 0; i < BATCH; i++)
			rec.u.blocks.blocks[i] = b[i];
		gen += now_s() - g0;
		if (db_writer_write(w, &rec, 1) != 0) {
			fprintf(stderr, "bench_store: %s\n", db_writer_error(w));
			exit(1);
		}
		done += BATCH;
	}
	db_writer_close(w);
	free(b);
	return (double)done / (now_s() - t0 - gen);
}

struct chunk {
	void *data;
	size_t len;
	uint16_t sm, device;
};

/* Loads every chunk into memory so the decode figure is the codec alone. */
static size_t load_chunks(const char *path, struct chunk **out)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;

	*out = NULL;
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	sqlite3_prepare_v2(db, "SELECT sm, deviceId, data FROM smtop_block_chunk", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct chunk *c;

		if (n == cap)
			*out = realloc(*out, (cap = cap ? cap * 2 : 1024) * sizeof **out);
		c = &(*out)[n++];
		c->len = (size_t)sqlite3_column_bytes(st, 2);
		c->data = malloc(c->len);
		memcpy(c->data, sqlite3_column_blob(st, 2), c->len);
		c->sm = (uint16_t)sqlite3_column_int(st, 0);
		c->device = (uint16_t)sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Best of three passes over all chunks. */
static double decode_rate(const char *path, uint64_t *blocks)
{
	struct smtop_block *out = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof *out);
	struct chunk *chunks;
	size_t n = load_chunks(path, &chunks);
	double best = 0;
	volatile uint64_t sink = 0;

	for (int pass = 0; pass < 3; pass++) {
		double t0 = now_s(), rate;

		*blocks = 0;
		for (size_t i = 0; i < n; i++) {
			long got = db_blockcodec_decode(chunks[i].data, chunks[i].len, chunks[i].sm,
							chunks[i].device, out, DB_BLOCKCODEC_MAX_BLOCKS);

			sink += got > 0 ? out[got - 1].end : 0;
			*blocks += (uint64_t)(got > 0 ? got : 0);
		}
		rate = (double)*blocks / (now_s() - t0);
		best = rate > best ? rate : best;
	}
	for (size_t i = 0; i < n; i++)
		free(chunks[i].data);
	free(chunks);
	free(out);
	return best;
}

int main(void)
{
	char path[256];
	struct stat sb;
	uint64_t blocks;
	double in_rate, dec_rate;

	db_support_temp_path(path, sizeof path, "bench.smtop");
	in_rate = ingest(path);
	stat(path, &sb);
	dec_rate = decode_rate(path, &blocks);
	printf("store ingest      %8.1f M blocks/s (%llu blocks over %d SMs, %d per write)\n",
	       in_rate / 1e6, N_BLOCKS, N_SMS, BATCH);
	printf("store size        %8.2f bytes/block on disk (%lld bytes)\n",
	       (double)sb.st_size / (double)blocks, (long long)sb.st_size);
	printf("store decode      %8.1f M blocks/s\n", dec_rate / 1e6);
	unlink(path);
	return 0;
}
