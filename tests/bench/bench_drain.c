/* The drain threads' host work per block under `--sm all`, without a GPU:
 * lanes of slots as the patches write them (one per SM, blocks in the order
 * they end), taken apart (blocks_collect), shown to the kernel table the
 * drains share (launch_shards_note_blocks, the sanitizer backend's observer)
 * and packed into chunks (db_blockcodec_encode), split by part, on 1 thread
 * and on 2, 4 and 8 sharing the table.  The storm it imitates:
 * kernels of 1,024 one-warp blocks on 8 streams over 132 SMs, up to 32
 * blocks resident on an SM, so blocks end up to 32 places from their start
 * order.  Prints M blocks/s per thread count; the H200's drains must reach
 * 50 M blocks/s in all.  Then the one writer thread's part: the chunks and
 * kernel records of the 1-thread run stored through db_writer_write in the
 * writer thread's batches, into a session file in BENCH_DIR (default
 * build/bench), checkpointed by a thread of its own as the collector's
 * writer is (SQLite's automatic checkpoints with SMTOP_BENCH_AUTOCHECKPOINT=1).
 * Usage: bench_drain [N_BLOCKS [MAX_THREADS]] (default 20 M, 8) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "collectors/blocks.h"
#include "collectors/launch_shards.h"
#include "db/blockcodec.h"
#include "db/writer.h"
#include "tests/support/db_support.h"
#include "src/core/smtop_trace_abi.h"
#include "tests/bench/bench_util.h"

#define SMS 132
#define STREAMS 8
#define GRID 1024
#define RESIDENT 32
#define LANE_SLOTS BLOCKS_LANE_CAPACITY
#define ROUND_KERNELS 256       /* about one 5 ms drain pass at 50 M blocks/s */

/* One SM's slots in the order its blocks ended. */
struct lane {
	struct smtop_trace_slot *slot;
	size_t n;
	size_t *round_end;      /* slots of kernels before each round's end */
};

struct bench {
	size_t kernels, rounds;
	struct lane lane[SMS];
	struct launch_shards *table;
	pthread_barrier_t start, round_done;
	unsigned threads;
};

/* Blocks of kernel k go round-robin over the SMs from a rotating first SM;
 * on each SM RESIDENT slots run blocks back to back, 40-120 us each, so the
 * lane holds them in end order. */
static void bench_fill_lane(struct bench *b, unsigned sm, uint64_t *seed)
{
	struct lane *ln = &b->lane[sm];
	uint64_t free_at[RESIDENT], t0 = 1764480000000000000ull;
	size_t cap = b->kernels * GRID / SMS + b->kernels, n = 0, r = 0;
	struct smtop_trace_slot *queued = malloc(cap * sizeof(*queued));

	ln->round_end = calloc(b->rounds, sizeof(*ln->round_end));
	for (size_t k = 0; k < b->kernels; k++)
		for (unsigned blk = (unsigned)((sm + SMS - k % SMS) % SMS); blk < GRID; blk += SMS)
			queued[n++] = (struct smtop_trace_slot){ .grid_tag = k + 1, .block = blk, .sm = (uint16_t)sm };
	for (unsigned i = 0; i < RESIDENT; i++)
		free_at[i] = t0;
	for (size_t i = 0; i < n; i++) {
		unsigned best = 0;

		for (unsigned j = 1; j < RESIDENT; j++)
			if (free_at[j] < free_at[best])
				best = j;
		queued[i].start = free_at[best];
		queued[i].end = free_at[best] + (40000 + lcg(seed) % 80000) / 32 * 32; /* 32 ns ticks */
		free_at[best] = queued[i].end + 32;
	}
	/* end order, then the lap tags a lane of LANE_SLOTS slots gives */
	for (size_t i = 1; i < n; i++) {
		struct smtop_trace_slot x = queued[i];
		size_t j = i;

		for (; j > 0 && queued[j - 1].end > x.end; j--)
			queued[j] = queued[j - 1];
		queued[j] = x;
	}
	for (size_t i = 0; i < n; i++) {
		uint16_t tag = smtop_trace_tag(i, LANE_SLOTS);

		queued[i].grid_tag |= (uint64_t)tag << 48;
		queued[i].tag = tag;
		while (r < b->rounds && (queued[i].grid_tag & 0xffffffffffffull) > (r + 1) * ROUND_KERNELS)
			ln->round_end[r++] = i;
	}
	while (r < b->rounds)
		ln->round_end[r++] = n;
	ln->slot = queued;
	ln->n = n;
}

static void bench_add_kernels(struct bench *b, size_t from, size_t to)
{
	for (size_t k = from; k < to && k < b->kernels; k++) {
		struct launch_info info = { .grid_id = k + 1, .context_id = 1, .stream_id = (uint32_t)(k % STREAMS),
					    .correlation_id = (uint32_t)k, .grid = { GRID, 1, 1 },
					    .block = { 32, 1, 1 }, .registers = 16, .name = "storm_plain" };

		launch_shards_add(b->table, 0, &info);
	}
}

static _Atomic size_t bench_records;

/* The records of one run, kept for the writer's part (1 thread only). */
static struct smtop_record *bench_kept;
static size_t bench_n_kept, bench_cap_kept;
static int bench_keeping;

static void bench_keep(const struct smtop_record *r)
{
	if (bench_n_kept == bench_cap_kept) {
		bench_cap_kept = bench_cap_kept ? 2 * bench_cap_kept : 65536;
		bench_kept = realloc(bench_kept, bench_cap_kept * sizeof(*bench_kept));
	}
	bench_kept[bench_n_kept++] = *r;
}

static void bench_push(struct smtop_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (bench_keeping)
			bench_keep(&recs[i]);
		else
			free((char *)recs[i].u.kernel.name);
	}
	bench_records += n;
}

struct worker {
	struct bench *b;
	unsigned lo, hi;
	double collect_s, observe_s, pack_s;
	size_t blocks;
};

/* One lane's new slots [from, to): as blocks_stage_lane takes them. */
static void worker_lane(struct worker *w, struct lane *ln, size_t from, size_t to,
			struct smtop_block *stage, uint32_t *staged, uint8_t *packed)
{
	struct smtop_trace_slot *ring = malloc(LANE_SLOTS * sizeof(*ring));

	for (size_t i = from; i < to; i++)
		ring[i & (LANE_SLOTS - 1)] = ln->slot[i];
	while (from < to) {
		size_t room = DB_BLOCKCODEC_MAX_BLOCKS - *staged, want = to - from < room ? to - from : room, k;
		double t0 = now_s(), t1, t2;

		k = blocks_collect(ring, LANE_SLOTS, from, from + want, 0, stage + *staged);
		t1 = now_s();
		launch_shards_note_blocks(w->b->table, 0, 1, stage + *staged, k);
		t2 = now_s();
		w->collect_s += t1 - t0;
		w->observe_s += t2 - t1;
		*staged += (uint32_t)k;
		from += k;
		w->blocks += k;
		if (*staged == DB_BLOCKCODEC_MAX_BLOCKS) {
			void *chunk;
			size_t len = db_blockcodec_encode(stage, *staged, packed);

			chunk = malloc(len);
			memcpy(chunk, packed, len);
			if (bench_keeping) {
				struct smtop_record rec = { .kind = SMTOP_REC_CHUNK };

				rec.u.chunk = (struct smtop_chunk){ .pid = 1, .context_id = 1, .sm = stage[0].sm,
					.count = *staged, .len = (uint32_t)len, .start = stage[0].start,
					.end = stage[*staged - 1].end, .data = chunk };
				bench_keep(&rec);
			} else {
				free(chunk);
			}
			*staged = 0;
			w->pack_s += now_s() - t2;
		}
		if (k < want)
			break;
	}
	free(ring);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	size_t *read = calloc(SMS, sizeof(*read));
	uint32_t *staged = calloc(SMS, sizeof(*staged));
	struct smtop_block **stage = calloc(SMS, sizeof(*stage));
	uint8_t *packed = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS));

	for (unsigned l = w->lo; l < w->hi; l++)
		stage[l] = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof(**stage));
	for (size_t r = 0; r < b->rounds; r++) {
		pthread_barrier_wait(&b->start);
		for (unsigned l = w->lo; l < w->hi; l++) {
			size_t to = b->lane[l].round_end[r];

			worker_lane(w, &b->lane[l], read[l], to, stage[l], &staged[l], packed);
			read[l] = to;
		}
		pthread_barrier_wait(&b->round_done);
	}
	for (unsigned l = w->lo; l < w->hi; l++)
		free(stage[l]);
	free(stage);
	free(staged);
	free(read);
	free(packed);
	return NULL;
}

static void bench_run(struct bench *b, unsigned threads)
{
	struct worker w[8];
	pthread_t t[8];
	double t0, wall, collect = 0, observe = 0, pack = 0;
	size_t blocks = 0;

	bench_records = 0;
	b->table = launch_shards_create(1, NULL, bench_push);
	pthread_barrier_init(&b->start, NULL, threads + 1);
	pthread_barrier_init(&b->round_done, NULL, threads + 1);
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){ .b = b, .lo = SMS * i / threads, .hi = SMS * (i + 1) / threads };
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	bench_add_kernels(b, 0, 2 * ROUND_KERNELS);
	t0 = now_s();
	for (size_t r = 0; r < b->rounds; r++) {
		pthread_barrier_wait(&b->start);
		pthread_barrier_wait(&b->round_done);
		/* the launches of the round after next, as a workload runs ahead */
		bench_add_kernels(b, (r + 2) * ROUND_KERNELS, (r + 3) * ROUND_KERNELS);
	}
	wall = now_s() - t0;
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		collect += w[i].collect_s;
		observe += w[i].observe_s;
		pack += w[i].pack_s;
		blocks += w[i].blocks;
	}
	printf("threads=%u blocks=%zu kernels_out=%zu orphans=%llu wall_s=%.3f M_blocks_per_s=%.1f"
	       " ns_per_block: collect=%.1f observe=%.1f pack=%.1f (thread time)\n",
	       threads, blocks, (size_t)bench_records, (unsigned long long)launch_shards_orphans(b->table), wall,
	       (double)blocks / wall / 1e6, collect / (double)blocks * 1e9, observe / (double)blocks * 1e9,
	       pack / (double)blocks * 1e9);
	pthread_barrier_destroy(&b->start);
	pthread_barrier_destroy(&b->round_done);
	launch_shards_destroy(b->table);
}

/* The kept records through the writer, WRITER_BATCH at a time. */
#define WRITER_BATCH 50000
static void bench_writer(void)
{
	const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "build/bench";
	char path[4096];
	struct db_writer *w;
	struct stat st;
	uint64_t blocks = 0, kernels = 0;
	double t0, t1;

	snprintf(path, sizeof(path), "%s/bench-drain.smtop", dir);
	unlink(path);
	{
		struct db_writer_options opt = { .path = path, .pid = 1, .ppid = 1, .command = "bench_drain",
						 .create = 1, .session_command = "smtop record bench_drain",
						 .background_checkpoint = !getenv("SMTOP_BENCH_AUTOCHECKPOINT") };
		char err[512];

		if (db_writer_open(&w, &opt, err, sizeof(err)) != 0) {
			fprintf(stderr, "bench_drain: %s\n", err);
			exit(1);
		}
	}
	for (size_t i = 0; i < bench_n_kept; i++) {
		blocks += bench_kept[i].kind == SMTOP_REC_CHUNK ? bench_kept[i].u.chunk.count : 0;
		kernels += bench_kept[i].kind == SMTOP_REC_KERNEL;
	}
	t0 = now_s();
	for (size_t i = 0; i < bench_n_kept; i += WRITER_BATCH) {
		size_t n = bench_n_kept - i < WRITER_BATCH ? bench_n_kept - i : WRITER_BATCH;

		if (db_writer_write(w, bench_kept + i, n) != 0) {
			fprintf(stderr, "bench_drain: %s: %s\n", path, db_writer_error(w));
			exit(1);
		}
	}
	t1 = now_s();
	db_writer_close(w);
	t0 = t1 - t0;
	t1 = now_s() - t1;
	stat(path, &st);
	printf("writer: %llu blocks in %zu records (%llu kernels) stored in %.3f s: %.1f M blocks/s,"
	       " %.2f bytes/block, %.0f MB/s to %s; closed (last checkpoint) in %.3f s\n",
	       (unsigned long long)blocks, bench_n_kept, (unsigned long long)kernels, t0, (double)blocks / t0 / 1e6,
	       (double)st.st_size / (double)blocks, (double)st.st_size / t0 / 1e6, dir, t1);
	unlink(path);
	free(bench_kept);
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	uint64_t seed = 7, want = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
	unsigned counts[] = { 1, 2, 4, 8 };
	unsigned max_threads = argc > 2 ? (unsigned)atoi(argv[2]) : 8;

	b.kernels = (size_t)(want / GRID);
	b.kernels -= b.kernels % ROUND_KERNELS;
	if (b.kernels < ROUND_KERNELS)
		b.kernels = ROUND_KERNELS;
	b.rounds = b.kernels / ROUND_KERNELS;
	for (unsigned sm = 0; sm < SMS; sm++)
		bench_fill_lane(&b, sm, &seed);
	printf("drain of %zu kernels x %d blocks, %d SMs, %d streams, up to %d resident per SM\n", b.kernels,
	       GRID, SMS, STREAMS, RESIDENT);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (counts[i] <= max_threads) {
			bench_keeping = counts[i] == 1;
			bench_run(&b, counts[i]);
			bench_keeping = 0;
		}
	bench_writer();
	for (unsigned sm = 0; sm < SMS; sm++) {
		free(b.lane[sm].slot);
		free(b.lane[sm].round_end);
	}
	return 0;
}
