/* The CUPTI side of the collector: activity buffers (converted into ring
 * records), API callbacks for launches, copies and synchronisation, the
 * launch hook of the block tracer, and the 50 ms flush thread. */
#ifndef SMTOP_COLLECTORS_CUPTI_H
#define SMTOP_COLLECTORS_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct ring;

#define CUPTI_FLUSH_PERIOD_MS 50
#define CUPTI_BUFFER_BYTES (8u << 20)

/* Subscribes and enables tracing.  On refusal returns -1 with a short reason
 * ("another CUPTI subscriber is active: ...") and leaves CUPTI untouched. */
int cupti_start(struct ring *ring, uint32_t pid, char *reason, size_t len);

/* Delivers every buffer CUPTI holds; forced also takes unfinished records. */
void cupti_flush(int forced);

/* Stops the flush thread (before the final forced flush). */
void cupti_stop_flush_thread(void);

/* Makes every callback a no-op: in a forked child, or once the session ends. */
void cupti_disable(void);

/* Whether thread blocks are traced (SMTOP_BLOCKS=0 turns the launch hook and
 * the block rings off). */
int cupti_block_tracing(void);

#pragma GCC visibility pop

#endif
