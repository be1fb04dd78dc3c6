/* Kernel records made from thread blocks, for the Compute Sanitizer
 * backend, where CUPTI cannot run: a launch callback tells what was launched
 * (name, shape, stream, the host's launch time), the blocks tell when it ran
 * (its first block's start and its last block's end, on the %globaltimer
 * clock), and the kernel record is complete when every block of its grid is
 * in.  Pure: no CUDA call, no lock (the caller serialises), so the tests
 * drive it with records built in memory. */
#ifndef SMTOP_COLLECTORS_LAUNCHES_H
#define SMTOP_COLLECTORS_LAUNCHES_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

#pragma GCC visibility push(hidden)

struct launches;

/* What a launch callback knows.  name is copied.  context_id is the
 * launch's own context, whose ring its blocks come through (blocks find
 * their launch by it and the grid id); record_context_id, when not 0, is
 * the context the kernel record names instead: a green context's streams
 * launch through the primary context, their records name the green one.
 * stream_pending: the stream's context was not known at the launch (no one
 * had asked the driver yet); fill tells it (launches_set_fill). */
struct launch_info {
	uint64_t grid_id;
	uint32_t context_id, device_id, stream_id, correlation_id;
	uint32_t record_context_id;
	int32_t stream_pending;
	int32_t grid[3], block[3];
	uint32_t registers, static_smem, dynamic_smem, local_mem;
	int32_t is_graph;
	uint64_t graph_node_id;         /* its node of the graph launched, 0 none */
	uint64_t launched;              /* host CLOCK_REALTIME ns at the launch callback */
	const char *name;
	const void *function;           /* the launched function, for launches_set_fill */
	uint64_t function_key;          /* its backend's number for it: a handle may be reused */
};

struct launches *launches_create(uint32_t pid);
void launches_destroy(struct launches *l);

/* Attributes the launch callback could not ask the driver for (a function's
 * first launch, a new stream's context) are asked of fill when its grid is
 * complete, if its registers or its stream's context are still unknown;
 * when fill does not know them yet, the kernel is held (pending, its grid
 * id free for the next launch) and goes out from launches_take_stale once
 * fill knows them, or when idle_ns has passed since (then under the
 * launch's own context). */
typedef void (*launches_fill_fn)(struct launch_info *info);
void launches_set_fill(struct launches *l, launches_fill_fn fill);

/* now, here and below: the host's monotonic ns at the call, from which a
 * kernel's idle age (launches_take_stale) counts; the caller reads the
 * clock, so the tests give times of their own. */

/* A launch whose blocks are to come.  -1 when out of memory. */
int launches_add(struct launches *l, uint64_t now, const struct launch_info *info);

/* Blocks of one grid next to each other in a lane that ran at once (a
 * graph's replays share grid ids but never overlap), counted together. */
struct launches_run {
	uint64_t grid_id, count;
	uint64_t start, end;            /* the run's earliest start, latest end */
};

/* Adds run x to r when it is of r's grid and ran at once with it (then it
 * is surely of the same launch: a graph replayed reuses its grid ids, and
 * its replays never overlap).  1 when taken. */
int launches_run_take(struct launches_run *r, const struct launches_run *x);

/* In a table of runs by grid (slot[h]: index + 1 in runs, 0 empty; mask + 1
 * slots, open addressing), grid_id's slot, or the empty one it would take:
 * for folds of a grid's runs. */
static inline size_t launches_grid_slot(const uint16_t *slot, size_t mask, const struct launches_run *runs,
					uint64_t grid_id)
{
	size_t h = (size_t)(grid_id * 0x9e3779b97f4a7c15ull >> 40) & mask;

	while (slot[h] && runs[slot[h] - 1].grid_id != grid_id)
		h = (h + 1) & mask;
	return h;
}

/* The runs of n blocks, into runs (room for n); returns how many.  Needs no
 * table, so the drains do it before they take the table's lock. */
size_t launches_runs(const struct smtop_block *b, size_t n, struct launches_run *runs);

/* n runs of context context_id: each counts for its kernel as its blocks
 * would (launches_note_blocks).  The runs of a grid id that has one launch
 * in the table are of that launch, however far apart in time, and are
 * added as one: a kernel's blocks interleaved with others' cost one lookup
 * per call, not per run.  out holds at least as many records as the runs
 * hold blocks, or max: past max, complete kernels wait for the next call
 * or the stale sweep. */
size_t launches_note_runs(struct launches *l, uint64_t now, uint32_t context_id,
			  const struct launches_run *r, size_t n, struct smtop_record *out, size_t max);

/* n blocks of context context_id, in any order: each counts for its kernel
 * (by grid id).  Kernels whose grid is now complete are written into out
 * (at most max; the rest stay for the next call) as SMTOP_REC_KERNEL records
 * that own their name.  Returns how many were written.  A block of no known
 * launch counts in launches_orphans. */
size_t launches_note_blocks(struct launches *l, uint64_t now, uint32_t context_id,
			    const struct smtop_block *b, size_t n, struct smtop_record *out, size_t max);

/* Kernels still short of blocks whose last block came more than idle_ns
 * before now (host monotonic ns; idle_ns 0: all of them), at most max, as
 * records: blocks were dropped, or the process ends.  A kernel none of whose
 * blocks came keeps start and end 0 (unknown). */
size_t launches_take_stale(struct launches *l, uint64_t now, uint64_t idle_ns,
			   struct smtop_record *out, size_t max);

/* The host's launch time is on CLOCK_REALTIME, the blocks on %globaltimer,
 * which runs some microseconds apart.  A kernel never starts before it was
 * launched, so the least (first block - launch) seen so far bounds the
 * offset from above; submitted = launched + that bound, which can only make
 * a wait look shorter than it was, never longer.  Each GPU has a
 * %globaltimer of its own (two H200s of one host were 79 us apart), so each
 * device has its bound: one bound for all would put the later timer's
 * submissions early and make its waits longer than they were.  Devices from
 * LAUNCHES_DEVICES - 1 on share the last bound. */
#define LAUNCHES_DEVICES 32
int64_t launches_clock_bound(const struct launches *l, uint32_t device);
int launches_clock_bound_known(const struct launches *l, uint32_t device);

/* Bit d: the bound of device slot d is known. */
uint32_t launches_bound_devices(const struct launches *l);

/* The slot of device's bound. */
unsigned launches_device_slot(uint32_t device);

/* Another table's bound of device (several tables share one clock): l's
 * becomes the lesser of the two. */
void launches_share_bound(struct launches *l, uint32_t device, int64_t bound);

size_t launches_pending(const struct launches *l);
uint64_t launches_orphans(const struct launches *l);

#pragma GCC visibility pop

#endif
