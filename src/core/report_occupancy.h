/* The report's section "occupancy: observed vs limit": each kernel launch
 * configuration's most blocks resident on one SM at once against the
 * occupancy limit of its launch (docs/analysis.md).  Part of
 * src/core/report.c's output; pure like it.  The configurations are built
 * from an analysis once and kept with the findings, so a stored report
 * prints them as a fresh one does. */
#ifndef SMTOP_REPORT_OCCUPANCY_H
#define SMTOP_REPORT_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/core/occupancy_limit.h"

struct analysis;
struct report_options;

/* Launches of one kernel with one launch configuration on one device: what
 * decides the limit is the same for each, so they are read together. */
struct occupancy_config {
	uint32_t device_id, threads, registers, smem, sms;
	char *name;                     /* owned */
	struct occupancy_limit limit;
	size_t launches, with_blocks, full, full_at_limit, above;
	uint64_t blocks_max;
	uint32_t most;                  /* over its launches with blocks */
	uint32_t most_full_min;         /* the least most of a full launch */
};

struct occupancy_configs {
	struct occupancy_config *v;
	size_t n;
	size_t kernels, with_blocks;
};

/* 0, or -1 when out of memory (cs then holds nothing). */
int occupancy_configs_build(const struct analysis *a, struct occupancy_configs *cs);
void occupancy_configs_free(struct occupancy_configs *cs);

/* Each returns 0, or -1 on a write error. */
int report_occupancy_text(FILE *out, const struct occupancy_configs *cs,
			  const struct report_options *o);
/* The "occupancy" key and its object, with a trailing comma and newline. */
int report_occupancy_json(FILE *out, const struct occupancy_configs *cs,
			  const struct report_options *o);

#endif
