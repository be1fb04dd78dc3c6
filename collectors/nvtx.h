/* NVTX's injection.  `smtop record` points NVTX_INJECTION64_PATH at
 * libsmtop-inject.so; at the workload's first NVTX call NVTX loads it and
 * calls InitializeInjectionNvtx2 (inject.c), which hands NVTX's export table
 * to nvtx_install.  The handlers installed there turn push/pop ranges,
 * start/end ranges and marks, in the default domain and in named ones, into
 * SMTOP_REC_NVTX records, the same way under both backends.
 *
 * Times are the host's CLOCK_REALTIME; the sink (inject.c) maps them onto
 * the session's timebase and fills in the pid.  Records finished before the
 * collector started (NVTX may be called before cuInit) wait in a small
 * buffer until nvtx_attach.
 *
 * The handlers run on the workload's threads: they never block on anything
 * but a short mutex, allocate only outside it, and never fail the caller. */
#ifndef SMTOP_COLLECTORS_NVTX_H
#define SMTOP_COLLECTORS_NVTX_H

#include <stdint.h>

#include "src/core/records.h"

#pragma GCC visibility push(hidden)

#define NVTX_MAX_DEPTH 128      /* open push/pop ranges per thread */
#define NVTX_MAX_STARTED 4096   /* open start/end ranges per process */
#define NVTX_PENDING 1024       /* records finished before nvtx_attach */

/* Takes rec (an SMTOP_REC_NVTX that owns its strings). */
typedef void (*nvtx_sink_fn)(struct smtop_record *rec);

struct nvtx_stats {
	uint64_t recorded;      /* records handed to the sink */
	/* ranges that could not be kept (deeper than NVTX_MAX_DEPTH, more than
	 * NVTX_MAX_STARTED open, the buffer full, out of memory, or after
	 * nvtx_detach); also counted as DROPS_NVTX */
	uint64_t lost;
	uint64_t unmatched;     /* pops and ends with no open range */
};

/* Installs the handlers through NVTX's export-table getter (the argument of
 * InitializeInjectionNvtx2).  1 on success, 0 when NVTX offers no callback
 * table (NVTX then unloads the injection and stays a no-op). */
int nvtx_install(const void *get_export_table);

/* From now on records go to sink, those buffered first. */
void nvtx_attach(nvtx_sink_fn sink);

/* No record goes anywhere any more (the end, a forked child, an untraced
 * process); the buffered ones are freed and counted lost. */
void nvtx_detach(void);

void nvtx_get_stats(struct nvtx_stats *out);

/* For the tests: the clock the handlers read (NULL: CLOCK_REALTIME). */
void nvtx_set_clock(uint64_t (*now)(void));

#pragma GCC visibility pop

#endif
