/* Which share of a context's SMs each block of a drain pass goes to
 * (collectors/entries.c): with SMTOP_ENTRY_WORKERS=N the SMs are cut into
 * N shares (the SM's number modulo N), and a share's thread should read
 * only its own blocks.  The pass's launches are laid end to end, a block
 * known by its position there; the team cuts the positions into ranges,
 * and each range's blocks that entered are listed per share, in order.  A
 * share then reads its lists range by range: its blocks in launch order,
 * as if it had gone through every block of the pass.  Pure: no lock, no
 * CUDA; one thread a range. */
#ifndef SMTOP_COLLECTORS_ENTRIES_SHARE_H
#define SMTOP_COLLECTORS_ENTRIES_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/smtop_trace_abi.h"

#pragma GCC visibility push(hidden)

/* A launch of the pass, as its entries tell its blocks. */
struct entries_share_launch {
	const struct smtop_entry *e;    /* warps entries a block */
	uint64_t blocks;
	uint64_t at;                    /* its first block's position in the pass */
	uint32_t warps;
	uint32_t grid;                  /* low 32 bits of its grid id */
	int whole;                      /* every entry was seen taken: none is checked again */
};

/* Whether entry e is its launch's own (grid and check match): memory
 * that an earlier launch left, and a half-written entry, are not. */
static inline int entries_share_entered(const struct smtop_entry *e, uint32_t grid)
{
	return e->grid == grid && e->start && e->check == smtop_entry_check(e->start);
}

/* A listed block with what its share reads of its entries: a share reads
 * its lists alone, not the arena, whose every cache line holds entries of
 * several shares' SMs. */
struct entries_share_item {
	uint64_t start;
	uint32_t pos;                   /* in the pass */
	uint16_t sm;
	uint8_t slot;                   /* its first entry's warp slot */
};

/* One range's blocks of one share, in order. */
struct entries_share_list {
	struct entries_share_item *item;
	size_t n, cap;
};

/* Block b's start and SM from its entries w (its warps', or its own): the
 * first warp's that entered.  0 when none did. */
int entries_share_block(const struct entries_share_launch *l, const struct smtop_entry *w, uint64_t *start,
			uint16_t *sm);

/* Block i of launch l as a list holds it; 0 when it never entered. */
static inline int entries_share_item_of(const struct entries_share_launch *l, uint64_t i,
					struct entries_share_item *it)
{
	const struct smtop_entry *w = &l->e[i * l->warps];

	it->pos = (uint32_t)(l->at + i);
	it->slot = w->slot;
	return entries_share_block(l, w, &it->start, &it->sm);
}

/* The blocks at positions [from, to) of the pass's n launches (in order of
 * `at`, laid end to end), those that entered, appended to lists[their SM %
 * shares].  Returns how many entered blocks found no room in a list (out of
 * memory): they are the caller's to count as lost. */
uint64_t entries_share_split(const struct entries_share_launch *l, size_t n, uint64_t from, uint64_t to,
			     unsigned shares, struct entries_share_list *lists);

void entries_share_list_free(struct entries_share_list *list);

#pragma GCC visibility pop

#endif
