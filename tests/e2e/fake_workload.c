/* A workload for the fault tests (tests/e2e/test_faults.sh): it joins the
 * session that `smtop record` names in SMTOP_SESSION, as the collector does,
 * and writes kernels and thread blocks into it without a GPU.
 *
 *   fake_workload append SECONDS STATUS [DEVICES]
 *       commits 8 kernels and their blocks every 20 ms through the session
 *       writer for SECONDS, then marks its process exited.  After every
 *       commit STATUS holds "kernels=N blocks=M pid=P" (what is surely in
 *       the file); "done=1" is added at the end.  With DEVICES 2 the
 *       kernels alternate between two GPUs, and the second one's block
 *       times run DEVICE1_SKEW_NS ahead (each GPU has its own timer).
 *       FAKE_DROPPED_BLOCKS=N counts N blocks as dropped, as a drain that
 *       fell behind does.
 *   fake_workload fill STATUS
 *       pushes batches of 16 kernels of 4096 blocks (about 0.5 MB) through
 *       the collector's ring and writer thread until a write fails because
 *       the file cannot grow (run it under ulimit -f).
 *       Between batches it reads the session back and writes what it holds
 *       into STATUS, so STATUS names what was stored before the fault;
 *       "full=1" is added once the writer thread reports the disk full.
 *
 * Times are the wall clock, so a viewer shows the session as live. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/ring.h"
#include "collectors/writer_thread.h"
#include "db/reader.h"
#include "db/writer.h"

#define SMS 132
#define KERNELS_PER_BATCH 8
#define GRID 264
#define FILL_KERNELS 16                 /* fill: ~0.5 MB per batch */
#define FILL_GRID 4096
#define BLOCK_NS 20000ull
#define STREAM_HIGH 13
#define STREAM_LOW 14
#define DEVICE1_SKEW_NS 79000ull        /* two H200s of one host were 79 us apart */

static uint64_t kernels_done, blocks_done, next_grid;
static const char *status_path;
static int devices = 1;

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* Rewritten whole and renamed into place: a reader never sees half of it. */
static void write_status(const char *extra)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", status_path);
	if (!(f = fopen(tmp, "w")))
		return;
	fprintf(f, "kernels=%llu blocks=%llu pid=%d%s%s\n", (unsigned long long)kernels_done,
		(unsigned long long)blocks_done, (int)getpid(), extra ? " " : "", extra ? extra : "");
	fclose(f);
	rename(tmp, status_path);
}

/* Per device: the device and its two streams (device d runs context d + 1). */
static size_t setup_records(struct smtop_record *r, uint32_t pid)
{
	size_t n = 0;

	for (int d = 0; d < devices; d++) {
		r[n] = (struct smtop_record){ .kind = SMTOP_REC_DEVICE };
		r[n++].u.device = (struct smtop_device){ .pid = pid, .device_id = (uint32_t)d,
			.sm_count = SMS, .cc_major = 9, .max_threads_per_sm = 2048,
			.max_blocks_per_sm = 32, .name = strdup("NVIDIA H200"),
			.uuid = strdup(d ? "GPU-fault-tests-1" : "GPU-fault-tests") };
		r[n] = (struct smtop_record){ .kind = SMTOP_REC_STREAM };
		r[n++].u.stream = (struct smtop_stream){ .pid = pid, .device_id = (uint32_t)d,
			.context_id = (uint32_t)d + 1, .stream_id = STREAM_HIGH, .priority = -5 };
		r[n] = (struct smtop_record){ .kind = SMTOP_REC_STREAM };
		r[n++].u.stream = (struct smtop_stream){ .pid = pid, .device_id = (uint32_t)d,
			.context_id = (uint32_t)d + 1, .stream_id = STREAM_LOW, .priority = 0 };
	}
	return n;
}

/* One batch: n_kernels kernels of `blocks` blocks each, ending now. */
static size_t batch_records(struct smtop_record *r, uint32_t pid, int n_kernels, uint32_t blocks)
{
	uint64_t waves = (blocks + SMS - 1) / SMS, t = wall_ns() - waves * BLOCK_NS * (uint64_t)n_kernels;
	size_t n = 0;

	for (int i = 0; i < n_kernels; i++, t += waves * BLOCK_NS) {
		uint64_t grid = ++next_grid;
		struct smtop_block *b = malloc(blocks * sizeof *b);
		uint32_t dev = (uint32_t)((i / 2) % devices);
		uint64_t skew = dev ? DEVICE1_SKEW_NS : 0;

		r[n] = (struct smtop_record){ .kind = SMTOP_REC_KERNEL };
		r[n++].u.kernel = (struct smtop_kernel){ .start = t, .end = t + waves * BLOCK_NS,
			.submitted = t - 3000, .grid_id = grid, .pid = pid, .device_id = dev,
			.context_id = dev + 1,
			.stream_id = i % 2 ? STREAM_LOW : STREAM_HIGH, .correlation_id = (uint32_t)grid,
			.grid = { (int32_t)blocks, 1, 1 }, .block = { 256, 1, 1 }, .registers = 32,
			.name = strdup(i % 2 ? "_Z10train_stepPfi" : "_Z9inferencePKfPf") };
		for (uint32_t j = 0; j < blocks; j++) {
			uint64_t s = t + (j / SMS) * BLOCK_NS;

			b[j] = (struct smtop_block){ .grid_id = grid, .start = s + skew,
				.end = s + skew + BLOCK_NS, .block = j, .sm = (uint16_t)(j % SMS),
				.device_id = (uint16_t)dev };
		}
		r[n] = (struct smtop_record){ .kind = SMTOP_REC_BLOCKS };
		r[n++].u.blocks = (struct smtop_blocks){ .pid = pid, .device_id = dev,
			.context_id = dev + 1, .count = blocks, .blocks = b };
	}
	return n;
}

static struct db_writer *join(uint32_t pid)
{
	const char *session = getenv("SMTOP_SESSION");
	struct db_writer_options o = { .path = session, .pid = pid, .ppid = (uint32_t)getppid(),
				       .command = "fake_workload" };
	struct db_writer *w;
	char err[512];

	if (!session || !*session) {
		fprintf(stderr, "fake_workload: SMTOP_SESSION is not set (run it under smtop record)\n");
		exit(2);
	}
	if (db_writer_open(&w, &o, err, sizeof err) != 0) {
		fprintf(stderr, "fake_workload: %s\n", err);
		exit(2);
	}
	return w;
}

static int run_append(double seconds)
{
	uint32_t pid = (uint32_t)getpid();
	struct db_writer *w = join(pid);
	struct smtop_record r[2 * KERNELS_PER_BATCH + 6];
	uint64_t end = wall_ns() + (uint64_t)(seconds * 1e9);

	if (db_writer_write(w, r, setup_records(r, pid)) != 0)
		goto fail;
	write_status(NULL);
	while (wall_ns() < end) {
		if (db_writer_write(w, r, batch_records(r, pid, KERNELS_PER_BATCH, GRID)) != 0)
			goto fail;
		kernels_done += KERNELS_PER_BATCH;
		blocks_done += KERNELS_PER_BATCH * GRID;
		write_status(NULL);
		sleep_ms(20);
	}
	if (getenv("FAKE_DROPPED_BLOCKS") &&
	    db_writer_add_drops(w, "blocks", strtoull(getenv("FAKE_DROPPED_BLOCKS"), NULL, 10)) != 0)
		goto fail;
	db_writer_set_process_status(w, "exited", NULL);
	db_writer_close(w);
	write_status("done=1");
	return 0;
fail:
	fprintf(stderr, "fake_workload: %s\n", db_writer_error(w));
	db_writer_close(w);
	return 1;
}

/* What a reader finds in the session now. */
static void read_back(void)
{
	struct db_reader *rd;
	struct db_session_info info;
	char err[512];

	if (db_reader_open(&rd, getenv("SMTOP_SESSION"), err, sizeof err) != 0)
		return;
	if (db_reader_info(rd, &info) == 0) {
		kernels_done = info.kernels;
		blocks_done = info.blocks;
	}
	db_reader_close(rd);
}

static int run_fill(void)
{
	uint32_t pid = (uint32_t)getpid();
	struct db_writer *w = join(pid);
	struct ring *q = ring_create(4096);
	struct writer_thread_options o = { .writer = w, .ring = q, .path = getenv("SMTOP_SESSION"),
					   .period_ms = 10 };
	struct smtop_record r[2 * FILL_KERNELS + 3];

	if (!q || writer_thread_start(&o) != 0) {
		fprintf(stderr, "fake_workload: cannot start the writer thread\n");
		return 2;
	}
	ring_push_many(q, r, setup_records(r, pid));
	for (int i = 0; i < 100000 && !writer_thread_disk_full(); i++) {
		size_t n = batch_records(r, pid, FILL_KERNELS, FILL_GRID);

		if (ring_push_many(q, r, n) != n) {
			fprintf(stderr, "fake_workload: ring full\n");
			return 2;
		}
		/* let the writer thread take the batch, then look at the file */
		while (ring_count(q))
			sleep_ms(2);
		sleep_ms(40);
		if (!writer_thread_disk_full()) {
			read_back();
			write_status(NULL);
		}
	}
	/* as the collector ends: the last writes on this thread */
	int full = writer_thread_disk_full();
	writer_thread_finish(w);
	write_status(full ? "full=1" : "full=0");
	ring_destroy(q);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "append") == 0) {
		status_path = argv[3];
		devices = argc == 5 && atoi(argv[4]) == 2 ? 2 : 1;
		return run_append(atof(argv[2]));
	}
	if (argc == 3 && strcmp(argv[1], "fill") == 0) {
		status_path = argv[2];
		return run_fill();
	}
	fprintf(stderr, "usage: fake_workload append SECONDS STATUS [DEVICES] | fill STATUS\n");
	return 2;
}
