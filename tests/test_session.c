/* The session loader: the same model and analysis whatever the thread count
 * and however the polls are cut (a time budget, a session still growing,
 * several files as one session), and a clear error for a damaged chunk. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/model.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"
#include "tests/support/model_ref.h"
#include "tests/support/workload_support.h"

#define FIXTURE "tests/fixtures/priority-vs-training.smtop"

struct loaded {
	struct session s;
	struct model m;
	int polls;
};

static void load_open_many(struct loaded *l, const char *const *paths, size_t n, int threads,
			   uint64_t budget_ns)
{
	char err[512];
	struct analysis_params p;
	analysis_params_default(&p);
	cr_assert_eq(session_open_many(&l->s, paths, n, &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(model_init(&l->m), 0);
	l->s.model = &l->m;
	cr_assert_eq(session_set_threads(&l->s, threads), 0);
	l->s.budget_ns = budget_ns;
	l->polls = 0;
}

static void load_open(struct loaded *l, const char *path, int threads, uint64_t budget_ns)
{
	load_open_many(l, &path, 1, threads, budget_ns);
}

/* Polls until the loader has caught up and the analysis has settled. */
static void load_all(struct loaded *l)
{
	char err[512];
	int r;
	do {
		r = session_poll(&l->s, err, sizeof err);
		cr_assert_geq(r, 0, "%s", err);
		l->polls++;
		if (!l->s.behind) {
			session_sync(&l->s);
			r = session_poll(&l->s, err, sizeof err);
			cr_assert_geq(r, 0, "%s", err);
		}
	} while (l->s.behind || r > 0);
}

static void load_close(struct loaded *l)
{
	model_free(&l->m);
	session_close(&l->s);
}

static void expect_same_events(struct loaded *a, struct loaded *b)
{
	session_sync(&a->s);
	session_sync(&b->s);
	size_t n = analysis_event_count(a->s.analysis);
	cr_expect_eq(n, analysis_event_count(b->s.analysis));
	cr_expect_eq(a->m.n_events, n, "every final event reached the model");
	cr_expect_eq(b->m.n_events, n);
	for (size_t i = 0; i < n && i < analysis_event_count(b->s.analysis); i++) {
		const struct smtop_event *x = analysis_event(a->s.analysis, i);
		const struct smtop_event *y = analysis_event(b->s.analysis, i);
		cr_expect(x->kind == y->kind && x->grid_id == y->grid_id && x->ready == y->ready &&
			  x->wait_ns == y->wait_ns && x->n_culprits == y->n_culprits,
			  "event %zu differs", i);
	}
	struct analysis_totals ta, tb;
	analysis_totals(a->s.analysis, &ta);
	analysis_totals(b->s.analysis, &tb);
	cr_expect_eq(ta.blocks, tb.blocks);
	cr_expect_eq(ta.kernels, tb.kernels);
}

Test(session, threads_give_the_same_model_and_analysis)
{
	struct loaded one, four;
	load_open(&one, FIXTURE, 1, 0);
	load_all(&one);
	load_open(&four, FIXTURE, 4, 0);
	load_all(&four);
	cr_expect_eq(one.s.stats.blocks, 126680, "every block of the fixture read");
	cr_expect_gt(one.m.blocks, 100000);
	cr_expect_eq(one.m.blocks, four.m.blocks);
	cr_expect_eq(one.m.n_kernels, four.m.n_kernels);
	cr_expect(model_ref_same_bins(&one.m, &four.m), "bins bit for bit");
	cr_expect_gt(analysis_event_count(one.s.analysis), 0, "the fixture has inversions");
	expect_same_events(&one, &four);
	load_close(&one);
	load_close(&four);
}

static int take_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	model_ref_add(ud, b, 1, pid, ctx);
	return 0;
}

/* The model's bins against the reference binning of every block of the
 * files, read block by block. */
static void expect_reference_bins_many(struct loaded *l, const char *const *paths, size_t n)
{
	struct model_ref ref = { 0 };
	for (size_t i = 0; i < n; i++) {
		struct db_reader *r;
		char err[256];
		cr_assert_eq(db_reader_open(&r, paths[i], err, sizeof err), 0, "%s", err);
		int64_t mark = 0;
		cr_assert_eq(db_reader_new_blocks(r, &mark, take_block, &ref), 0);
		db_reader_close(r);
	}
	struct model_ref_stats st;
	char why[256] = "";
	cr_expect_eq(model_ref_check(&l->m, &ref, &st, why, sizeof why), 0, "%s", why);
	cr_expect_gt(st.bins, 10000);
	model_ref_free(&ref);
}

static void expect_reference_bins(struct loaded *l, const char *path)
{
	expect_reference_bins_many(l, &path, 1);
}

Test(session, a_budget_cuts_polls_but_not_results)
{
	struct loaded all, cut;
	load_open(&all, FIXTURE, 2, 0);
	load_all(&all);
	load_open(&cut, FIXTURE, 2, 1); /* 1 ns: one batch per poll */
	char err[512];
	cr_assert_geq(session_poll(&cut.s, err, sizeof err), 0, "%s", err);
	cr_expect(cut.s.behind, "the first poll stops after one batch");
	cr_expect(cut.m.loading, "a saved session still loading says so");
	cr_expect_not(cut.m.live, "a saved session is not live while it loads");
	cr_expect_gt(cut.m.load.total, 0, "its progress is counted");
	cr_expect_lt(cut.m.load.done, cut.m.load.total);
	cr_expect_lt(cut.s.stats.blocks, 126680);
	load_all(&cut);
	/* one batch a poll: the fixture's 126,680 blocks are 4 batches (each
	 * takes chunks up to 32,768 blocks or more) */
	cr_expect_geq(1 + cut.polls, 4, "polls: 1 + %d", cut.polls);
	cr_expect_gt(cut.polls, all.polls);
	cr_expect_not(cut.s.behind);
	cr_expect_not(cut.m.live, "caught up with a saved session");
	cr_expect_not(cut.m.loading);
	cr_expect(cut.m.load.finished, "the progress ends at the end of the read");
	cr_expect_eq(cut.m.blocks, all.m.blocks);
	expect_same_events(&all, &cut);
	expect_reference_bins(&cut, FIXTURE);
	load_close(&all);
	load_close(&cut);
}

Test(session, several_files_load_as_one_whatever_the_threads_and_budget)
{
	const char *paths[] = { FIXTURE, "tests/fixtures/equal-priority.smtop" };
	struct loaded all, cut;
	load_open_many(&all, paths, 2, 1, 0);
	load_all(&all);
	cr_expect_eq(all.s.stats.blocks, 126680 + 58068, "every block of both files read");
	load_open_many(&cut, paths, 2, 3, 1); /* 1 ns: one batch per poll */
	char err[512];
	for (int i = 0; i < 2; i++)
		cr_assert_geq(session_poll(&cut.s, err, sizeof err), 0, "%s", err);
	cr_expect(cut.s.behind);
	cr_expect(cut.s.src[0].block_mark > 0 && cut.s.src[1].block_mark > 0,
		  "the file behind in time is read next, not starved");
	load_all(&cut);
	cr_expect_not(cut.s.behind);
	cr_expect_not(cut.m.live, "both files finished and read");
	cr_expect_eq(cut.s.stats.blocks, all.s.stats.blocks);
	cr_expect_eq(cut.m.blocks, all.m.blocks);
	cr_expect_eq(cut.m.n_kernels, all.m.n_kernels);
	/* other batches: the same occupancy bit for bit; the top-2 is checked
	 * against the reference below (it merges batches differently where a bin
	 * holds more than two streams, as the coarse bins over both files do) */
	cr_expect(model_ref_same_occupancy(&all.m, &cut.m), "the same occupancy in every bin");
	cr_expect_gt(analysis_event_count(all.s.analysis), 0);
	expect_same_events(&all, &cut);
	expect_reference_bins_many(&all, paths, 2);
	expect_reference_bins_many(&cut, paths, 2);
	load_close(&all);
	load_close(&cut);
}

Test(session, a_growing_session_ends_as_one_read_at_once)
{
	char path[256];
	db_support_temp_path(path, sizeof path, "growing.smtop");
	struct workload w;
	workload_default(&w, 20e6, 1764460800000000000ULL);
	struct workload_writer *ww = workload_writer_open(&w, path, 1200000);
	struct loaded live;
	load_open(&live, path, 3, 20000000);
	/* the writer's periods, each followed by a poll of the live view */
	for (uint64_t t = w.t0; t < w.t0 + 70000000; t += 10000000) {
		workload_writer_until(ww, t);
		load_all(&live);
		cr_expect(live.m.live, "not finished yet");
	}
	uint64_t part = live.s.stats.blocks;
	cr_expect_gt(part, 500000);
	cr_expect_lt(part, 1200000);
	struct model_memory mm;
	model_memory(&live.m, &mm);
	cr_expect_gt(mm.stage, 1 << 20, "a live view keeps its binning stage: %zu", mm.stage);
	workload_writer_close(ww, 1);
	load_all(&live);
	cr_expect_not(live.m.live, "finished and caught up");
	/* read to its end: what only loading needs went back */
	model_memory(&live.m, &mm);
	cr_expect_lt(mm.stage, 1 << 16, "the stage went back: %zu", mm.stage);
	struct analysis_memory am;
	analysis_memory(live.s.analysis, &am);
	cr_expect_eq(am.profiles, 0, "every profile packed");
	cr_expect_gt(am.packed, 0);
	struct loaded once;
	load_open(&once, path, 1, 0);
	load_all(&once);
	cr_expect_eq(live.s.stats.blocks, 1200000);
	cr_expect_eq(live.m.blocks, once.m.blocks);
	expect_same_events(&live, &once);
	expect_reference_bins(&live, path);
	load_close(&live);
	load_close(&once);
}

static void write_damaged(const char *path)
{
	struct workload w;
	workload_default(&w, 20e6, 1764460800000000000ULL);
	workload_write(&w, path, 100000, 1);
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "UPDATE smtop_block_chunk SET data = substr(data, 1, 40)"
				  " WHERE id = (SELECT min(id) + 3 FROM smtop_block_chunk)",
				  NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

Test(session, a_damaged_chunk_names_its_file_among_several)
{
	char path[256];
	db_support_temp_path(path, sizeof path, "damaged-second.smtop");
	write_damaged(path);
	const char *paths[] = { "tests/fixtures/head-of-line.smtop", path };
	struct loaded l;
	load_open_many(&l, paths, 2, 2, 0);
	char err[512] = "";
	cr_expect_eq(session_poll(&l.s, err, sizeof err), -1);
	cr_expect(strstr(err, "damaged-second.smtop") && strstr(err, "is damaged"), "%s", err);
	cr_expect_eq(strstr(err, "head-of-line"), NULL, "%s", err);
	load_close(&l);
}

Test(session, a_damaged_chunk_is_named)
{
	char path[256];
	db_support_temp_path(path, sizeof path, "damaged.smtop");
	write_damaged(path);
	struct loaded l;
	load_open(&l, path, 2, 0);
	char err[512] = "";
	cr_expect_eq(session_poll(&l.s, err, sizeof err), -1);
	cr_expect(strstr(err, "damaged.smtop") && strstr(err, "is damaged"), "%s", err);
	cr_expect_eq(strchr(err, '\n'), NULL, "one line");
	cr_expect_gt(l.m.blocks, 90000, "the other chunks still load");
	load_close(&l);
}

Test(session, many_held_kernels_go_out_as_the_blocks_reach_them)
{
	char path[512];
	struct workload w;
	db_support_temp_path(path, sizeof path, "many.smtop");
	workload_default(&w, 20e6, 1764460800000000000ULL);
	w.grid = 8; /* 70 k kernels: past the loader's index threshold */
	workload_write(&w, path, 560000, 1);
	struct loaded all, cut, shown;
	load_open(&all, path, 2, 0);
	load_all(&all);
	load_open(&cut, path, 2, 1); /* a batch a poll: released a slice at a time */
	load_all(&cut);
	load_open(&shown, path, 2, 1);
	shown.s.show_stored = 1; /* the viewer's way: kernels to the model as read */
	load_all(&shown);
	cr_expect_eq(all.m.n_kernels, 70000);
	cr_expect_gt(cut.polls, 10, "polls: %d", cut.polls);
	cr_expect_eq(cut.m.n_kernels, all.m.n_kernels);
	cr_expect_eq(shown.m.n_kernels, all.m.n_kernels);
	cr_expect_eq(cut.m.blocks, all.m.blocks);
	cr_expect_eq(shown.m.blocks, all.m.blocks);
	cr_expect(model_ref_same_bins(&all.m, &cut.m), "bins bit for bit");
	/* the viewer leaves out the rings that would hold only the last
	 * moments of the session (4 ms of its 28 ms); the others are the same */
	cr_expect_eq(shown.m.rings_off, 1);
	cr_expect_eq(all.m.rings_off, 0);
	cr_expect(model_ref_same_bins(&all.m, &shown.m), "bins bit for bit");
	expect_same_events(&all, &cut);
	expect_same_events(&all, &shown);
	load_close(&all);
	load_close(&cut);
	load_close(&shown);
}

/* The green-contexts demo's shape on 8 SMs, as both collectors store it:
 * inference (stream 2, priority -5) in green context 2 on SMs 0-3,
 * training (stream 1, priority 0) in green context 3 on SMs 4-7, their
 * blocks' chunks under the primary context (1).  Inference's grid 2 waits
 * 90 us while training's grid 1 fills SMs 4-7.  green: the contexts table
 * says what they are (0: a session from before it did). */
static void write_two_partitions(const char *path, int green)
{
	const uint64_t t0 = 1764480000000000000ull;
	struct smtop_block b[12];
	struct smtop_record recs[16];
	size_t n = 0;
	struct db_writer *w = db_support_writer(path, 4242, 1);

	for (uint32_t i = 0; i < 12; i++) {
		int train = i >= 4 && i < 8;
		uint64_t s = i < 4 ? t0 + 100 : train ? t0 + 1000 : t0 + 101000;
		uint64_t e = i < 4 ? t0 + 900 : train ? t0 + 101000 : t0 + 111000;
		b[i] = (struct smtop_block){ .grid_id = i < 4 ? 10 : train ? 1 : 2, .start = s, .end = e,
					     .block = i % 4, .sm = (uint16_t)(train ? 4 + i % 4 : i % 4) };
	}
	recs[n++] = db_support_device(4242, 0, 8);
	for (uint32_t c = 1; c <= 3; c++)
		recs[n++] = (struct smtop_record){ .kind = SMTOP_REC_CONTEXT,
			.u.context = { .pid = 4242, .context_id = c, .parent_context_id = c > 1 ? 1 : 0,
				       .is_green = green && c > 1 } };
	recs[n++] = db_support_stream(4242, 1, 0);
	recs[n - 1].u.stream.context_id = 3;
	recs[n++] = db_support_stream(4242, 2, -5);
	recs[n - 1].u.stream.context_id = 2;
	recs[n++] = db_support_kernel(4242, 2, t0 + 100, t0 + 900, 10, "infer_early");
	recs[n++] = db_support_kernel(4242, 1, t0 + 1000, t0 + 101000, 1, "train");
	recs[n++] = db_support_kernel(4242, 2, t0 + 101000, t0 + 111000, 2, "infer");
	for (size_t i = n - 3; i < n; i++) {
		recs[i].u.kernel.context_id = recs[i].u.kernel.stream_id == 1 ? 3 : 2;
		recs[i].u.kernel.correlation_id = (uint32_t)recs[i].u.kernel.grid_id;
		recs[i].u.kernel.grid[0] = 4;
		recs[i].u.kernel.grid[1] = recs[i].u.kernel.grid[2] = 1;
	}
	recs[n - 1].u.kernel.submitted = t0 + 11000;
	recs[n++] = db_support_blocks(4242, 1, b, 12);
	cr_assert_eq(db_writer_write(w, recs, n), 0, "%s", db_writer_error(w));
	cr_assert_eq(db_writer_set_meta(w, "clock_offset_ns", "0"), 0);
	cr_assert_eq(db_writer_finish_session(w, 1, NULL), 0);
	db_writer_close(w);
}

/* The loader hands the contexts table to the analysis: read from a file,
 * a green context's kernel waits behind no other green context's blocks,
 * and an older file, which does not say, keeps the old verdict. */
Test(session, green_contexts_reach_the_analysis)
{
	for (int green = 0; green < 2; green++) {
		char path[256];
		struct loaded l;

		db_support_temp_path(path, sizeof path, "green.smtop");
		write_two_partitions(path, green);
		load_open(&l, path, 1, 0);
		load_all(&l);
		session_sync(&l.s);
		cr_expect_eq(analysis_event_count(l.s.analysis), green ? 0 : 1, "green %d", green);
		if (!green && analysis_event_count(l.s.analysis)) {
			const struct smtop_event *e = analysis_event(l.s.analysis, 0);
			cr_expect_eq(e->kind, SMTOP_EV_INVERSION_RESIDENT);
			cr_expect_eq(e->context_id, 2);
			cr_expect_eq(e->culprits[0].context_id, 3);
		}
		load_close(&l);
	}
}
