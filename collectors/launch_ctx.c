#include "collectors/launch_ctx.h"

#include <stddef.h>

/* The slot holding ctx, claiming an empty one when claim is set; -1 when
 * none (not there, or the table full). */
static int launch_ctx_slot(struct launch_ctx_table *t, const void *ctx, int claim)
{
	for (int i = 0; i < LAUNCH_CTX_MAX; i++) {
		const void *held = atomic_load_explicit(&t->call[i], memory_order_acquire);

		if (held == ctx)
			return i;
		if (held)
			continue;
		if (!claim)
			return -1;
		if (atomic_compare_exchange_strong(&t->call[i], &held, ctx) || held == ctx)
			return i;
	}
	return -1;
}

void launch_ctx_note(struct launch_ctx_table *t, const void *call_ctx, const void *launch_ctx)
{
	int kind = call_ctx == launch_ctx ? LAUNCH_CTX_SAME : LAUNCH_CTX_OTHER;
	int i, was;

	if (!call_ctx || (i = launch_ctx_slot(t, call_ctx, 1)) < 0)
		return;
	/* UNKNOWN -> SAME or OTHER, SAME -> OTHER; OTHER stays.  Read first:
	 * every launch notes its context, and a compare-and-swap that finds
	 * the kind already noted still takes the line from the other
	 * launching threads. */
	was = atomic_load_explicit(&t->kind[i], memory_order_acquire);
	while (was != LAUNCH_CTX_OTHER && was != kind &&
	       !atomic_compare_exchange_weak(&t->kind[i], &was, kind))
		;
}

enum launch_ctx_kind launch_ctx_kind(struct launch_ctx_table *t, const void *call_ctx)
{
	int i = call_ctx ? launch_ctx_slot(t, call_ctx, 0) : -1;

	return i < 0 ? LAUNCH_CTX_UNKNOWN : (enum launch_ctx_kind)atomic_load(&t->kind[i]);
}
