/* Test helpers for the collector: CUPTI activity records built in memory
 * from CUPTI's own structs, device block-ring slots written as the tracer
 * writes them, and throwaway session files. */
#ifndef SMTOP_TESTS_CUPTI_SUPPORT_H
#define SMTOP_TESTS_CUPTI_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_activity.h>

#include "src/core/smtop_trace_abi.h"

/* A kernel record with every field set to a distinct known value:
 * start 1000, end 2000, queued 900, submitted 950, gridId 77, grid 4x2x1,
 * block 128x1x1, device 1, context 2, stream 13, correlation 99, 32
 * registers, 1024 static / 2048 dynamic smem, 16 local bytes. */
void cupti_support_kernel(CUpti_ActivityKernel10 *k, const char *name);

void cupti_support_stream(CUpti_ActivityStream *s, uint32_t context, uint32_t stream,
			  uint32_t raw_priority);

void cupti_support_memcpy(CUpti_ActivityMemcpy6 *m, uint32_t context, uint32_t stream,
			  uint64_t start, uint64_t end, uint64_t bytes);

void cupti_support_memset(CUpti_ActivityMemset4 *m, uint32_t context, uint32_t stream,
			  uint64_t start, uint64_t end, uint64_t bytes, uint32_t value);

void cupti_support_sync(CUpti_ActivitySynchronization2 *y, uint32_t context, uint32_t stream,
			uint64_t start, uint64_t end);

void cupti_support_device(CUpti_ActivityDevice5 *d, uint32_t id, const char *name);

void cupti_support_context(CUpti_ActivityContext3 *c, uint32_t context, uint32_t device,
			   uint16_t null_stream);

void cupti_support_marker(CUpti_ActivityMarker2 *m, CUpti_ActivityFlag flags, uint32_t id,
			  uint64_t t, uint32_t tid, const char *name, const char *domain);


/* Writes slot `index` of a ring image completely, as a finished block does. */
void cupti_support_slot(struct smtop_trace_slot *slots, uint32_t capacity, uint64_t index,
			uint64_t grid, uint64_t start, uint64_t end, uint32_t block, uint16_t sm);

/* Writes only the first 16-byte half (a block caught mid-store). */
void cupti_support_half_slot(struct smtop_trace_slot *slots, uint32_t capacity, uint64_t index,
			     uint64_t grid, uint64_t start);

/* Creates an empty session in a fresh temporary directory, as smtop record
 * does, and writes its path into path.  Returns 0 or -1. */
int cupti_support_session(char *path, size_t len);

#endif
