/* The CUPTI backend's host operations for the block lanes
 * (struct blocks_host): the driver's memory calls, CUPTI's ids. */
#ifndef SMTOP_COLLECTORS_CUPTI_BLOCKS_H
#define SMTOP_COLLECTORS_CUPTI_BLOCKS_H

#include "collectors/blocks.h"

#pragma GCC visibility push(hidden)

/* The operations, or NULL (said on the debug log) when libcuda lacks a call
 * they need: block tracing then stays off. */
const struct blocks_host *cupti_blocks_host(void);

#pragma GCC visibility pop

#endif
