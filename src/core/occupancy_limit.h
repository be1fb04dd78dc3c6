/* How many blocks of a kernel one SM can hold at once, from the kernel's
 * launch (threads per block, registers per thread, shared memory per
 * block) and the device's limits: the CUDA occupancy calculator's rules
 * (cuda_occupancy.h of the CUDA toolkit, the CUDA C++ Programming Guide's
 * "Compute Capabilities" table).  Not src/core/occupancy.h, which is the
 * stored occupancy of a session over time.  Pure: no I/O. */
#ifndef SMTOP_CORE_OCCUPANCY_LIMIT_H
#define SMTOP_CORE_OCCUPANCY_LIMIT_H

#include <stdint.h>

#include "src/core/records.h"

/* The resource that bounds the limit; on a tie the first in this order. */
enum occupancy_bound {
	OCCUPANCY_BOUND_UNKNOWN = 0,    /* a needed field is unknown: no limit */
	OCCUPANCY_BOUND_THREADS,        /* warp slots (threads per SM) */
	OCCUPANCY_BOUND_REGISTERS,      /* the register file */
	OCCUPANCY_BOUND_SMEM,           /* shared memory */
	OCCUPANCY_BOUND_BLOCKS,         /* the hardware's blocks per SM */
};

struct occupancy_limit {
	uint32_t blocks;                /* blocks per SM; 0 = none fits (or unknown) */
	enum occupancy_bound bound;
	/* each resource's own limit, UINT32_MAX when it does not bound */
	uint32_t by_threads, by_registers, by_smem, by_blocks;
	uint32_t smem_per_block;        /* allocated: with reservation and unit */
};

/* What a kernel's launch asks of an SM. */
struct occupancy_launch {
	uint32_t threads;               /* per block */
	uint32_t registers;             /* per thread */
	uint32_t smem;                  /* static + dynamic bytes per block */
};

/* Fills out for launch k on device d.  Returns 0, or -1 when a field the
 * rules need is unknown (threads, registers, the device's warp size,
 * threads or registers per SM: 0): out->bound is UNKNOWN then.  A launch
 * that cannot fit (more registers or shared memory than an SM has) gets
 * blocks 0 and the resource that refuses it. */
int occupancy_limit(const struct smtop_device *d, const struct occupancy_launch *k,
		    struct occupancy_limit *out);

/* "threads", "registers", "shared memory", "blocks per SM", "unknown". */
const char *occupancy_bound_text(enum occupancy_bound b);
/* Stable JSON names: "threads", "registers", "smem", "blocks", "unknown". */
const char *occupancy_bound_name(enum occupancy_bound b);

#endif
