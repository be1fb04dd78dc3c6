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

void results_events_params(uint64_t threshold_ns, const struct db_summary_key *key, char *buf,
			   size_t len)
{
	snprintf(buf, len, "threshold_us=%.3f analysis=%d kernels=%lld chunks=%lld streams=%lld",
		 (double)threshold_ns / 1e3,
		 ANALYSIS_VERSION, (long long)key->kernel_rows, (long long)key->chunk_rows,
		 (long long)key->stream_rows);
}

/* The occupancy stored in where (the session, or its cache) for key. */
static int occupancy_from(struct model *m, const char *where, const struct db_summary_key *key)
{
	uint8_t *data;
	size_t len;
	char err[512];
	struct occupancy o;
	if (db_occupancy_load(where, m->dev.device_id, OCCUPANCY_VERSION, key, &data, &len,
			      err, sizeof err) != 0)
		return 0;
	int decoded = occupancy_decode(&o, data, len) == 0;
	free(data);
	if (!decoded)
		return 0;
	/* the model copies the bins; a summary it refuses (another SM count or
	 * origin) is freed all the same */
	int shown = occupancy_to_model(&o, m) == 0;
	occupancy_free(&o);
	return shown ? RESULTS_OCCUPANCY : 0;
}

/* What smtop record stored in the session when it finalised it, else what
 * a read of it left in smtop's cache. */
static int show_occupancy(const struct results_source *src, struct model *m,
			  const struct db_summary_key *key)
{
	char cache[PATH_MAX];
	int shown = occupancy_from(m, src->path, key);
	if (!shown && db_cache_path(src->path, cache, sizeof cache) == 0)
		shown = occupancy_from(m, cache, key);
	return shown;
}

/* Hands the model the next slice of stored episodes; 1 while more remain. */
static int events_slice(const struct results_source *src, struct model *m,
			struct results_feed *feed)
{
	struct smtop_event *ev;
	size_t n;
	char params[256], err[512];
	if (db_events_load_slice(results_feed_path(feed, src->path), &feed->mark, RESULTS_EVENT_SLICE,
				 &ev, &n, params, sizeof params, err, sizeof err) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		model_add_event(m, &ev[i]);
	db_events_free(ev, n);
	return n == RESULTS_EVENT_SLICE;
}

/* 1 when where (the session, or its cache) keeps the episodes of key. */
static int events_current(const struct results_source *src, const char *where,
			  const struct db_summary_key *key)
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
	results_events_params(src->threshold_ns, key, want, sizeof want);
	return strcmp(params, want) == 0;
}

static int show_events(const struct results_source *src, struct model *m,
		       struct results_feed *feed, const struct db_summary_key *key)
{
	char cache[PATH_MAX];
	if (!events_current(src, src->path, key)) {
		if (db_cache_path(src->path, cache, sizeof cache) != 0 ||
		    !events_current(src, cache, key) || !(feed->path = strdup(cache)))
			return 0;
	}
	feed->mark = INT64_MIN;
	/* the file keeps every culprit: the model the heaviest of each */
	m->culprits_stored = 1;
	feed->more = events_slice(src, m, feed);
	return RESULTS_EVENTS;
}

void results_more(const struct results_source *src, struct model *m, struct results_feed *feed)
{
	if (m && feed->more)
		feed->more = events_slice(src, m, feed);
}

const char *results_feed_path(const struct results_feed *feed, const char *session_path)
{
	return feed->path ? feed->path : session_path;
}

int results_key(const struct results_source *src, struct db_summary_key *key, char *err,
		size_t errlen)
{
	int nsys;
	if (!src->single_finished)
		return 1;
	if (db_summary_key_of(src->path, key, &nsys, err, errlen) != 0)
		return -1;
	return nsys ? 1 : 0;
}

int results_show(const struct results_source *src, struct model *m, struct results_feed *feed)
{
	struct db_summary_key key;
	char err[512];
	if (!m || !m->has_device || results_key(src, &key, err, sizeof err) != 0)
		return 0;
	return show_occupancy(src, m, &key) | show_events(src, m, feed, &key);
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

