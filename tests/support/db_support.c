#include "tests/support/db_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

/* What the suites compute on reading goes to a cache of their own, one
 * folder per run (the runner makes it, its workers inherit it), never the
 * user's ~/.cache/smtop. */
__attribute__((constructor)) static void db_support_private_cache(void)
{
	static char dir[] = "/tmp/smtop-test-cache-XXXXXX";
	if (getenv("SMTOP_TEST_CACHE"))
		return;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	setenv("SMTOP_TEST_CACHE", dir, 1);
	setenv("XDG_CACHE_HOME", dir, 1);
}

void db_support_temp_path(char *out, size_t len, const char *name)
{
	char dir[] = "/tmp/smtop-test-XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(out, len, "%s/%s", dir, name);
}

struct db_writer *db_support_writer(const char *path, uint32_t pid, int create)
{
	struct db_writer_options opt = {
		.path = path, .pid = pid, .ppid = 1, .command = "test-workload --flag",
		.create = create, .session_command = create ? "smtop record test-workload" : NULL,
	};
	struct db_writer *w;
	char err[512];

	if (db_writer_open(&w, &opt, err, sizeof err) != 0) {
		fprintf(stderr, "db_support_writer: %s\n", err);
		abort();
	}
	return w;
}

struct smtop_record db_support_kernel(uint32_t pid, uint32_t stream, uint64_t start,
				      uint64_t end, uint64_t grid_id, const char *name)
{
	struct smtop_record r = { .kind = SMTOP_REC_KERNEL };
	struct smtop_kernel *k = &r.u.kernel;

	k->start = start;
	k->end = end;
	k->queued = start > 100 ? start - 100 : 0;
	k->submitted = start > 50 ? start - 50 : 0;
	k->grid_id = grid_id;
	k->pid = pid;
	k->device_id = 0;
	k->context_id = 1;
	k->stream_id = stream;
	k->correlation_id = (uint32_t)grid_id + 1000;
	k->grid[0] = 132; k->grid[1] = 2; k->grid[2] = 1;
	k->block[0] = 256; k->block[1] = 1; k->block[2] = 1;
	k->registers = 32;
	k->static_smem = 1024;
	k->dynamic_smem = 4096;
	k->local_mem = 16;
	k->launch_type = 0;
	k->name = strdup(name);
	return r;
}

struct smtop_record db_support_stream(uint32_t pid, uint32_t stream, int32_t priority)
{
	struct smtop_record r = { .kind = SMTOP_REC_STREAM };

	r.u.stream = (struct smtop_stream){ .pid = pid, .device_id = 0, .context_id = 1,
					    .stream_id = stream, .priority = priority, .flags = 1,
					    .correlation_id = 7 };
	return r;
}

struct smtop_record db_support_device(uint32_t pid, uint32_t device, uint32_t sm_count)
{
	struct smtop_record r = { .kind = SMTOP_REC_DEVICE };

	r.u.device = (struct smtop_device){
		.pid = pid, .device_id = device, .sm_count = sm_count, .cc_major = 9, .cc_minor = 0,
		.max_threads_per_sm = 2048, .max_blocks_per_sm = 32, .max_regs_per_sm = 65536,
		.max_smem_per_sm = 233472, .max_threads_per_block = 1024, .warp_size = 32,
		.global_memory_bytes = 150ull << 30, .name = strdup("NVIDIA H200"),
		.uuid = strdup("GPU-0123456789abcdef"),
	};
	return r;
}

struct smtop_record db_support_api(uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
				   int is_driver, const char *name)
{
	struct smtop_record r = { .kind = SMTOP_REC_API };

	r.u.api = (struct smtop_api){ .start = start, .end = end, .pid = pid, .tid = tid,
				      .correlation_id = 5, .cbid = 211, .is_driver = is_driver,
				      .return_value = 0, .name = strdup(name) };
	return r;
}

struct smtop_record db_support_nvtx(uint32_t pid, uint64_t start, uint64_t end,
				    const char *text, const char *domain)
{
	struct smtop_record r = { .kind = SMTOP_REC_NVTX };

	r.u.nvtx = (struct smtop_nvtx){ .start = start, .end = end, .pid = pid, .tid = pid + 1,
					.color = 0x00ff00, .text = text ? strdup(text) : NULL,
					.domain = domain ? strdup(domain) : NULL };
	return r;
}

struct smtop_record db_support_request(uint32_t pid, uint32_t stream, uint64_t start,
				       uint64_t end, const char *label)
{
	struct smtop_record r = { .kind = SMTOP_REC_REQUEST };

	r.u.request = (struct smtop_request){ .start = start, .end = end, .pid = pid,
					      .stream_id = stream, .label = strdup(label) };
	return r;
}

struct smtop_record db_support_blocks(uint32_t pid, uint32_t context,
				      const struct smtop_block *b, uint32_t n)
{
	struct smtop_record r = { .kind = SMTOP_REC_BLOCKS };

	r.u.blocks.pid = pid;
	r.u.blocks.device_id = n ? b[0].device_id : 0;
	r.u.blocks.context_id = context;
	r.u.blocks.count = n;
	r.u.blocks.blocks = malloc((n ? n : 1) * sizeof *b);
	memcpy(r.u.blocks.blocks, b, n * sizeof *b);
	return r;
}

uint64_t db_support_rand(uint64_t *seed)
{
	/* splitmix64 */
	uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void db_support_synthetic_blocks(struct smtop_block *out, size_t n, uint64_t t0,
				 uint32_t n_sms, uint64_t *seed)
{
	uint64_t grid = 1 + db_support_rand(seed) % 1000, t = t0;
	uint32_t block = 0, grid_blocks = 1000 + (uint32_t)(db_support_rand(seed) % 20000);

	for (size_t i = 0; i < n; i++) {
		uint64_t dur = (1 + db_support_rand(seed) % 300) * 32;

		if (block == grid_blocks) {
			grid++;
			block = 0;
			grid_blocks = 1000 + (uint32_t)(db_support_rand(seed) % 20000);
		}
		out[i] = (struct smtop_block){ .grid_id = grid, .start = t, .end = t + dur,
					       .block = block, .sm = (uint16_t)(block % n_sms),
					       .device_id = 0 };
		block++;
		if (i % 4 == 3)
			t += 32 * (db_support_rand(seed) % 4);
	}
}

void db_support_free_record(struct smtop_record *r)
{
	records_free_owned(r);
}

int64_t db_support_sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "db_support_sql_int: %s: %s\n", path, sqlite3_errmsg(db));
		abort();
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}
