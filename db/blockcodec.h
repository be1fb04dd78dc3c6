/* The packed chunk format of thread blocks (smtop_block_chunk.data): up to
 * DB_BLOCKCODEC_MAX_BLOCKS blocks of one (process, device, SM), sorted by
 * start, as LEB128 varint deltas.  Byte layout in docs/session-format.md. */
#ifndef SMTOP_DB_BLOCKCODEC_H
#define SMTOP_DB_BLOCKCODEC_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

#define DB_BLOCKCODEC_VERSION 1
/* Version 2: each block index varint carries SMTOP_BLOCK_END_BOUND in its low bit. */
#define DB_BLOCKCODEC_VERSION_BOUNDS 2
#define DB_BLOCKCODEC_MAX_BLOCKS 4096
/* Worst-case encoded size of n blocks: header plus four maximal varints each. */
#define DB_BLOCKCODEC_MAX_BYTES(n) (2 + 10 + 10 + (size_t)(n) * (10 + 10 + 10 + 5))

/* Sorts blocks by start (in place) and encodes them into out, which holds at
 * least DB_BLOCKCODEC_MAX_BYTES(n) bytes (the sort's room for the blocks
 * until they are encoded).  A block ending before it starts is
 * stored as ending at its start.  Returns the encoded size, 0 if n is 0 or
 * over DB_BLOCKCODEC_MAX_BLOCKS. */
size_t db_blockcodec_encode(struct smtop_block *blocks, size_t n, uint8_t *out);

/* The order blocks take in a chunk (start, end, gridId, block), for qsort. */
int db_blockcodec_cmp(const void *a, const void *b);

/* The count and the earliest start stored in a chunk's header; -1 if damaged. */
int db_blockcodec_header(const uint8_t *data, size_t len, uint32_t *count, uint64_t *base);

/* Decodes a chunk into out (room for cap blocks), filling sm and device_id
 * from the chunk row.  Returns the block count, or -1 if the data is damaged
 * or holds more than cap blocks. */
long db_blockcodec_decode(const uint8_t *data, size_t len, uint16_t sm, uint8_t device_id,
			  struct smtop_block *out, size_t cap);

#endif
