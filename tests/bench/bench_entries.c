/* The host work per block of entry-only tracing (`--sm entry`), without a
 * GPU: what one context's drain thread does with a launch whose entries are
 * all in (collectors/entries.c): each entry checked (entries_taken), put on
 * its SM's warp slot, which closes the block before it there
 * (slot_bounds_put), the closed blocks shown to the kernel table
 * (launch_shards_note_scattered, the sanitizer backend's observer) and packed
 * into one chunk per SM by the drain's packer (collectors/entries_pack.c,
 * encoding with db_blockcodec_encode), on one thread.  The
 * launches imitate a block storm: kernels of 2,048 one-warp blocks on 8
 * streams over 132 SMs, 40-120 us a block, 32 blocks resident on an SM.
 * Prints M blocks/s and the time per block of each part (bench_entry_rate
 * runs the drain itself, with its workers).
 * Usage: bench_entries [N_BLOCKS] (default 20 M) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/entries.h"
#include "collectors/entries_pack.h"
#include "collectors/launch_shards.h"
#include "collectors/slot_bounds.h"
#include "db/blockcodec.h"
#include "src/core/smtop_trace_abi.h"
#include "tests/bench/bench_util.h"

#define SMS 132
#define STREAMS 8
#define GRID 2048
#define RESIDENT 32
#define BATCH 4096              /* closed blocks handed on together, as ENTRIES_CLOSED */

struct drain {
	struct slot_bounds bounds;
	struct entries_packer *packer;
	struct smtop_block closed[BATCH];
	size_t n_closed;
	double take_s, hand_on_s;
};

static struct launch_shards *bench_table;
static double bench_observe_s;
static size_t bench_chunks;

static void bench_discard(struct smtop_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)recs[i].u.kernel.name);
}

/* The packer's observer, timed apart from its staging and encoding. */
static void bench_observe(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	double t0 = now_s();

	launch_shards_note_scattered(bench_table, 0, context_id, b, n);
	bench_observe_s += now_s() - t0;
}

/* The packer's pack function: the encoding alone (no ring behind it). */
static void bench_encode(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
			 uint8_t *scratch)
{
	(void)device_id;
	(void)context_id;
	db_blockcodec_encode(b, n, scratch);
	bench_chunks++;
}

/* Launch k's entries: block i on SM (i + k) % SMS, slot i / SMS % RESIDENT
 * of the SM's resident set, each starting when the slot's last block ended. */
static void bench_fill(struct smtop_entry *e, size_t k, uint64_t *free_at, uint64_t *seed)
{
	for (uint32_t i = 0; i < GRID; i++) {
		unsigned sm = (unsigned)((i + k) % SMS), slot = i / SMS % RESIDENT;
		uint64_t *at = &free_at[sm * RESIDENT + slot];

		e[i] = (struct smtop_entry){ .start = *at, .grid = (uint32_t)(k + 1), .sm = (uint16_t)sm,
					     .slot = (uint8_t)slot, .check = smtop_entry_check(*at) };
		*at += (40000 + lcg(seed) % 80000) / 32 * 32;
	}
}

static void bench_hand_on(struct drain *d)
{
	double t0 = now_s();

	entries_packer_put(d->packer, d->closed, d->n_closed, 0);
	d->n_closed = 0;
	d->hand_on_s += now_s() - t0;
}

/* As entries_take_launch: every entry of launch k becomes a block on its slot. */
static void bench_take(struct drain *d, const struct smtop_entry *e, size_t k)
{
	double t0 = now_s();
	uint32_t grid = (uint32_t)(k + 1);

	slot_bounds_kernel(&d->bounds, 1 + k % 16);
	for (uint32_t i = 0; i < GRID; i++) {
		struct smtop_block b = { .grid_id = k + 1, .start = e[i].start, .block = i, .sm = e[i].sm };

		if (!entries_taken(e, i, i + 1, grid))
			continue;
		if (!slot_bounds_put(&d->bounds, &b, e[i].slot, (uint32_t)(k % STREAMS) + 1, 0, k + 1,
				     &d->closed[d->n_closed]))
			continue;
		if (++d->n_closed == BATCH) {
			d->take_s += now_s() - t0;
			bench_hand_on(d);
			t0 = now_s();
		}
	}
	d->take_s += now_s() - t0;
}

static void bench_run(size_t kernels)
{
	uint64_t *free_at = malloc(SMS * RESIDENT * sizeof(*free_at)), seed = 7;
	struct smtop_entry *e = malloc(GRID * sizeof(*e));
	struct drain *d = calloc(1, sizeof(*d));
	size_t blocks = 0;
	double t0, wall;

	if (!free_at || !e || !d)
		exit(1);
	for (size_t i = 0; i < SMS * RESIDENT; i++)
		free_at[i] = 1764480000000000000ull;
	bench_table = launch_shards_create(1, NULL, bench_discard);
	d->packer = entries_packer_start(0, 1, bench_observe, bench_encode);
	if (!bench_table || !d->packer || slot_bounds_init(&d->bounds, SMS) != 0)
		exit(1);
	t0 = now_s();
	for (size_t k = 0; k < kernels; k++) {
		struct launch_info info = { .grid_id = k + 1, .context_id = 1, .stream_id = (uint32_t)(k % STREAMS) + 1,
					    .correlation_id = (uint32_t)k, .grid = { GRID, 1, 1 },
					    .block = { 32, 1, 1 }, .registers = 16, .name = "storm_plain" };
		double f0 = now_s();

		bench_fill(e, k, free_at, &seed);
		t0 += now_s() - f0; /* the GPU's part, not the drain's */
		launch_shards_add(bench_table, 0, &info);
		bench_take(d, e, k);
		blocks += GRID;
	}
	bench_hand_on(d);
	entries_packer_stop(d->packer);
	wall = now_s() - t0;
	/* pack: staging and encoding, the packer's time less its observer's */
	printf("blocks=%zu chunks=%zu wall_s=%.3f M_blocks_per_s=%.1f ns_per_block: take=%.1f"
	       " observe=%.1f pack=%.1f\n",
	       blocks, bench_chunks, wall, (double)blocks / wall / 1e6,
	       d->take_s / (double)blocks * 1e9, bench_observe_s / (double)blocks * 1e9,
	       (d->hand_on_s - bench_observe_s) / (double)blocks * 1e9);
	slot_bounds_free(&d->bounds);
	free(d);
	free(e);
	free(free_at);
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
	size_t kernels = (size_t)(want / GRID);

	if (!kernels)
		kernels = 1;
	printf("entry drain of %zu kernels x %d blocks, %d SMs, %d streams, %d resident per SM, 1 thread\n",
	       kernels, GRID, SMS, STREAMS, RESIDENT);
	bench_run(kernels);
	return 0;
}
