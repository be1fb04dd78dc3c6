/* Process-wide counters of records lost before they reached the ring:
 * CUPTI's own dropped activity records, thread blocks the device ring
 * could not hold and NVTX ranges the handlers could not keep.  (Ring overflows are counted by the ring itself.) */
#ifndef SMTOP_COLLECTORS_DROPS_H
#define SMTOP_COLLECTORS_DROPS_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

enum drops_source {
	DROPS_CUPTI,
	DROPS_BLOCKS,
	DROPS_NVTX,     /* NVTX ranges the handlers could not keep */
	DROPS_NSOURCES,
};

void drops_add(enum drops_source src, uint64_t n);

/* Count since the last call, for the writer thread. */
uint64_t drops_take(enum drops_source src);

/* Session name of a source: "cupti", "blocks"; NVTX ranges count as
 * "ring" drops (lost on their way into the session, like a full ring's). */
const char *drops_name(enum drops_source src);

#pragma GCC visibility pop

#endif
