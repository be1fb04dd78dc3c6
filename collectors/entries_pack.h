/* Packing the closed blocks of entry-only tracing: each block is shown to
 * the observer (kernel records), then staged with its SM's and encoded
 * into a chunk once the SM has DB_BLOCKCODEC_MAX_BLOCKS of them or its
 * oldest has waited ENTRIES_PACK_AGE_NS.  One packer serves one share of a
 * context's SMs (collectors/entries.c), on one thread at a time. */
#ifndef SMTOP_COLLECTORS_ENTRIES_PACK_H
#define SMTOP_COLLECTORS_ENTRIES_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/blocks.h"
#include "src/core/records.h"

#pragma GCC visibility push(hidden)

#define ENTRIES_PACK_SMS 256            /* blocks of a higher %smid share the last SM's chunks */
#define ENTRIES_PACK_AGE_NS 40000000ull /* a chunk is packed at most this long after its first block */

/* Encodes n blocks of one SM into a chunk and sends it on, as blocks_pack. */
typedef void entries_pack_fn(struct smtop_block *b, uint32_t n, uint32_t device_id, uint32_t context_id,
			     uint8_t *scratch);

struct entries_packer;

/* NULL when out of memory.  observer may be NULL. */
struct entries_packer *entries_packer_start(uint32_t device_id, uint32_t context_id, blocks_observer_fn *observer,
					    entries_pack_fn *pack);

/* n closed blocks: observed, staged, packed when their SM's chunk is full. */
void entries_packer_put(struct entries_packer *p, const struct smtop_block *b, size_t n, uint64_t now);

/* Packs the chunks whose first block came ENTRIES_PACK_AGE_NS before now. */
void entries_packer_tick(struct entries_packer *p, uint64_t now);

/* Adds the time p spent showing blocks to the observer, and staging and
 * encoding them in entries_packer_put (where most chunks are packed); p
 * may be NULL. */
void entries_packer_times(const struct entries_packer *p, uint64_t *observe_ns, uint64_t *pack_ns);

/* Packs every chunk, and frees p. */
void entries_packer_stop(struct entries_packer *p);

#pragma GCC visibility pop

#endif
