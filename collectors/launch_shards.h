/* The launches table of the Compute Sanitizer backend, in shards by grid id,
 * each under its own lock: every drain thread brings blocks of every kernel,
 * and under one lock for the whole table they spent a third of their time
 * waiting for it (docs/collector.md).  The
 * shards share each device's clock bound (launches_clock_bound), read
 * lock-free. */
#ifndef SMTOP_COLLECTORS_LAUNCH_SHARDS_H
#define SMTOP_COLLECTORS_LAUNCH_SHARDS_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/launches.h"

#pragma GCC visibility push(hidden)

struct launch_shards;

/* Where complete kernel records go (they own their names). */
typedef void launch_shards_push_fn(struct smtop_record *recs, size_t n);

/* NULL when out of memory.  fill as launches_set_fill's, called under a
 * shard's lock. */
struct launch_shards *launch_shards_create(uint32_t pid, launches_fill_fn fill, launch_shards_push_fn *push);
void launch_shards_destroy(struct launch_shards *s);

/* now: the host's monotonic ns, as in launches.h.  -1 when out of memory. */
int launch_shards_add(struct launch_shards *s, uint64_t now, const struct launch_info *info);

/* A drain's blocks (any number): their runs are found before any lock,
 * sorted by shard (each shard keeps their order), then counted under each
 * shard's lock; complete kernels are pushed. */
void launch_shards_note_blocks(struct launch_shards *s, uint64_t now, uint32_t context_id,
			       const struct smtop_block *b, size_t n);

/* The same for blocks in no order of their kernels (the entry drain's,
 * closed as later blocks take their warp slots): no fold of a grid's
 * overlapping runs before the locks, whose cost would buy nothing there;
 * launches_note_runs still folds the runs of a grid with one launch. */
void launch_shards_note_scattered(struct launch_shards *s, uint64_t now, uint32_t context_id,
				  const struct smtop_block *b, size_t n);

/* launches_take_stale over every shard, pushed. */
void launch_shards_take_stale(struct launch_shards *s, uint64_t now, uint64_t idle_ns);

/* The least clock bound of device over the shards, 0 before the first;
 * lock-free. */
int64_t launch_shards_bound(const struct launch_shards *s, uint32_t device);

/* 1 once some shard found device's bound (a kernel's first block on it
 * came); lock-free. */
int launch_shards_bound_known(const struct launch_shards *s, uint32_t device);

uint64_t launch_shards_orphans(struct launch_shards *s);
size_t launch_shards_pending(struct launch_shards *s);

#pragma GCC visibility pop

#endif
