/* Pure conversion of CUPTI activity records into smtop records.  Makes no
 * CUPTI call, so tests feed it records built in memory.  Not thread-safe:
 * the caller serialises calls on one state. */
#ifndef SMTOP_COLLECTORS_CONVERT_H
#define SMTOP_COLLECTORS_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_activity.h>

#include "src/core/records.h"

#pragma GCC visibility push(hidden)

#define CONVERT_MAX_CONTEXTS 256
#define CONVERT_MAX_STREAMS 4096
#define CONVERT_STREAM_CONTEXTS 4

/* A stream as CUPTI's stream record told it, and the contexts its kernels
 * ran in (see convert_stream_context). */
struct convert_stream_seen {
	struct smtop_stream s;
	int recorded;                           /* the stream record has come */
	uint32_t n_ctx;
	uint32_t ctx[CONVERT_STREAM_CONTEXTS];  /* kernel contexts, the first one recorded's aside */
	uint32_t told;                          /* bit i: a record for ctx[i] went out */
};

struct convert_state {
	uint32_t pid;
	/* Stream records carry no device id: contexts tell it. */
	size_t n_contexts;
	uint32_t context_ids[CONVERT_MAX_CONTEXTS];
	uint32_t device_ids[CONVERT_MAX_CONTEXTS];
	size_t n_streams, last_stream;
	struct convert_stream_seen streams[CONVERT_MAX_STREAMS];
};

/* Returns a heap state; NULL when out of memory. */
struct convert_state *convert_create(uint32_t pid);
void convert_destroy(struct convert_state *s);

void convert_note_context(struct convert_state *s, uint32_t context_id, uint32_t device_id);

/* Fills out from a; returns 1 when out holds a record, 0 when a produced
 * none (an unsupported kind). */
int convert_activity(struct convert_state *s, const CUpti_Activity *a,
		     struct smtop_record *out);

/* CUPTI's stream record of a green context's stream names the primary
 * context, while the stream's kernels name the green one, so their stream
 * (and its priority) would not be found.  Stream ids are unique within a
 * process: after each converted kernel or stream record r, this fills out
 * with r's stream again under a context its kernels ran in, and returns 1,
 * until every such pairing went out once; 0 when there is none. */
int convert_stream_context(struct convert_state *s, const struct smtop_record *r,
			   struct smtop_record *out);

/* A CUPTI timestamp, or 0 when CUPTI did not know it. */
uint64_t convert_timestamp(uint64_t t);

/* r's host times (a synchronization's, an API call's, an NVTX range's;
 * CLOCK_REALTIME) onto a timebase offset ns from it; a time 0 (unknown, or
 * a mark's end) stays 0. */
void convert_host_times(struct smtop_record *r, int64_t offset);

/* Stream priorities arrive as uint32 (-5 as 4294967291). */
int32_t convert_priority(uint32_t raw);

/* Builds an API record from a callback's enter/exit data; name is copied. */
void convert_api(struct smtop_record *out, uint32_t pid, uint32_t tid, uint32_t cbid,
		 int is_driver, int32_t return_value, const char *name,
		 uint64_t start, uint64_t end, uint32_t correlation_id);

#pragma GCC visibility pop

#endif
