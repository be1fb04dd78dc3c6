/* Hand-built traces for analysis and report tests: a few calls describe
 * streams, kernels and their blocks; trace_feed gives them to an analysis at
 * once or in random-size pieces with rising watermarks. */
#ifndef SMTOP_TRACE_SUPPORT_H
#define SMTOP_TRACE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis.h"
#include "src/core/records.h"

struct trace_block {
	uint32_t pid, context_id;
	struct smtop_block b;
};

struct trace {
	struct smtop_stream *streams;
	size_t n_streams;
	struct smtop_device *devices;
	size_t n_devices;
	struct smtop_kernel *kernels;
	size_t n_kernels;
	struct trace_block *blocks;
	size_t n_blocks;
	struct smtop_request *requests;
	size_t n_requests;
	struct smtop_context *contexts;
	size_t n_contexts;
	char **names;
	size_t n_names;
};

struct trace *trace_new(void);
void trace_free(struct trace *t);

void trace_stream(struct trace *t, uint32_t pid, uint32_t dev, uint32_t stream, int32_t prio);
void trace_device(struct trace *t, uint32_t dev, uint32_t sm_count);
/* Context id is always 1; the kernel is named "k<grid>". Returns the kernel. */
struct smtop_kernel *trace_kernel(struct trace *t, uint32_t pid, uint32_t dev, uint32_t stream,
				  uint64_t grid, uint64_t submitted, uint64_t start, uint64_t end);
/* n blocks of one grid, all [start, end), on SMs 0..n-1 (mod 132). */
void trace_blocks(struct trace *t, uint32_t pid, uint32_t dev, uint64_t grid, unsigned n,
		  uint64_t start, uint64_t end);
void trace_request(struct trace *t, uint32_t pid, uint32_t stream, uint64_t start, uint64_t end);
/* A context (green or not) on device dev, fed with the streams. */
void trace_context(struct trace *t, uint32_t pid, uint32_t dev, uint32_t ctx, int green);
/* n blocks of one grid, all [start, end), on SMs first_sm .. first_sm + n - 1. */
void trace_blocks_on(struct trace *t, uint32_t pid, uint32_t dev, uint64_t grid, unsigned n,
		     uint32_t first_sm, uint64_t start, uint64_t end);

/* Everything, then analysis_update(ANALYSIS_WATERMARK_ALL). */
void trace_feed_all(const struct trace *t, struct analysis *a);
/* Records in start order, cut into pieces of 1..max_piece records; after each
 * piece, analysis_update with the next record's start as the watermark. */
void trace_feed_pieces(const struct trace *t, struct analysis *a, unsigned seed,
		       unsigned max_piece);
/* The same, calling each(a) after every piece, before its update. */
void trace_feed_pieces_each(const struct trace *t, struct analysis *a, unsigned seed,
			    unsigned max_piece, void (*each)(struct analysis *a));

/* A random multi-stream, multi-process trace with blocks (some grids larger
 * than ANALYSIS_EXACT_BLOCKS); with_blocks 0 leaves blocks out. */
struct trace *trace_random(unsigned seed, int with_blocks);

/* 0 when both analyses give the same events and stream summaries; else
 * writes what differs into why. */
int trace_compare(struct analysis *x, struct analysis *y, char *why, size_t len);

#endif
