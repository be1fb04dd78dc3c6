#include "db/events.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/files.h"
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
	if ((writable ? sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL)
		      : db_files_open_readonly(path, db, 0)) != SQLITE_OK) {
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
	/* a file from before smtop_events.possible gets the column */
	if (writable && schema_upgrade(*db, err, errlen) != 0)
		return -1;
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
	sqlite3_bind_int64(ev, 14, e->possible);
	sqlite3_bind_int64(ev, 15, (int64_t)e->wait_min_ns);
	sqlite3_bind_int64(ev, 16, e->ready_bound);
	sqlite3_bind_int64(ev, 17, e->ready_correlation_id);
	if (sqlite3_step(ev) != SQLITE_DONE)
		return -1;
	sqlite3_reset(ev);
	sqlite3_clear_bindings(ev);
	return store_culprits(db, cu, e);
}

/* What db_events_store stores, for db_files_write's put. */
struct events_batch {
	const struct smtop_event *evs;
	size_t n;
	const char *params;
};

static int store_all(sqlite3 *db, const void *arg)
{
	const struct events_batch *batch = arg;
	const struct smtop_event *evs = batch->evs;
	const char *params = batch->params;
	size_t n = batch->n;
	sqlite3_stmt *ev = NULL, *cu = NULL, *meta = NULL;
	int rc = -1;

	if (sqlite3_exec(db, "DELETE FROM smtop_event_culprits; DELETE FROM smtop_events;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO smtop_events(kind,basis,globalPid,deviceId,"
			       "contextId,streamId,correlationId,gridId,priority,ready,start,waitNs,name,"
			       "possible,waitMinNs,readyBound,readyCorrelationId)"
			       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)", -1, &ev,
			       NULL) != SQLITE_OK ||
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
	struct events_batch batch = { ev, n, params };
	sqlite3 *db = NULL;
	int rc = -1;

	if (events_open(path, 1, &db, err, errlen) >= 0)
		rc = db_files_write(db, path, "events", NULL, store_all, &batch, err, errlen);
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

/* The culprit in the current row of st (columns from 1). */
static int add_culprit(sqlite3_stmt *st, struct smtop_event *e, size_t *cap)
{
	if (e->n_culprits == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		void *p = realloc(e->culprits, ncap * sizeof *e->culprits);

		if (!p)
			return -1;
		e->culprits = p;
		*cap = ncap;
	}
	e->culprits[e->n_culprits++] = (struct smtop_culprit){
		.pid = (uint32_t)((uint64_t)sqlite3_column_int64(st, 1) >> 24),
		.device_id = (uint32_t)sqlite3_column_int64(st, 2),
		.context_id = (uint32_t)sqlite3_column_int64(st, 3),
		.stream_id = (uint32_t)sqlite3_column_int64(st, 4),
		.correlation_id = (uint32_t)sqlite3_column_int64(st, 5),
		.grid_id = (uint64_t)sqlite3_column_int64(st, 6),
		.priority = priority_col(st, 7),
		.overlap_ns = (uint64_t)sqlite3_column_int64(st, 8),
		.weight = sqlite3_column_double(st, 9),
		.blocks = (uint32_t)sqlite3_column_int64(st, 10),
		.name = dup_col(st, 11),
	};
	return 0;
}

/* Index in ids[0..n) (ascending) of id, or n. */
static size_t find_id(const int64_t *ids, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id ? lo : n;
}

/* Every culprit in one pass, onto the events read by id: a query per event
 * costs a round trip each, seconds for a long session's episodes. */
static int load_culprits(sqlite3 *db, struct smtop_event *ev, const int64_t *ids, size_t n)
{
	sqlite3_stmt *st;
	size_t cur = n, cap = 0;
	int64_t cur_id = INT64_MIN;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT eventId,globalPid,deviceId,contextId,streamId,"
			       "correlationId,gridId,priority,overlapNs,weight,blocks,name"
			       " FROM smtop_event_culprits WHERE eventId >= ?1 AND eventId <= ?2"
			       " ORDER BY eventId, rank", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, ids[0]);
	sqlite3_bind_int64(st, 2, ids[n - 1]);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id != cur_id) {
			cur_id = id;
			cur = find_id(ids, n, id);
			cap = 0;
		}
		if (cur < n)
			rc = add_culprit(st, &ev[cur], &cap);
	}
	sqlite3_finalize(st);
	return rc;
}

/* NULL (a file from before the column) or a code this smtop does not
 * know: unknown, shown as N/A */
static enum smtop_ready_bound ready_bound_col(sqlite3_stmt *st, int i)
{
	int64_t b = sqlite3_column_int64(st, i);

	return b > 0 && b <= SMTOP_READY_MAX ? (enum smtop_ready_bound)b : SMTOP_READY_UNKNOWN;
}

static struct smtop_event event_row(sqlite3_stmt *st)
{
	return (struct smtop_event){
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
		.possible = (unsigned)sqlite3_column_int64(st, 14) & SMTOP_POSSIBLE_ALL,
		/* NULL (a file from before the column): the wait is exact */
		.wait_min_ns = sqlite3_column_type(st, 15) == SQLITE_NULL
				       ? (uint64_t)sqlite3_column_int64(st, 12)
				       : (uint64_t)sqlite3_column_int64(st, 15),
		.ready_bound = ready_bound_col(st, 16),
		.ready_correlation_id = (uint32_t)sqlite3_column_int64(st, 17),
	};
}

struct event_order {
	uint64_t start;
	int64_t id;
	size_t i;
};

static int event_order_cmp(const void *pa, const void *pb)
{
	const struct event_order *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* Events by (start, id), as they were always handed out. */
static int sort_events(struct smtop_event *ev, const int64_t *ids, size_t n)
{
	struct event_order *o = malloc((n ? n : 1) * sizeof *o);
	struct smtop_event *tmp = malloc((n ? n : 1) * sizeof *tmp);

	if (!o || !tmp) {
		free(o);
		free(tmp);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		o[i] = (struct event_order){ ev[i].start, ids[i], i };
	qsort(o, n, sizeof *o, event_order_cmp);
	for (size_t i = 0; i < n; i++)
		tmp[i] = ev[o[i].i];
	memcpy(ev, tmp, n * sizeof *ev);
	free(o);
	free(tmp);
	return 0;
}

/* Events with an id past *after, at most max (negative: all); *after moves
 * to the last one read. */
static int load_events(sqlite3 *db, struct smtop_event **out, size_t *n, int64_t *after,
		       int64_t max)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int64_t *ids = NULL;

	/* the columns added since, newest first: a file from before one reads
	 * it and those after it as NULL */
	static const char *const later[] = {
		"possible,waitMinNs,readyBound,readyCorrelationId",
		"possible,waitMinNs,NULL,NULL",
		"NULL,NULL,NULL,NULL",
	};
	char sql[320];
	int prepared = 0;

	for (size_t i = 0; i < sizeof later / sizeof *later && !prepared; i++) {
		snprintf(sql, sizeof sql, "SELECT id,kind,basis,globalPid,deviceId,contextId,streamId,"
			 "correlationId,gridId,priority,ready,start,waitNs,name,%s"
			 " FROM smtop_events WHERE id > ?1 ORDER BY id LIMIT ?2", later[i]);
		prepared = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
	}
	if (!prepared)
		return -1;
	sqlite3_bind_int64(st, 1, *after);
	sqlite3_bind_int64(st, 2, max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			void *p = realloc(*out, ncap * sizeof **out), *q = p ? realloc(ids, ncap * sizeof *ids) : NULL;

			if (p)
				*out = p;
			if (!p || !q)
				break;
			ids = q;
			cap = ncap;
		}
		ids[*n] = sqlite3_column_int64(st, 0);
		(*out)[(*n)++] = event_row(st);
	}
	sqlite3_finalize(st);
	/* out of memory midway keeps what was read, as before: a culprit short */
	if (*n)
		*after = ids[*n - 1];
	if (*n && load_culprits(db, *out, ids, *n) == 0)
		sort_events(*out, ids, *n);
	free(ids);
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
	int64_t after = INT64_MIN;

	return db_events_load_slice(path, &after, -1, out, n, params, paramslen, err, errlen);
}

int db_events_load_slice(const char *path, int64_t *after, int64_t max, struct smtop_event **out,
			 size_t *n, char *params, size_t paramslen, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int smtop = events_open(path, 0, &db, err, errlen), rc = -1;

	*out = NULL;
	*n = 0;
	if (params && paramslen)
		params[0] = 0;
	if (smtop < 0)
		goto out;
	if (smtop && load_events(db, out, n, after, max) != 0) {
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

/* The viewer keeps an episode's heaviest culprit and reads the rest when it
 * shows the episode: one indexed lookup (smtop_events_start), not all. */
static int load_culprits_of(sqlite3 *db, const struct smtop_event *v, struct smtop_event *into)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT eventId,globalPid,deviceId,contextId,streamId,"
			       "correlationId,gridId,priority,overlapNs,weight,blocks,name"
			       " FROM smtop_event_culprits WHERE eventId = (SELECT id FROM smtop_events"
			       " WHERE start = ?1 AND ready = ?2 AND gridId = ?3 AND deviceId = ?4"
			       " AND (globalPid >> 24) = ?5 ORDER BY id LIMIT 1) ORDER BY rank",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)v->start);
	sqlite3_bind_int64(st, 2, (int64_t)v->ready);
	sqlite3_bind_int64(st, 3, (int64_t)v->grid_id);
	sqlite3_bind_int64(st, 4, v->device_id);
	sqlite3_bind_int64(st, 5, v->pid);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW)
		rc = add_culprit(st, into, &cap);
	sqlite3_finalize(st);
	return rc;
}

int db_events_culprits(const char *path, const struct smtop_event *v, struct smtop_culprit **out,
		       size_t *n, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	struct smtop_event got = { 0 };
	int smtop = events_open(path, 0, &db, err, errlen), rc = -1;

	*out = NULL;
	*n = 0;
	if (smtop < 0)
		goto out;
	if (smtop && load_culprits_of(db, v, &got) != 0) {
		snprintf(err, errlen, "%s: cannot read culprits: %s", path, sqlite3_errmsg(db));
		for (size_t j = 0; j < got.n_culprits; j++)
			free((char *)got.culprits[j].name);
		free(got.culprits);
		goto out;
	}
	*out = got.culprits;
	*n = got.n_culprits;
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
