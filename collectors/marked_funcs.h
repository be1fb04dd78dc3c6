/* Which kernels of a module time their own blocks with the block tracer
 * header (src/core/smtop_trace.cuh).  The header's ring is one pointer per
 * module, so a module that holds it may hold kernels without the marks as
 * well (the demos' set-up kernels, a program that marks some kernels of a
 * file): under --sm entry those must be recorded by the entry patch, or
 * their blocks are neither stored nor counted as dropped.
 *
 * A kernel carries the marks when its code calls the header's record
 * function (SMTOP_TRACE_RECORD_NAME).  In a whole-program cubin that
 * function, not inlined, is a symbol inside the kernel's own .text section;
 * under separate compilation a relocation of the kernel's code names it.
 * The cubin is read at the module's load, the only time it is handed over.
 * Not thread-safe: the backend holds its ids lock. */
#ifndef SMTOP_COLLECTORS_MARKED_FUNCS_H
#define SMTOP_COLLECTORS_MARKED_FUNCS_H

#include <stddef.h>

#include "src/core/strmap.h"

#pragma GCC visibility push(hidden)

#define MARKED_MODULES_MAX 64 /* modules read; later ones stay unknown */

/* The names of image's kernels that carry the marks, added to *names: 0
 * when image is a cubin read whole, -1 when it is not one (PTX, a
 * truncated or foreign image) or memory ran out. */
int marked_funcs_scan(const void *image, size_t size, struct strmap *names);

enum marked_answer {
	MARKED_UNKNOWN = -1, /* the module's image was not read */
	MARKED_NO = 0,       /* the kernel's blocks come from the entries */
	MARKED_YES = 1,      /* it times its own blocks */
};

struct marked_module {
	const void *module;
	struct strmap names;
};

/* All zero is an empty table. */
struct marked_modules {
	struct marked_module m[MARKED_MODULES_MAX];
};

/* module loaded with image: its marked kernels are read.  An image not
 * read, or one in which no kernel carries the marks, leaves the module
 * unknown. */
void marked_modules_add(struct marked_modules *t, const void *module, const void *image, size_t size);

/* module unloads: a later module may take its handle. */
void marked_modules_forget(struct marked_modules *t, const void *module);

/* Whether kernel name (as the launch names it, mangled) of module carries
 * the marks. */
enum marked_answer marked_modules_kernel(const struct marked_modules *t, const void *module, const char *name);

void marked_modules_clear(struct marked_modules *t);

#pragma GCC visibility pop

#endif
