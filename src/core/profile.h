/* A grid's time profile (block time and block starts per time bin) and its
 * packed form: what the analysis keeps of a grid past its first blocks.  Pure. */
#ifndef SMTOP_CORE_PROFILE_H
#define SMTOP_CORE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/clusters.h"

#define PROFILE_BINS 32
#define PROFILE_MIN_SHIFT 5 /* 32 ns, the %globaltimer tick */

/* Block time and block starts per time bin; bins are 2^shift ns wide and
 * aligned to multiples of their width, so merging bins is exact and the
 * final profile does not depend on the order blocks came in. */
struct profile {
	uint64_t base;          /* bin number (time >> shift) of bin 0 */
	uint64_t lo, hi;        /* covered extent, inclusive */
	unsigned shift;
	uint64_t time[PROFILE_BINS];
	uint32_t starts[PROFILE_BINS];
	struct clusters start_runs; /* block starts, linked by start_link() */
};

/* A block from s to e; profile_new starts a profile with one (NULL on ENOMEM). */
void profile_add(struct profile *p, uint64_t s, uint64_t e);
struct profile *profile_new(uint64_t s, uint64_t e);
void profile_free(struct profile *p);
/* Block time within [a, b) (bins taken as uniformly filled: exact on bin
 * edges); *blocks: the blocks estimated there (those starting in it and
 * those resident at a). */
uint64_t profile_overlap(const struct profile *p, uint64_t a, uint64_t b, uint32_t *blocks);
/* Estimated number of block starts in the open interval (r, l). */
double profile_starts_between(const struct profile *p, uint64_t r, uint64_t l);

/* The packed form (varints, about a third of the size; exact: unpacking
 * gives the profile back).  profile_pack writes at most profile_packed_max
 * bytes and returns how many; profile_unpack reads the bins (clusters left
 * empty) and returns the bytes the packing took; profile_unpack_bins stops
 * after the bins, where profile_runs_unpack reads the clusters of starts;
 * profile_runs_any_between is clusters_any_between on them. */
size_t profile_packed_max(const struct profile *p);
size_t profile_pack(const struct profile *p, uint8_t *out);
size_t profile_unpack(const uint8_t *in, struct profile *p);
const uint8_t *profile_unpack_bins(const uint8_t *in, struct profile *p);
const uint8_t *profile_runs_unpack(const uint8_t *in, uint64_t lo, struct clusters *c);
int profile_runs_any_between(const uint8_t *in, uint64_t lo, uint64_t r, uint64_t l,
			     uint64_t link);

#endif
