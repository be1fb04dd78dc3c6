/* The ways `--sm` can record thread blocks, one table for the command line,
 * `smtop record` and the collector, whose backends carry the same names
 * (collectors/backend.c; tests/test_collector.c checks the two agree).
 * Each mode points at its backend's set-up: what `smtop record` must find
 * and pass on before the workload starts, and why a build cannot record
 * it.  A new mode is a line of the table (its backend's set-up, or a new
 * one beside the others) and its backend. */
#ifndef SMTOP_CORE_SM_MODES_H
#define SMTOP_CORE_SM_MODES_H

#include <stddef.h>

/* A library a backend loads at run time that ships apart from the driver
 * (the Compute Sanitizer's, with the CUDA Toolkit): `smtop record` finds it
 * in the user's toolkit and names it to the collector in env. */
struct sm_mode_library {
	const char *env;            /* the user's choice, and smtop record's answer */
	const char *file;           /* its file name */
	const char *toolkit_dir;    /* its folder in a CUDA Toolkit */
	const char *version_env;    /* overrides the CUDA version read beside it; may be NULL */
	const char *missing;        /* the collector's "--sm NAME needs ..." when none was named */
};

struct sm_mode_setup {
	/* Why this build cannot record the mode, after "built without"; NULL
	 * when it can. */
	const char *unbuilt;
	const struct sm_mode_library *library;  /* NULL: nothing to find */
	/* What a dormant collector of the mode costs, for smtop launch's
	 * message (docs/performance.md has the figures); NULL: nothing
	 * measurable. */
	const char *dormant;
};

struct sm_mode {
	const char *name;           /* the --sm value and the collector's SMTOP_SM */
	const char *what;           /* a few words for messages */
	const char *help;           /* which blocks it records, for smtop --help */
	const struct sm_mode_setup *setup;
};

extern const struct sm_mode sm_modes[];
extern const size_t sm_modes_count;

/* The mode of that name, or NULL. */
const struct sm_mode *sm_mode_named(const char *name);

/* The mode recorded when none is named. */
const struct sm_mode *sm_mode_default(void);

/* "'marked' (CUPTI), 'entry' (...) or 'all' (...)" into buf, for errors. */
const char *sm_modes_list(char *buf, size_t len);

#endif
