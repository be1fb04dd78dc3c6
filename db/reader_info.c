#include "db/reader_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/files.h"
#include "db/procid.h"
#include "db/schema.h"
#include "src/core/array.h"

void reader_info_free(struct db_reader *r)
{
	strmap_free(&r->info.strings);
	free(r->info.devices);
	free(r->info.processes);
	memset(&r->info, 0, sizeof r->info);
}

/* [*lo, *hi) grown to hold [lo, hi); *lo 0 means empty. */
static void reader_widen(uint64_t *lo_io, uint64_t *hi_io, uint64_t lo, uint64_t hi)
{
	if (!*lo_io || lo < *lo_io)
		*lo_io = lo;
	*hi_io = hi > *hi_io ? hi : *hi_io;
}

/* *st prepared once (sql on r's connection); NULL when it cannot be. */
static sqlite3_stmt *reader_stats_stmt(struct db_reader *r, sqlite3_stmt **st, const char *sql)
{
	if (!*st && sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return *st;
}

/* Folds rows stored since the last call into the running maxima. */
void reader_info_update_stats(struct db_reader *r)
{
	sqlite3_stmt *st;

	if (r->has_kernel && (st = reader_stats_stmt(r, &r->st_kernel_stats,
	    "SELECT max(rowid), max(end - start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL"
	    " WHERE rowid > ?1"))) {
		sqlite3_bind_int64(st, 1, r->kernel_wm);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			uint64_t dur = (uint64_t)sqlite3_column_int64(st, 1);
			uint64_t end = (uint64_t)sqlite3_column_int64(st, 2);

			r->kernel_wm = sqlite3_column_int64(st, 0);
			r->kernel_max_dur = dur > r->kernel_max_dur ? dur : r->kernel_max_dur;
			r->kernel_max_end = end > r->kernel_max_end ? end : r->kernel_max_end;
		}
		sqlite3_reset(st);
	}
	if (r->has_chunk && (st = reader_stats_stmt(r, &r->st_chunk_stats,
	    "SELECT max(id), sum(count), min(start), max(end), max(end - start), deviceId"
	    " FROM smtop_block_chunk WHERE id > ?1 GROUP BY deviceId"))) {
		int64_t wm = r->chunk_wm;

		sqlite3_bind_int64(st, 1, r->chunk_wm);
		while (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			int64_t id = sqlite3_column_int64(st, 0), dev = sqlite3_column_int64(st, 5);
			uint64_t lo = (uint64_t)sqlite3_column_int64(st, 2);
			uint64_t hi = (uint64_t)sqlite3_column_int64(st, 3);
			uint64_t span = (uint64_t)sqlite3_column_int64(st, 4);

			wm = id > wm ? id : wm;
			r->chunk_blocks += (uint64_t)sqlite3_column_int64(st, 1);
			reader_widen(&r->chunk_min_start, &r->chunk_max_end, lo, hi);
			if (dev >= 0 && dev < READER_CLOCK_DEVICES)
				reader_widen(&r->dev_min_start[dev], &r->dev_max_end[dev], lo, hi);
			r->chunk_max_span = span > r->chunk_max_span ? span : r->chunk_max_span;
		}
		r->chunk_wm = wm;
		sqlite3_reset(st);
	}
}

/* The chunk and kernel tables' running figures as text, for smtop_meta key
 * chunk_stats: "2 WM ROWS BLOCKS MIN MAX SPAN KWM KROWS KDUR KEND" then
 * "DEV LO HI" per device. */
int db_reader_chunk_stats(struct db_reader *r, char *buf, size_t len)
{
	if (!r->has_chunk || r->is_nsys)
		return -1;
	reader_info_update_stats(r);
	int64_t rows = reader_int(r, "SELECT count(*) FROM smtop_block_chunk", 0);
	int64_t krows = r->has_kernel ? reader_int(r, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0) : 0;
	int n = snprintf(buf, len, "2 %lld %lld %llu %llu %llu %llu %lld %lld %llu %llu",
			 (long long)r->chunk_wm, (long long)rows, (unsigned long long)r->chunk_blocks,
			 (unsigned long long)r->chunk_min_start, (unsigned long long)r->chunk_max_end,
			 (unsigned long long)r->chunk_max_span, (long long)r->kernel_wm,
			 (long long)krows, (unsigned long long)r->kernel_max_dur,
			 (unsigned long long)r->kernel_max_end);
	for (int d = 0; d < READER_CLOCK_DEVICES && n > 0 && (size_t)n < len; d++)
		if (r->dev_min_start[d])
			n += snprintf(buf + n, len - (size_t)n, " %d %llu %llu", d,
				      (unsigned long long)r->dev_min_start[d],
				      (unsigned long long)r->dev_max_end[d]);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static int reader_parse_devices(struct db_reader *r, const char *p)
{
	int d, used;
	unsigned long long lo, hi;
	while (sscanf(p, " %d %llu %llu%n", &d, &lo, &hi, &used) == 3) {
		if (d < 0 || d >= READER_CLOCK_DEVICES || !lo || hi < lo)
			return -1;
		r->dev_min_start[d] = lo;
		r->dev_max_end[d] = hi;
		p += used;
	}
	return *p ? -1 : 0;
}

/* A finished session's figures need every chunk row (a page each) and
 * every kernel row: the stored ones serve while the tables hold exactly
 * the rows they counted (max(id) and count(*), both read from an index).  Anything else, and
 * the rows are counted as before. */
void reader_info_load_chunk_stats(struct db_reader *r)
{
	sqlite3_stmt *st;
	char v[4096] = "";
	if (!r->has_chunk || r->is_nsys ||
	    sqlite3_prepare_v2(r->db, "SELECT value FROM smtop_meta WHERE key = 'chunk_stats'", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(v, sizeof v, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	long long wm, rows, kwm, krows;
	unsigned long long blocks, lo, hi, span, kdur, kend;
	int used;
	if (sscanf(v, "2 %lld %lld %llu %llu %llu %llu %lld %lld %llu %llu%n", &wm, &rows, &blocks,
		   &lo, &hi, &span, &kwm, &krows, &kdur, &kend, &used) != 10 ||
	    wm != reader_int(r, "SELECT max(id) FROM smtop_block_chunk", 0) ||
	    rows != reader_int(r, "SELECT count(*) FROM smtop_block_chunk", 0) ||
	    (r->has_kernel &&
	     (kwm != reader_int(r, "SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0) ||
	      krows != reader_int(r, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0))))
		return;
	uint64_t dlo[READER_CLOCK_DEVICES], dhi[READER_CLOCK_DEVICES];
	memcpy(dlo, r->dev_min_start, sizeof dlo);
	memcpy(dhi, r->dev_max_end, sizeof dhi);
	if (reader_parse_devices(r, v + used) != 0) {
		memcpy(r->dev_min_start, dlo, sizeof dlo);
		memcpy(r->dev_max_end, dhi, sizeof dhi);
		return;
	}
	r->chunk_wm = wm;
	if (r->has_kernel) {
		r->kernel_wm = kwm;
		r->kernel_max_dur = kdur;
		r->kernel_max_end = kend;
	}
	r->chunk_blocks = blocks;
	r->chunk_min_start = lo;
	r->chunk_max_end = hi;
	r->chunk_max_span = span;
}


/* ---- session info ---- */

static const char *info_text(struct db_reader *r, const unsigned char *s)
{
	return s ? strmap_intern(&r->info.strings, (const char *)s) : NULL;
}

static const char *info_meta(struct db_reader *r, const char *key)
{
	const char *v = reader_meta(r, key);

	return v ? info_text(r, (const unsigned char *)v) : NULL;
}

/* While recording, tables only grow, so the largest rowid is the row count
 * without a scan (info is polled live).  A finished session may have been
 * trimmed and an nsys export may have gaps: count those exactly. */
static uint64_t reader_rows(struct db_reader *r, int has, const char *table, int exact)
{
	char sql[160];

	if (!has)
		return 0;
	snprintf(sql, sizeof sql, exact ? "SELECT count(*) FROM %s" : "SELECT max(rowid) FROM %s", table);
	return (uint64_t)reader_int(r, sql, 0);
}

static void info_counts(struct db_reader *r, struct db_session_info *info)
{
	int exact = info->ended || info->is_nsys;

	info->kernels = reader_rows(r, r->has_kernel, "CUPTI_ACTIVITY_KIND_KERNEL", exact);
	/* through smtop's index on start: an export has none, nor such kernels */
	info->kernels_unstarted = r->has_kernel && !info->is_nsys ? (uint64_t)reader_int(r,
		"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start = 0", 0) : 0;
	info->kernels_unstarted_blocks = info->kernels_unstarted ? (uint64_t)reader_int(r,
		"SELECT ifnull(sum(gridX * gridY * gridZ), 0) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start = 0", 0) : 0;
	info->memcpys = reader_rows(r, r->has_memcpy, "CUPTI_ACTIVITY_KIND_MEMCPY", exact);
	info->memsets = reader_rows(r, r->has_memset, "CUPTI_ACTIVITY_KIND_MEMSET", exact);
	info->api_calls = reader_rows(r, r->has_runtime, "CUPTI_ACTIVITY_KIND_RUNTIME", exact);
	info->syncs = reader_rows(r, r->ops_sync, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", exact) +
		      reader_rows(r, r->ops_cuda_event, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", exact) +
		      reader_rows(r, r->ops_graph_dep, "smtop_graph_dep", exact);
	info->requests = reader_rows(r, r->has_request, "smtop_request", exact);
	if (r->has_nvtx) {
		char sql[160];

		snprintf(sql, sizeof sql, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (%d,%d,%d)",
			 r->nvtx_mark, r->nvtx_push_pop, r->nvtx_start_end);
		info->nvtx = (uint64_t)reader_int(r, sql, 0);
	}
	info->streams = r->has_stream ? (uint64_t)reader_int(r,
		"SELECT count(*) FROM TARGET_INFO_CUDA_STREAM", 0) : 0;
	info->contexts = r->has_ctx ? (uint64_t)reader_int(r,
		"SELECT count(*) FROM TARGET_INFO_CUDA_CONTEXT_INFO", 0) : 0;
	info->blocks = r->chunk_blocks;
}

/* The blocks' first start and last end on CUPTI time, each device's by its
 * own clock (devices past READER_CLOCK_DEVICES are not tracked one by one). */
static void reader_clock_span(struct db_reader *r, uint64_t *b0, uint64_t *b1)
{
	uint64_t lo = 0, hi = 0, seen = 0;

	for (size_t d = 0; d < READER_CLOCK_DEVICES; d++) {
		if (!r->dev_min_start[d])
			continue;
		reader_widen(&lo, &hi, gpu_clock_cupti(reader_clock_of(r, (int64_t)d), r->dev_min_start[d]),
			     gpu_clock_cupti(reader_clock_of(r, (int64_t)d), r->dev_max_end[d]));
		seen++;
	}
	if (!seen) { /* only devices past the table: not tracked one by one */
		lo = gpu_clock_cupti(&r->clock, r->chunk_min_start);
		hi = gpu_clock_cupti(&r->clock, r->chunk_max_end);
	}
	*b0 = lo;
	*b1 = hi;
}

/* Each device's clock, in the info arena. */
static void info_clocks(struct db_reader *r, struct db_session_info *info)
{
	size_t n = 0;

	for (size_t d = 0; d < READER_CLOCK_DEVICES; d++)
		if (r->dev_clock_kind[d] != CLOCK_NONE)
			r->info.clocks[n++] = (struct db_device_clock){
				(uint16_t)d, r->dev_clock_kind[d] == CLOCK_STORED, r->dev_clock[d] };
	info->n_clocks = n;
	info->clocks = r->info.clocks;
}

static void info_times(struct db_reader *r, struct db_session_info *info)
{
	uint64_t first = r->has_kernel ? (uint64_t)reader_int(r,
		"SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL", 0) : 0;
	uint64_t last = r->kernel_max_end;

	if (r->chunk_min_start) {
		uint64_t b0, b1;

		reader_clock_span(r, &b0, &b1);

		first = !first || b0 < first ? b0 : first;
		last = b1 > last ? b1 : last;
	}
	info->t_first = first;
	info->t_last = last;
}

/* Where an export keeps its GPUs, by the columns each table names a field.
 * TARGET_INFO_GPU (smtop, nsys 2021.3 on) numbers GPUs nsys' way and gives the
 * CUDA device in cuDevice; TARGET_INFO_CUDA_GPU (nsys before 2021.3) holds
 * CUPTI's device attributes per process, keyed by the CUDA device id. */
struct gpu_source {
	const char *table;
	const char *ids[4];          /* CUDA device id: the first present wins */
	const char *name, *uuid, *memory, *sms, *cc_major, *cc_minor, *threads_per_block;
	const char *blocks_per_sm, *regs_per_sm, *warp, *smem_per_sm, *threads_per_sm;
	const char *warps_per_sm;
	const char *pid;             /* globalPid, or a plain pid where pid_plain */
	int pid_plain;
};

static const struct gpu_source gpu_info = {
	"TARGET_INFO_GPU", { "cuDevice", "id", "deviceId", NULL }, "name", "uuid", "totalMemory",
	"smCount", "computeMajor", "computeMinor", "maxThreadsPerBlock", "maxBlocksPerSm",
	"maxRegistersPerSm", "threadsPerWarp", "maxShmemPerSm", "maxThreadsPerSm", "maxWarpsPerSm",
	"globalPid", 0,
};

static const struct gpu_source gpu_cupti = {
	"TARGET_INFO_CUDA_GPU", { "deviceId", NULL }, "name", NULL, "globalMemorySize",
	"numMultiprocessors", "computeCapabilityMajor", "computeCapabilityMinor", "maxThreadsPerBlock",
	"maxBlocksPerMultiprocessor", "maxRegistersPerMultiprocessor", "numThreadsPerWarp",
	"maxSharedMemoryPerMultiprocessor", NULL, "maxWarpsPerMultiprocessor", "pid", 1,
};

/* Column expression "g.col" if the source table has it, else fallback. */
static const char *gpu_col(struct db_reader *r, const struct gpu_source *g, const char *col,
			   const char *fallback, char *buf, size_t len)
{
	if (!col || !reader_has_column(r, g->table, col))
		return fallback;
	snprintf(buf, len, "g.%s", col);
	return buf;
}

/* The CUDA device id expression: TARGET_INFO_CUDA_DEVICE's mapping where it
 * has rows, else the first id column present. */
static const char *gpu_id(struct db_reader *r, const struct gpu_source *g, char *buf, size_t len)
{
	const char *first = NULL, *second = NULL;

	if (g == &gpu_info && r->has_cuda_device)
		return "COALESCE(d.cudaId, g.id)";
	for (const char *const *c = g->ids; *c; c++)
		if (reader_has_column(r, g->table, *c)) {
			if (!first)
				first = *c;
			else if (!second)
				second = *c;
		}
	if (!first)
		return "0";
	if (second)
		snprintf(buf, len, "COALESCE(g.%s, g.%s)", first, second);
	else
		snprintf(buf, len, "g.%s", first);
	return buf;
}

/* Devices by the CUDA device id kernels carry.  nsys numbers GPUs its own way
 * (TARGET_INFO_GPU.id): newer exports map them per process in
 * TARGET_INFO_CUDA_DEVICE (gpuId -> cudaId), older ones give cuDevice, the
 * oldest list CUPTI's devices in TARGET_INFO_CUDA_GPU. */
static int info_devices(struct db_reader *r, struct db_session_info *info)
{
	const struct gpu_source *g = r->has_cuda_gpu ? &gpu_cupti : &gpu_info;
	char sql[1800], c[15][80], order[200];
	const char *id, *sms, *pid, *threads, *used = "";
	sqlite3_stmt *st;
	size_t cap = 0;

	if (!r->has_gpu && !r->has_cuda_gpu)
		return 0;
	/* the device map carries an SM count in some schemas (3.28.1), not in
	 * others (3.20.3 has gpuId, cudaId and pid only) */
	sms = g == &gpu_info && r->has_cuda_device &&
	      reader_has_column(r, "TARGET_INFO_CUDA_DEVICE", "numMultiprocessors")
		? "COALESCE(NULLIF(g.smCount, 0), d.numMultiprocessors, 0)"
		: gpu_col(r, g, g->sms, "0", c[1], sizeof c[1]);
	pid = g == &gpu_info && r->has_cuda_device ? "(d.pid << 24)"
		: gpu_col(r, g, g->pid, "0", c[2], sizeof c[2]);
	if (g->pid_plain && pid == c[2]) {
		snprintf(c[2], sizeof c[2], "(g.%s << 24)", g->pid);
		pid = c[2];
	}
	threads = gpu_col(r, g, g->threads_per_sm, NULL, c[3], sizeof c[3]);
	if (!threads && g->warps_per_sm && reader_has_column(r, g->table, g->warps_per_sm) &&
	    reader_has_column(r, g->table, g->warp)) {
		snprintf(c[13], sizeof c[13], "(g.%s * g.%s)", g->warps_per_sm, g->warp);
		threads = c[13];
	}
	/* an export that lists every GPU of the machine: the ones a context
	 * ran on come first, so the view draws a GPU that ran kernels */
	id = gpu_id(r, g, c[0], sizeof c[0]);
	if (r->is_nsys && g == &gpu_info && !r->has_cuda_device && (r->has_ctx || r->has_null_stream)) {
		snprintf(order, sizeof order, "(%s) IN (SELECT deviceId FROM %s) DESC, ", id,
			 r->has_ctx ? "TARGET_INFO_CUDA_CONTEXT_INFO" : "TARGET_INFO_CUDA_NULL_STREAM");
		used = order;
	}
	snprintf(sql, sizeof sql, "SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s"
		 " FROM %s g%s ORDER BY %s1",
		 id, gpu_col(r, g, g->name, "NULL", c[14], sizeof c[14]),
		 gpu_col(r, g, g->uuid, "NULL", c[4], sizeof c[4]),
		 gpu_col(r, g, g->memory, "0", c[5], sizeof c[5]), sms,
		 gpu_col(r, g, g->cc_major, "0", c[6], sizeof c[6]),
		 gpu_col(r, g, g->cc_minor, "0", c[7], sizeof c[7]),
		 gpu_col(r, g, g->threads_per_block, "0", c[8], sizeof c[8]),
		 gpu_col(r, g, g->blocks_per_sm, "0", c[9], sizeof c[9]),
		 gpu_col(r, g, g->regs_per_sm, "0", c[10], sizeof c[10]),
		 gpu_col(r, g, g->warp, "0", c[11], sizeof c[11]),
		 gpu_col(r, g, g->smem_per_sm, "0", c[12], sizeof c[12]),
		 threads ? threads : "0", pid, g->table,
		 g == &gpu_info && r->has_cuda_device
			? " JOIN TARGET_INFO_CUDA_DEVICE d ON d.gpuId = g.id" : "", used);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read GPU info");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct smtop_device *d;
		int dup = 0;

		/* several processes may see one GPU: one entry per device id */
		for (size_t i = 0; i < info->n_devices; i++)
			dup |= r->info.devices[i].device_id == (uint32_t)sqlite3_column_int64(st, 0);
		if (dup)
			continue;
		if (array_grow((void **)&r->info.devices, &cap, info->n_devices + 1, sizeof *d))
			break;
		d = &r->info.devices[info->n_devices++];
		*d = (struct smtop_device){
			.device_id = (uint32_t)sqlite3_column_int64(st, 0),
			.name = info_text(r, sqlite3_column_text(st, 1)),
			.uuid = info_text(r, sqlite3_column_text(st, 2)),
			.global_memory_bytes = (uint64_t)sqlite3_column_int64(st, 3),
			.sm_count = (uint32_t)sqlite3_column_int64(st, 4),
			.cc_major = (uint32_t)sqlite3_column_int64(st, 5),
			.cc_minor = (uint32_t)sqlite3_column_int64(st, 6),
			.max_threads_per_block = (uint32_t)sqlite3_column_int64(st, 7),
			.max_blocks_per_sm = (uint32_t)sqlite3_column_int64(st, 8),
			.max_regs_per_sm = (uint32_t)sqlite3_column_int64(st, 9),
			.warp_size = (uint32_t)sqlite3_column_int64(st, 10),
			.max_smem_per_sm = (uint32_t)sqlite3_column_int64(st, 11),
			.max_threads_per_sm = (uint32_t)sqlite3_column_int64(st, 12),
			.pid = reader_pid_of(sqlite3_column_int64(st, 13)),
		};
	}
	sqlite3_finalize(st);
	info->devices = r->info.devices;
	return 0;
}

static int info_processes(struct db_reader *r, struct db_session_info *info)
{
	/* exports before 3.0 have no PROCESSES table: the processes are those
	 * whose streams the export lists (a small table, unlike the kernels),
	 * their names unknown */
	/* PROCESSES lists every process of the machine (kernel threads too):
	 * only those with CUDA streams, or else kernels, are the workload's */
	const char *sql = r->has_process
		? "SELECT pid, command, status, reason, drops_cupti, drops_ring, drops_blocks"
		  " FROM smtop_process ORDER BY start, pid"
		: r->has_nsys_processes && r->has_stream
		? "SELECT pid, name, 'exited', NULL, 0, 0, 0 FROM PROCESSES"
		  " WHERE pid IN (SELECT processId FROM TARGET_INFO_CUDA_STREAM) ORDER BY pid"
		: r->has_nsys_processes && r->has_kernel
		? "SELECT pid, name, 'exited', NULL, 0, 0, 0 FROM PROCESSES WHERE pid IN"
		  " (SELECT DISTINCT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL)"
		  " ORDER BY pid"
		: r->has_nsys_processes
		? "SELECT pid, name, 'exited', NULL, 0, 0, 0 FROM PROCESSES ORDER BY pid"
		: "SELECT DISTINCT processId, NULL, 'exited', NULL, 0, 0, 0"
		  " FROM TARGET_INFO_CUDA_STREAM ORDER BY 1";
	sqlite3_stmt *st;
	size_t cap = 0;

	if (!r->has_process && !r->has_nsys_processes && !(r->is_nsys && r->has_stream))
		return 0;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read processes");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_process_info *p;

		if (array_grow((void **)&r->info.processes, &cap, info->n_processes + 1, sizeof *p))
			break;
		p = &r->info.processes[info->n_processes++];
		*p = (struct db_process_info){
			.pid = (uint32_t)sqlite3_column_int64(st, 0),
			.command = info_text(r, sqlite3_column_text(st, 1)),
			.status = info_text(r, sqlite3_column_text(st, 2)),
			.reason = info_text(r, sqlite3_column_text(st, 3)),
			.drops_cupti = (uint64_t)sqlite3_column_int64(st, 4),
			.drops_ring = (uint64_t)sqlite3_column_int64(st, 5),
			.drops_blocks = (uint64_t)sqlite3_column_int64(st, 6),
		};
		info->drops_cupti += p->drops_cupti;
		info->drops_ring += p->drops_ring;
		info->drops_blocks += p->drops_blocks;
	}
	sqlite3_finalize(st);
	info->processes = r->info.processes;
	return 0;
}

/* A session nobody will finalise: the smtop that recorded it is gone (killed,
 * or the machine rebooted) and no process still marked running is alive.
 * Sessions that do not name their recorder are never judged.  Returns why,
 * or NULL. */
static const char *reader_abandoned(struct db_reader *r, const struct db_session_info *info)
{
	const char *why = "the recorder stopped before finalising the session";
	struct db_procid id;

	if (info->ended || info->is_nsys || db_procid_parse(reader_meta(r, "recorder"), &id) != 0 ||
	    db_procid_alive(&id) != 0)
		return NULL;
	for (size_t i = 0; i < info->n_processes; i++) {
		const struct db_process_info *p = &info->processes[i];
		struct db_procid w = { .pid = p->pid };

		memcpy(w.boot, id.boot, sizeof w.boot);
		if (p->status && strcmp(p->status, "running") == 0 && db_procid_alive(&w) != 0)
			return NULL;
		/* the disk filled up: not even the end could be written */
		if (p->reason && strcmp(p->reason, SCHEMA_DISK_FULL_REASON) == 0)
			why = SCHEMA_DISK_FULL_REASON;
	}
	return why;
}

void db_reader_sync_types(struct db_reader *r, struct db_session_info *info)
{
	sqlite3_stmt *st;

	memset(info->sync_types, 0, sizeof info->sync_types);
	info->sync_types_known = 0;
	if (!r->ops_sync || sqlite3_prepare_v2(r->db, "SELECT syncType, count(*) FROM "
				  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION GROUP BY syncType", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t type = sqlite3_column_int64(st, 0);

		info->sync_types[type > 0 && type < DB_SYNC_TYPES ? type : 0] += (uint64_t)sqlite3_column_int64(st, 1);
	}
	info->sync_types_known = 1;
	sqlite3_finalize(st);
}

int db_reader_info(struct db_reader *r, struct db_session_info *info)
{
	const char *v;

	reader_info_free(r);
	memset(info, 0, sizeof *info);
	reader_clock_update(r);
	reader_info_update_stats(r);
	info->is_nsys = r->is_nsys;
	info->schema_version = r->schema_version;
	info->path = r->path;
	info->command = info_meta(r, "command");
	info->collector = info_meta(r, "collector_backend");
	info->block_ends = info_meta(r, "block_ends");
	info->sm_mode = info_meta(r, "sm_mode");
	info->exact_windows = info_meta(r, "exact_windows");
	info->entry_marks = info_meta(r, "entry_marks");
	info->end_error = info_meta(r, "inferred_end_error_ns");
	info->residency = info_meta(r, "inferred_residency");
	info->trimmed = info_meta(r, "trimmed");
	info->smtop_version = info_meta(r, "smtop_version");
	info->created_ns = (v = reader_meta(r, "created_ns")) ? strtoull(v, NULL, 10) : 0;
	info->ended = (v = reader_meta(r, "ended")) ? atoi(v) : 0;
	info->ended_clean = (v = reader_meta(r, "ended_clean")) ? atoi(v) : 0;
	info->end_reason = info_meta(r, "end_reason");
	info->nsys_schema = reader_export_meta(r, "EXPORT_SCHEMA_VERSION", &r->info.strings);
	info->nsys_product = reader_export_meta(r, "EXPORT_PRODUCT_VERSION", &r->info.strings);
	/* nsys first wrote its schema version with 3.0 (2022.4) */
	info->nsys_before_3 = r->is_nsys && !r->export_meta;
	info->clock = r->clock;
	info->clock_known = r->clock_known;
	info_clocks(r, info);
	info_counts(r, info);
	info_times(r, info);
	if (info_devices(r, info) != 0 || info_processes(r, info) != 0)
		return -1;
	if ((v = reader_abandoned(r, info))) {
		info->abandoned = 1;
		info->ended = 1;
		info->ended_clean = 0;
		info->end_reason = v;
	}
	return 0;
}
