#include "db/session/results.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "db/events.h"
#include "src/core/analysis.h"
#include "src/core/findings.h"
#include "src/core/model.h"
#include "src/core/occupancy.h"
#include "db/session/session.h"

/* One smtop file, finished: nothing more will change what is stored. */
static int results_apply(const struct session *s)
{
	return s->n_src == 1 && !s->info.is_nsys && s->info.ended;
}

void results_events_params(const struct session *s, const struct db_summary_key *key, char *buf,
			   size_t len)
{
	snprintf(buf, len, "threshold_us=%.3f analysis=%d kernels=%lld chunks=%lld streams=%lld",
		 (double)analysis_get_params(s->analysis)->blocking_threshold_ns / 1e3,
		 ANALYSIS_VERSION, (long long)key->kernel_rows, (long long)key->chunk_rows,
		 (long long)key->stream_rows);
}

/* The occupancy stored in where (the session, or its cache) for key. */
static int occupancy_from(struct session *s, const char *where, const struct db_summary_key *key)
{
	uint8_t *data;
	size_t len;
	char err[512];
	struct occupancy o;
	if (db_occupancy_load(where, s->model->dev.device_id, OCCUPANCY_VERSION, key, &data, &len,
			      err, sizeof err) != 0)
		return 0;
	int decoded = occupancy_decode(&o, data, len) == 0;
	free(data);
	if (!decoded)
		return 0;
	/* the model copies the bins; a summary it refuses (another SM count or
	 * origin) is freed all the same */
	int shown = occupancy_to_model(&o, s->model) == 0;
	occupancy_free(&o);
	return shown ? RESULTS_OCCUPANCY : 0;
}

/* What smtop record stored in the session when it finalised it, else what
 * a read of it left in smtop's cache. */
static int show_occupancy(struct session *s, const struct db_summary_key *key)
{
	char cache[PATH_MAX];
	int shown = occupancy_from(s, s->path, key);
	if (!shown && db_cache_path(s->path, cache, sizeof cache) == 0)
		shown = occupancy_from(s, cache, key);
	return shown;
}

/* Hands the model the next slice of stored episodes; 1 while more remain. */
static int events_slice(struct session *s)
{
	struct smtop_event *ev;
	size_t n;
	char params[256], err[512];
	if (db_events_load_slice(session_results_path(s), &s->stored_event_mark, RESULTS_EVENT_SLICE,
				 &ev, &n, params,
				 sizeof params, err, sizeof err) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		model_add_event(s->model, &ev[i]);
	db_events_free(ev, n);
	return n == RESULTS_EVENT_SLICE;
}

/* 1 when where (the session, or its cache) keeps the episodes of key. */
static int events_current(struct session *s, const char *where, const struct db_summary_key *key)
{
	char params[256], want[256], err[512];
	struct smtop_event *ev;
	size_t n;
	int64_t none = INT64_MAX;
	/* the key first, without reading a single event */
	if (db_events_load_slice(where, &none, 0, &ev, &n, params, sizeof params, err,
				 sizeof err) != 0)
		return 0;
	db_events_free(ev, n);
	results_events_params(s, key, want, sizeof want);
	return strcmp(params, want) == 0;
}

static int show_events(struct session *s, const struct db_summary_key *key)
{
	char cache[PATH_MAX];
	if (!events_current(s, s->path, key)) {
		if (db_cache_path(s->path, cache, sizeof cache) != 0 ||
		    !events_current(s, cache, key) || !(s->results_path = strdup(cache)))
			return 0;
	}
	s->stored_event_mark = INT64_MIN;
	/* the file keeps every culprit: the model the heaviest of each */
	s->model->culprits_stored = 1;
	s->stored_events_more = events_slice(s);
	return RESULTS_EVENTS;
}

void results_more(struct session *s)
{
	if (s->model && s->stored_events_more)
		s->stored_events_more = events_slice(s);
}

/* The key of what s stores: 0, 1 when s takes no stored results (several
 * files, an nsys export, not finished), -1 with err. */
static int results_key(const struct session *s, struct db_summary_key *key, char *err,
		       size_t errlen)
{
	int nsys;
	if (!results_apply(s))
		return 1;
	if (db_summary_key_of(s->path, key, &nsys, err, errlen) != 0)
		return -1;
	return nsys ? 1 : 0;
}

int results_show(struct session *s)
{
	struct db_summary_key key;
	char err[512];
	if (!s->model || !s->model->has_device || results_key(s, &key, err, sizeof err) != 0)
		return 0;
	return show_occupancy(s, &key) | show_events(s, &key);
}

static int store_occupancy(struct session *s, const char *where, const struct db_summary_key *key,
			   char *err, size_t errlen)
{
	struct occupancy o;
	uint8_t *data;
	size_t len;
	int rc = s->model ? occupancy_from_model(s->model, &o) : 1;
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	rc = occupancy_encode(&o, &data, &len);
	occupancy_free(&o);
	if (rc != 0) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -1;
	}
	rc = db_occupancy_store(where, s->model->dev.device_id, OCCUPANCY_VERSION, key, data, len,
				err, errlen);
	free(data);
	return rc;
}

/* The findings stored in where for key: 0 with f filled, 1 when none
 * are current, -1 with err. */
static int report_from(const char *where, const struct db_summary_key *key, struct findings *f,
		       char *err, size_t errlen)
{
	uint8_t *data;
	size_t len;
	int rc = db_report_load(where, FINDINGS_VERSION, ANALYSIS_VERSION, key, &data, &len, err,
				errlen);
	if (rc != 0)
		return rc;
	rc = findings_decode(f, data, len);
	free(data);
	if (rc == -2) {
		snprintf(err, errlen, "%s: out of memory", where);
		return -1;
	}
	/* damaged bytes are computed again, as a row of another version */
	return rc == 0 ? 0 : 1;
}

int results_report_load(const char *path, const struct analysis_params *p, struct findings *f,
			char *err, size_t errlen)
{
	struct db_summary_key key;
	char cache[PATH_MAX], cerr[512];
	int nsys;
	if (db_summary_key_of(path, &key, &nsys, err, errlen) != 0)
		return -1;
	if (nsys || !key.ended)
		return 1;
	key.threshold_ns = p->blocking_threshold_ns;
	int rc = report_from(path, &key, f, err, errlen);
	if (rc != 1 || db_cache_path(path, cache, sizeof cache) != 0)
		return rc;
	/* a cache that cannot be read is computed again, as one missing */
	rc = report_from(cache, &key, f, cerr, sizeof cerr);
	return rc < 0 ? 1 : rc;
}

/* Stores f into where (the session, or its cache). */
static int report_store_to(const struct session *s, const char *where,
			   const struct findings *f, char *err, size_t errlen)
{
	struct db_summary_key key;
	uint8_t *data;
	size_t len;
	int rc = results_key(s, &key, err, errlen);
	if (rc != 0)
		return rc;
	key.threshold_ns = f->threshold_ns;
	if (findings_encode(f, &data, &len) != 0) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -1;
	}
	rc = db_report_store(where, FINDINGS_VERSION, ANALYSIS_VERSION, &key, data, len, err,
			     errlen);
	free(data);
	return rc;
}

int results_report_store(struct session *s, const struct findings *f, char *err,
			 size_t errlen)
{
	struct db_summary_key key;
	char cache[PATH_MAX];
	int rc = results_key(s, &key, err, errlen);
	if (rc != 0)
		return rc;
	if (db_cache_prepare(s->path, cache, sizeof cache, err, errlen) != 0 ||
	    session_store_events(s, cache, err, errlen) < 0)
		return -1;
	return report_store_to(s, cache, f, err, errlen);
}

/* Who recorded the registers the occupancy limits read. */
static const char *registers_from(const struct session *s)
{
	size_t san = 0;
	for (size_t i = 0; i < s->n_src; i++)
		san += s->src[i].info.collector && !strcmp(s->src[i].info.collector, "sanitizer");
	return !san ? "cupti" : san == s->n_src ? "sanitizer" : "mixed";
}

int results_findings(struct session *s, struct findings *f)
{
	if (findings_from_analysis(s->analysis, f) != 0)
		return -1;
	/* what the viewer counts its times from (the span read at open) */
	f->t_first = s->info.t_first ? s->info.t_first : s->model ? s->model->t_first : 0;
	f->registers_from = strdup(registers_from(s));
	if (!f->registers_from) {
		findings_free(f);
		return -1;
	}
	return 0;
}

/* What the report of s prints, stored along the episodes. */
static int store_findings(struct session *s, const char *where, char *err, size_t errlen)
{
	struct findings f;
	if (results_findings(s, &f) != 0) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -1;
	}
	int rc = report_store_to(s, where, &f, err, errlen);
	findings_free(&f);
	return rc < 0 ? -1 : 0;
}

int results_store(struct session *s, enum results_to to, char *err, size_t errlen)
{
	struct db_summary_key key;
	char cache[PATH_MAX];
	const char *where = s->path;
	int rc = results_key(s, &key, err, errlen);
	if (rc != 0)
		return rc;
	if (to == RESULTS_TO_CACHE) {
		if (db_cache_prepare(s->path, cache, sizeof cache, err, errlen) != 0)
			return -1;
		where = cache;
	} else {
		/* the reader reads the chunk counts from the session only */
		char stats[4096];
		if (db_reader_chunk_stats(s->reader, stats, sizeof stats) == 0 &&
		    db_meta_store(s->path, "chunk_stats", stats, err, errlen) != 0)
			return -1;
	}
	if (store_occupancy(s, where, &key, err, errlen) != 0)
		return -1;
	if (session_store_events(s, where, err, errlen) < 0)
		return -1;
	return store_findings(s, where, err, errlen);
}
