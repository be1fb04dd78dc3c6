/* The drain of entry-only tracing (collectors/entries.c) on host memory: a
 * fake of the sanitizer's memory calls, launches whose entries the test
 * writes as the entry patch would, and the blocks that come out to the
 * observer and the pack function.  Each test runs in a process of its own
 * (Criterion's default), so the drain's state starts empty. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/drops.h"
#include "collectors/entries.h"
#include "src/core/clock.h"
#include "tests/support/fake_device.h"

#define T0 1764480000000000000ull
#define CTX ((CUcontext)(uintptr_t)0x1000)

static _Atomic size_t observed, packed, bounded;

static void observe(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	(void)context_id;
	(void)b;
	observed += n;
}

/* The blocks packed, the first KEPT of them kept (only in the tests
 * without workers, whose drain packs on one thread). */
#define KEPT 64
static struct smtop_block kept[KEPT];

static void pack(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id, uint8_t *scratch)
{
	(void)device_id;
	(void)context_id;
	(void)scratch;
	for (uint32_t i = 0; i < n; i++) {
		bounded += (b[i].flags & SMTOP_BLOCK_END_BOUND) != 0;
		if (packed + i < KEPT)
			kept[packed + i] = b[i];
	}
	packed += n;
}

static const struct smtop_block *kept_block(uint64_t grid, uint32_t block)
{
	for (size_t i = 0; i < packed && i < KEPT; i++)
		if (kept[i].grid_id == grid && kept[i].block == block)
			return &kept[i];
	cr_assert_fail("block %u of grid %llu not packed", block, (unsigned long long)grid);
	return NULL;
}

/* The GPU's clock at any host time: after every entry the tests write. */
static uint64_t gpu_clock(uint32_t device, uint64_t host_ns)
{
	(void)device;
	(void)host_ns;
	return T0 + 100000000ull;
}

static void *copy_stream(CUcontext ctx)
{
	(void)ctx;
	return (void *)&fake_device_mem;
}

static void start_as(int per_warp)
{
	static const struct entries_hooks hooks = {
		.set_data = fake_device_set_data, .observer = observe, .clock = gpu_clock,
		.copy_stream = copy_stream, .pack = pack,
	};

	entries_start(&fake_device_mem, &hooks, per_warp);
}

static void start(void)
{
	start_as(0);
}

/* A launch of `blocks` blocks of `threads` threads on `stream`: its
 * entries are written by the caller. */
static void launch_on(uint64_t grid, uint32_t stream, uint64_t blocks, uint32_t threads)
{
	struct entries_launch_info l = { .ctx = CTX, .context_id = 1, .stream_id = stream, .order_stream = stream,
					 .correlation_id = (uint32_t)grid, .grid_id = grid, .blocks = blocks,
					 .threads = threads, .function = (CUfunction)(uintptr_t)(0x2000 + grid), .kernel = 0x2000 + grid };

	cr_assert_eq(entries_on_launch(&l), 0);
}

static void enter(uint64_t at, uint64_t grid, uint64_t t, uint16_t sm, uint8_t slot)
{
	fake_device_launch_data[at] = (struct smtop_entry){ .start = T0 + t, .grid = (uint32_t)grid, .sm = sm, .slot = slot,
						.check = smtop_entry_check(T0 + t) };
}

/* Launch grid with n blocks on stream 1; its blocks [0, entered) enter,
 * block i on SM i % 8, slot i / 8 % 64, 1 us apart. */
static void launch(uint64_t grid, uint64_t n, uint64_t entered)
{
	struct entries_launch_info l = { .ctx = CTX, .context_id = 1, .stream_id = 1, .order_stream = 1,
					 .correlation_id = (uint32_t)grid, .grid_id = grid, .blocks = n,
					 .threads = 128, .function = (CUfunction)(uintptr_t)0x2000, .kernel = 0x2000 };

	cr_assert_eq(entries_on_launch(&l), 0);
	for (uint64_t i = 0; i < entered; i++) {
		uint64_t t = T0 + grid * 10000000ull + i * 1000;

		fake_device_launch_data[i] = (struct smtop_entry){ .start = t, .grid = (uint32_t)grid, .sm = (uint16_t)(i % 8),
						       .slot = (uint8_t)(i / 8 % 64), .check = smtop_entry_check(t) };
	}
}

/* Waits up to ms for *v to reach want. */
static size_t wait_for(_Atomic size_t *v, size_t want, int ms)
{
	struct timespec tick = { 0, 1000000 };

	for (int i = 0; i < ms && *v < want; i++)
		nanosleep(&tick, NULL);
	return *v;
}

/* Two whole launches of 1,000 blocks: all 2,000 out, each end inferred. */
static void two_whole_launches(void)
{
	start();
	launch(1, 1000, 1000);
	launch(2, 1000, 1000);
	wait_for(&observed, 1000, 2000);
	entries_shutdown();
	cr_expect_eq(observed, 2000);
	cr_expect_eq(packed, 2000);
	cr_expect_eq(bounded, 2000, "every end is inferred");
	cr_expect_eq(drops_take(DROPS_BLOCKS), 0);
}

Test(entries_drain, every_block_of_a_whole_launch_comes_out_bounded)
{
	two_whole_launches();
}

/* Recording off: the last block on each slot, which only a later launch
 * would close, goes out with the session that ends; the drain goes on. */
static void settle_after_two_launches(void)
{
	start();
	launch(1, 1000, 1000);
	launch(2, 1000, 1000);
	/* 512 slots (8 SMs, 64 each): launch 2's last 512 blocks hold them */
	wait_for(&packed, 1488, 2000);
	nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
	cr_assert_eq(packed, 1488, "the last block on each slot stays open");
	cr_expect_eq(entries_settle(2000000000ull), 0);
	cr_expect_eq(packed, 2000, "and settling closes them");
	cr_expect_eq(bounded, 2000);
	launch(3, 1000, 1000);
	launch(4, 1000, 1000);
	wait_for(&packed, 3000, 2000);
	entries_shutdown();
	cr_expect_eq(packed, 4000);
	cr_expect_eq(drops_take(DROPS_BLOCKS), 0);
}

Test(entries_drain, settling_hands_over_every_open_block)
{
	settle_after_two_launches();
}

Test(entries_drain, settling_by_a_team_hands_over_every_open_block)
{
	setenv("SMTOP_ENTRY_WORKERS", "3", 1);
	setenv("SMTOP_ENTRY_TEAM_FROM", "0", 1);
	settle_after_two_launches();
}

Test(entries_drain, a_team_of_workers_gives_the_same_blocks)
{
	setenv("SMTOP_ENTRY_WORKERS", "3", 1);
	setenv("SMTOP_ENTRY_TEAM_FROM", "0", 1);
	two_whole_launches();
}

Test(entries_drain, a_synchronize_call_gives_up_the_blocks_that_never_entered)
{
	/* 10 blocks of the launch never enter (its kernel ran unpatched): the
	 * context's synchronize call that waited for it ends the wait, which
	 * would otherwise hold the arena's tail for 10 s */
	start();
	launch(1, 100, 90);
	wait_for(&observed, 1, 50);
	cr_expect_eq(observed, 0, "a launch short of entries waits");
	entries_synced(CTX, 0, entries_launched(CTX), clock_real_ns());
	cr_expect_eq(wait_for(&observed, 90, 2000), 90, "taken well before 10 s");
	cr_expect_eq(drops_take(DROPS_BLOCKS), 10);
	entries_shutdown();
	cr_expect_eq(packed, 90);
}

/* In a host arena (SMTOP_ENTRY_ARENA=host) the drain reads the entries
 * where the patch wrote them: a launch's late entries are taken as they
 * land, and no pass copies anything. */
Test(entries_drain, a_host_arena_is_read_where_it_lies)
{
	uint64_t passes, copies;

	setenv("SMTOP_ENTRY_ARENA", "host", 1);
	start();
	launch(1, 100, 90);
	wait_for(&observed, 1, 20);
	cr_expect_eq(observed, 0, "a launch short of entries waits");
	for (uint64_t i = 90; i < 100; i++)
		enter(i, 1, 10000000ull + i * 1000, (uint16_t)(i % 8), (uint8_t)(i / 8 % 64));
	launch(2, 10, 10); /* its start bounds the first launch's blocks */
	cr_expect_eq(wait_for(&observed, 100, 2000), 100, "the late entries are read in place");
	entries_passes(CTX, &passes, &copies);
	entries_shutdown();
	cr_expect_gt(passes, 0);
	cr_expect_eq(copies, 0, "nothing is copied");
	cr_expect_eq(packed, 110);
	cr_expect_eq(drops_take(DROPS_BLOCKS), 0);
}

/* The copies the drain makes in its next n passes (at least n: it passes
 * every millisecond), and how many passes that was. */
static void copies_in_passes(uint64_t n, uint64_t *passes, uint64_t *copies)
{
	uint64_t passes0, copies0;

	entries_passes(CTX, &passes0, &copies0);
	*passes = passes0;
	*copies = copies0;
	for (int i = 0; i < 200 && *passes < passes0 + n; i++) {
		struct timespec tick = { 0, 1000000 };

		nanosleep(&tick, NULL);
		entries_passes(CTX, passes, copies);
	}
	cr_assert_geq(*passes, passes0 + n, "the drain passes every millisecond");
	*passes -= passes0;
	*copies -= copies0;
}

Test(entries_drain, the_launches_a_pass_looks_at_come_in_one_copy)
{
	/* 100 launches of 10 blocks, each one block short, wait in the queue
	 * pass after pass: each pass copies their stretches, which lie end to
	 * end, in one call (a call per launch made 100 a pass) */
	uint64_t passes, copies;

	start();
	for (uint64_t g = 1; g <= 100; g++)
		launch(g, 10, 9);
	copies_in_passes(5, &passes, &copies);
	cr_expect_leq(copies, passes + 1, "%" PRIu64 " copies in %" PRIu64 " passes", copies, passes);
	entries_synced(CTX, 0, entries_launched(CTX), clock_real_ns());
	cr_expect_eq(wait_for(&observed, 900, 2000), 900, "every entered block still comes out");
	entries_shutdown();
	cr_expect_eq(packed, 900);
	cr_expect_eq(drops_take(DROPS_BLOCKS), 100);
}

Test(entries_drain, a_launch_beyond_the_arena_counts_its_blocks_dropped)
{
	struct entries_launch_info l = { .ctx = CTX, .context_id = 1, .stream_id = 1, .order_stream = 1,
					 .correlation_id = 1, .grid_id = 1, .blocks = ENTRIES_ARENA + 1ull,
					 .threads = 128 };

	start();
	cr_expect_eq(entries_on_launch(&l), -1);
	cr_expect_eq(drops_take(DROPS_BLOCKS), ENTRIES_ARENA + 1ull);
	entries_shutdown();
}

/* The launches refused place themselves between the kernels around them,
 * on the GPU's clock: the first blocks of the launches before and after. */
static uint64_t gap_from, gap_to, gap_launches, gap_blocks;
static _Atomic int gap_calls;

static void note_gap(uint64_t from, uint64_t to, uint64_t launches, uint64_t blocks)
{
	gap_from = from;
	gap_to = to;
	gap_launches = launches;
	gap_blocks = blocks;
	gap_calls++;
}

Test(entries_drain, launches_with_no_room_are_placed_between_their_neighbours)
{
	static const struct entries_hooks hooks = {
		.set_data = fake_device_set_data, .observer = observe, .clock = gpu_clock,
		.copy_stream = copy_stream, .pack = pack, .dropped = note_gap,
	};
	struct entries_launch_info big = { .ctx = CTX, .context_id = 1, .stream_id = 1, .order_stream = 1,
					   .correlation_id = 9, .grid_id = 9, .blocks = ENTRIES_ARENA + 1ull,
					   .threads = 128 };

	entries_start(&fake_device_mem, &hooks, 0);
	launch(1, 100, 100);
	cr_expect_eq(entries_on_launch(&big), -1);
	cr_expect_eq(entries_on_launch(&big), -1);
	launch(2, 100, 100);
	entries_shutdown();
	cr_assert_eq(gap_calls, 1);
	cr_expect_eq(gap_launches, 2);
	cr_expect_eq(gap_blocks, 2 * (ENTRIES_ARENA + 1ull));
	cr_expect_eq(gap_from, T0 + 1 * 10000000ull, "launch 1's first block");
	cr_expect_eq(gap_to, T0 + 2 * 10000000ull, "launch 2's first block");
	cr_expect_eq(drops_take(DROPS_BLOCKS), 2 * (ENTRIES_ARENA + 1ull));
}

Test(entries_drain, a_block_traced_by_warps_ends_with_its_last_warp)
{
	/* block 0 of grid 1 has two warps, on slots 0 and 1 of SM 0; another
	 * stream's blocks take slot 0 at +100 ns and slot 1 at +300 ns */
	start_as(1);
	launch_on(1, 1, 1, 64);
	enter(0, 1, 10, 0, 0);
	enter(1, 1, 12, 0, 1);
	launch_on(2, 2, 2, 32);
	enter(0, 2, 100, 0, 0);
	enter(1, 2, 300, 0, 1);
	wait_for(&observed, 1, 2000);
	entries_shutdown();
	cr_expect_eq(packed, 3);
	cr_expect_eq(kept_block(1, 0)->start, T0 + 10, "its first warp's entry");
	cr_expect_eq(kept_block(1, 0)->end, T0 + 300, "the later of its warps' bounds");
	cr_expect(kept_block(1, 0)->flags & SMTOP_BLOCK_END_BOUND);
}

Test(entries_drain, blocks_of_an_exact_window_keep_their_measured_ends)
{
	struct smtop_entry_end *ends;

	start();
	entries_exits(1); /* the exits are patched: launches from now on wait for their ends */
	launch_on(1, 1, 2, 128);
	ends = (struct smtop_entry_end *)((char *)fake_device_launch_data + SMTOP_ENTRIES_ENDS);
	enter(0, 1, 10, 0, 0);
	enter(1, 1, 20, 1, 0);
	ends[0] = (struct smtop_entry_end){ .end = T0 + 50, .threads = 128, .grid = 1 };
	ends[1] = (struct smtop_entry_end){ .end = T0 + 70, .threads = 128, .grid = 1 };
	entries_exits(0);
	launch_on(2, 1, 1, 128); /* after the window: no exact end */
	enter(0, 2, 200, 0, 0);
	wait_for(&observed, 2, 2000);
	entries_shutdown();
	cr_expect_eq(packed, 3);
	cr_expect_eq(kept_block(1, 0)->end, T0 + 50);
	cr_expect_eq(kept_block(1, 1)->end, T0 + 70);
	cr_expect_not(kept_block(1, 0)->flags & SMTOP_BLOCK_END_BOUND, "measured, not inferred");
	cr_expect(kept_block(2, 0)->flags & SMTOP_BLOCK_END_BOUND);
	cr_expect_eq(bounded, 1);
}

/* A window's launch whose ends never all come is given up after its wait,
 * and its blocks' ends are counted by why they were missing: no exit wrote
 * one, a block's threads partly counted, another grid's left there. */
Test(entries_drain, a_window_launch_given_up_counts_why_its_ends_were_missing)
{
	struct smtop_entry_end *ends;
	uint64_t missed[ENTRIES_END_STATES];

	start();
	entries_exits(1);
	launch_on(1, 1, 4, 128);
	ends = (struct smtop_entry_end *)((char *)fake_device_launch_data + SMTOP_ENTRIES_ENDS);
	for (uint64_t i = 0; i < 4; i++)
		enter(i, 1, 10 + i, (uint16_t)i, 0);
	ends[0] = (struct smtop_entry_end){ .end = T0 + 50, .threads = 128, .grid = 1 };
	ends[2] = (struct smtop_entry_end){ .end = T0 + 9, .threads = 128, .grid = 7 };
	ends[3] = (struct smtop_entry_end){ .end = T0 + 60, .threads = 64, .grid = 1 };
	entries_exits(0);
	for (int ms = 0; ms < 2000; ms++) { /* its wait for the ends is 500 ms */
		struct timespec tick = { 0, 1000000 };

		entries_window_misses(CTX, missed);
		if (missed[ENTRIES_END_NONE] + missed[ENTRIES_END_PARTIAL] + missed[ENTRIES_END_STALE] == 3)
			break;
		nanosleep(&tick, NULL);
	}
	entries_shutdown();
	cr_expect_eq(missed[ENTRIES_END_NONE], 1);
	cr_expect_eq(missed[ENTRIES_END_PARTIAL], 1);
	cr_expect_eq(missed[ENTRIES_END_STALE], 1);
	cr_expect_eq(kept_block(1, 0)->end, T0 + 50, "the one whole end is kept");
	cr_expect(kept_block(1, 1)->flags & SMTOP_BLOCK_END_BOUND);
}

Test(entries_drain, the_ends_a_window_waits_for_come_in_one_copy_a_pass)
{
	/* 50 launches of a window (each on a stream of its own, so that none
	 * passes another) entered whole and wait for their ends: a pass copies
	 * all their ends in one call (a call per launch made 50 a pass) */
	struct smtop_entry_end *ends[50];
	uint64_t passes, copies;

	start();
	entries_exits(1);
	for (uint64_t g = 1; g <= 50; g++) {
		launch_on(g, (uint32_t)g, 2, 128);
		enter(0, g, g * 1000, 0, (uint8_t)g);
		enter(1, g, g * 1000 + 10, 1, (uint8_t)g);
		ends[g - 1] = (struct smtop_entry_end *)((char *)fake_device_launch_data + SMTOP_ENTRIES_ENDS);
	}
	entries_exits(0);
	wait_for(&observed, 1, 20);
	copies_in_passes(5, &passes, &copies);
	cr_expect_eq(observed, 0, "they wait for their ends");
	cr_expect_leq(copies, 2 * passes + 2, "%" PRIu64 " copies in %" PRIu64 " passes", copies, passes);
	for (uint64_t g = 1; g <= 50; g++)
		for (int k = 0; k < 2; k++)
			ends[g - 1][k] = (struct smtop_entry_end){ .end = T0 + g * 1000 + 500, .threads = 128,
								   .grid = (uint32_t)g };
	wait_for(&observed, 1, 20); /* passes that find the ends (the blocks stay open: no later entry) */
	entries_shutdown();
	cr_expect_eq(packed, 100);
	cr_expect_eq(bounded, 0, "every end measured");
}

/* A launch reserved while a pass takes the ones it listed keeps its
 * stretch of the arena: the pass that has taken all of its own must not
 * move the tail to the head as it is by then, past the new launch, or a
 * launch after it is reserved over its entries (stored + dropped fell 8
 * short of launched in bench_entry_rate).  The first block observed (in
 * the pass, after its listing) reserves launch 2, more than half the arena,
 * and only its first blocks enter; then launch 3, as long as 1 and 2
 * together, asks for room: it could only have it over launch 2. */
#define HELD_N1 1000ull
#define HELD_N2 (ENTRIES_ARENA / 2 + 1000ull)
static _Atomic int held_claimed, held_reserved;

static void observe_and_launch(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	observe(context_id, b, n);
	if (atomic_exchange(&held_claimed, 1))
		return;
	launch_on(2, 2, HELD_N2, 128);
	for (uint64_t i = 0; i < 10; i++)
		enter(i, 2, 1000000 + i, (uint16_t)(i % 8), 1);
	held_reserved = 1; /* only now may launch 3 ask */
}

Test(entries_drain, a_launch_reserved_during_a_pass_keeps_its_stretch)
{
	static const struct entries_hooks hooks = {
		.set_data = fake_device_set_data, .observer = observe_and_launch, .clock = gpu_clock,
		.copy_stream = copy_stream, .pack = pack,
	};
	struct entries_launch_info l3 = { .ctx = CTX, .context_id = 1, .stream_id = 3, .order_stream = 3,
					  .correlation_id = 3, .grid_id = 3, .blocks = HELD_N1 + HELD_N2,
					  .threads = 128, .function = (CUfunction)(uintptr_t)0x2003, .kernel = 0x2003 };
	struct timespec step = { 0, 50000 };
	uint64_t refused = 0;

	entries_start(&fake_device_mem, &hooks, 0);
	launch(1, HELD_N1, HELD_N1);
	for (int i = 0; i < 2000 && !held_reserved; i++)
		nanosleep(&step, NULL);
	cr_assert(held_reserved, "the pass observed launch 1's first blocks");
	/* through the end of that pass and into the next ones */
	for (int i = 0; i < 100; i++) {
		cr_assert_neq(entries_on_launch(&l3), 0, "launch 3 was reserved over launch 2's entries");
		refused += l3.blocks;
		nanosleep(&step, NULL);
	}
	entries_shutdown();
	cr_expect_eq(packed, HELD_N1 + 10, "launch 1 whole, launch 2's blocks that entered");
	cr_expect_eq(drops_take(DROPS_BLOCKS), refused + HELD_N2 - 10, "every block stored or counted");
}

/* Every block packed, from any worker. */
#define MANY 12000
static struct smtop_block all[MANY];
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

/* The test's own thread, and the blocks packed on another thread that
 * takes the program's SIGINT (none should: the drain runs inside it). */
static pthread_t test_thread;
static _Atomic size_t packed_hearing;

static void pack_all(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id, uint8_t *scratch)
{
	sigset_t mask;

	(void)device_id;
	(void)context_id;
	(void)scratch;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	if (!pthread_equal(pthread_self(), test_thread) && !sigismember(&mask, SIGINT))
		packed_hearing += n;
	pthread_mutex_lock(&all_lock);
	for (uint32_t i = 0; i < n && packed + i < MANY; i++)
		all[packed + i] = b[i];
	packed += n;
	pthread_mutex_unlock(&all_lock);
}

#define STORM_LAUNCHES 12u
#define STORM_BLOCKS 600u
#define STORM_MOST 1500u

/* Launch k's blocks: STORM_BLOCKS unless a test says otherwise. */
static uint32_t storm_size[STORM_LAUNCHES];
/* Host ns between launches, 0: none. */
static long storm_pause_ns;

static uint32_t storm_blocks(uint64_t k)
{
	return storm_size[k] ? storm_size[k] : STORM_BLOCKS;
}
#define STORM_SMS 16u
#define STORM_SLOTS 8u

/* Block i of launch k (grid k + 1): SM (i + 3k) % 16, slot i / 16 % 8,
 * starting later than every block before it in launch order. */
static uint16_t storm_sm(uint64_t k, uint64_t i)
{
	return (uint16_t)((i + 3 * k) % STORM_SMS);
}

static uint8_t storm_slot(uint64_t i)
{
	return (uint8_t)(i / STORM_SMS % STORM_SLOTS);
}

static uint64_t storm_start(uint64_t k, uint64_t i)
{
	return T0 + k * 1000000ull + i * 100;
}

/* What block i of launch k must end at: the start of the next block on its
 * SM's slot, else the GPU's clock at the end. */
static uint64_t storm_end(uint64_t k, uint64_t i)
{
	for (uint64_t k2 = k; k2 < STORM_LAUNCHES; k2++)
		for (uint64_t i2 = k2 == k ? i + 1 : 0; i2 < storm_blocks(k2); i2++)
			if (storm_sm(k2, i2) == storm_sm(k, i) && storm_slot(i2) == storm_slot(i))
				return storm_start(k2, i2);
	return gpu_clock(0, 0);
}

static long looked_side_by_side = -1; /* passes the team looked at, read by team_log */

/* The drain's count of its passes taken by the team, and the team's size,
 * from its debug lines at the end; -1 when it has none.  shares and rounds
 * (may be NULL): the shares it took them in, the team's rounds. */
static long team_log(unsigned *size, unsigned *shares, long *rounds)
{
	FILE *f = cr_get_redirected_stderr();
	char line[1024];
	long passes = -1;
	unsigned n_shares = 0;

	while (f && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, "drains (");
		const char *r = strstr(line, "entries of context ");

		if (at && sscanf(at, "drains (%ld by a team of %u in %u shares, %ld looked at side by side)", &passes,
				 size, &n_shares, &looked_side_by_side) != 4)
			passes = -1;
		if (rounds && r && strstr(line, "rounds by the team") &&
		    sscanf(r, "entries of context %*u: %ld rounds", rounds) != 1)
			*rounds = -1;
	}
	if (shares)
		*shares = n_shares;
	return passes;
}

static long team_passes_rounds(unsigned *size, long *rounds)
{
	return team_log(size, NULL, rounds);
}

static long team_passes(unsigned *size)
{
	return team_log(size, NULL, NULL);
}

/* Launches of one stream order (none bounds another's blocks: only slots
 * and the end do, so the ends do not hang on how passes fall), their
 * blocks on 16 SMs: with any count of workers, every block comes out once
 * with the end its slot gives it.  team_from: the blocks a pass needs to
 * wake the team (NULL: the default, more than the storm has). */
static void storm(const char *workers, const char *team_from)
{
	static const struct entries_hooks hooks = {
		.set_data = fake_device_set_data, .observer = observe, .clock = gpu_clock,
		.copy_stream = copy_stream, .pack = pack_all,
	};
	static uint8_t seen[STORM_LAUNCHES][STORM_MOST];
	size_t found = 0, total = 0;

	setenv("SMTOP_ENTRY_WORKERS", workers, 1);
	if (team_from)
		setenv("SMTOP_ENTRY_TEAM_FROM", team_from, 1);
	setenv("SMTOP_DEBUG", "1", 1);
	cr_redirect_stderr();
	test_thread = pthread_self();
	entries_start(&fake_device_mem, &hooks, 0);
	for (uint64_t k = 0; k < STORM_LAUNCHES; k++) {
		struct entries_launch_info l = { .ctx = CTX, .context_id = 1, .stream_id = 0, .order_stream = 1,
						 .correlation_id = (uint32_t)k + 1, .grid_id = k + 1,
						 .blocks = storm_blocks(k), .threads = 32,
						 .function = (CUfunction)(uintptr_t)0x2000, .kernel = 0x2000 };
		struct timespec pause = { 0, storm_pause_ns };

		if (storm_pause_ns)
			nanosleep(&pause, NULL);
		cr_assert_eq(entries_on_launch(&l), 0);
		total += storm_blocks(k);
		for (uint64_t i = 0; i < storm_blocks(k); i++) {
			uint64_t t = storm_start(k, i);

			fake_device_launch_data[i] = (struct smtop_entry){ .start = t, .grid = (uint32_t)(k + 1),
							       .sm = storm_sm(k, i), .slot = storm_slot(i),
							       .check = smtop_entry_check(t) };
		}
	}
	entries_shutdown();
	fflush(stderr);
	cr_assert_eq(packed, total);
	cr_expect_eq(observed, packed);
	cr_expect_eq(drops_take(DROPS_BLOCKS), 0);
	for (size_t n = 0; n < packed; n++) {
		const struct smtop_block *b = &all[n];
		uint64_t k = b->grid_id - 1;

		cr_assert_lt(k, STORM_LAUNCHES);
		cr_assert_lt(b->block, storm_blocks(k));
		cr_expect_eq(b->start, storm_start(k, b->block));
		cr_expect_eq(b->sm, storm_sm(k, b->block));
		cr_expect_eq(b->end, storm_end(k, b->block), "grid %llu block %u",
			     (unsigned long long)b->grid_id, b->block);
		cr_expect_eq(b->flags, SMTOP_BLOCK_END_BOUND);
		found += !seen[k][b->block]++;
	}
	cr_expect_eq(found, total, "each block packed once");
	cr_expect_eq(packed_hearing, 0, "the drain's threads block the program's signals");
}

Test(entries_drain, one_worker_gives_every_block_its_slots_end)
{
	unsigned size = 0;

	storm("1", "0");
	cr_expect_eq(team_passes(&size), 0, "one share has no team to wake");
	cr_expect_eq(size, 1);
}

/* The storm with a team of n woken at every pass. */
static void storm_by_team(unsigned n)
{
	char workers[8];
	unsigned size = 0;

	snprintf(workers, sizeof workers, "%u", n);
	storm(workers, "0");
	cr_expect_gt(team_passes(&size), 0, "the team took the passes");
	cr_expect_eq(size, n);
	cr_expect_gt(looked_side_by_side, 0, "and looked at their launches side by side");
}

Test(entries_drain, three_workers_give_every_block_the_same_end)
{
	storm_by_team(3);
}

Test(entries_drain, eight_workers_give_every_block_the_same_end)
{
	storm_by_team(8);
}

/* Three shares for each of the team's two threads, handed out one at a
 * time: every block comes out once with the end its slot gives it. */
Test(entries_drain, more_shares_than_threads_give_every_block_the_same_end)
{
	unsigned size = 0, shares = 0;

	setenv("SMTOP_ENTRY_SHARES", "3", 1);
	storm("2", "0");
	cr_expect_gt(team_log(&size, &shares, NULL), 0, "the team took the passes");
	cr_expect_eq(size, 2);
	cr_expect_eq(shares, 6);
}

/* Rounds of 1,000 blocks: the team lists and takes a pass in rounds that
 * cut launches in two, with the ends of one round. */
Test(entries_drain, rounds_cutting_launches_give_every_block_the_same_end)
{
	unsigned size = 0;
	long rounds = -1, passes;
	uint64_t blocks = 0;

	setenv("SMTOP_ENTRY_ROUND", "1000", 1);
	storm("3", "0");
	passes = team_passes_rounds(&size, &rounds);
	cr_expect_gt(passes, 0);
	cr_expect_eq(size, 3);
	/* a pass of B blocks takes B / 1,000 rounds, rounded up */
	for (unsigned k = 0; k < STORM_LAUNCHES; k++)
		blocks += storm_blocks(k);
	cr_expect_geq(rounds, (long)(blocks / 1000), "%ld rounds for %lu blocks", rounds, (unsigned long)blocks);
	cr_expect_leq(rounds, (long)(blocks / 1000) + passes, "%ld rounds in %ld passes", rounds, passes);
}

/* Passes smaller than the team's threshold: the drain thread takes every
 * share in turn, with the ends the team gives. */
Test(entries_drain, three_shares_on_the_drain_thread_alone_give_the_same_ends)
{
	unsigned size = 0;

	storm("3", NULL);
	cr_expect_eq(team_passes(&size), 0, "no pass had blocks enough to wake the team");
	cr_expect_eq(size, 3);
	cr_expect_eq(looked_side_by_side, 0, "nor entries enough to look at side by side");
}

/* Small launches and large ones in turn, each given time for a pass of its
 * own: passes the drain thread takes alone and passes the team takes
 * follow each other, and each share's slots carry over between them. */
Test(entries_drain, passes_alone_and_passes_by_the_team_give_the_same_ends)
{
	unsigned size = 0;

	for (unsigned k = 0; k < STORM_LAUNCHES; k++)
		storm_size[k] = k % 2 ? STORM_MOST : 200;
	storm_pause_ns = 20000000;
	storm("3", "1000");
	cr_expect_gt(team_passes(&size), 0, "the large launches woke the team");
	cr_expect_eq(size, 3);
}
