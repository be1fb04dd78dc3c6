#include "db/writer.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/blockcodec.h"
#include "db/checkpoint.h"
#include "db/names.h"
#include "src/core/array.h"
#include "src/core/clock.h"
#include "src/core/names.h"
#include "db/procid.h"
#include "db/schema.h"
#include "src/core/strmap.h"
#include "src/core/version.h"

/* Several processes of one workload write one session; a writer waits this
 * long for another's batch before giving up. */
#define WRITER_BUSY_MS 10000

enum writer_stmt {
	ST_STR_INSERT, ST_STR_SELECT, ST_KERNEL, ST_MEMCPY, ST_MEMSET, ST_API, ST_SYNC, ST_CUDA_EVENT, ST_GRAPH_DEP,
	ST_NVTX, ST_STREAM, ST_DEVICE, ST_CONTEXT, ST_REQUEST, ST_CHUNK, ST_META,
	ST_COUNT
};

static const char *const writer_sql[ST_COUNT] = {
	[ST_STR_INSERT] = "INSERT OR IGNORE INTO StringIds(value) VALUES(?1)",
	[ST_STR_SELECT] = "SELECT id FROM StringIds WHERE value=?1",
	[ST_KERNEL] = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start,end,deviceId,contextId,"
		"streamId,correlationId,globalPid,demangledName,shortName,mangledName,"
		"launchType,registersPerThread,gridX,gridY,gridZ,blockX,blockY,blockZ,"
		"staticSharedMemory,dynamicSharedMemory,localMemoryPerThread,gridId,"
		"queued,submitted,isGraph,graphNodeId) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
		"?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26)",
	[ST_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(start,end,deviceId,contextId,"
		"streamId,correlationId,globalPid,bytes,copyKind,srcKind,dstKind,graphNodeId)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
	[ST_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(start,end,deviceId,contextId,"
		"streamId,correlationId,globalPid,value,bytes,graphNodeId)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
	[ST_API] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start,end,eventClass,globalTid,"
		"correlationId,nameId,returnValue,isDriver,cbid,streamId) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
	[ST_SYNC] = "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(start,end,contextId,"
		"streamId,correlationId,globalPid,syncType,eventId,eventSyncId)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
	[ST_CUDA_EVENT] = "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT(deviceId,contextId,streamId,"
		"correlationId,globalPid,eventId,eventSyncId,deviceTimestamp)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8)",
	[ST_GRAPH_DEP] = "INSERT INTO smtop_graph_dep(globalPid,nodeId,nodeType,dependsOn,"
		"dependsOnType) VALUES(?1,?2,?3,?4,?5)",
	[ST_NVTX] = "INSERT INTO NVTX_EVENTS(start,end,eventType,color,text,globalTid,textId,"
		"domainId) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)",
	[ST_STREAM] = "INSERT INTO TARGET_INFO_CUDA_STREAM(streamId,processId,contextId,"
		"priority,flag,deviceId,correlationId) VALUES(?1,?2,?3,?4,?5,?6,?7)"
		" ON CONFLICT(processId,contextId,streamId) DO UPDATE SET"
		" priority=COALESCE(excluded.priority,priority),flag=excluded.flag,"
		" deviceId=excluded.deviceId,correlationId=excluded.correlationId",
	[ST_DEVICE] = "INSERT OR REPLACE INTO TARGET_INFO_GPU(id,name,uuid,totalMemory,smCount,"
		"computeMajor,computeMinor,maxThreadsPerBlock,maxBlocksPerSm,maxRegistersPerSm,"
		"threadsPerWarp,maxShmemPerSm,maxThreadsPerSm,globalPid)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
	[ST_CONTEXT] = "INSERT OR REPLACE INTO TARGET_INFO_CUDA_CONTEXT_INFO(nullStreamId,"
		"processId,deviceId,contextId,parentContextId,isGreenContext) VALUES(?1,?2,?3,?4,?5,?6)",
	[ST_REQUEST] = "INSERT INTO smtop_request(globalPid,streamId,start,end,label)"
		" VALUES(?1,?2,?3,?4,?5)",
	[ST_CHUNK] = "INSERT INTO smtop_block_chunk(globalPid,deviceId,contextId,sm,start,end,"
		"count,data) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)",
	[ST_META] = "INSERT OR REPLACE INTO smtop_meta(key,value) VALUES(?1,?2)",
};

/* Blocks of one (device, SM) waiting to become a chunk. */
struct sm_buffer {
	struct smtop_block *blocks;
	uint32_t n;
	uint32_t context_id;
};

struct device_buffers {
	struct sm_buffer *sms;
	size_t n_sms;
};

/* The StringIds ids of a kernel's mangled, demangled and short names. */
struct kernel_ids {
	int64_t id[3];
};

struct db_writer {
	sqlite3 *db;
	char *path;
	uint32_t pid;
	int64_t global_pid;
	sqlite3_stmt *st[ST_COUNT];
	struct strmap strings;      /* value -> StringIds id */
	struct strmap kernels;      /* mangled -> index in kernel_ids */
	struct kernel_ids *kernel_ids;
	size_t n_kernel_ids, cap_kernel_ids;
	struct strmap domains;      /* NVTX domain -> domainId, once per process */
	struct device_buffers *devices;
	size_t n_devices;
	uint8_t *packed;
	int disk_full;
	struct db_checkpoint *checkpoint;
	char err[512];
};

/* SQLite reports SQLITE_FULL only for ENOSPC; a file-size limit (EFBIG) or a
 * quota comes back as SQLITE_IOERR_WRITE, with the cause left in errno. */
static int writer_is_disk_full(sqlite3 *db, int rc, int saved_errno)
{
	int sys = sqlite3_system_errno(db);

	if ((rc & 0xff) == SQLITE_FULL)
		return 1;
	if ((rc & 0xff) != SQLITE_IOERR)
		return 0;
	return sys == ENOSPC || sys == EFBIG || sys == EDQUOT || saved_errno == ENOSPC ||
	       saved_errno == EFBIG || saved_errno == EDQUOT;
}

/* Records a failure of step `what`; always returns -1. */
static int writer_fail(struct db_writer *w, int rc, const char *what)
{
	int saved_errno = errno;

	if (rc == SQLITE_IOERR || rc == SQLITE_ERROR)
		rc = sqlite3_extended_errcode(w->db);
	if (writer_is_disk_full(w->db, rc, saved_errno)) {
		w->disk_full = 1;
		snprintf(w->err, sizeof w->err, "%s: disk full, recording stopped", w->path);
	} else {
		snprintf(w->err, sizeof w->err, "%s: %s: %s", w->path, what, sqlite3_errmsg(w->db));
	}
	return -1;
}

static int writer_exec(struct db_writer *w, const char *sql)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : writer_fail(w, rc, sql);
}

/* Steps a bound insert statement and resets it. */
static int writer_step(struct db_writer *w, enum writer_stmt s)
{
	int rc = sqlite3_step(w->st[s]);

	sqlite3_reset(w->st[s]);
	sqlite3_clear_bindings(w->st[s]);
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return writer_fail(w, rc, "cannot store records");
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* 0 means unknown in records and NULL in the session. */
static void bind_opt(sqlite3_stmt *st, int i, uint64_t v)
{
	if (v)
		sqlite3_bind_int64(st, i, (sqlite3_int64)v);
	else
		sqlite3_bind_null(st, i);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Nsight Systems' globalPid: the pid above 24 bits of thread id. */
static int64_t global_pid(uint32_t pid)
{
	return (int64_t)pid << 24;
}

static int64_t global_tid(uint32_t pid, uint32_t tid)
{
	return global_pid(pid) | (tid & 0xffffff);
}

/* The columns kernel, memcpy and memset rows share, in nsys order:
 * start, end, deviceId, contextId, streamId, correlationId, globalPid. */
static void bind_gpu_activity(sqlite3_stmt *st, uint64_t start, uint64_t end, uint32_t device,
			      uint32_t context, uint32_t stream, uint32_t correlation, uint32_t pid)
{
	bind_u64(st, 1, start);
	bind_u64(st, 2, end);
	bind_u64(st, 3, device);
	bind_u64(st, 4, context);
	bind_u64(st, 5, stream);
	bind_u64(st, 6, correlation);
	sqlite3_bind_int64(st, 7, global_pid(pid));
}

/* The StringIds id of s, inserting it on first sight; 0 on failure. */
static int64_t writer_intern(struct db_writer *w, const char *s)
{
	uint64_t *hit = strmap_get(&w->strings, s);
	int64_t id = 0;
	sqlite3_stmt *sel = w->st[ST_STR_SELECT];
	int rc;

	if (hit)
		return (int64_t)*hit;
	sqlite3_bind_text(w->st[ST_STR_INSERT], 1, s, -1, SQLITE_STATIC);
	if (writer_step(w, ST_STR_INSERT) != 0)
		return 0;
	sqlite3_bind_text(sel, 1, s, -1, SQLITE_STATIC);
	rc = sqlite3_step(sel);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(sel, 0);
	sqlite3_reset(sel);
	if (rc != SQLITE_ROW) {
		writer_fail(w, rc, "cannot intern a string");
		return 0;
	}
	strmap_put(&w->strings, s, (uint64_t)id);
	return id;
}

/* Ids of a kernel's mangled, demangled and short names; NULL on failure. */
static const int64_t *writer_kernel_names(struct db_writer *w, const char *mangled)
{
	uint64_t *hit = strmap_get(&w->kernels, mangled);
	int64_t v[3];
	char *demangled, *short_name;

	if (hit)
		return w->kernel_ids[*hit].id;
	demangled = db_names_demangle(mangled);
	short_name = demangled ? names_short(demangled) : NULL;
	if (!demangled || !short_name) {
		free(demangled);
		snprintf(w->err, sizeof w->err, "%s: out of memory", w->path);
		return NULL;
	}
	v[0] = writer_intern(w, mangled);
	v[1] = v[0] ? writer_intern(w, demangled) : 0;
	v[2] = v[1] ? writer_intern(w, short_name) : 0;
	free(demangled);
	free(short_name);
	if (!v[2])
		return NULL;
	if (array_grow((void **)&w->kernel_ids, &w->cap_kernel_ids, w->n_kernel_ids + 1,
		       sizeof *w->kernel_ids) ||
	    !strmap_put(&w->kernels, mangled, w->n_kernel_ids))
		return NULL;
	memcpy(w->kernel_ids[w->n_kernel_ids].id, v, sizeof v);
	return w->kernel_ids[w->n_kernel_ids++].id;
}

static int write_kernel(struct db_writer *w, const struct smtop_kernel *k)
{
	sqlite3_stmt *st = w->st[ST_KERNEL];
	const int64_t *ids = writer_kernel_names(w, k->name ? k->name : "<unknown>");

	if (!ids)
		return -1;
	bind_gpu_activity(st, k->start, k->end, k->device_id, k->context_id, k->stream_id,
			  k->correlation_id, k->pid);
	sqlite3_bind_int64(st, 8, ids[1]);
	sqlite3_bind_int64(st, 9, ids[2]);
	sqlite3_bind_int64(st, 10, ids[0]);
	sqlite3_bind_int64(st, 11, k->launch_type);
	bind_u64(st, 12, k->registers);
	for (int i = 0; i < 3; i++) {
		sqlite3_bind_int64(st, 13 + i, k->grid[i]);
		sqlite3_bind_int64(st, 16 + i, k->block[i]);
	}
	bind_u64(st, 19, k->static_smem);
	bind_u64(st, 20, k->dynamic_smem);
	bind_u64(st, 21, k->local_mem);
	bind_u64(st, 22, k->grid_id);
	bind_opt(st, 23, k->queued);
	bind_opt(st, 24, k->submitted);
	sqlite3_bind_int(st, 25, k->is_graph != 0);
	bind_opt(st, 26, k->graph_node_id);
	return writer_step(w, ST_KERNEL);
}

static int write_memcpy(struct db_writer *w, const struct smtop_memcpy *m)
{
	sqlite3_stmt *st = w->st[ST_MEMCPY];

	bind_gpu_activity(st, m->start, m->end, m->device_id, m->context_id, m->stream_id,
			  m->correlation_id, m->pid);
	bind_u64(st, 8, m->bytes);
	sqlite3_bind_int(st, 9, m->copy_kind);
	sqlite3_bind_int(st, 10, m->src_kind);
	sqlite3_bind_int(st, 11, m->dst_kind);
	bind_opt(st, 12, m->graph_node_id);
	return writer_step(w, ST_MEMCPY);
}

static int write_memset(struct db_writer *w, const struct smtop_memset *m)
{
	sqlite3_stmt *st = w->st[ST_MEMSET];

	bind_gpu_activity(st, m->start, m->end, m->device_id, m->context_id, m->stream_id,
			  m->correlation_id, m->pid);
	bind_u64(st, 8, m->value);
	bind_u64(st, 9, m->bytes);
	bind_opt(st, 10, m->graph_node_id);
	return writer_step(w, ST_MEMSET);
}

static int write_api(struct db_writer *w, const struct smtop_api *a)
{
	sqlite3_stmt *st = w->st[ST_API];
	int64_t name = writer_intern(w, a->name ? a->name : "<unknown>");

	if (!name)
		return -1;
	bind_u64(st, 1, a->start);
	bind_u64(st, 2, a->end);
	sqlite3_bind_int(st, 3, a->is_driver ? 1 : 0);
	sqlite3_bind_int64(st, 4, global_tid(a->pid, a->tid));
	bind_u64(st, 5, a->correlation_id);
	sqlite3_bind_int64(st, 6, name);
	sqlite3_bind_int(st, 7, a->return_value);
	sqlite3_bind_int(st, 8, a->is_driver != 0);
	bind_u64(st, 9, a->cbid);
	if (a->has_stream)
		bind_u64(st, 10, a->stream_id);
	else
		sqlite3_bind_null(st, 10);
	return writer_step(w, ST_API);
}

static int write_sync(struct db_writer *w, const struct smtop_sync *s)
{
	sqlite3_stmt *st = w->st[ST_SYNC];

	bind_u64(st, 1, s->start);
	bind_u64(st, 2, s->end);
	bind_u64(st, 3, s->context_id);
	bind_u64(st, 4, s->stream_id);
	bind_u64(st, 5, s->correlation_id);
	sqlite3_bind_int64(st, 6, global_pid(s->pid));
	sqlite3_bind_int(st, 7, s->type);
	bind_u64(st, 8, s->event_id);
	bind_u64(st, 9, s->sync_id);
	return writer_step(w, ST_SYNC);
}

static int write_graph_dep(struct db_writer *w, const struct smtop_graph_dep *d)
{
	sqlite3_stmt *st = w->st[ST_GRAPH_DEP];

	sqlite3_bind_int64(st, 1, global_pid(d->pid));
	sqlite3_bind_int64(st, 2, (sqlite3_int64)d->node_id);
	sqlite3_bind_int(st, 3, d->node_type);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)d->depends_on);
	if (d->dep_type >= 0)
		sqlite3_bind_int(st, 5, d->dep_type);
	else
		sqlite3_bind_null(st, 5);
	return writer_step(w, ST_GRAPH_DEP);
}

static int write_cuda_event(struct db_writer *w, const struct smtop_cuda_event *e)
{
	sqlite3_stmt *st = w->st[ST_CUDA_EVENT];

	bind_u64(st, 1, e->device_id);
	bind_u64(st, 2, e->context_id);
	bind_u64(st, 3, e->stream_id);
	bind_u64(st, 4, e->correlation_id);
	sqlite3_bind_int64(st, 5, global_pid(e->pid));
	bind_u64(st, 6, e->event_id);
	bind_u64(st, 7, e->sync_id);
	bind_u64(st, 8, e->device_ts);
	return writer_step(w, ST_CUDA_EVENT);
}

#define NVTX_MARK 34
#define NVTX_PUSHPOP_RANGE 59
#define NVTX_DOMAIN_CREATE 75

/* nsys names a domain by a creation row (eventType 75); the domainId smtop
 * uses is the name's StringIds id, so it agrees across processes. */
static int64_t writer_nvtx_domain(struct db_writer *w, const char *domain, uint64_t t,
				  int64_t tid)
{
	uint64_t *hit = strmap_get(&w->domains, domain);
	int64_t id;
	sqlite3_stmt *st = w->st[ST_NVTX];

	if (hit)
		return (int64_t)*hit;
	if (!(id = writer_intern(w, domain)))
		return -1;
	bind_u64(st, 1, t);
	sqlite3_bind_int(st, 3, NVTX_DOMAIN_CREATE);
	sqlite3_bind_text(st, 5, domain, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, tid);
	sqlite3_bind_int64(st, 8, id);
	if (writer_step(w, ST_NVTX) != 0)
		return -1;
	strmap_put(&w->domains, domain, (uint64_t)id);
	return id;
}

static int write_nvtx(struct db_writer *w, const struct smtop_nvtx *n)
{
	sqlite3_stmt *st = w->st[ST_NVTX];
	int64_t tid = global_tid(n->pid, n->tid), domain = 0, text = 0;

	if (n->domain && (domain = writer_nvtx_domain(w, n->domain, n->start, tid)) < 0)
		return -1;
	if (n->text && !(text = writer_intern(w, n->text)))
		return -1;
	bind_u64(st, 1, n->start);
	bind_opt(st, 2, n->end);
	sqlite3_bind_int(st, 3, n->end ? NVTX_PUSHPOP_RANGE : NVTX_MARK);
	sqlite3_bind_int(st, 4, n->color);
	sqlite3_bind_int64(st, 6, tid);
	if (text)
		sqlite3_bind_int64(st, 7, text);
	sqlite3_bind_int64(st, 8, domain);
	return writer_step(w, ST_NVTX);
}

static int write_stream(struct db_writer *w, const struct smtop_stream *s)
{
	sqlite3_stmt *st = w->st[ST_STREAM];

	bind_u64(st, 1, s->stream_id);
	bind_u64(st, 2, s->pid);
	bind_u64(st, 3, s->context_id);
	if (s->priority != SMTOP_PRIORITY_UNKNOWN)
		bind_u64(st, 4, (uint32_t)s->priority); /* unsigned, as nsys stores it */
	bind_u64(st, 5, s->flags);
	bind_u64(st, 6, s->device_id);
	bind_u64(st, 7, s->correlation_id);
	return writer_step(w, ST_STREAM);
}

static int write_device(struct db_writer *w, const struct smtop_device *d)
{
	sqlite3_stmt *st = w->st[ST_DEVICE];

	bind_u64(st, 1, d->device_id);
	bind_text(st, 2, d->name);
	bind_text(st, 3, d->uuid);
	bind_u64(st, 4, d->global_memory_bytes);
	bind_u64(st, 5, d->sm_count);
	bind_u64(st, 6, d->cc_major);
	bind_u64(st, 7, d->cc_minor);
	bind_u64(st, 8, d->max_threads_per_block);
	bind_u64(st, 9, d->max_blocks_per_sm);
	bind_u64(st, 10, d->max_regs_per_sm);
	bind_u64(st, 11, d->warp_size);
	bind_u64(st, 12, d->max_smem_per_sm);
	bind_u64(st, 13, d->max_threads_per_sm);
	sqlite3_bind_int64(st, 14, global_pid(d->pid));
	return writer_step(w, ST_DEVICE);
}

static int write_context(struct db_writer *w, const struct smtop_context *c)
{
	sqlite3_stmt *st = w->st[ST_CONTEXT];

	bind_u64(st, 1, c->null_stream_id);
	bind_u64(st, 2, c->pid);
	bind_u64(st, 3, c->device_id);
	bind_u64(st, 4, c->context_id);
	bind_opt(st, 5, c->parent_context_id);
	sqlite3_bind_int(st, 6, c->is_green != 0);
	return writer_step(w, ST_CONTEXT);
}

static int write_request(struct db_writer *w, const struct smtop_request *r)
{
	sqlite3_stmt *st = w->st[ST_REQUEST];

	sqlite3_bind_int64(st, 1, global_pid(r->pid));
	bind_u64(st, 2, r->stream_id);
	bind_u64(st, 3, r->start);
	bind_u64(st, 4, r->end);
	bind_text(st, 5, r->label);
	return writer_step(w, ST_REQUEST);
}

/* The one place a chunk row is written, whoever packed it. */
static int insert_chunk(struct db_writer *w, const struct smtop_chunk *c)
{
	sqlite3_stmt *st = w->st[ST_CHUNK];

	sqlite3_bind_int64(st, 1, w->global_pid);
	sqlite3_bind_int(st, 2, (int)c->device_id);
	bind_u64(st, 3, c->context_id);
	sqlite3_bind_int(st, 4, (int)c->sm);
	bind_u64(st, 5, c->start);
	bind_u64(st, 6, c->end);
	sqlite3_bind_int(st, 7, (int)c->count);
	sqlite3_bind_blob(st, 8, c->data, (int)c->len, SQLITE_STATIC);
	return writer_step(w, ST_CHUNK);
}

static int flush_sm(struct db_writer *w, uint16_t device, uint16_t sm, struct sm_buffer *b)
{
	struct smtop_chunk c = { .device_id = device, .context_id = b->context_id, .sm = sm };

	if (b->n == 0)
		return 0;
	c.len = (uint32_t)db_blockcodec_encode(b->blocks, b->n, w->packed);
	c.data = w->packed;
	c.count = b->n;
	c.start = b->blocks[0].start;
	for (uint32_t i = 0; i < b->n; i++)
		if (b->blocks[i].end > c.end)
			c.end = b->blocks[i].end;
	b->n = 0;
	return insert_chunk(w, &c);
}

static int flush_all_blocks(struct db_writer *w)
{
	for (size_t d = 0; d < w->n_devices; d++)
		for (size_t s = 0; s < w->devices[d].n_sms; s++)
			if (flush_sm(w, (uint16_t)d, (uint16_t)s, &w->devices[d].sms[s]) != 0)
				return -1;
	return 0;
}

static void drop_buffered_blocks(struct db_writer *w)
{
	for (size_t d = 0; d < w->n_devices; d++)
		for (size_t s = 0; s < w->devices[d].n_sms; s++)
			w->devices[d].sms[s].n = 0;
}

static int grow_array(void **arr, size_t *n, size_t want, size_t size)
{
	void *p;

	if (want <= *n)
		return 0;
	if (!(p = realloc(*arr, want * size)))
		return -1;
	memset((char *)p + *n * size, 0, (want - *n) * size);
	*arr = p;
	*n = want;
	return 0;
}

static struct sm_buffer *sm_buffer_for(struct db_writer *w, uint16_t device, uint16_t sm)
{
	struct device_buffers *d;
	struct sm_buffer *b;

	if (grow_array((void **)&w->devices, &w->n_devices, (size_t)device + 1, sizeof *w->devices))
		return NULL;
	d = &w->devices[device];
	if (grow_array((void **)&d->sms, &d->n_sms, (size_t)sm + 1, sizeof *d->sms))
		return NULL;
	b = &d->sms[sm];
	if (!b->blocks && !(b->blocks = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof *b->blocks)))
		return NULL;
	return b;
}

/* A chunk holds one context: a block of another context flushes the buffer first. */
static int write_blocks(struct db_writer *w, const struct smtop_blocks *bs)
{
	for (uint32_t i = 0; i < bs->count; i++) {
		const struct smtop_block *blk = &bs->blocks[i];
		struct sm_buffer *b = sm_buffer_for(w, blk->device_id, blk->sm);

		if (!b) {
			snprintf(w->err, sizeof w->err, "%s: out of memory", w->path);
			return -1;
		}
		if (b->n && b->context_id != bs->context_id &&
		    flush_sm(w, blk->device_id, blk->sm, b) != 0)
			return -1;
		b->context_id = bs->context_id;
		b->blocks[b->n++] = *blk;
		if (b->n == DB_BLOCKCODEC_MAX_BLOCKS && flush_sm(w, blk->device_id, blk->sm, b) != 0)
			return -1;
	}
	return 0;
}

static int write_record(struct db_writer *w, const struct smtop_record *r)
{
	switch (r->kind) {
	case SMTOP_REC_KERNEL: return write_kernel(w, &r->u.kernel);
	case SMTOP_REC_MEMCPY: return write_memcpy(w, &r->u.memcpy);
	case SMTOP_REC_MEMSET: return write_memset(w, &r->u.memset);
	case SMTOP_REC_API: return write_api(w, &r->u.api);
	case SMTOP_REC_NVTX: return write_nvtx(w, &r->u.nvtx);
	case SMTOP_REC_STREAM: return write_stream(w, &r->u.stream);
	case SMTOP_REC_DEVICE: return write_device(w, &r->u.device);
	case SMTOP_REC_CONTEXT: return write_context(w, &r->u.context);
	case SMTOP_REC_SYNC: return write_sync(w, &r->u.sync);
	case SMTOP_REC_CUDA_EVENT: return write_cuda_event(w, &r->u.cuda_event);
	case SMTOP_REC_GRAPH_DEP: return write_graph_dep(w, &r->u.graph_dep);
	case SMTOP_REC_BLOCKS: return write_blocks(w, &r->u.blocks);
	case SMTOP_REC_CHUNK: return insert_chunk(w, &r->u.chunk);
	case SMTOP_REC_REQUEST: return write_request(w, &r->u.request);
	}
	return 0;
}

/* After a rollback the caches may name rows that no longer exist. */
static void writer_rollback(struct db_writer *w)
{
	sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	strmap_clear(&w->strings);
	strmap_clear(&w->kernels);
	w->n_kernel_ids = 0;
	strmap_clear(&w->domains);
	drop_buffered_blocks(w);
}

static int writer_stopped(struct db_writer *w)
{
	return w->disk_full;
}

/* Runs one statement with text ?1 ?2, integer ?3 and this process's globalPid ?4. */
static int writer_run_always(struct db_writer *w, const char *sql, const char *t1,
			     const char *t2, int64_t i3)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = sqlite3_prepare_v2(w->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return writer_fail(w, rc, "cannot prepare");
	bind_text(st, 1, t1);
	bind_text(st, 2, t2);
	sqlite3_bind_int64(st, 3, i3);
	sqlite3_bind_int64(st, 4, w->global_pid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : writer_fail(w, rc, "cannot update the session");
}

static int writer_run(struct db_writer *w, const char *sql, const char *t1, const char *t2,
		      int64_t i3)
{
	if (writer_stopped(w))
		return -1;
	return writer_run_always(w, sql, t1, t2, i3);
}

/* Copies the WAL into the main file so the next transaction reuses the WAL
 * from its start instead of growing it: when the WAL is what filled the disk
 * (or reached the file-size limit), that is room for a few small rows. */
static void writer_checkpoint(struct db_writer *w)
{
	sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
}

/* The batch that filled the disk is gone: leave word in the session that this
 * process's records stop here.  Best effort; the first error stays the one
 * reported. */
static void writer_note_disk_full(struct db_writer *w)
{
	char err[sizeof w->err];

	memcpy(err, w->err, sizeof err);
	writer_checkpoint(w);
	writer_run_always(w, "UPDATE smtop_process SET reason=?1 WHERE globalPid=?4",
			  SCHEMA_DISK_FULL_REASON, NULL, 0);
	memcpy(w->err, err, sizeof err);
}

int db_writer_write(struct db_writer *w, struct smtop_record *recs, size_t n)
{
	int rc = -1;

	if (writer_stopped(w))
		goto out;
	if (writer_exec(w, "BEGIN IMMEDIATE") != 0)
		goto out;
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = write_record(w, &recs[i]);
	if (rc == 0)
		rc = flush_all_blocks(w);
	if (rc == 0)
		rc = writer_exec(w, "COMMIT");
	if (rc != 0) {
		writer_rollback(w);
		if (w->disk_full)
			writer_note_disk_full(w);
	}
out:
	for (size_t i = 0; i < n; i++)
		records_free_owned(&recs[i]);
	return rc;
}

int db_writer_add_drops(struct db_writer *w, const char *source, uint64_t n)
{
	static const char *const sql[] = {
		"UPDATE smtop_process SET drops_cupti=drops_cupti+?3 WHERE globalPid=?4",
		"UPDATE smtop_process SET drops_ring=drops_ring+?3 WHERE globalPid=?4",
		"UPDATE smtop_process SET drops_blocks=drops_blocks+?3 WHERE globalPid=?4",
	};
	int i = strcmp(source, "cupti") == 0 ? 0 : strcmp(source, "ring") == 0 ? 1
		: strcmp(source, "blocks") == 0 ? 2 : -1;

	if (i < 0) {
		snprintf(w->err, sizeof w->err, "%s: unknown drop source '%s'", w->path, source);
		return -1;
	}
	return writer_run(w, sql[i], NULL, NULL, (int64_t)n);
}

int db_writer_set_meta(struct db_writer *w, const char *key, const char *value)
{
	return writer_run(w, "INSERT OR REPLACE INTO smtop_meta(key,value) VALUES(?1,?2)",
			  key, value, 0);
}

int db_writer_set_process_status(struct db_writer *w, const char *status, const char *reason)
{
	int running = strcmp(status, "running") == 0;

	/* How the process ended still matters after the disk filled up (a
	 * small row may fit), and so does why its records stop early. */
	if (w->disk_full && !reason)
		reason = SCHEMA_DISK_FULL_REASON;
	return writer_run_always(w, running
			  ? "UPDATE smtop_process SET status=?1, reason=?2, end=NULL WHERE globalPid=?4"
			  : "UPDATE smtop_process SET status=?1, reason=?2, end=?3 WHERE globalPid=?4",
			  status, reason, (int64_t)clock_real_ns());
}

int db_writer_finish_session(struct db_writer *w, int clean, const char *reason)
{
	char now[32];

	snprintf(now, sizeof now, "%" PRIu64, clock_real_ns());
	writer_checkpoint(w);
	if (writer_exec(w, "BEGIN IMMEDIATE") != 0)
		return -1;
	if (db_writer_set_meta(w, "ended", "1") != 0 ||
	    db_writer_set_meta(w, "ended_clean", clean ? "1" : "0") != 0 ||
	    db_writer_set_meta(w, "ended_ns", now) != 0 ||
	    (reason && db_writer_set_meta(w, "end_reason", reason) != 0) ||
	    writer_exec(w, "UPDATE smtop_process SET status='crashed',"
			" reason=COALESCE(reason,'ended before its collector finalised')"
			" WHERE status='running'") != 0 ||
	    writer_exec(w, "COMMIT") != 0) {
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

const char *db_writer_error(const struct db_writer *w)
{
	return w->err;
}

int db_writer_disk_full(const struct db_writer *w)
{
	return w->disk_full;
}

/* A new session needs a directory it may create files in (the file, its
 * WAL and shared memory); SQLite alone would only say "unable to open". */
static int writer_check_dir(const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else if ((size_t)(slash - path) < sizeof dir)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else
		return 0; /* SQLite will say what it can */
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Refuses paths that cannot be a session before SQLite creates anything. */
static int writer_check_path(const struct db_writer_options *opt, char *err, size_t errlen)
{
	struct stat sb;

	if (stat(opt->path, &sb) != 0) {
		if (errno == ENOENT && opt->create)
			return writer_check_dir(opt->path, err, errlen);
		snprintf(err, errlen, "%s: %s", opt->path,
			 errno == ENOENT ? "no such session file" : strerror(errno));
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", opt->path);
		return -1;
	}
	return 0;
}

static int writer_create_session(struct db_writer *w, const struct db_writer_options *opt,
				 char *err, size_t errlen)
{
	char now[32], version[16], recorder[128];
	struct db_procid self;

	snprintf(now, sizeof now, "%" PRIu64, clock_real_ns());
	snprintf(version, sizeof version, "%d", SCHEMA_VERSION);
	if (writer_exec(w, "BEGIN IMMEDIATE") != 0 || schema_create(w->db, w->err, sizeof w->err) != 0)
		goto fail;
	if (writer_run(w, "INSERT INTO smtop_meta(key,value) VALUES"
		       " ('schema_version',?1),('created_ns',?2),('ended','0')",
		       version, now, 0) != 0)
		goto fail;
	if (opt->session_command &&
	    db_writer_set_meta(w, "command", opt->session_command) != 0)
		goto fail;
	if (db_writer_set_meta(w, "smtop_version", smtop_version()) != 0)
		goto fail;
	/* who finalises it: a reader can tell when that process is gone */
	if (db_procid_self(&self) == 0) {
		db_procid_format(&self, recorder, sizeof recorder);
		if (db_writer_set_meta(w, "recorder", recorder) != 0)
			goto fail;
	}
	if (writer_exec(w, "COMMIT") != 0)
		goto fail;
	return 0;
fail:
	sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	snprintf(err, errlen, "%s", w->err);
	return -1;
}

static int writer_join_process(struct db_writer *w, const struct db_writer_options *opt)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(w->db,
		"INSERT INTO smtop_process(globalPid,pid,ppid,command,start,status)"
		" VALUES(?1,?2,?3,?4,?5,'running') ON CONFLICT(globalPid) DO UPDATE SET"
		" command=excluded.command, status='running', reason=NULL, end=NULL",
		-1, &st, NULL);

	if (rc != SQLITE_OK)
		return writer_fail(w, rc, "cannot prepare");
	sqlite3_bind_int64(st, 1, w->global_pid);
	sqlite3_bind_int64(st, 2, opt->pid);
	sqlite3_bind_int64(st, 3, opt->ppid);
	bind_text(st, 4, opt->command);
	bind_u64(st, 5, clock_real_ns());
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : writer_fail(w, rc, "cannot register the process");
}

/* Chunks of a few hundred blocks are 1-4 KiB rows: with 4 KiB pages most
 * would sit alone on a page, so a new session uses 64 KiB pages. */
static int writer_configure(struct db_writer *w, int create)
{
	sqlite3_busy_timeout(w->db, WRITER_BUSY_MS);
	if (create && writer_exec(w, "PRAGMA page_size=65536") != 0)
		return -1;
	return writer_exec(w, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
			   " PRAGMA cache_size=-16384;");
}

static int writer_prepare_all(struct db_writer *w)
{
	for (int i = 0; i < ST_COUNT; i++) {
		int rc = sqlite3_prepare_v3(w->db, writer_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					    &w->st[i], NULL);
		if (rc != SQLITE_OK)
			return writer_fail(w, rc, "cannot prepare statements");
	}
	return 0;
}

static int writer_check_kind(struct db_writer *w, const struct db_writer_options *opt,
			     char *err, size_t errlen)
{
	enum schema_kind kind;

	if (schema_check(w->db, opt->path, &kind, err, errlen) != 0)
		return -1;
	if (opt->create && kind != SCHEMA_EMPTY) {
		snprintf(err, errlen, "%s: already exists; remove it or choose another file",
			 opt->path);
		return -1;
	}
	if (!opt->create && kind == SCHEMA_NSYS) {
		snprintf(err, errlen, "%s: is an Nsight Systems export; smtop records only into its own sessions",
			 opt->path);
		return -1;
	}
	if (!opt->create && kind != SCHEMA_SMTOP) {
		snprintf(err, errlen, "%s: not a smtop session", opt->path);
		return -1;
	}
	return 0;
}

int db_writer_open(struct db_writer **out, const struct db_writer_options *opt,
		   char *err, size_t errlen)
{
	struct db_writer *w;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (opt->create ? SQLITE_OPEN_CREATE : 0);

	*out = NULL;
	if (writer_check_path(opt, err, errlen) != 0)
		return -1;
	if (!(w = calloc(1, sizeof *w)) || !(w->path = strdup(opt->path)) ||
	    !(w->packed = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS)))) {
		snprintf(err, errlen, "%s: out of memory", opt->path);
		db_writer_close(w);
		return -1;
	}
	w->pid = opt->pid;
	w->global_pid = global_pid(opt->pid);
	if (sqlite3_open_v2(opt->path, &w->db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", opt->path, sqlite3_errmsg(w->db));
		goto fail;
	}
	if (writer_check_kind(w, opt, err, errlen) != 0)
		goto fail;
	if (writer_configure(w, opt->create) != 0 ||
	    (opt->create && writer_create_session(w, opt, err, errlen) != 0) ||
	    (!opt->create && opt->pid && schema_upgrade(w->db, w->err, sizeof w->err) != 0) ||
	    writer_prepare_all(w) != 0 || (opt->pid && writer_join_process(w, opt) != 0)) {
		if (w->err[0])
			snprintf(err, errlen, "%s", w->err);
		goto fail;
	}
	if (opt->background_checkpoint)
		w->checkpoint = db_checkpoint_start(w->db, opt->path, DB_CHECKPOINT_FRAMES,
						    DB_CHECKPOINT_WRITER_FRAMES);
	*out = w;
	return 0;
fail:
	db_writer_close(w);
	return -1;
}

static int writer_has_buffered_blocks(const struct db_writer *w)
{
	for (size_t d = 0; d < w->n_devices; d++)
		for (size_t s = 0; s < w->devices[d].n_sms; s++)
			if (w->devices[d].sms[s].n)
				return 1;
	return 0;
}

void db_writer_close(struct db_writer *w)
{
	if (!w)
		return;
	/* db_writer_write leaves nothing buffered; this is for future callers
	 * that buffer across calls. */
	if (w->st[ST_CHUNK] && !w->disk_full && writer_has_buffered_blocks(w) &&
	    writer_exec(w, "BEGIN IMMEDIATE") == 0) {
		if (flush_all_blocks(w) != 0 || writer_exec(w, "COMMIT") != 0)
			sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	}
	db_checkpoint_stop(w->checkpoint);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	sqlite3_close(w->db);
	for (size_t d = 0; d < w->n_devices; d++) {
		for (size_t s = 0; s < w->devices[d].n_sms; s++)
			free(w->devices[d].sms[s].blocks);
		free(w->devices[d].sms);
	}
	free(w->devices);
	strmap_free(&w->strings);
	strmap_free(&w->kernels);
	free(w->kernel_ids);
	strmap_free(&w->domains);
	free(w->packed);
	free(w->path);
	free(w);
}
