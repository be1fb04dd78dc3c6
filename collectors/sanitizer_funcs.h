/* The functions a program launched, by handle, with the attributes the
 * driver gave for them (registers, shared and local memory), for the
 * Compute Sanitizer backend's kernel records: its host thread asks the
 * driver outside the callbacks (collectors/sanitizer_host.c), so a
 * function's first launches come before its answer.
 *
 * A module's unload forgets its functions: the driver may hand their
 * handles to a later module's functions, which must be asked anew, and a
 * question about a function whose module is gone would read freed memory.
 * Each function listed gets a key of its own, unique over the process's
 * life, which names it where a handle could name another (its launches'
 * records, the block lengths learned per kernel).
 *
 * Open addressing with linear probing, at most half full; a removal shifts
 * the entries after it back, so that churning modules leaves no
 * tombstones.  Not thread-safe: the backend holds its ids lock. */
#ifndef SMTOP_COLLECTORS_SANITIZER_FUNCS_H
#define SMTOP_COLLECTORS_SANITIZER_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define FUNCS_MAX 8192 /* slots; a power of two */

struct func_attrs {
	uint32_t registers, static_smem, local_mem;
};

struct func_entry {
	const void *f, *module;
	uint64_t key;
	int asked, answered;
	struct func_attrs attrs;
};

/* All zero is an empty table. */
struct funcs {
	struct func_entry e[FUNCS_MAX];
	size_t n, unasked;              /* listed; of them, not yet asked about */
	uint64_t last_key;
};

/* A launch of f, of module: 1 when f was not listed (its first launch
 * since its module loaded), 0 when it was.  *key: f's key, 0 when the table
 * is full and f goes without; *attrs: its attributes once answered, else
 * zeros. */
int funcs_launched(struct funcs *t, const void *f, const void *module, uint64_t *key, struct func_attrs *attrs);

enum funcs_state {
	FUNCS_KNOWN,    /* *attrs the driver's answer */
	FUNCS_WAITING,  /* not answered yet */
	FUNCS_GONE,     /* forgotten with its module, or never listed */
};

/* The function that key names, with handle f. */
enum funcs_state funcs_known(const struct funcs *t, const void *f, uint64_t key, struct func_attrs *attrs);

/* One function listed and not yet asked about, now taken as asked: 1 and a
 * copy of it in *out, or 0 when there is none. */
int funcs_take_question(struct funcs *t, struct func_entry *out);

/* The driver's answer about the function key names (dropped if it was
 * forgotten meanwhile). */
void funcs_answer(struct funcs *t, const void *f, uint64_t key, const struct func_attrs *attrs);

/* module unloads: its functions are forgotten.  Returns how many. */
size_t funcs_forget_module(struct funcs *t, const void *module);

#pragma GCC visibility pop

#endif
