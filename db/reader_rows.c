#include "db/reader_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- streams, NVTX, requests ---- */

/* The device of a stream: its own column (smtop sessions), else its
 * context's device from the context table (3.x) or from the null-stream
 * table (2020-2022 exports, which have no context table). */
static const char *stream_device(struct db_reader *r)
{
	if (reader_has_column(r, "TARGET_INFO_CUDA_STREAM", "deviceId"))
		return "COALESCE(s.deviceId,0)";
	if (r->has_ctx)
		return "COALESCE((SELECT c.deviceId FROM TARGET_INFO_CUDA_CONTEXT_INFO c"
		       " WHERE c.contextId=s.contextId AND c.processId=s.processId LIMIT 1),0)";
	if (r->has_null_stream)
		return "COALESCE((SELECT n.deviceId FROM TARGET_INFO_CUDA_NULL_STREAM n"
		       " WHERE n.contextId=s.contextId AND n.processId=s.processId LIMIT 1),0)";
	return "0";
}

int db_reader_streams(struct db_reader *r, db_stream_fn fn, void *ud)
{
	const char *t = "TARGET_INFO_CUDA_STREAM";
	char sql[700];
	sqlite3_stmt *st;
	int rc;

	if (!r->has_stream)
		return 0;
	/* no priority column: priorities are unknown, not 0 */
	snprintf(sql, sizeof sql, "SELECT s.processId, %s, s.contextId, s.streamId, %s,"
		 " COALESCE(%s,0), %s FROM TARGET_INFO_CUDA_STREAM s"
		 " ORDER BY s.processId, s.contextId, s.streamId", stream_device(r),
		 reader_col_or(r, t, "priority", "NULL"), reader_col_or(r, t, "flag", "0"),
		 reader_col_or(r, t, "correlationId", "0"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read streams");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct smtop_stream s = {
			.pid = (uint32_t)sqlite3_column_int64(st, 0),
			.device_id = (uint32_t)sqlite3_column_int64(st, 1),
			.context_id = (uint32_t)sqlite3_column_int64(st, 2),
			.stream_id = (uint32_t)sqlite3_column_int64(st, 3),
			/* stored unsigned 32-bit, as nsys does: -5 is 4294967291 */
			.priority = sqlite3_column_type(st, 4) == SQLITE_NULL ? SMTOP_PRIORITY_UNKNOWN
				: (int32_t)(uint32_t)sqlite3_column_int64(st, 4),
			.flags = (uint32_t)sqlite3_column_int64(st, 5),
			.correlation_id = (uint32_t)sqlite3_column_int64(st, 6),
		};
		if (fn(ud, &s) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read streams");
}

int db_reader_contexts(struct db_reader *r, db_context_fn fn, void *ud)
{
	const char *t = "TARGET_INFO_CUDA_CONTEXT_INFO";
	char sql[400];
	sqlite3_stmt *st;
	int rc;

	if (!r->has_ctx)
		return 0;
	snprintf(sql, sizeof sql, "SELECT processId, deviceId, contextId, COALESCE(%s,0), COALESCE(%s,0),"
		 " COALESCE(%s,0) FROM TARGET_INFO_CUDA_CONTEXT_INFO ORDER BY processId, contextId",
		 reader_col_or(r, t, "nullStreamId", "0"), reader_col_or(r, t, "parentContextId", "0"),
		 reader_col_or(r, t, "isGreenContext", "0"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read contexts");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct smtop_context c = {
			.pid = (uint32_t)sqlite3_column_int64(st, 0),
			.device_id = (uint32_t)sqlite3_column_int64(st, 1),
			.context_id = (uint32_t)sqlite3_column_int64(st, 2),
			.null_stream_id = (uint32_t)sqlite3_column_int64(st, 3),
			.parent_context_id = (uint32_t)sqlite3_column_int64(st, 4),
			.is_green = sqlite3_column_int64(st, 5) != 0,
		};
		if (fn(ud, &c) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read contexts");
}

/* An NVTX_EVENTS column qualified as e.col, or fallback where the export
 * lacks it. */
static const char *nvtx_col(struct db_reader *r, const char *col, const char *fallback)
{
	static const char *const known[] = { "end", "globalTid", "color", "text", "domainId", "textId" };
	static const char *const qualified[] = { "e.end", "e.globalTid", "e.color", "e.text",
						 "e.domainId", "e.textId" };

	if (!reader_has_column(r, "NVTX_EVENTS", col))
		return fallback;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(col, known[i]))
			return qualified[i];
	return fallback;
}

/* domainId -> name, from the domain-creation rows (NvtxDomainCreate: the
 * name is in text, or in StringIds through textId). */
static int reader_nvtx_domains(struct db_reader *r, struct u64map *domains)
{
	char sql[400];
	sqlite3_stmt *st;

	snprintf(sql, sizeof sql, "SELECT %s, COALESCE(%s, s.value) FROM NVTX_EVENTS e"
		 " LEFT JOIN StringIds s ON s.id = %s WHERE e.eventType=?1",
		 nvtx_col(r, "domainId", "0"), nvtx_col(r, "text", "NULL"),
		 nvtx_col(r, "textId", "NULL"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read NVTX domains");
	sqlite3_bind_int(st, 1, r->nvtx_domain);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			reader_ptr_put(domains, (uint64_t)sqlite3_column_int64(st, 0),
				   reader_text(r, sqlite3_column_text(st, 1)));
	sqlite3_finalize(st);
	return 0;
}

int db_reader_nvtx(struct db_reader *r, uint64_t t0, uint64_t t1, db_nvtx_fn fn, void *ud)
{
	struct u64map domains = { 0 };
	char sql[700];
	sqlite3_stmt *st;
	int rc;

	if (!r->has_nvtx || t1 <= t0)
		return 0;
	if (reader_nvtx_domains(r, &domains) != 0)
		return -1;
	/* registered strings come through textId; exports without the
	 * column keep every text inline */
	snprintf(sql, sizeof sql, "SELECT e.start, COALESCE(%s,0), COALESCE(%s,0),"
		 " COALESCE(%s,0), COALESCE(%s, s.value), COALESCE(%s,0)"
		 " FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = %s"
		 " WHERE e.eventType IN (%d,%d,%d) AND e.start < ?2 AND COALESCE(%s, e.start + 1) > ?1"
		 " ORDER BY e.start", nvtx_col(r, "end", "NULL"), nvtx_col(r, "globalTid", "NULL"),
		 nvtx_col(r, "color", "NULL"), nvtx_col(r, "text", "NULL"), nvtx_col(r, "domainId", "NULL"),
		 nvtx_col(r, "textId", "NULL"), r->nvtx_mark, r->nvtx_push_pop, r->nvtx_start_end,
		 nvtx_col(r, "end", "NULL"));
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		u64map_free(&domains);
		return reader_fail(r, "cannot read NVTX events");
	}
	sqlite3_bind_int64(st, 1, reader_bind_time(t0));
	sqlite3_bind_int64(st, 2, reader_bind_time(t1));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 2);
		struct smtop_nvtx n = {
			.start = (uint64_t)sqlite3_column_int64(st, 0),
			.end = (uint64_t)sqlite3_column_int64(st, 1),
			.pid = reader_pid_of(tid),
			.tid = (uint32_t)(tid & 0xffffff),
			.color = sqlite3_column_int(st, 3),
			.text = reader_text(r, sqlite3_column_text(st, 4)),
			.domain = reader_ptr_get(&domains, (uint64_t)sqlite3_column_int64(st, 5)),
		};
		if (fn(ud, &n) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	u64map_free(&domains);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read NVTX events");
}

int db_reader_requests(struct db_reader *r, db_request_fn fn, void *ud)
{
	sqlite3_stmt *st;
	int rc;

	if (!r->has_request)
		return 0;
	if (sqlite3_prepare_v2(r->db, "SELECT globalPid, streamId, start, end, label"
			       " FROM smtop_request ORDER BY start", -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, "cannot read requests");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct smtop_request q = {
			.pid = reader_pid_of(sqlite3_column_int64(st, 0)),
			.stream_id = (uint32_t)sqlite3_column_int64(st, 1),
			.start = (uint64_t)sqlite3_column_int64(st, 2),
			.end = (uint64_t)sqlite3_column_int64(st, 3),
			.label = reader_text(r, sqlite3_column_text(st, 4)),
		};
		if (fn(ud, &q) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, "cannot read requests");
}

/* ---- copies, memsets, synchronisations, API calls ---- */

/* Where the rows of one walk go: the member for its table. */
struct row_sink {
	db_memcpy_fn memcpy;
	db_memset_fn memset;
	db_sync_fn sync;
	db_cuda_event_fn cuda_event;
	db_graph_dep_fn graph_dep;
	db_api_fn api;
	void *ud;
};

typedef int (*row_emit_fn)(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k);

/* The columns copies and memsets share (reader_new_ops' order), as the
 * initialisers of either record: only the last column differs. */
#define READER_OP_COLUMNS(st)                                                  \
	.start = (uint64_t)sqlite3_column_int64(st, 1),                        \
	.end = (uint64_t)sqlite3_column_int64(st, 2),                          \
	.device_id = (uint32_t)sqlite3_column_int64(st, 3),                    \
	.context_id = (uint32_t)sqlite3_column_int64(st, 4),                   \
	.stream_id = (uint32_t)sqlite3_column_int64(st, 5),                    \
	.correlation_id = (uint32_t)sqlite3_column_int64(st, 6),               \
	.pid = reader_pid_of(sqlite3_column_int64(st, 7)),                            \
	.bytes = (uint64_t)sqlite3_column_int64(st, 8)

static int emit_memcpy(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_memcpy m = { READER_OP_COLUMNS(st), .copy_kind = sqlite3_column_int(st, 9),
				  .graph_node_id = (uint64_t)sqlite3_column_int64(st, 10) };
	return k->memcpy(k->ud, &m);
}

static int emit_memset(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_memset m = { READER_OP_COLUMNS(st), .value = (uint32_t)sqlite3_column_int64(st, 9),
				  .graph_node_id = (uint64_t)sqlite3_column_int64(st, 10) };
	return k->memset(k->ud, &m);
}

static int emit_sync(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_sync y = {
		.start = (uint64_t)sqlite3_column_int64(st, 1),
		.end = (uint64_t)sqlite3_column_int64(st, 2),
		.context_id = (uint32_t)sqlite3_column_int64(st, 3),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 4),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 5),
		.pid = reader_pid_of(sqlite3_column_int64(st, 6)),
		.type = sqlite3_column_int(st, 7),
		.event_id = (uint32_t)sqlite3_column_int64(st, 8),
		.sync_id = (uint64_t)sqlite3_column_int64(st, 9),
	};
	return k->sync(k->ud, &y);
}

static int emit_cuda_event(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_cuda_event e = {
		.device_id = (uint32_t)sqlite3_column_int64(st, 1),
		.context_id = (uint32_t)sqlite3_column_int64(st, 2),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 3),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 4),
		.pid = reader_pid_of(sqlite3_column_int64(st, 5)),
		.event_id = (uint32_t)sqlite3_column_int64(st, 6),
		.sync_id = (uint64_t)sqlite3_column_int64(st, 7),
		.device_ts = (uint64_t)sqlite3_column_int64(st, 8),
	};
	return k->cuda_event(k->ud, &e);
}

static int emit_graph_dep(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	(void)r;
	struct smtop_graph_dep d = {
		.pid = reader_pid_of(sqlite3_column_int64(st, 1)),
		.node_id = (uint64_t)sqlite3_column_int64(st, 2),
		.node_type = sqlite3_column_int(st, 3),
		.depends_on = (uint64_t)sqlite3_column_int64(st, 4),
		.dep_type = sqlite3_column_int(st, 5),
	};
	return k->graph_dep(k->ud, &d);
}

static int emit_api(struct db_reader *r, sqlite3_stmt *st, const struct row_sink *k)
{
	int64_t tid = sqlite3_column_int64(st, 3);
	struct smtop_api c = {
		.start = (uint64_t)sqlite3_column_int64(st, 1),
		.end = (uint64_t)sqlite3_column_int64(st, 2),
		.pid = reader_pid_of(tid),
		.tid = (uint32_t)(tid & 0xffffff),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 4),
		.name = reader_text(r, sqlite3_column_text(st, 5)),
		.return_value = sqlite3_column_int(st, 6),
		.is_driver = sqlite3_column_int(st, 7) != 0,
		.cbid = (uint32_t)sqlite3_column_int64(st, 8),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 9),
		.has_stream = sqlite3_column_type(st, 9) != SQLITE_NULL,
	};
	return k->api(k->ud, &c);
}

/* Hands out the rows of sql (rowid first, rowid > ?1) past *wm. */
static int reader_new_rows(struct db_reader *r, const char *sql, const char *what, int64_t *wm,
			   row_emit_fn emit, const struct row_sink *k)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return reader_fail(r, what);
	sqlite3_bind_int64(st, 1, *wm);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*wm = sqlite3_column_int64(st, 0);
		if (emit(r, st, k) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : reader_fail(r, what);
}

/* Copies and memsets share their first columns: rowid, start, end,
 * device, context, stream, correlation, process, then bytes, `last` and
 * the graph node
 * (READER_OP_COLUMNS reads them). */
static int reader_new_ops(struct db_reader *r, int64_t *watermark, const char *table, const char *last,
			  const char *what, row_emit_fn emit, const struct row_sink *sink)
{
	char sql[400];

	snprintf(sql, sizeof sql, "SELECT rowid, start, end, %s, contextId, streamId, correlationId,"
		 " globalPid, %s, %s, coalesce(%s, 0) FROM %s WHERE rowid > ?1 ORDER BY rowid",
		 reader_col_or(r, table, "deviceId", "0"), reader_col_or(r, table, "bytes", "0"), reader_col_or(r, table, last, "0"),
		 reader_col_or(r, table, "graphNodeId", "NULL"), table);
	return reader_new_rows(r, sql, what, watermark, emit, sink);
}

int db_reader_new_memcpys(struct db_reader *r, int64_t *watermark, db_memcpy_fn fn, void *ud)
{
	if (!r->ops_memcpy)
		return 0;
	return reader_new_ops(r, watermark, "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind", "cannot read copies",
			      emit_memcpy, &(struct row_sink){ .memcpy = fn, .ud = ud });
}

int db_reader_new_memsets(struct db_reader *r, int64_t *watermark, db_memset_fn fn, void *ud)
{
	if (!r->ops_memset)
		return 0;
	return reader_new_ops(r, watermark, "CUPTI_ACTIVITY_KIND_MEMSET", "value", "cannot read memsets",
			      emit_memset, &(struct row_sink){ .memset = fn, .ud = ud });
}

int db_reader_new_syncs(struct db_reader *r, int64_t *watermark, db_sync_fn fn, void *ud)
{
	const char *t = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
	char sql[400];

	if (!r->ops_sync)
		return 0;
	/* sessions before event records and old exports lack the event's ids */
	snprintf(sql, sizeof sql, "SELECT rowid, start, end, contextId, streamId, correlationId,"
		 " globalPid, syncType, coalesce(%s, 4294967295), coalesce(%s, 4294967295) FROM %s"
		 " WHERE rowid > ?1 ORDER BY rowid", reader_col_or(r, t, "eventId", "NULL"),
		 reader_col_or(r, t, "eventSyncId", "NULL"), t);
	return reader_new_rows(r, sql, "cannot read synchronisations", watermark, emit_sync,
			       &(struct row_sink){ .sync = fn, .ud = ud });
}

int db_reader_new_cuda_events(struct db_reader *r, int64_t *watermark, db_cuda_event_fn fn, void *ud)
{
	const char *t = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
	char sql[400];

	if (!r->ops_cuda_event)
		return 0;
	snprintf(sql, sizeof sql, "SELECT rowid, %s, contextId, streamId, correlationId, globalPid,"
		 " eventId, coalesce(%s, 4294967295), coalesce(%s, 0) FROM %s WHERE rowid > ?1"
		 " ORDER BY rowid", reader_col_or(r, t, "deviceId", "0"), reader_col_or(r, t, "eventSyncId", "NULL"),
		 reader_col_or(r, t, "deviceTimestamp", "NULL"), t);
	return reader_new_rows(r, sql, "cannot read CUDA event records", watermark, emit_cuda_event,
			       &(struct row_sink){ .cuda_event = fn, .ud = ud });
}

int db_reader_new_graph_deps(struct db_reader *r, int64_t *watermark, db_graph_dep_fn fn, void *ud)
{
	if (!r->ops_graph_dep)
		return 0;
	return reader_new_rows(r, "SELECT rowid, globalPid, nodeId, coalesce(nodeType, -1), dependsOn,"
			       " coalesce(dependsOnType, -1) FROM smtop_graph_dep WHERE rowid > ?1 ORDER BY rowid",
			       "cannot read graph edges", watermark, emit_graph_dep,
			       &(struct row_sink){ .graph_dep = fn, .ud = ud });
}

int db_reader_new_apis(struct db_reader *r, int64_t *watermark, db_api_fn fn, void *ud)
{
	char sql[500];

	if (!r->ops_api)
		return 0;
	/* eventClass follows nsys in both kinds of file: 1 is the driver API */
	snprintf(sql, sizeof sql, "SELECT a.rowid, a.start, a.end, a.globalTid, a.correlationId,"
		 " s.value, %s, %s, %s, %s FROM CUPTI_ACTIVITY_KIND_RUNTIME a"
		 " LEFT JOIN StringIds s ON s.id = a.nameId WHERE a.rowid > ?1 ORDER BY a.rowid",
		 reader_col_or(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "returnValue", "0"),
		 reader_has_column(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "eventClass")
			 ? "a.eventClass = 1" : "0",
		 reader_col_or(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "cbid", "0"),
		 reader_col_or(r, "CUPTI_ACTIVITY_KIND_RUNTIME", "streamId", "NULL"));
	return reader_new_rows(r, sql, "cannot read API calls", watermark, emit_api,
			       &(struct row_sink){ .api = fn, .ud = ud });
}
