#include "db/blockcodec.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/order.h"
#include "src/core/varint.h"

/* Each block costs four varints; the block index is coded against the last
 * index seen for the same grid, remembered in a small direct-mapped table
 * that encoder and decoder keep identically, so interleaved kernels on one SM
 * still code their indices as short deltas. */
#define GRID_SLOTS 8

struct grid_slot {
	uint64_t grid;
	uint32_t block;
};

static void grid_slots_init(struct grid_slot *s)
{
	for (int i = 0; i < GRID_SLOTS; i++) {
		s[i].grid = UINT64_MAX;
		s[i].block = 0;
	}
}

static inline uint64_t zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag64(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}


int db_blockcodec_cmp(const void *pa, const void *pb)
{
	const struct smtop_block *a = pa, *b = pb;

	return order_keys((const uint64_t[]){ a->start, a->end, a->grid_id, a->block },
			  (const uint64_t[]){ b->start, b->end, b->grid_id, b->block }, 4);
}

/* Blocks reach the writer in roughly end order, so a start-sorted SM buffer
 * is nearly sorted: insertion sort with a move budget, qsort past it. */
static void sort_blocks_plain(struct smtop_block *b, size_t n)
{
	size_t budget = 16 * n;

	for (size_t i = 1; i < n; i++) {
		struct smtop_block x = b[i];
		size_t j = i;

		while (j > 0 && db_blockcodec_cmp(&b[j - 1], &x) > 0) {
			b[j] = b[j - 1];
			j--;
			if (--budget == 0) {
				b[j] = x;
				qsort(b, n, sizeof *b, db_blockcodec_cmp);
				return;
			}
		}
		b[j] = x;
	}
}

/* A sort key: the start's offset above, the block's index below. */
#define SORT_INDEX_BITS 12
#define SORT_INDEX_MASK ((1ull << SORT_INDEX_BITS) - 1)
_Static_assert(DB_BLOCKCODEC_MAX_BLOCKS <= (1 << SORT_INDEX_BITS), "sort keys hold a block's index");

#define RADIX_BITS 11

#define RADIX_DIGIT(key, shift) ((uint32_t)((key) >> (shift)) & ((1u << RADIX_BITS) - 1))

/* The keys are cut into RADIX_WAYS parts, each with its own counters
 * and places, taken in turn: nearly sorted keys share a digit with the key
 * before, and a counter just stored is not the next one read. */
#define RADIX_WAYS 2

/* Keys per digit, of each part. */
static void radix_count(const uint64_t *k, size_t n, unsigned shift, uint32_t (*count)[1u << RADIX_BITS])
{
	size_t part = n / RADIX_WAYS;

	for (size_t i = 0; i < part; i++)
		for (size_t w = 0; w < RADIX_WAYS; w++)
			count[w][RADIX_DIGIT(k[w * part + i], shift)]++;
	for (size_t i = RADIX_WAYS * part; i < n; i++)
		count[RADIX_WAYS - 1][RADIX_DIGIT(k[i], shift)]++;
}

/* Keys to their digit's next place in their part's at, in order. */
static void radix_scatter(const uint64_t *from, uint64_t *to, size_t n, unsigned shift,
			  uint32_t (*at)[1u << RADIX_BITS])
{
	size_t part = n / RADIX_WAYS;

	for (size_t i = 0; i < part; i++)
		for (size_t w = 0; w < RADIX_WAYS; w++)
			to[at[w][RADIX_DIGIT(from[w * part + i], shift)]++] = from[w * part + i];
	for (size_t i = RADIX_WAYS * part; i < n; i++)
		to[at[RADIX_WAYS - 1][RADIX_DIGIT(from[i], shift)]++] = from[i];
}

/* Stable LSD radix sort of keys by their start offset (bits SORT_INDEX_BITS
 * and up, bits of them in all): the keys of one start keep their order.
 * Predictable where an insertion sort of a lane's blocks, each up to the
 * SM's resident count from its place, mispredicted its way through. */
static void sort_keys(uint64_t *k, size_t n, unsigned bits)
{
	uint64_t tmp[DB_BLOCKCODEC_MAX_BLOCKS], *from = k, *to = tmp;

	for (unsigned shift = SORT_INDEX_BITS; shift < SORT_INDEX_BITS + bits; shift += RADIX_BITS) {
		uint32_t count[RADIX_WAYS][1u << RADIX_BITS] = { { 0 } }, at = 0;
		uint64_t *swap;

		radix_count(from, n, shift, count);
		/* a digit's places: the first part's, then the next part's */
		for (size_t d = 0; d < (1u << RADIX_BITS); d++)
			for (size_t w = 0; w < RADIX_WAYS; w++) {
				uint32_t c = count[w][d];

				count[w][d] = at;
				at += c;
			}
		radix_scatter(from, to, n, shift, count);
		swap = from;
		from = to;
		to = swap;
	}
	if (from != k)
		memcpy(k, from, n * sizeof(*k));
}

static int cmp_tie(const void *pa, const void *pb, void *blocks)
{
	const struct smtop_block *b = blocks;

	return db_blockcodec_cmp(&b[*(const uint64_t *)pa & SORT_INDEX_MASK], &b[*(const uint64_t *)pb & SORT_INDEX_MASK]);
}

/* Keys of one start, ordered as db_blockcodec_cmp orders their blocks. */
static void sort_tie(const struct smtop_block *b, uint64_t *k, size_t n)
{
	if (n > 32) {
		qsort_r(k, n, sizeof(*k), cmp_tie, (void *)b);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t x = k[i];
		size_t j = i;

		for (; j > 0 && db_blockcodec_cmp(&b[k[j - 1] & SORT_INDEX_MASK], &b[x & SORT_INDEX_MASK]) > 0; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

/* b[i] = the block that was at index k[i]: gathered into room for n
 * blocks, whose loads do not wait on each other as a cycle's do, then
 * copied back. */
static void permute_blocks(struct smtop_block *b, const uint64_t *k, size_t n, uint8_t *room)
{
	for (size_t i = 0; i < n; i++)
		memcpy(room + i * sizeof(*b), &b[k[i] & SORT_INDEX_MASK], sizeof(*b));
	memcpy(b, room, n * sizeof(*b));
}

/* What one look at each block finds: the span of the starts, the bits
 * where any two starts differ (the lowest set one is the lowest where any
 * two differ, as of their differences), the durations' bits, the flags. */
struct chunk_scan {
	uint64_t lo, hi, start_bits, duration_bits;
	uint8_t flags;
};

/* A block ending before it starts is taken as ending at its start. */
static void scan_blocks(struct smtop_block *b, size_t n, struct chunk_scan *s)
{
	*s = (struct chunk_scan){ .lo = b[0].start, .hi = b[0].start };
	for (size_t i = 0; i < n; i++) {
		if (b[i].end < b[i].start)
			b[i].end = b[i].start;
		s->lo = b[i].start < s->lo ? b[i].start : s->lo;
		s->hi = b[i].start > s->hi ? b[i].start : s->hi;
		s->start_bits |= b[i].start ^ b[0].start;
		s->duration_bits |= b[i].end - b[i].start;
		s->flags |= b[i].flags;
	}
}

/* The drains' packing sorts a lane's blocks, which come in end order up to
 * the SM's resident count (32 on the H200) from start order: sorting 8-byte
 * keys by radix instead of 32-byte blocks through a comparison call (see
 * bench_drain for the figures).  Starts spread too far for a key take the
 * plain sort. */
static void sort_blocks(struct smtop_block *b, size_t n, const struct chunk_scan *s, uint8_t *room)
{
	uint64_t keys[DB_BLOCKCODEC_MAX_BLOCKS];
	uint64_t lo = s->lo, hi = s->hi;
	unsigned tick;

	if (n > DB_BLOCKCODEC_MAX_BLOCKS || hi - lo > (UINT64_MAX >> SORT_INDEX_BITS)) {
		sort_blocks_plain(b, n);
		return;
	}
	/* starts are whole ticks of the timer (32 ns on the H200): sort ticks */
	tick = s->start_bits ? (unsigned)__builtin_ctzll(s->start_bits) : 0;
	for (size_t i = 0; i < n; i++)
		keys[i] = ((b[i].start - lo) >> tick) << SORT_INDEX_BITS | i;
	sort_keys(keys, n, hi > lo ? 64 - (unsigned)__builtin_clzll((hi - lo) >> tick) : 0);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && keys[j] >> SORT_INDEX_BITS == keys[i] >> SORT_INDEX_BITS)
			j++;
		if (j - i > 1)
			sort_tie(b, keys + i, j - i);
		i = j;
	}
	permute_blocks(b, keys, n, room);
}

/* The lowest bit any start's offset from another or any duration has. */
static unsigned common_shift(const struct chunk_scan *s)
{
	uint64_t bits = s->start_bits | s->duration_bits;

	return bits ? (unsigned)__builtin_ctzll(bits) : 0;
}

/* The flag rides in the block index's varint: its zigzag takes 33 bits at
 * most, where a duration may take all 64. */
static inline uint64_t index_code(uint64_t zz, uint8_t flags, int flagged)
{
	return flagged ? zz << 1 | (flags & SMTOP_BLOCK_END_BOUND) : zz;
}

size_t db_blockcodec_encode(struct smtop_block *blocks, size_t n, uint8_t *out)
{
	struct grid_slot slots[GRID_SLOTS];
	struct chunk_scan scan;
	uint64_t prev_start, prev_grid = 0;
	unsigned shift;
	int flagged;
	uint8_t *p = out;

	if (n == 0 || n > DB_BLOCKCODEC_MAX_BLOCKS)
		return 0;
	scan_blocks(blocks, n, &scan);
	/* out is room for the sort's blocks until they are encoded */
	_Static_assert(DB_BLOCKCODEC_MAX_BYTES(1) - DB_BLOCKCODEC_MAX_BYTES(0) >= sizeof(struct smtop_block),
		       "the output holds the blocks it encodes");
	sort_blocks(blocks, n, &scan, out);
	shift = common_shift(&scan);
	/* version 2 only where a block's end is a bound: chunks of exact
	 * blocks stay byte for byte what earlier readers read */
	flagged = (scan.flags & SMTOP_BLOCK_END_BOUND) != 0;
	*p++ = flagged ? DB_BLOCKCODEC_VERSION_BOUNDS : DB_BLOCKCODEC_VERSION;
	*p++ = (uint8_t)shift;
	p = varint_put(p, n);
	p = varint_put(p, blocks[0].start);
	prev_start = blocks[0].start;
	grid_slots_init(slots);
	for (size_t i = 0; i < n; i++) {
		const struct smtop_block *b = &blocks[i];
		struct grid_slot *s = &slots[b->grid_id % GRID_SLOTS];
		uint32_t ref = s->grid == b->grid_id ? s->block : 0;

		p = varint_put(p, (b->start - prev_start) >> shift);
		p = varint_put(p, (b->end - b->start) >> shift);
		p = varint_put(p, zigzag64((int64_t)(b->grid_id - prev_grid)));
		p = varint_put(p, index_code(zigzag64((int32_t)(b->block - ref)), b->flags, flagged));
		prev_start = b->start;
		prev_grid = b->grid_id;
		s->grid = b->grid_id;
		s->block = b->block;
	}
	return (size_t)(p - out);
}

static const uint8_t *read_header(const uint8_t *p, const uint8_t *end, unsigned *shift,
				  uint64_t *count, uint64_t *base)
{
	if (end - p < 2 || (p[0] != DB_BLOCKCODEC_VERSION && p[0] != DB_BLOCKCODEC_VERSION_BOUNDS) || p[1] > 63)
		return NULL;
	*shift = p[1];
	p += 2;
	if (!(p = varint_get(p, end, count)) || !(p = varint_get(p, end, base)))
		return NULL;
	return *count <= DB_BLOCKCODEC_MAX_BLOCKS ? p : NULL;
}

int db_blockcodec_header(const uint8_t *data, size_t len, uint32_t *count, uint64_t *base)
{
	unsigned shift;
	uint64_t n;

	if (!data || !read_header(data, data + len, &shift, &n, base))
		return -1;
	*count = (uint32_t)n;
	return 0;
}

long db_blockcodec_decode(const uint8_t *data, size_t len, uint16_t sm, uint8_t device_id,
			  struct smtop_block *out, size_t cap)
{
	const uint8_t *p, *end;
	struct grid_slot slots[GRID_SLOTS];
	uint64_t n, start, grid = 0;
	unsigned shift;
	int flagged;
	size_t i;

	/* SQLite hands out an empty or NULL blob as a NULL pointer */
	if (!data)
		return -1;
	end = data + len;
	if (!(p = read_header(data, end, &shift, &n, &start)) || n > cap)
		return -1;
	flagged = data[0] == DB_BLOCKCODEC_VERSION_BOUNDS;
	grid_slots_init(slots);
	for (i = 0; i < n; i++) {
		uint64_t d_start, dur, d_grid, d_block;
		struct grid_slot *s;
		uint32_t ref;

		if (end - p >= 40) {
			p = varint_get_fast(p, &d_start);
			p = varint_get_fast(p, &dur);
			p = varint_get_fast(p, &d_grid);
			p = varint_get_fast(p, &d_block);
		} else if (!(p = varint_get(p, end, &d_start)) || !(p = varint_get(p, end, &dur)) ||
			   !(p = varint_get(p, end, &d_grid)) || !(p = varint_get(p, end, &d_block))) {
			return -1;
		}
		start += d_start << shift;
		out[i].flags = flagged ? (uint8_t)(d_block & SMTOP_BLOCK_END_BOUND) : 0;
		d_block = flagged ? d_block >> 1 : d_block;
		grid += (uint64_t)unzigzag64(d_grid);
		s = &slots[grid % GRID_SLOTS];
		ref = s->grid == grid ? s->block : 0;
		out[i].start = start;
		out[i].end = start + (dur << shift);
		out[i].grid_id = grid;
		out[i].block = ref + (uint32_t)unzigzag64(d_block);
		out[i].sm = sm;
		out[i].device_id = device_id;
		s->grid = grid;
		s->block = out[i].block;
	}
	return p == end ? (long)n : -1;
}
