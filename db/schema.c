#include "db/schema.h"

#include <stdio.h>
#include <string.h>

/* Column names follow `nsys export --type sqlite` so scripts written for
 * Nsight Systems exports run unchanged; smtop-only columns come last. */
static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS StringIds("
	" id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);"

	"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_KERNEL("
	" start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,"
	" launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,"
	" gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,"
	" blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
	" staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
	" localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER,"
	" gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,"
	" sharedMemoryLimitConfig INTEGER,"
	" queued INTEGER, submitted INTEGER, isGraph INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS smtop_kernel_start ON CUPTI_ACTIVITY_KIND_KERNEL(start);"

	"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_MEMCPY("
	" start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,"
	" srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,"
	" dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,"
	" graphNodeId INTEGER, virtualAddress INTEGER);"
	"CREATE INDEX IF NOT EXISTS smtop_memcpy_start ON CUPTI_ACTIVITY_KIND_MEMCPY(start);"

	"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_MEMSET("
	" start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER,"
	" memKind INTEGER);"

	/* eventClass follows nsys: 0 CUDA runtime, 1 CUDA driver; isDriver says
	 * the same for readers that do not know the enum. */
	"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_RUNTIME("
	" start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,"
	" globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
	" returnValue INTEGER NOT NULL, callchainId INTEGER,"
	" isDriver INTEGER NOT NULL DEFAULT 0, cbid INTEGER, streamId INTEGER);"
	"CREATE INDEX IF NOT EXISTS smtop_runtime_start ON CUPTI_ACTIVITY_KIND_RUNTIME(start);"

	"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_SYNCHRONIZATION("
	" start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
	" syncType INTEGER NOT NULL, eventId INTEGER, eventSyncId INTEGER);"

	/* deviceTimestamp (smtop only): when the GPU reached the record, 0 if
	 * CUPTI did not collect it. */
	"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_CUDA_EVENT("
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" eventId INTEGER NOT NULL, eventSyncId INTEGER, deviceTimestamp INTEGER);"

	/* smtop only: the edges of each instantiated CUDA graph (struct
	 * smtop_graph_dep); nodeType and dependsOnType are CUgraphNodeType,
	 * dependsOn 0 for a node without dependencies. */
	"CREATE TABLE IF NOT EXISTS smtop_graph_dep("
	" globalPid INTEGER, nodeId INTEGER NOT NULL, nodeType INTEGER,"
	" dependsOn INTEGER NOT NULL, dependsOnType INTEGER);"
	"CREATE INDEX IF NOT EXISTS smtop_graph_dep_node ON smtop_graph_dep(globalPid, nodeId);"

	/* eventType follows nsys: 34 mark, 59 push/pop range, 75 domain creation
	 * (text is the domain name, domainId its id). */
	"CREATE TABLE IF NOT EXISTS NVTX_EVENTS("
	" start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
	" rangeId INTEGER, category INTEGER, color INTEGER, text TEXT,"
	" globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,"
	" uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,"
	" uint32Value INTEGER, int32Value INTEGER, floatValue REAL,"
	" jsonTextId INTEGER, jsonText TEXT);"
	"CREATE INDEX IF NOT EXISTS smtop_nvtx_start ON NVTX_EVENTS(start);"

	/* priority holds the unsigned 32-bit value as nsys does (4294967291 for -5). */
	"CREATE TABLE IF NOT EXISTS TARGET_INFO_CUDA_STREAM("
	" streamId INTEGER NOT NULL, hwId INTEGER NOT NULL DEFAULT 0,"
	" vmId INTEGER NOT NULL DEFAULT 0, processId INTEGER NOT NULL,"
	" contextId INTEGER NOT NULL, priority INTEGER, flag INTEGER,"
	" deviceId INTEGER, correlationId INTEGER);"
	"CREATE UNIQUE INDEX IF NOT EXISTS smtop_stream_key"
	" ON TARGET_INFO_CUDA_STREAM(processId, contextId, streamId);"

	"CREATE TABLE IF NOT EXISTS TARGET_INFO_CUDA_CONTEXT_INFO("
	" nullStreamId INTEGER, hwId INTEGER NOT NULL DEFAULT 0,"
	" vmId INTEGER NOT NULL DEFAULT 0, processId INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" parentContextId INTEGER, isGreenContext INTEGER);"
	"CREATE UNIQUE INDEX IF NOT EXISTS smtop_context_key"
	" ON TARGET_INFO_CUDA_CONTEXT_INFO(processId, contextId);"

	"CREATE TABLE IF NOT EXISTS TARGET_INFO_GPU("
	" id INTEGER NOT NULL, name TEXT, busLocation TEXT, isDiscrete INTEGER,"
	" l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER,"
	" clockRate INTEGER, smCount INTEGER, pciBus INTEGER, uuid TEXT,"
	" vmId INTEGER, chipName TEXT, computeMajor INTEGER, computeMinor INTEGER,"
	" maxThreadsPerBlock INTEGER, maxBlocksPerSm INTEGER,"
	" maxRegistersPerBlock INTEGER, maxRegistersPerSm INTEGER,"
	" threadsPerWarp INTEGER, maxShmemPerBlock INTEGER, maxShmemPerSm INTEGER,"
	" maxThreadsPerSm INTEGER, globalPid INTEGER);"
	"CREATE UNIQUE INDEX IF NOT EXISTS smtop_gpu_id ON TARGET_INFO_GPU(id);"

	"CREATE TABLE IF NOT EXISTS smtop_meta(key TEXT PRIMARY KEY, value TEXT);"

	"CREATE TABLE IF NOT EXISTS smtop_process("
	" globalPid INTEGER PRIMARY KEY, pid INTEGER NOT NULL, ppid INTEGER,"
	" command TEXT, start INTEGER, end INTEGER, status TEXT NOT NULL,"
	" reason TEXT, drops_cupti INTEGER NOT NULL DEFAULT 0,"
	" drops_ring INTEGER NOT NULL DEFAULT 0, drops_blocks INTEGER NOT NULL DEFAULT 0);"

	"CREATE TABLE IF NOT EXISTS smtop_request("
	" globalPid INTEGER NOT NULL, streamId INTEGER NOT NULL,"
	" start INTEGER NOT NULL, end INTEGER NOT NULL, label TEXT);"

	/* Packed thread blocks, format in docs/session-format.md.  start/end are
	 * on the %globaltimer clock, not CUPTI's. */
	"CREATE TABLE IF NOT EXISTS smtop_block_chunk("
	" id INTEGER PRIMARY KEY, globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
	" contextId INTEGER NOT NULL, sm INTEGER NOT NULL, start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE INDEX IF NOT EXISTS smtop_chunk_device_start"
	" ON smtop_block_chunk(deviceId, start);"

	"CREATE TABLE IF NOT EXISTS smtop_events("
	" id INTEGER PRIMARY KEY, kind TEXT NOT NULL, basis TEXT NOT NULL,"
	" globalPid INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,"
	" correlationId INTEGER, gridId INTEGER, priority INTEGER,"
	" ready INTEGER, start INTEGER, waitNs INTEGER, name TEXT,"
	" possible INTEGER, waitMinNs INTEGER, readyBound INTEGER, readyCorrelationId INTEGER);"
	"CREATE INDEX IF NOT EXISTS smtop_events_start ON smtop_events(start);"

	"CREATE TABLE IF NOT EXISTS smtop_event_culprits("
	" eventId INTEGER NOT NULL REFERENCES smtop_events(id), rank INTEGER NOT NULL,"
	" globalPid INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,"
	" correlationId INTEGER, gridId INTEGER, priority INTEGER,"
	" overlapNs INTEGER, weight REAL, blocks INTEGER, name TEXT,"
	" PRIMARY KEY(eventId, rank));"

	SCHEMA_SUMMARY_SQL;

/* Tables and columns added since version 1, given to older files a writer
 * reopens: a table's first column says whether it is there; a column of a
 * table that exists needs ALTER TABLE (CREATE TABLE IF NOT EXISTS keeps the
 * old one). */
static const char *const schema_added[][3] = {
	{ "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "eventSyncId", "INTEGER" },
	{ "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "deviceId", NULL },
	{ "smtop_graph_dep", "nodeId", NULL },
	{ "CUPTI_ACTIVITY_KIND_RUNTIME", "streamId", "INTEGER" },
	{ "smtop_events", "possible", "INTEGER" },
	{ "smtop_events", "waitMinNs", "INTEGER" },
	{ "smtop_events", "readyBound", "INTEGER" },
	{ "smtop_events", "readyCorrelationId", "INTEGER" },
};

static int schema_has_column(sqlite3 *db, const char *table, const char *col)
{
	char sql[200];
	sqlite3_stmt *st;
	int found;

	snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name='%s'", table, col);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* 1 when a table of the file lacks a column added since, 0 if not, -1 on error. */
static int schema_outdated(sqlite3 *db)
{
	for (size_t i = 0; i < sizeof schema_added / sizeof schema_added[0]; i++) {
		int has = schema_has_column(db, schema_added[i][0], schema_added[i][1]);
		if (has <= 0)
			return has < 0 ? -1 : 1;
	}
	return 0;
}

static int schema_add_columns(sqlite3 *db, char **msg)
{
	for (size_t i = 0; i < sizeof schema_added / sizeof schema_added[0]; i++) {
		char sql[200];
		int has = schema_has_column(db, schema_added[i][0], schema_added[i][1]);

		if (has < 0)
			return -1;
		if (has || !schema_added[i][2])
			continue; /* a new table: schema_sql made it */
		snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", schema_added[i][0],
			 schema_added[i][1], schema_added[i][2]);
		if (sqlite3_exec(db, sql, NULL, NULL, msg) != SQLITE_OK)
			return -1;
	}
	return 0;
}

int schema_upgrade(sqlite3 *db, char *err, size_t errlen)
{
	char *msg = NULL;
	int old = schema_outdated(db);

	if (old == 0)
		return 0;
	if (old > 0 && sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) == SQLITE_OK) {
		if (sqlite3_exec(db, schema_sql, NULL, NULL, &msg) == SQLITE_OK &&
		    schema_add_columns(db, &msg) == 0 &&
		    sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) == SQLITE_OK)
			return 0;
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	snprintf(err, errlen, "%s: cannot add the columns of this smtop version: %s",
		 sqlite3_db_filename(db, "main"), msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

int schema_create(sqlite3 *db, char *err, size_t errlen)
{
	char sql[128];
	char *msg = NULL;

	if (sqlite3_exec(db, schema_sql, NULL, NULL, &msg) != SQLITE_OK ||
	    schema_add_columns(db, &msg))
		goto fail;
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d; PRAGMA application_id=%d;",
		 SCHEMA_VERSION, SCHEMA_APPLICATION_ID);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "%s: cannot create session tables: %s",
		 sqlite3_db_filename(db, "main"), msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* Runs a one-integer query; returns the SQLite result code. */
static int schema_int(sqlite3 *db, const char *sql, long long *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(st);
	return rc;
}

static void schema_sqlite_problem(sqlite3 *db, int rc, const char *path,
				  char *err, size_t errlen)
{
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		snprintf(err, errlen, "%s: not a SQLite database", path);
		break;
	case SQLITE_CORRUPT:
		snprintf(err, errlen, "%s: damaged or truncated session file", path);
		break;
	case SQLITE_CANTOPEN:
		snprintf(err, errlen, "%s: cannot open (%s)", path, sqlite3_errmsg(db));
		break;
	default:
		snprintf(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
		break;
	}
}

static int schema_has_table(sqlite3 *db, const char *name, long long *has)
{
	char sql[160];

	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='%s'", name);
	return schema_int(db, sql, has);
}

int schema_check(sqlite3 *db, const char *path, enum schema_kind *kind,
		 char *err, size_t errlen)
{
	long long version, app, n_objects, has_meta, has_kernel;
	int rc;

	if ((rc = schema_int(db, "PRAGMA user_version", &version)) != SQLITE_OK ||
	    (rc = schema_int(db, "PRAGMA application_id", &app)) != SQLITE_OK ||
	    (rc = schema_int(db, "SELECT count(*) FROM sqlite_master", &n_objects)) != SQLITE_OK ||
	    (rc = schema_has_table(db, "smtop_meta", &has_meta)) != SQLITE_OK ||
	    (rc = schema_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL", &has_kernel)) != SQLITE_OK) {
		schema_sqlite_problem(db, rc, path, err, errlen);
		return -1;
	}
	if (n_objects == 0 && version == 0 && app == 0) {
		*kind = SCHEMA_EMPTY;
		return 0;
	}
	if (app == SCHEMA_APPLICATION_ID && has_meta) {
		if (version > SCHEMA_VERSION) {
			snprintf(err, errlen,
				 "%s: session schema version %lld is newer than this smtop (%d); upgrade smtop",
				 path, version, SCHEMA_VERSION);
			return -1;
		}
		if (version < 1) {
			snprintf(err, errlen, "%s: session schema version %lld is not known", path,
				 version);
			return -1;
		}
		*kind = SCHEMA_SMTOP;
		return 0;
	}
	if (has_kernel && !has_meta) {
		long long has_strings = 0, has_nvprof_strings = 0;

		schema_has_table(db, "StringIds", &has_strings);
		schema_has_table(db, "StringTable", &has_nvprof_strings);
		/* nvprof's databases use the same CUPTI table names, other columns */
		if (!has_strings && has_nvprof_strings) {
			snprintf(err, errlen, "%s: an nvprof database, not an Nsight Systems export"
				 " (record with nsys, then nsys export --type sqlite)", path);
			return -1;
		}
		*kind = SCHEMA_NSYS;
		return 0;
	}
	if (!has_meta) {
		long long has_export = 0;

		schema_has_table(db, "META_DATA_EXPORT", &has_export);
		if (has_export) {
			snprintf(err, errlen, "%s: Nsight Systems export without CUDA kernel records"
				 " (profile with nsys profile --trace=cuda)", path);
			return -1;
		}
	}
	snprintf(err, errlen, "%s: not a smtop session or Nsight Systems export", path);
	return -1;
}
