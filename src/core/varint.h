#ifndef SMTOP_DB_VARINT_H
#define SMTOP_DB_VARINT_H
/* Unsigned LEB128 varints (7 bits a byte, low group first, high bit set on
 * every byte but the last): the block chunk format (docs/session-format.md)
 * and the analysis' packed profiles. */
#include <stdint.h>

static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Bounds-checked; NULL on a varint running past end or past 64 bits. */
static inline const uint8_t *varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t b = *p++;

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return p;
		}
	}
	return NULL;
}

/* Unchecked, for the hot loop while at least one worst-case block remains. */
static inline const uint8_t *varint_get_fast(const uint8_t *p, uint64_t *v)
{
	uint64_t r;
	unsigned shift;

	if (p[0] < 0x80) {
		*v = p[0];
		return p + 1;
	}
	if (p[1] < 0x80) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	r = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7;
	p += 2;
	for (shift = 14; shift < 64; shift += 7) {
		uint8_t b = *p++;

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	*v = r;
	return p;
}

#endif
