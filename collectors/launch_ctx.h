/* Which context a launch call's own launch is seen under.  A driver launch
 * call names the thread's current context at its entry; the sanitizer's
 * launch callback inside it names the context whose ring the blocks take.
 * For a green context made current they differ (its launches name the
 * primary), and a green context's handle is no context the sanitizer's
 * memory calls take.  So, under --sm entry with the header's marks, a
 * call's context is handed a ring only once a launch of its own showed it
 * to be the launch's context.  Lock-free: written from launch callbacks,
 * read at every launch call's entry. */
#ifndef SMTOP_COLLECTORS_LAUNCH_CTX_H
#define SMTOP_COLLECTORS_LAUNCH_CTX_H

#include <stdatomic.h>

#pragma GCC visibility push(hidden)

#define LAUNCH_CTX_MAX 64 /* contexts remembered; later ones stay unknown */

enum launch_ctx_kind {
	LAUNCH_CTX_UNKNOWN, /* no launch of a call in it seen yet */
	LAUNCH_CTX_SAME,    /* its calls' launches name it */
	LAUNCH_CTX_OTHER,   /* some launch of its calls named another */
};

struct launch_ctx_table {
	_Atomic(const void *) call[LAUNCH_CTX_MAX];
	_Atomic int kind[LAUNCH_CTX_MAX];
};

/* A launch made by a call in call_ctx was seen under launch_ctx.  Once
 * another context was seen, the call's context stays LAUNCH_CTX_OTHER. */
void launch_ctx_note(struct launch_ctx_table *t, const void *call_ctx, const void *launch_ctx);

enum launch_ctx_kind launch_ctx_kind(struct launch_ctx_table *t, const void *call_ctx);

#pragma GCC visibility pop

#endif
