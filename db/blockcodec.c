#include "db/blockcodec.h"

#include <stdlib.h>

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

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->grid_id != b->grid_id)
		return a->grid_id < b->grid_id ? -1 : 1;
	return (a->block > b->block) - (a->block < b->block);
}

/* Blocks reach the writer in roughly end order, so a start-sorted SM buffer
 * is nearly sorted: insertion sort with a move budget, qsort past it. */
static void sort_blocks(struct smtop_block *b, size_t n)
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

static unsigned common_shift(const struct smtop_block *b, size_t n)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < n; i++)
		bits |= (b[i].start - b[0].start) | (b[i].end - b[i].start);
	return bits ? (unsigned)__builtin_ctzll(bits) : 0;
}

size_t db_blockcodec_encode(struct smtop_block *blocks, size_t n, uint8_t *out)
{
	struct grid_slot slots[GRID_SLOTS];
	uint64_t prev_start, prev_grid = 0;
	unsigned shift;
	uint8_t *p = out;

	if (n == 0 || n > DB_BLOCKCODEC_MAX_BLOCKS)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (blocks[i].end < blocks[i].start)
			blocks[i].end = blocks[i].start;
	sort_blocks(blocks, n);
	shift = common_shift(blocks, n);
	*p++ = DB_BLOCKCODEC_VERSION;
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
		p = varint_put(p, zigzag64((int32_t)(b->block - ref)));
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
	if (end - p < 2 || p[0] != DB_BLOCKCODEC_VERSION || p[1] > 63)
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

long db_blockcodec_decode(const uint8_t *data, size_t len, uint16_t sm, uint16_t device_id,
			  struct smtop_block *out, size_t cap)
{
	const uint8_t *p, *end;
	struct grid_slot slots[GRID_SLOTS];
	uint64_t n, start, grid = 0;
	unsigned shift;
	size_t i;

	/* SQLite hands out an empty or NULL blob as a NULL pointer */
	if (!data)
		return -1;
	end = data + len;
	if (!(p = read_header(data, end, &shift, &n, &start)) || n > cap)
		return -1;
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
