#include "db/events.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/schema.h"

static const char *const kind_names[] = {
	[SMTOP_EV_BLOCKING] = "blocking",
	[SMTOP_EV_INVERSION_RESIDENT] = "inversion_resident",
	[SMTOP_EV_INVERSION_DISPATCH] = "inversion_dispatch",
	[SMTOP_EV_TIMESLICE] = "timeslice",
};

static const char *kind_text(enum smtop_event_kind k)
{
	return (unsigned)k < sizeof kind_names / sizeof *kind_names && kind_names[k]
		? kind_names[k] : "blocking";
}

static enum smtop_event_kind kind_parse(const char *s)
{
	for (size_t i = 1; s && i < sizeof kind_names / sizeof *kind_names; i++)
		if (strcmp(s, kind_names[i]) == 0)
			return (enum smtop_event_kind)i;
	return SMTOP_EV_BLOCKING;
}

static int events_open(const char *path, int writable, sqlite3 **db, char *err, size_t errlen)
{
	struct stat sb;
	enum schema_kind kind;

	if (stat(path, &sb) != 0) {
		snprintf(err, errlen, "%s: no such session file", path);
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", path);
		return -1;
	}
	if (sqlite3_open_v2(path, db, writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY,
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, sqlite3_errmsg(*db));
		return -1;
	}
	sqlite3_busy_timeout(*db, 10000);
	if (schema_check(*db, path, &kind, err, errlen) != 0)
		return -1;
	if (writable && kind != SCHEMA_SMTOP) {
		snprintf(err, errlen, "%s: events can be stored only in smtop sessions", path);
		return -1;
	}
	return kind == SCHEMA_SMTOP ? 1 : 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int store_culprits(sqlite3 *db, sqlite3_stmt *st, const struct smtop_event *e)
{
	int64_t id = sqlite3_last_insert_rowid(db);

	for (size_t j = 0; j < e->n_culprits; j++) {
		const struct smtop_culprit *c = &e->culprits[j];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)j);
		sqlite3_bind_int64(st, 3, (int64_t)c->pid << 24);
		sqlite3_bind_int64(st, 4, c->device_id);
		sqlite3_bind_int64(st, 5, c->context_id);
		sqlite3_bind_int64(st, 6, c->stream_id);
		sqlite3_bind_int64(st, 7, c->correlation_id);
		sqlite3_bind_int64(st, 8, (int64_t)c->grid_id);
		if (c->priority != SMTOP_PRIORITY_UNKNOWN)
			sqlite3_bind_int64(st, 9, c->priority);
		sqlite3_bind_int64(st, 10, (int64_t)c->overlap_ns);
		sqlite3_bind_double(st, 11, c->weight);
		sqlite3_bind_int64(st, 12, c->blocks);
		bind_text(st, 13, c->name);
		if (sqlite3_step(st) != SQLITE_DONE)
			return -1;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	return 0;
}

static int store_event(sqlite3 *db, sqlite3_stmt *ev, sqlite3_stmt *cu, const struct smtop_event *e)
{
	sqlite3_bind_text(ev, 1, kind_text(e->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(ev, 2, e->from_blocks ? "blocks" : "kernels", -1, SQLITE_STATIC);
	sqlite3_bind_int64(ev, 3, (int64_t)e->pid << 24);
	sqlite3_bind_int64(ev, 4, e->device_id);
	sqlite3_bind_int64(ev, 5, e->context_id);
	sqlite3_bind_int64(ev, 6, e->stream_id);
	sqlite3_bind_int64(ev, 7, e->correlation_id);
	sqlite3_bind_int64(ev, 8, (int64_t)e->grid_id);
	if (e->priority != SMTOP_PRIORITY_UNKNOWN)
		sqlite3_bind_int64(ev, 9, e->priority);
	sqlite3_bind_int64(ev, 10, (int64_t)e->ready);
	sqlite3_bind_int64(ev, 11, (int64_t)e->start);
	sqlite3_bind_int64(ev, 12, (int64_t)e->wait_ns);
	bind_text(ev, 13, e->name);
	if (sqlite3_step(ev) != SQLITE_DONE)
		return -1;
	sqlite3_reset(ev);
	sqlite3_clear_bindings(ev);
	return store_culprits(db, cu, e);
}

static int store_all(sqlite3 *db, const struct smtop_event *evs, size_t n, const char *params)
{
	sqlite3_stmt *ev = NULL, *cu = NULL, *meta = NULL;
	int rc = -1;

	if (sqlite3_exec(db, "DELETE FROM smtop_event_culprits; DELETE FROM smtop_events;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO smtop_events(kind,basis,globalPid,deviceId,"
			       "contextId,streamId,correlationId,gridId,priority,ready,start,waitNs,name)"
			       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)", -1, &ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO smtop_event_culprits(eventId,rank,globalPid,deviceId,"
			       "contextId,streamId,correlationId,gridId,priority,overlapNs,weight,blocks,name)"
			       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)", -1, &cu, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO smtop_meta(key,value)"
			       " VALUES('analysis_params',?1)", -1, &meta, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (store_event(db, ev, cu, &evs[i]) != 0)
			goto out;
	bind_text(meta, 1, params ? params : "");
	if (sqlite3_step(meta) != SQLITE_DONE)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(ev);
	sqlite3_finalize(cu);
	sqlite3_finalize(meta);
	return rc;
}

int db_events_store(const char *path, const struct smtop_event *ev, size_t n,
		    const char *params, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc = -1;

	if (events_open(path, 1, &db, err, errlen) < 0)
		goto out;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
	    store_all(db, ev, n, params) != 0 ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot store events: %s", path, sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? strdup((const char *)s) : NULL;
}

static int32_t priority_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? SMTOP_PRIORITY_UNKNOWN
		: sqlite3_column_int(st, i);
}

static int load_culprits(sqlite3 *db, int64_t id, struct smtop_event *e)
{
	sqlite3_stmt *st;
	size_t cap = 0;

	if (sqlite3_prepare_v2(db, "SELECT globalPid,deviceId,contextId,streamId,correlationId,"
			       "gridId,priority,overlapNs,weight,blocks,name FROM smtop_event_culprits"
			       " WHERE eventId=?1 ORDER BY rank", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct smtop_culprit *c;

		if (e->n_culprits == cap) {
			void *p = realloc(e->culprits, (cap = cap ? cap * 2 : 4) * sizeof *c);

			if (!p)
				break;
			e->culprits = p;
		}
		c = &e->culprits[e->n_culprits++];
		*c = (struct smtop_culprit){
			.pid = (uint32_t)((uint64_t)sqlite3_column_int64(st, 0) >> 24),
			.device_id = (uint32_t)sqlite3_column_int64(st, 1),
			.context_id = (uint32_t)sqlite3_column_int64(st, 2),
			.stream_id = (uint32_t)sqlite3_column_int64(st, 3),
			.correlation_id = (uint32_t)sqlite3_column_int64(st, 4),
			.grid_id = (uint64_t)sqlite3_column_int64(st, 5),
			.priority = priority_col(st, 6),
			.overlap_ns = (uint64_t)sqlite3_column_int64(st, 7),
			.weight = sqlite3_column_double(st, 8),
			.blocks = (uint32_t)sqlite3_column_int64(st, 9),
			.name = dup_col(st, 10),
		};
	}
	sqlite3_finalize(st);
	return 0;
}

static int load_events(sqlite3 *db, struct smtop_event **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 0;

	if (sqlite3_prepare_v2(db, "SELECT id,kind,basis,globalPid,deviceId,contextId,streamId,"
			       "correlationId,gridId,priority,ready,start,waitNs,name FROM smtop_events"
			       " ORDER BY start, id", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct smtop_event *e;

		if (*n == cap) {
			void *p = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof *e);

			if (!p)
				break;
			*out = p;
		}
		e = &(*out)[(*n)++];
		*e = (struct smtop_event){
			.kind = kind_parse((const char *)sqlite3_column_text(st, 1)),
			.from_blocks = strcmp((const char *)sqlite3_column_text(st, 2), "blocks") == 0,
			.pid = (uint32_t)((uint64_t)sqlite3_column_int64(st, 3) >> 24),
			.device_id = (uint32_t)sqlite3_column_int64(st, 4),
			.context_id = (uint32_t)sqlite3_column_int64(st, 5),
			.stream_id = (uint32_t)sqlite3_column_int64(st, 6),
			.correlation_id = (uint32_t)sqlite3_column_int64(st, 7),
			.grid_id = (uint64_t)sqlite3_column_int64(st, 8),
			.priority = priority_col(st, 9),
			.ready = (uint64_t)sqlite3_column_int64(st, 10),
			.start = (uint64_t)sqlite3_column_int64(st, 11),
			.wait_ns = (uint64_t)sqlite3_column_int64(st, 12),
			.name = dup_col(st, 13),
		};
		if (load_culprits(db, sqlite3_column_int64(st, 0), e) != 0)
			break;
	}
	sqlite3_finalize(st);
	return 0;
}

static void load_params(sqlite3 *db, char *params, size_t len)
{
	sqlite3_stmt *st;

	if (len)
		params[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM smtop_meta WHERE key='analysis_params'",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) && len)
		snprintf(params, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

int db_events_load(const char *path, struct smtop_event **out, size_t *n,
		   char *params, size_t paramslen, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int smtop = events_open(path, 0, &db, err, errlen), rc = -1;

	*out = NULL;
	*n = 0;
	if (params && paramslen)
		params[0] = 0;
	if (smtop < 0)
		goto out;
	if (smtop && load_events(db, out, n) != 0) {
		snprintf(err, errlen, "%s: cannot read events: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (smtop && params)
		load_params(db, params, paramslen);
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}

void db_events_free(struct smtop_event *ev, size_t n)
{
	for (size_t i = 0; ev && i < n; i++) {
		for (size_t j = 0; j < ev[i].n_culprits; j++)
			free((char *)ev[i].culprits[j].name);
		free(ev[i].culprits);
		free((char *)ev[i].name);
	}
	free(ev);
}
