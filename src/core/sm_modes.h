/* The ways `--sm` can record thread blocks, one table for the command line,
 * `smtop record` and the collector, whose backends carry the same names
 * (collectors/backend.c; tests/test_collector.c checks the two agree). */
#ifndef SMTOP_CORE_SM_MODES_H
#define SMTOP_CORE_SM_MODES_H

#include <stddef.h>

struct sm_mode {
	const char *name;           /* the --sm value and the collector's SMTOP_SM */
	const char *what;           /* a few words for messages */
	int needs_sanitizer;        /* the Compute Sanitizer's library must be found */
};

extern const struct sm_mode sm_modes[];
extern const size_t sm_modes_count;

/* The mode of that name, or NULL. */
const struct sm_mode *sm_mode_named(const char *name);

/* "'marked' (CUPTI), 'entry' (...) or 'all' (...)" into buf, for errors. */
const char *sm_modes_list(char *buf, size_t len);

#endif
