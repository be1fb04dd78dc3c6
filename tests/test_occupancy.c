/* The occupancy summary (src/core/occupancy.c) and the results a finished
 * session keeps (db/session/results.c): the stored bins draw the frames
 * the whole model draws, the bytes survive damage without a crash, the
 * stored episodes are the analysis' own, and anything that changed the
 * session (or an export, never written) means no stored results. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/events.h"
#include "db/reader.h"
#include "db/summary.h"
#include "src/core/analysis.h"
#include "src/core/model.h"
#include "src/core/occupancy.h"
#include "db/session/library.h"
#include "db/session/results_store.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"

#define FIXTURE "tests/fixtures/priority-vs-training.smtop"
#define NSYS "tests/fixtures/nsys/nsys-2025.3-h200-smoke.sqlite"
#define COLS 160

struct loaded {
	struct session s;
	struct model m;
};

static void open_model(struct loaded *l, const char *path, int show_stored, uint64_t budget)
{
	char err[512];
	struct analysis_params p;
	analysis_params_default(&p);
	cr_assert_eq(session_open(&l->s, path, &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(model_init(&l->m), 0);
	l->s.model = &l->m;
	l->s.show_stored = show_stored;
	l->s.budget_ns = budget;
}

static void poll_once(struct loaded *l)
{
	char err[512];
	cr_assert_geq(session_poll(&l->s, err, sizeof err), 0, "%s", err);
}

static void poll_all(struct loaded *l)
{
	do
		poll_once(l);
	while (l->s.behind);
	session_sync(&l->s);
	poll_once(l);
}

static void close_model(struct loaded *l)
{
	model_free(&l->m);
	session_close(&l->s);
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	cr_assert(a && b, "copy %s", from);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, a)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, b), n);
	fclose(a);
	fclose(b);
}

/* Every SM row of the whole session and of a zoom to its middle. */
static void expect_same_cells(const struct model *a, const struct model *b)
{
	uint64_t span = a->t_last - a->t_first;
	uint64_t cols[] = { span / COLS + 1, span / COLS / 8 + 1 };
	uint64_t t0[] = { a->t_first, a->t_first + span / 2 };
	struct model_cell x[COLS], y[COLS];
	for (int z = 0; z < 2; z++)
		for (uint32_t sm = 0; sm < a->n_sm; sm += 6) {
			model_sample_sms(a, sm, 6, t0[z], cols[z], COLS, x);
			model_sample_sms(b, sm, 6, t0[z], cols[z], COLS, y);
			for (int c = 0; c < COLS; c++)
				cr_assert(x[c].stream == y[c].stream && x[c].second == y[c].second &&
					  x[c].fullness == y[c].fullness,
					  "zoom %d SM %u column %d: %d/%d %.3f vs %d/%d %.3f", z, sm, c,
					  x[c].stream, x[c].second, x[c].fullness, y[c].stream,
					  y[c].second, y[c].fullness);
		}
}

Test(occupancy, bytes_round_trip_and_draw_what_the_whole_model_draws)
{
	struct loaded full;
	open_model(&full, FIXTURE, 0, 0);
	poll_all(&full);
	struct occupancy o, back;
	cr_assert_eq(occupancy_from_model(&full.m, &o), 0);
	cr_expect_gt(o.n_levels, 3, "the coarse levels hold the whole session");
	cr_expect_eq(o.n_sm, full.m.n_sm);
	uint8_t *buf;
	size_t len;
	cr_assert_eq(occupancy_encode(&o, &buf, &len), 0);
	cr_assert_eq(occupancy_decode(&back, buf, len), 0);
	cr_expect_eq(back.n_levels, o.n_levels);
	cr_expect_eq(back.origin, o.origin);
	cr_expect_eq(back.n_streams, o.n_streams);
	for (int i = 0; i < o.n_levels; i++) {
		cr_expect_eq(back.levels[i].k, o.levels[i].k);
		cr_expect_eq(back.levels[i].n, o.levels[i].n);
		cr_expect_eq(memcmp(back.levels[i].bins, o.levels[i].bins,
				    o.n_sm * o.levels[i].n * sizeof(struct model_bin)), 0,
			     "level %d bins", i);
	}
	/* a fresh model of the same GPU, no block read: the same frames */
	struct model fresh;
	cr_assert_eq(model_init(&fresh), 0);
	cr_assert_eq(model_set_device(&fresh, &full.m.dev), 0);
	cr_assert_eq(occupancy_to_model(&back, &fresh), 0);
	cr_expect(fresh.summary_on);
	cr_expect_eq(fresh.t_first, full.m.t_first);
	cr_expect_eq(fresh.t_last, full.m.t_last);
	expect_same_cells(&full.m, &fresh);
	model_summary_drop(&fresh);
	cr_expect_not(fresh.summary_on);
	model_free(&fresh);
	free(buf);
	occupancy_free(&o);
	occupancy_free(&back);
	close_model(&full);
}

Test(occupancy, damaged_bytes_are_refused)
{
	struct loaded full;
	open_model(&full, FIXTURE, 0, 0);
	poll_all(&full);
	struct occupancy o, back;
	cr_assert_eq(occupancy_from_model(&full.m, &o), 0);
	uint8_t *buf;
	size_t len;
	cr_assert_eq(occupancy_encode(&o, &buf, &len), 0);
	/* every cut short: refused, never read past the end (ASan runs this) */
	for (size_t n = 0; n < len; n += n < 64 ? 1 : 997)
		cr_assert_eq(occupancy_decode(&back, buf, n), -1, "cut at %zu of %zu", n, len);
	buf[0] ^= 1; /* the magic */
	cr_expect_eq(occupancy_decode(&back, buf, len), -1);
	buf[0] ^= 1;
	cr_assert_eq(occupancy_decode(&back, buf, len), 0);
	occupancy_free(&back);
	/* one model does not take another GPU's summary */
	struct model other;
	struct smtop_device d = full.m.dev;
	d.sm_count = 16;
	cr_assert_eq(model_init(&other), 0);
	cr_assert_eq(model_set_device(&other, &d), 0);
	cr_expect_eq(occupancy_to_model(&o, &other), 1);
	cr_expect_not(other.summary_on);
	model_free(&other);
	free(buf);
	occupancy_free(&o);
	close_model(&full);
}

Test(occupancy, a_finalised_session_shows_its_results_before_its_blocks)
{
	char path[512], err[512];
	db_support_temp_path(path, sizeof path, "pvt.smtop");
	copy_file(FIXTURE, path);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	struct loaded full, fast;
	open_model(&full, path, 0, 0);
	poll_all(&full);
	open_model(&fast, path, 1, 1); /* 1 ns: one batch a poll */
	poll_once(&fast);
	cr_expect_eq(fast.s.stored_shown, RESULTS_OCCUPANCY | RESULTS_EVENTS);
	cr_expect(fast.s.behind, "blocks are still to be read");
	cr_expect(fast.m.summary_on);
	cr_expect_lt(fast.m.blocks, full.m.blocks);
	cr_expect_eq(fast.m.n_kernels, full.m.n_kernels, "every lane at once");
	cr_expect_eq(fast.m.n_events, full.m.n_events, "every verdict at once");
	cr_expect_gt(fast.m.n_events, 0);
	expect_same_cells(&full.m, &fast.m);
	poll_all(&fast);
	cr_expect_not(fast.m.summary_on, "the rings draw once every block is in");
	cr_expect_eq(fast.m.blocks, full.m.blocks);
	cr_expect_eq(fast.m.n_events, full.m.n_events, "the analysis' own are not added again");
	expect_same_cells(&full.m, &fast.m);
	/* the stored episodes stand for the analysis, which took in nothing,
	 * and come in its order (a replay and the guide read them) */
	cr_expect(fast.s.analysis_off);
	cr_expect_eq(analysis_event_count(fast.s.analysis), 0);
	size_t n = analysis_event_count(full.s.analysis);
	cr_assert_eq(session_event_count(&fast.s), n);
	for (size_t i = 0; i < n; i++) {
		const struct smtop_event *x = analysis_event(full.s.analysis, i);
		const struct smtop_event *y = session_event(&fast.s, i);
		cr_expect(x->kind == y->kind && x->grid_id == y->grid_id && x->ready == y->ready &&
			  x->wait_ns == y->wait_ns && x->n_culprits == y->n_culprits,
			  "event %zu differs", i);
		/* a stored name is the file's own copy: the same short name */
		cr_expect_str_eq(session_short_name(&fast.s, y->name),
				 session_short_name(&full.s, x->name));
	}
	close_model(&fast);
	close_model(&full);
}

/* What a session shown from its stored findings reads when asked rather
 * than keeps: an episode's culprits past the heaviest, and the kernel's
 * SMs, correlation id and most blocks on one SM, which no analysis counts
 * there; all the same as the analysis' own. */
static void expect_stored_view_reads(const char *fixture, size_t want_several)
{
	char path[512], err[512];
	db_support_temp_path(path, sizeof path, "stored-view.smtop");
	copy_file(fixture, path);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	struct loaded full, shown;
	open_model(&full, path, 0, 0);
	poll_all(&full);
	open_model(&shown, path, 1, 1);
	poll_all(&shown);
	cr_assert(shown.s.analysis_off);
	cr_assert(shown.m.culprits_stored);
	cr_assert_eq(shown.m.n_events, full.m.n_events);
	size_t several = 0;
	for (size_t i = 0; i < shown.m.n_events; i++) {
		const struct model_event *x = &full.m.events[i], *y = &shown.m.events[i];
		cr_assert_eq(x->ev.n_culprits, y->ev.n_culprits, "episode %zu", i);
		cr_expect_eq(y->culprits_held, y->ev.n_culprits ? 1 : 0, "the heaviest kept");
		cr_expect_eq(x->culprit_streams, y->culprit_streams, "the timeline's marks");
		several += y->ev.n_culprits > 1;
		cr_assert_eq(session_focus_event(&shown.s, &shown.m, (long)i), 0);
		cr_expect_not(model_event_wants_culprits(&shown.m, i));
		for (size_t c = 0; c < x->ev.n_culprits; c++) {
			const struct smtop_culprit *a = model_event_culprit(&full.m, i, c);
			const struct smtop_culprit *b = model_event_culprit(&shown.m, i, c);
			cr_assert(a && b, "episode %zu culprit %zu", i, c);
			cr_expect(a->grid_id == b->grid_id && a->blocks == b->blocks &&
				  a->stream_id == b->stream_id && a->overlap_ns == b->overlap_ns,
				  "episode %zu culprit %zu", i, c);
		}
	}
	cr_expect_eq(several, want_several, "episodes of several culprits");
	size_t counted = 0;
	for (size_t i = 0; i < full.m.n_kernels; i++) {
		const struct model_kernel *k = &full.m.kernels[i];
		const struct model_stream *st = &full.m.streams[k->stream];
		long j = model_find_kernel(&shown.m, st->pid, st->device_id, model_kernel_grid(&full.m, k));
		cr_assert_geq(j, 0);
		cr_expect_eq(model_kernel_most_per_sm(&shown.m, &shown.m.kernels[j]), 0,
			     "no analysis counted it");
		cr_assert_eq(session_focus_kernel(&full.s, &full.m, (long)i), 0);
		cr_assert_eq(session_focus_kernel(&shown.s, &shown.m, j), 0);
		cr_expect_eq(shown.m.focus.sms, full.m.focus.sms, "kernel %zu", i);
		cr_expect_eq(shown.m.focus.correlation_id, full.m.focus.correlation_id);
		cr_expect_neq(shown.m.focus.correlation_id, 0);
		cr_expect_eq(shown.m.focus.most_per_sm, model_kernel_most_per_sm(&full.m, k),
			     "kernel %zu: %u from its blocks, the analysis' %u", i,
			     shown.m.focus.most_per_sm, model_kernel_most_per_sm(&full.m, k));
		counted += shown.m.focus.most_per_sm > 0 && shown.m.focus.sms > 0;
	}
	cr_expect_gt(counted, 0, "kernels with blocks: %zu", counted);
	close_model(&shown);
	close_model(&full);
}

Test(occupancy, a_stored_view_reads_what_it_does_not_keep)
{
	expect_stored_view_reads(FIXTURE, 0);
	/* two processes' time slices: an episode of several culprits */
	expect_stored_view_reads("tests/fixtures/timeslice.smtop", 1);
}

/* smtop export's way: with current findings stored, the analysis takes in
 * nothing, no block is read, and the stored episodes come in its order
 * with what set each ready time. */
Test(occupancy, stored_findings_stand_for_the_analysis)
{
	char path[512], err[512];
	db_support_temp_path(path, sizeof path, "pvt.smtop");
	copy_file(FIXTURE, path);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	struct session full, fast;
	cr_assert_eq(session_open(&full, path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(session_use_stored(&full, err, sizeof err), 1, "%s", err);
	cr_assert_eq(session_open(&fast, path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(session_use_stored(&fast, err, sizeof err), 1, "%s", err);
	full.analysis_off = 0; /* this one reads everything */
	cr_assert_geq(session_poll(&full, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(&fast, err, sizeof err), 0, "%s", err);
	cr_expect_eq(fast.stats.blocks, 0, "no block read");
	cr_expect_eq(fast.src[0].kernel_mark, 0, "no kernel read");
	cr_expect_gt(full.stats.blocks, 0);
	cr_expect_gt(full.src[0].kernel_mark, 0);
	cr_expect_eq(analysis_event_count(fast.analysis), 0);
	size_t n = analysis_event_count(full.analysis);
	cr_assert_gt(n, 0);
	cr_assert_eq(session_event_count(&fast), n);
	for (size_t i = 0; i < n; i++) {
		const struct smtop_event *x = analysis_event(full.analysis, i);
		const struct smtop_event *y = session_event(&fast, i);
		cr_expect(x->kind == y->kind && x->grid_id == y->grid_id && x->ready == y->ready &&
			  x->wait_ns == y->wait_ns && x->n_culprits == y->n_culprits &&
			  x->ready_bound == y->ready_bound &&
			  x->ready_correlation_id == y->ready_correlation_id, "event %zu differs", i);
	}
	session_close(&fast);
	session_close(&full);
}

Test(occupancy, a_session_that_changed_computes_again)
{
	char path[512], err[512];
	db_support_temp_path(path, sizeof path, "pvt.smtop");
	copy_file(FIXTURE, path);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	struct db_writer *w = db_support_writer(path, 4242, 0);
	struct smtop_record r = db_support_stream(4242, 99, 0);
	cr_assert_eq(db_writer_write(w, &r, 1), 0, "%s", db_writer_error(w));
	db_support_free_record(&r);
	db_writer_close(w);
	struct loaded l;
	open_model(&l, path, 1, 1);
	poll_once(&l);
	cr_expect_eq(l.s.stored_shown, 0, "another stream row: nothing stored is current");
	cr_expect_not(l.m.summary_on);
	poll_all(&l);
	cr_expect_gt(l.m.n_events, 0, "the analysis finds them again");
	close_model(&l);
}

Test(occupancy, nsys_exports_are_never_written)
{
	char path[512], err[512];
	db_support_temp_path(path, sizeof path, "export.sqlite");
	copy_file(NSYS, path);
	struct stat before, after;
	cr_assert_eq(stat(path, &before), 0);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	struct loaded l;
	open_model(&l, path, 1, 0);
	poll_all(&l);
	cr_expect_eq(l.s.stored_shown, 0);
	cr_expect_eq(results_store(&l.s, RESULTS_TO_SESSION, err, sizeof err), 1,
		     "an export takes nothing");
	close_model(&l);
	cr_assert_eq(stat(path, &after), 0);
	cr_expect_eq(before.st_size, after.st_size);
	cr_expect_eq(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	cr_expect_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	cr_expect_eq(db_support_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'smtop_%'"), 0);
}

static void read_info(const char *path, uint64_t out[4])
{
	struct db_reader *r;
	struct db_session_info in;
	char err[512];
	cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_info(r, &in), 0);
	out[0] = in.blocks;
	out[1] = in.t_first;
	out[2] = in.t_last;
	out[3] = in.kernels;
	db_reader_close(r);
}

static void sql(const char *path, const char *q)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

Test(occupancy, stored_chunk_counts_stand_for_a_read_of_every_row)
{
	char path[512], err[512];
	db_support_temp_path(path, sizeof path, "pvt.smtop");
	copy_file(FIXTURE, path);
	uint64_t counted[4], stored[4], stale[4];
	read_info(path, counted);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_support_sql_int(path, "SELECT count(*) FROM smtop_meta WHERE key = 'chunk_stats'"), 1);
	read_info(path, stored);
	cr_expect_eq(memcmp(counted, stored, sizeof counted), 0, "the same counts and span");
	/* figures for other rows (a trimmed file, say) are not believed */
	sql(path, "UPDATE smtop_meta SET value = '2 5 5 999 1 2 3 1 1 4 5 0 1 2' WHERE key = 'chunk_stats'");
	read_info(path, stale);
	cr_expect_eq(memcmp(counted, stale, sizeof counted), 0, "counted again");
	sql(path, "UPDATE smtop_meta SET value = 'garbage' WHERE key = 'chunk_stats'");
	read_info(path, stale);
	cr_expect_eq(memcmp(counted, stale, sizeof counted), 0);
}

Test(occupancy, stored_episodes_read_in_slices_are_all_of_them)
{
	char path[512], err[512], params[256];
	db_support_temp_path(path, sizeof path, "pvt.smtop");
	copy_file(FIXTURE, path);
	cr_assert_eq(library_finalize(path, NULL, err, sizeof err), 0, "%s", err);
	struct smtop_event *all, *part;
	size_t n_all, n, seen = 0, slices = 0;
	cr_assert_eq(db_events_load(path, &all, &n_all, params, sizeof params, err, sizeof err), 0);
	cr_assert_gt(n_all, 4, "the fixture has episodes enough for three slices");
	int64_t after = INT64_MIN;
	do {
		cr_assert_eq(db_events_load_slice(path, &after, 2, &part, &n, params, sizeof params,
						  err, sizeof err), 0, "%s", err);
		cr_assert_leq(n, 2);
		for (size_t i = 0; i < n; i++) {
			int found = 0;
			for (size_t j = 0; j < n_all && !found; j++)
				found = all[j].ready == part[i].ready && all[j].grid_id == part[i].grid_id &&
					all[j].kind == part[i].kind &&
					all[j].n_culprits == part[i].n_culprits;
			cr_expect(found, "slice %zu event %zu is one of the stored", slices, i);
			for (size_t i2 = 1; i2 < n; i2++)
				cr_expect_leq(part[i2 - 1].start, part[i2].start, "by start in a slice");
		}
		seen += n;
		slices++;
		db_events_free(part, n);
	} while (n == 2);
	cr_expect_eq(seen, n_all, "every episode once");
	cr_expect_eq(slices, n_all / 2 + 1);
	cr_expect(strstr(params, "analysis=") != NULL, "the key travels with every slice");
	db_events_free(all, n_all);
}

/* A session finalised before the runs of version 2 keeps its version 1
 * row: still found for its key, decoded, and drawn as its blocks draw. */
Test(occupancy, a_version_1_row_is_still_read)
{
	const char *old = "tests/fixtures/sync-kinds.smtop";
	char err[512];
	cr_assert_eq(db_support_sql_int(old, "SELECT min(version) FROM smtop_occupancy"), 1);
	struct loaded full;
	open_model(&full, old, 0, 0);
	poll_all(&full);
	struct db_summary_key key;
	int nsys;
	cr_assert_eq(db_summary_key_of(old, &key, &nsys, err, sizeof err), 0, "%s", err);
	uint8_t *data;
	size_t len;
	cr_assert_eq(db_occupancy_load(old, full.m.dev.device_id, OCCUPANCY_VERSION, &key, &data,
				       &len, err, sizeof err), 0, "%s", err);
	struct occupancy o;
	cr_assert_eq(occupancy_decode(&o, data, len), 0);
	struct model fresh;
	cr_assert_eq(model_init(&fresh), 0);
	cr_assert_eq(model_set_device(&fresh, &full.m.dev), 0);
	cr_assert_eq(occupancy_to_model(&o, &fresh), 0);
	cr_expect(fresh.summary_on);
	expect_same_cells(&full.m, &fresh);
	/* and the same bins again as version 2 */
	uint8_t *v2;
	size_t len2;
	struct occupancy back;
	cr_assert_eq(occupancy_encode(&o, &v2, &len2), 0);
	cr_expect_lt(len2, len, "version 2: %zu bytes, version 1: %zu", len2, len);
	cr_assert_eq(occupancy_decode(&back, v2, len2), 0);
	for (int i = 0; i < o.n_levels; i++)
		cr_expect_eq(memcmp(back.levels[i].bins, o.levels[i].bins,
				    o.n_sm * o.levels[i].n * sizeof(struct model_bin)), 0,
			     "level %d bins", i);
	occupancy_free(&back);
	free(v2);
	model_free(&fresh);
	occupancy_free(&o);
	free(data);
	close_model(&full);
}
