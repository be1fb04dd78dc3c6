#include "db/reader_state.h"

#include <stdio.h>
#include <stdlib.h>

#include "db/blockcodec.h"

/* Estimating the clock when the session has none stored: chunks per sample,
 * samples spread over the session, the shortest base a drift is read over,
 * the fastest drift believed (GPU_CLOCK_MAX_DRIFT) and the room
 * left around the predicted kernel starts. */
#define OFFSET_SAMPLE_CHUNKS 64
#define CLOCK_WINDOWS GPU_CLOCK_MAX_SAMPLES
#define CLOCK_MIN_BASE_NS GPU_CLOCK_MIN_BASE_NS
#define CLOCK_MAX_DRIFT GPU_CLOCK_MAX_DRIFT
#define CLOCK_MARGIN_NS 10000000ull
#define NS_PER_S 1000000000ll
/* The clock stored under the keys clock_offset_ns, clock_ref_ns and
 * clock_drift_ppb plus suffix (".D" for device D); 0 if there is none.
 * clock_ref_ns and clock_drift_ppb came with the drift; sessions from before
 * hold clock_offset_ns alone. */
static int reader_meta_clock(struct db_reader *r, const char *suffix, struct gpu_clock *c)
{
	char key[48];
	const char *v;

	snprintf(key, sizeof key, "clock_offset_ns%s", suffix);
	if (!(v = reader_meta(r, key)) || !*v)
		return 0;
	c->offset_ns = strtoll(v, NULL, 10);
	snprintf(key, sizeof key, "clock_ref_ns%s", suffix);
	c->ref_ns = (v = reader_meta(r, key)) ? strtoull(v, NULL, 10) : 0;
	snprintf(key, sizeof key, "clock_drift_ppb%s", suffix);
	c->drift_ppb = (v = reader_meta(r, key)) ? strtoll(v, NULL, 10) : 0;
	if (c->drift_ppb > CLOCK_MAX_DRIFT * 1e9 || c->drift_ppb < -CLOCK_MAX_DRIFT * 1e9)
		c->drift_ppb = 0;
	return 1;
}

/* The stored clocks: the plain keys are the first device's with blocks (and
 * every device's in a session of one GPU, or one written before devices had
 * clocks of their own), ".D" keys the other devices'.  Settled once every
 * device with blocks has its own; a device without is estimated. */
void reader_clock_read_meta(struct db_reader *r)
{
	char suffix[24];
	int64_t dev = -1;
	int first = 1, missing = 0;

	if (!reader_meta_clock(r, "", &r->clock))
		return;
	r->clock_known = 1;
	while (r->has_chunk && reader_next_device(r, dev, &dev)) {
		int own;

		if (dev >= READER_CLOCK_DEVICES)
			break;
		snprintf(suffix, sizeof suffix, ".%lld", (long long)dev);
		own = reader_meta_clock(r, suffix, &r->dev_clock[dev]);
		if (!own && first)
			r->dev_clock[dev] = r->clock;
		if (own || first)
			r->dev_clock_kind[dev] = CLOCK_STORED;
		else
			missing = 1;
		first = 0;
	}
	r->clock_from_meta = !missing;
}

/* ---- clock ---- */

struct grid_first {
	int64_t global_pid;
	uint64_t grid, start;
};

static int grid_first_cmp(const void *pa, const void *pb)
{
	const struct grid_first *a = pa, *b = pb;

	if (a->global_pid != b->global_pid)
		return a->global_pid < b->global_pid ? -1 : 1;
	if (a->grid != b->grid)
		return a->grid < b->grid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int int64_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The start of block 0 of each (process, grid) among the OFFSET_SAMPLE_CHUNKS
 * chunks of device dev that start at globaltimer time `from` or later, sorted.  Block 0 is
 * dispatched first, so it stands for the grid's first block; a grid whose
 * block 0 lies outside the sample is left out, not taken for one that
 * started late (a window in mid-session cuts through running grids). */
static size_t offset_block0s(struct db_reader *r, int64_t dev, uint64_t from,
			     struct grid_first **out)
{
	sqlite3_stmt *st;
	struct grid_first *all = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	/* the ids from the (deviceId, start) index first: sorting whole rows
	 * would read every chunk's blob */
	if (sqlite3_prepare_v2(r->db, "SELECT globalPid, deviceId, sm, data FROM smtop_block_chunk"
			       " WHERE id IN (SELECT id FROM smtop_block_chunk WHERE deviceId = ?3"
			       " AND start >= ?2 ORDER BY start LIMIT ?1)", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int(st, 1, OFFSET_SAMPLE_CHUNKS);
	sqlite3_bind_int64(st, 2, reader_bind_time(from));
	sqlite3_bind_int64(st, 3, dev);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long got = db_blockcodec_decode(sqlite3_column_blob(st, 3),
			(size_t)sqlite3_column_bytes(st, 3), (uint16_t)sqlite3_column_int(st, 2),
			(uint16_t)sqlite3_column_int(st, 1), r->blocks, DB_BLOCKCODEC_MAX_BLOCKS);

		for (long i = 0; i < got; i++) {
			if (r->blocks[i].block != 0)
				continue;
			if (n == cap) {
				struct grid_first *p = realloc(all, (cap = cap ? cap * 2 : 1024) * sizeof *p);

				if (!p)
					goto done;
				all = p;
			}
			all[n++] = (struct grid_first){ sqlite3_column_int64(st, 0),
							r->blocks[i].grid_id, r->blocks[i].start };
		}
	}
done:
	sqlite3_finalize(st);
	if (n)
		qsort(all, n, sizeof *all, grid_first_cmp);
	*out = all;
	return n;
}

/* The entry of (pid, grid) in firsts, sorted by grid_first_cmp; NULL if absent. */
static const struct grid_first *find_grid(const struct grid_first *firsts, size_t n,
					  int64_t global_pid, uint64_t grid)
{
	struct grid_first key = { global_pid, grid, 0 };
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (grid_first_cmp(&firsts[m], &key) < 0)
			a = m + 1;
		else
			b = m;
	}
	if (a < n && firsts[a].global_pid == global_pid && firsts[a].grid == grid)
		return &firsts[a];
	return NULL;
}

/* The sample from device dev's chunks starting at `from`: its kernels are
 * looked up within `margin` of where `guess` puts them on CUPTI's clock. */
static int offset_window(struct db_reader *r, int64_t dev, uint64_t from, const struct gpu_clock *guess,
			 uint64_t margin, struct gpu_clock_sample *pt)
{
	struct grid_first *firsts;
	size_t n = offset_block0s(r, dev, from, &firsts), nd = 0;
	int64_t *diffs = n ? malloc(n * sizeof *diffs) : NULL;
	double gsum = 0;
	sqlite3_stmt *st;

	if (!diffs) {
		free(firsts);
		return 0;
	}
	uint64_t lo = gpu_clock_cupti(guess, firsts[0].start), hi = lo;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = gpu_clock_cupti(guess, firsts[i].start);

		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	if (sqlite3_prepare_v2(r->db, "SELECT globalPid, gridId, start FROM CUPTI_ACTIVITY_KIND_KERNEL"
			       " WHERE start >= ?1 AND start < ?2 AND deviceId = ?3", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, reader_sat_sub(lo, margin));
		sqlite3_bind_int64(st, 2, reader_bind_time(hi + margin));
		sqlite3_bind_int64(st, 3, dev);
		while (sqlite3_step(st) == SQLITE_ROW && nd < n) {
			const struct grid_first *hit = find_grid(firsts, n, sqlite3_column_int64(st, 0),
				(uint64_t)sqlite3_column_int64(st, 1));

			if (hit && !__builtin_sub_overflow(sqlite3_column_int64(st, 2), (int64_t)hit->start,
							   &diffs[nd])) {
				nd++;
				gsum += (double)hit->start;
			}
		}
		sqlite3_finalize(st);
	}
	if (nd) {
		qsort(diffs, nd, sizeof *diffs, int64_cmp);
		pt->diff = diffs[nd / 2];
		pt->g = gsum / (double)nd;
	}
	free(diffs);
	free(firsts);
	return nd > 0;
}

/* Samples device dev's clock in CLOCK_WINDOWS windows spread over the
 * blocks' span and fits offset and drift through them.  Until one window has
 * found its kernels (within a second of the blocks), the rest look near where
 * it puts them.  A window may find none: a trimmed session's first chunks can
 * hold only grids whose block 0 was cut away.  0 if no window found any. */
static int reader_estimate_device(struct db_reader *r, int64_t dev, struct gpu_clock *out)
{
	struct gpu_clock_sample pts[CLOCK_WINDOWS];
	struct gpu_clock guess = { 0 };
	uint64_t lo = r->chunk_min_start, span = r->chunk_max_end - r->chunk_min_start;
	int windows = span >= CLOCK_MIN_BASE_NS ? CLOCK_WINDOWS : 1;
	size_t n = 0;

	for (int w = 0; w < windows; w++) {
		uint64_t from = lo + span / (uint64_t)windows * (uint64_t)w;
		uint64_t margin = n ? CLOCK_MARGIN_NS + (uint64_t)((double)(from - lo) * CLOCK_MAX_DRIFT)
				    : (uint64_t)NS_PER_S;

		if (!offset_window(r, dev, from, &guess, margin, &pts[n]))
			continue;
		if (!n)
			guess.offset_ns = pts[0].diff;
		n++;
	}
	if (n)
		gpu_clock_fit(pts, n, out);
	return n > 0;
}

/* Estimates the clock of each device with blocks that has none stored; the
 * session's clock is the first device's found. */
static void reader_estimate_offset(struct db_reader *r)
{
	int64_t dev = -1;
	int session_set = reader_meta(r, "clock_offset_ns") != NULL; /* read with the stored ones */

	while (reader_next_device(r, dev, &dev) && dev < READER_CLOCK_DEVICES) {
		if (r->dev_clock_kind[dev] == CLOCK_STORED ||
		    !reader_estimate_device(r, dev, &r->dev_clock[dev]))
			continue;
		r->dev_clock_kind[dev] = CLOCK_ESTIMATED;
		if (!session_set) {
			r->clock = r->dev_clock[dev];
			r->clock_known = session_set = 1;
		}
	}
}

/* The clock that takes device dev's %globaltimer to CUPTI time. */
const struct gpu_clock *reader_clock_of(const struct db_reader *r, int64_t dev)
{
	if (dev >= 0 && dev < READER_CLOCK_DEVICES && r->dev_clock_kind[dev] != CLOCK_NONE)
		return &r->dev_clock[dev];
	return &r->clock;
}

/* Prefers the stored clock (written when the recording ends), else
 * estimates: once per batch of new chunks until an estimate is found, then
 * each time the chunks doubled.  A live file grows by thousands of chunks a
 * second: estimating on every poll kept a live view seconds behind. */
void reader_clock_update(struct db_reader *r)
{
	if (r->clock_from_meta)
		return;
	reader_clock_read_meta(r);
	if (r->clock_from_meta || !r->has_chunk || !r->has_kernel)
		return;
	reader_info_update_stats(r);
	if (r->chunk_wm == r->offset_tried_at ||
	    (r->clock_known && r->chunk_wm < 2 * r->offset_tried_at))
		return;
	r->offset_tried_at = r->chunk_wm;
	r->offset_estimates++;
	reader_estimate_offset(r);
}

unsigned db_reader_offset_estimates(const struct db_reader *r)
{
	return r->offset_estimates;
}
