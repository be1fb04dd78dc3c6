/* The whole session's occupancy, kept beside it so that a saved session of
 * any size shows at once: the model's coarse levels (src/core/model.h) that
 * hold the whole session, taken from a model that read all of it, packed
 * into bytes for the session file (smtop_occupancy, docs/session-format.md),
 * and drawn by another model while its own blocks are still being read.
 * Pure: no I/O. */
#ifndef SMTOP_CORE_OCCUPANCY_H
#define SMTOP_CORE_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/model.h"

/* Bumped when the bytes or what the bins mean change.  Version 2 stores
 * runs of equal bins and a coarser level's thread-ns as the difference from
 * the finer level's sum (docs/session-format.md); version 1 rows, every bin
 * in full, are still read.  Rows of a newer version are built again. */
#define OCCUPANCY_VERSION 2

struct occupancy_stream {
	uint32_t pid, device_id, context_id, stream_id;
};

struct occupancy_level {
	int k;                          /* the model level: bins of MODEL_BASE_NS * 4^k */
	int64_t lo;                     /* first bin index, from origin */
	size_t n;                       /* bins per SM */
	struct model_bin *bins;         /* n_sm * n, SM by SM */
};

struct occupancy {
	uint32_t device_id, n_sm;
	int64_t origin;                 /* the model's origin the bins count from */
	uint64_t t_first, t_last;
	double peak_threads;
	struct occupancy_stream *streams; /* bins' stream indices point here */
	size_t n_streams;
	struct occupancy_level levels[MODEL_LEVELS]; /* finest first */
	int n_levels;
};

/* The levels of m that hold every bin of the data they were given (m read
 * the whole session; its blocks all binned).  Returns 0, 1 when m has no
 * such level (nothing to keep), -1 when out of memory. */
int occupancy_from_model(const struct model *m, struct occupancy *o);

/* Makes m draw o while m->summary_on: m must draw o's device (same SM
 * count) and have no origin yet or o's.  Streams m lacks are added (their
 * priorities come later with the stream records).  Returns 0, 1 when o
 * does not fit m (nothing changed), -1 when out of memory. */
int occupancy_to_model(const struct occupancy *o, struct model *m);

void occupancy_free(struct occupancy *o);

/* Bytes (malloc'd, *len long; always OCCUPANCY_VERSION) and back (any
 * version up to it); decode checks every count against the model's limits
 * and the bytes' end: -1 on damaged bytes or a newer version, -2 when out
 * of memory. */
int occupancy_encode(const struct occupancy *o, uint8_t **out, size_t *len);
int occupancy_decode(struct occupancy *o, const uint8_t *p, size_t len);

#endif
