/* libcuda.so.1, opened once for the whole collector.  The collector never
 * links libcuda (the driver loads us, and a process without a driver must
 * still run): each part that calls the driver (the block lanes, the graphs'
 * edges, the sanitizer backend's host thread) keeps a struct of the calls
 * it uses and has them resolved here. */
#ifndef SMTOP_COLLECTORS_DRIVER_H
#define SMTOP_COLLECTORS_DRIVER_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* One call a part needs: its name in libcuda and where its pointer goes in
 * that part's struct of calls. */
struct driver_symbol {
	const char *name;
	size_t offset;
	int optional;           /* an older driver may lack it: the pointer stays NULL */
};

#define DRIVER_SYMBOL(type, field, name, optional) { name, offsetof(type, field), optional }

/* Fills the pointers of calls that table names, opening libcuda at the
 * first call of any part.  0, or -1 with the reason in why (no libcuda, or
 * the first required call it lacks); optional calls missing stay NULL. */
int driver_resolve(void *calls, const struct driver_symbol *table, size_t n, char *why, size_t len);

#pragma GCC visibility pop

#endif
