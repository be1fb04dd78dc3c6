/* The analysis' grids: each block's grid (the kernel's blocks, joined on
 * process, device and grid id), its extents and either its few blocks or a
 * time profile, packed when its blocks have stopped coming; the devices'
 * and processes' activity; and the keys kernels and grids meet on. */
#ifndef SMTOP_ANALYSIS_GRIDS_H
#define SMTOP_ANALYSIS_GRIDS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis_state.h"

/* Blocks added between two looks at the hot profiles (analysis_grids_hot_sweep). */
#define SWEEP_BLOCKS 65536u

/* Sets up the empty table; starts cluster by the blocking threshold. */
void analysis_grids_init(struct grid_table *gt, uint64_t blocking_threshold_ns);

/* A new grid for block b of process pid, on b's device (added to dt when
 * new); its kernel is left for the caller to join (-1). */
int32_t analysis_grids_create(struct grid_table *gt, struct device_table *dt, uint32_t pid,
			      const struct smtop_block *b);

/* Blocks b[0..n) of grid gi (a chunk's run of one grid): the device's and
 * the grid's extents and the grid's blocks or profile. */
int analysis_grids_add_run(struct grid_table *gt, struct device *d, int32_t gi,
			   const struct smtop_block *b, size_t n);

/* Grid gi's most_per_sm rose (or its kernel came): queued once for
 * analysis_most_changed.  Returns 0 or -1. */
int analysis_grids_most_note(struct grid_table *gt, int32_t gi);

uint64_t analysis_grids_overlap(const struct grid_table *gt, const struct grid *g, uint64_t a,
				uint64_t b, uint32_t *blocks);

/* Did the grid start a block after r and before l (both exclusive)?  First
 * and last starts answer most cases, the clusters of starts the rest; only
 * an interval not longer than the link inside one cluster falls back on the
 * profile's estimate. */
int analysis_grids_started_between(const struct grid_table *gt, const struct grid *g, uint64_t r,
				   uint64_t l);

/* The keys of entry i of the grid table (grid_map). */
void analysis_grids_key(const void *table, int32_t i, uint64_t *k1, uint64_t *k2);

void analysis_grids_hot_sweep(struct grid_table *gt);

/* Packs the hot profiles that ended before `before` (all with UINT64_MAX). */
void analysis_grids_hot_sweep_before(struct grid_table *gt, uint64_t before);

int32_t analysis_grids_device_index(struct device_table *dt, uint32_t id);

void analysis_grids_device_extend(struct device *d, uint64_t s, uint64_t e);

uint64_t analysis_grids_key1(uint32_t pid, uint32_t ctx_or_device);

uint64_t analysis_grids_key2_of(uint64_t grid_id, uint32_t correlation_id);

/* Kernels and grids meet on (process, device, grid id), not on the context:
 * grid ids are unique per device, and the blocks of a green context's
 * kernels come through the primary context, which owns the module. */
void analysis_grids_kern_key(const void *table, int32_t i, uint64_t *k1, uint64_t *k2);
/* gnode_map: graph kernels by process and launch (key1) and node (key2). */
static inline uint64_t analysis_grids_gnode_key1(uint32_t pid, uint32_t corr)
{
	return (uint64_t)pid << 32 | corr;
}
void analysis_grids_gnode_key(const void *table, int32_t i, uint64_t *k1, uint64_t *k2);

uint32_t analysis_grids_kern_pid(const struct kernel_table *kt, const struct kern *k);

uint32_t analysis_grids_kern_ctx(const struct kernel_table *kt, const struct kern *k);

int32_t analysis_grids_kern_dev(const struct kernel_table *kt, const struct kern *k);

const struct activity *analysis_grids_activity_find(const struct device *d, uint32_t pid);

const struct grid *analysis_grids_kern_grid(const struct grid_table *gt, const struct kern *k);

/* 1 while kernel k may still be running at watermark w: no end yet, or one
 * past w.  Once the whole session is in (ANALYSIS_WATERMARK_ALL), a kernel
 * that never started is not running: its blocks were all dropped (or the
 * recording stopped first), and its times stay unknown. */
int analysis_grids_kern_running(const struct kern *k, uint64_t w);

/* Resident extent: blocks when known, else the kernel's own interval. */
struct ext analysis_grids_kern_ext(const struct kernel_table *kt, const struct grid_table *gt,
				  int32_t ki, uint64_t w);

#endif
