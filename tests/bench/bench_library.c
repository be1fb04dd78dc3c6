/* Session-library benchmark: what `smtop ls` costs for one large session the
 * first time (the analysis reads every block, then stores smtop_summary) and
 * afterwards (the cached row and the session's length).  Writes a session of
 * N blocks (default 10 M): kernels of 1056 blocks on 8 streams of priorities
 * -5 and 0 over 132 SMs, some of them waiting behind others.
 * Usage: bench_library [N_BLOCKS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/writer.h"
#include "db/session/library.h"
#include "tests/support/db_support.h"
#include "tests/bench/bench_util.h"

#define SMS 132
#define STREAMS 8
#define PER_KERNEL (SMS * 8)
#define KERNELS_PER_BATCH 62

static void check(int rc, struct db_writer *w)
{
	if (rc != 0) {
		fprintf(stderr, "bench_library: %s\n", db_writer_error(w));
		exit(1);
	}
}

/* One kernel and its blocks: one wave of 20 us blocks; every fourth kernel
 * (priority -5) becomes ready 40 us early, while the previous one (priority
 * 0) still holds the SMs: an inversion. */
static void add_kernel(struct smtop_record *r, size_t *n, uint64_t grid, uint64_t t,
		       uint64_t *seed)
{
	struct smtop_block *b = malloc(PER_KERNEL * sizeof *b);
	uint32_t stream = 13 + (uint32_t)(grid % STREAMS);

	r[*n] = db_support_kernel(1, stream, t, t + 22000, grid, "_Z12bench_kernelv");
	r[*n].u.kernel.submitted = grid % 4 == 0 ? t - 40000 : t - 500;
	(*n)++;
	for (uint32_t i = 0; i < PER_KERNEL; i++) {
		uint64_t s = t + db_support_rand(seed) % 1000;
		b[i] = (struct smtop_block){ .grid_id = grid, .start = s, .end = s + 20000,
					     .block = i, .sm = (uint16_t)(i % SMS) };
	}
	r[(*n)++] = db_support_blocks(1, 1, b, PER_KERNEL);
	free(b);
}

static void build(const char *path, uint64_t n_blocks)
{
	struct db_writer *w = db_support_writer(path, 1, 1);
	struct smtop_record r[2 * KERNELS_PER_BATCH + STREAMS + 1];
	uint64_t seed = 7, t = 1764480000000000000ull, grid = 1, done = 0;
	size_t n = 0;

	r[n++] = db_support_device(1, 0, SMS);
	for (uint32_t s = 0; s < STREAMS; s++)
		r[n++] = db_support_stream(1, 13 + s, s % 2 ? 0 : -5);
	check(db_writer_write(w, r, n), w);
	while (done < n_blocks) {
		n = 0;
		for (int k = 0; k < KERNELS_PER_BATCH && done < n_blocks; k++, done += PER_KERNEL) {
			add_kernel(r, &n, grid++, t, &seed);
			t += 21000;
		}
		check(db_writer_write(w, r, n), w);
	}
	check(db_writer_finish_session(w, 1, "exited with status 0"), w);
	db_writer_close(w);
}

static double entry(const char *dir, struct library_entry *e)
{
	double t0 = now_s();
	library_read_entry(e, dir, "big.smtop", NULL);
	double dt = now_s() - t0;
	if (e->error) {
		fprintf(stderr, "bench_library: %s\n", e->error);
		exit(1);
	}
	return dt;
}

int main(int argc, char **argv)
{
	uint64_t n_blocks = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ull;
	char path[512], dir[512];
	struct library_entry e;
	struct stat sb;

	db_support_temp_path(path, sizeof path, "big.smtop");
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	double t0 = now_s();
	build(path, n_blocks);
	double built = now_s() - t0;
	stat(path, &sb);

	double first = entry(dir, &e);
	uint64_t blocks = e.sum.blocks, inv = e.sum.inversions_resident + e.sum.inversions_dispatch;
	int stored = e.stored;
	library_entry_free(&e);
	double cached = 1e9;
	for (int i = 0; i < 5; i++) {
		double dt = entry(dir, &e);
		if (!e.cached) {
			fprintf(stderr, "bench_library: the second listing did not use the cache\n");
			return 1;
		}
		cached = dt < cached ? dt : cached;
		library_entry_free(&e);
	}
	printf("session: %llu blocks, %llu kernels, %.0f MB, written in %.1f s\n",
	       (unsigned long long)blocks, (unsigned long long)(blocks / PER_KERNEL),
	       (double)sb.st_size / 1e6, built);
	printf("first ls of it (analysis, %llu inversions, summary %s): %.2f s (%.1f M blocks/s)\n",
	       (unsigned long long)inv, stored ? "stored" : "NOT stored", first,
	       (double)blocks / first / 1e6);
	printf("later ls of it (cached row): %.2f ms (best of 5), %.0fx faster\n", cached * 1e3,
	       first / cached);
	unlink(path);
	return 0;
}
