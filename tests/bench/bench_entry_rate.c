/* The entry drain itself (collectors/entries.c) against a GPU that starts
 * blocks at a given rate, on host memory (a fake of the sanitizer's memory
 * calls, as tests/test_entries_drain.c): a thread launches kernels of 2,048
 * blocks on 8 streams over 132 SMs and writes their entries as the entry
 * patch would, paced to RATE M blocks/s; the drain copies, bounds, shows
 * the blocks to a kernel table and encodes them, on its own thread or with
 * a team of workers (SMTOP_ENTRY_WORKERS).  Prints, per rate and worker
 * count, the blocks stored (packed)
 * and dropped (launches the arena had no room for): the drain must be
 * lossless at 50 M blocks/s on the H200; and the CPU time the drain took,
 * all its threads (the process's less the launching thread's spin); and what
 * each launch's host side took on the launching thread (its kernel record
 * and its stretch of the arena, as the sanitizer's launch callback does in
 * the workload's launch call), at the median, p99 and most, while the
 * drain worked beside it.  A pass
 * wakes the team only with SMTOP_ENTRY_TEAM_FROM blocks or more to take
 * (collectors/entries.c).  Each run is a process of its own.
 * Usage: bench_entry_rate [N_BLOCKS [RATES [WORKERS]]]
 *   (default 40 M, "10 25 50 100", "1 4") */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/drops.h"
#include "collectors/entries.h"
#include "collectors/launch_shards.h"
#include "db/blockcodec.h"
#include "src/core/clock.h"
#include "tests/support/fake_device.h"
#include "tests/bench/bench_util.h"

#define SMS 132
#define STREAMS 8
#define GRID 2048
#define RESIDENT 32
#define T0 1764480000000000000ull
#define CTX ((CUcontext)(uintptr_t)0x1000)

static struct launch_shards *rate_table;
static _Atomic size_t rate_packed;

static void rate_observe(uint32_t context_id, const struct smtop_block *b, size_t n)
{
	launch_shards_note_scattered(rate_table, 0, context_id, b, n);
}

static void rate_pack(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
		      uint8_t *scratch)
{
	(void)device_id;
	(void)context_id;
	db_blockcodec_encode(b, n, scratch);
	rate_packed += n;
}

static uint64_t rate_clock(uint32_t device, uint64_t host_ns)
{
	(void)device;
	return host_ns;
}

static void *rate_copy_stream(CUcontext ctx)
{
	(void)ctx;
	return (void *)&fake_device_launch_data;
}

static void rate_discard(struct smtop_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)recs[i].u.kernel.name);
}

/* Launch k: its record in the kernel table, its stretch of the arena, and
 * its entries, block i on SM (i + k) % SMS, slot i / SMS % RESIDENT.
 * *host_ns: what the first two took, the launch call's part. */
static int rate_launch(size_t k, uint64_t *free_at, uint64_t *host_ns)
{
	struct launch_info info = { .grid_id = k + 1, .context_id = 1, .stream_id = (uint32_t)(k % STREAMS) + 1,
				    .correlation_id = (uint32_t)k + 1, .grid = { GRID, 1, 1 },
				    .block = { 32, 1, 1 }, .registers = 16, .name = "storm_plain" };
	struct entries_launch_info l = { .ctx = CTX, .context_id = 1, .stream_id = info.stream_id,
					 .order_stream = info.stream_id, .correlation_id = info.correlation_id,
					 .grid_id = k + 1, .blocks = GRID, .threads = 32,
					 .function = (CUfunction)(uintptr_t)(0x2000 + k % 16), .kernel = 0x2000 + k % 16 };

	uint64_t t0 = clock_mono_ns();
	int rc;

	launch_shards_add(rate_table, 0, &info);
	rc = entries_on_launch(&l);
	*host_ns = clock_mono_ns() - t0;
	if (rc != 0)
		return -1;
	for (uint32_t i = 0; i < GRID; i++) {
		unsigned sm = (unsigned)((i + k) % SMS), slot = i / SMS % RESIDENT;
		uint64_t t = free_at[sm * RESIDENT + slot];

		fake_device_launch_data[i] = (struct smtop_entry){ .start = t, .grid = (uint32_t)(k + 1), .sm = (uint16_t)sm,
						     .slot = (uint8_t)slot, .check = smtop_entry_check(t) };
		free_at[sm * RESIDENT + slot] = t + 40000 + (i * 7919u + k) % 80000;
	}
	return 0;
}

static double cpu_s(int who)
{
	struct rusage u;

	getrusage(who, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Device memory and the pinned image are resident from their allocation:
 * touched here, outside the pace, so that neither the launching thread nor
 * the drain pays page faults the GPU's memory and pinned memory never take
 * (the first lap of a 16 M-entry arena would fault 256 MiB on each side). */
static int rate_alloc_resident(CUcontext ctx, void **p, size_t bytes)
{
	if (fake_device_mem.alloc(ctx, p, bytes) != 0)
		return -1;
	memset(*p, 0, bytes);
	return 0;
}

static void rate_run(size_t kernels, double rate_m, unsigned workers)
{
	struct blocks_host mem = fake_device_mem;
	static const struct entries_hooks hooks = {
		.set_data = fake_device_set_data, .observer = rate_observe, .clock = rate_clock,
		.copy_stream = rate_copy_stream, .pack = rate_pack,
	};
	uint64_t *free_at = malloc(SMS * RESIDENT * sizeof(*free_at)), refused = 0;
	uint64_t *host_ns = malloc(kernels * sizeof(*host_ns));
	double t0, wall, after, launcher_cpu, per_launch = GRID / (rate_m * 1e6), us[3];
	char n[16];

	snprintf(n, sizeof n, "%u", workers);
	setenv("SMTOP_ENTRY_WORKERS", n, 1);
	rate_table = launch_shards_create(1, NULL, rate_discard);
	if (!free_at || !host_ns || !rate_table)
		exit(1);
	for (size_t i = 0; i < SMS * RESIDENT; i++)
		free_at[i] = T0;
	mem.alloc = mem.alloc_host = rate_alloc_resident;
	entries_start(&mem, &hooks, 0);
	refused += rate_launch(0, free_at, &host_ns[0]) != 0; /* makes the arena, outside the pace */
	t0 = now_s();
	for (size_t k = 1; k < kernels; k++) {
		double due = t0 + (double)(k - 1) * per_launch;

		while (now_s() < due)
			;
		refused += rate_launch(k, free_at, &host_ns[k]) != 0;
	}
	wall = now_s() - t0;
	launcher_cpu = cpu_s(RUSAGE_THREAD);
	entries_synced(CTX, 0, entries_launched(CTX), clock_real_ns());
	entries_shutdown();
	after = now_s() - t0 - wall;
	/* launch 0 made the arena, outside the pace */
	bench_p50_p99_max(kernels > 1 ? host_ns + 1 : host_ns, kernels > 1 ? kernels - 1 : 1, 1e3, us);
	printf("rate=%.0fM workers=%u blocks=%zu stored=%zu dropped=%llu launches_refused=%llu"
	       " launching_s=%.3f after_s=%.3f drained_M_per_s=%.1f drain_cpu_s=%.3f"
	       " launch_host_us_p50=%.2f p99=%.2f max=%.1f\n",
	       rate_m, workers, kernels * GRID, (size_t)rate_packed, (unsigned long long)drops_take(DROPS_BLOCKS),
	       (unsigned long long)refused, wall, after, (double)rate_packed / (wall + after) / 1e6,
	       cpu_s(RUSAGE_SELF) - launcher_cpu, us[0], us[1], us[2]);
	free(host_ns);
	free(free_at);
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 10) : 40000000ull;
	const char *rates = argc > 2 ? argv[2] : "10 25 50 100", *counts = argc > 3 ? argv[3] : "1 4";
	size_t kernels = want / GRID ? (size_t)(want / GRID) : 1;
	char rbuf[128], cbuf[128], *rs, *cs;

	printf("entry drain against %zu launches of %d blocks, %d SMs, %d streams, host memory\n", kernels, GRID,
	       SMS, STREAMS);
	fflush(stdout);
	snprintf(rbuf, sizeof rbuf, "%s", rates);
	for (char *r = strtok_r(rbuf, " ", &rs); r; r = strtok_r(NULL, " ", &rs)) {
		snprintf(cbuf, sizeof cbuf, "%s", counts);
		for (char *c = strtok_r(cbuf, " ", &cs); c; c = strtok_r(NULL, " ", &cs)) {
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				rate_run(kernels, atof(r), (unsigned)atoi(c));
				fflush(stdout);
				_exit(0);
			}
			if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "bench_entry_rate: the run at %s M/s with %s workers failed\n", r, c);
				return 1;
			}
		}
	}
	return 0;
}
