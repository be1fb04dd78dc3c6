/* Packing the closed blocks of entry-only tracing on threads of their own.
 * A context's drain thread bounds each block's end (collectors/entries.c);
 * showing the block to the kernel table and encoding it into its SM's chunk
 * costs about three times as much (docs/collector.md, "The drain's pace"),
 * so packers take that part, each the SMs whose number modulo their count
 * is its own: a chunk still holds one SM's blocks, and one packer makes all
 * of an SM's chunks.  The drain hands each packer its blocks through a
 * queue of its own (one writer, one reader); a full queue makes the drain
 * wait, so nothing is lost here (the arena behind the drain fills and
 * counts its drops).  With no packer threads the same staging runs on the
 * drain's thread. */
#ifndef SMTOP_COLLECTORS_ENTRIES_PACK_H
#define SMTOP_COLLECTORS_ENTRIES_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/blocks.h"
#include "src/core/records.h"

#pragma GCC visibility push(hidden)

#define ENTRIES_PACKERS_MAX 16
#define ENTRIES_PACK_SMS 256            /* blocks of a higher %smid share the last SM's chunks */
#define ENTRIES_PACK_AGE_NS 40000000ull /* a chunk is packed at most this long after its first block */

/* Encodes n blocks of one SM into a chunk and sends it on, as blocks_pack. */
typedef void entries_pack_fn(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
			     uint8_t *scratch);

struct entries_packers;

/* n packer threads (0..ENTRIES_PACKERS_MAX; 0: the caller's thread packs
 * in entries_packers_put) for one context; NULL when memory or a thread
 * could not be had.  observer may be NULL. */
struct entries_packers *entries_packers_start(unsigned n, uint32_t device_id, uint32_t context_id,
					      blocks_observer_fn *observer, entries_pack_fn *pack);

/* From the one thread that drains the context: n closed blocks to their
 * packers.  Waits while a packer's queue is full. */
void entries_packers_put(struct entries_packers *p, const struct smtop_block *b, size_t n);

/* From the same thread, now and then: without packer threads, packs the
 * chunks older than ENTRIES_PACK_AGE_NS (the threads do it themselves). */
void entries_packers_tick(struct entries_packers *p, uint64_t now);

/* Every block put is packed and sent on; the threads end, p is freed. */
void entries_packers_stop(struct entries_packers *p);

/* How many packers a context gets: SMTOP_ENTRY_PACKERS, else 0 (the drain
 * thread packs; packers have not run on a GPU yet: docs/collector.md). */
unsigned entries_packers_wanted(void);

#pragma GCC visibility pop

#endif
