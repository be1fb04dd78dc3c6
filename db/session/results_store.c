#include "db/session/results_store.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "db/session/results.h"
#include "src/core/analysis.h"
#include "src/core/findings.h"
#include "src/core/model.h"
#include "src/core/occupancy.h"

/* results_key for session s. */
static int results_key_of(const struct session *s, struct db_summary_key *key, char *err,
			  size_t errlen)
{
	struct results_source src = session_results_source(s);
	return results_key(&src, key, err, errlen);
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

/* Stores f into where (the session, or its cache). */
static int report_store_to(const struct session *s, const char *where,
			   const struct findings *f, char *err, size_t errlen)
{
	struct db_summary_key key;
	uint8_t *data;
	size_t len;
	int rc = results_key_of(s, &key, err, errlen);
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

int results_store_report(struct session *s, const struct findings *f, char *err, size_t errlen)
{
	struct db_summary_key key;
	char cache[PATH_MAX];
	int rc = results_key_of(s, &key, err, errlen);
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

int results_store_findings(struct session *s, struct findings *f)
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
	if (results_store_findings(s, &f) != 0) {
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
	int rc = results_key_of(s, &key, err, errlen);
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
