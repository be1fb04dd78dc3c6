#include "collectors/drops.h"

#include <stdatomic.h>

static _Atomic uint64_t drops_counts[DROPS_NSOURCES];

void drops_add(enum drops_source src, uint64_t n)
{
	if (n && src < DROPS_NSOURCES)
		atomic_fetch_add_explicit(&drops_counts[src], n, memory_order_relaxed);
}

uint64_t drops_take(enum drops_source src)
{
	if (src >= DROPS_NSOURCES)
		return 0;
	return atomic_exchange_explicit(&drops_counts[src], 0, memory_order_relaxed);
}

const char *drops_name(enum drops_source src)
{
	return src == DROPS_CUPTI ? "cupti" : src == DROPS_NVTX ? "ring" : "blocks";
}
