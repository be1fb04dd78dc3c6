#include "collectors/entries_pack.h"

#include <stdlib.h>

#include "collectors/drops.h"
#include "db/blockcodec.h"
#include "src/core/clock.h"

struct pack_stage {
	struct smtop_block *b;  /* DB_BLOCKCODEC_MAX_BLOCKS, allocated at the SM's first block */
	uint32_t n;
	uint64_t since;         /* host monotonic ns of its first block */
};

struct entries_packer {
	uint32_t device_id, context_id;
	blocks_observer_fn *observer;
	entries_pack_fn *pack;
	uint8_t *scratch;
	uint64_t observe_ns, stage_ns;  /* SMTOP_DEBUG's split of the drain's time */
	struct pack_stage stage[ENTRIES_PACK_SMS];
};

static void pack_flush(struct entries_packer *p, unsigned sm)
{
	struct pack_stage *st = &p->stage[sm];
	uint32_t n = st->n;

	st->n = 0;
	if (n)
		p->pack(st->b, n, p->device_id, p->context_id, p->scratch);
}

/* A block whose SM's stage has no memory is lost, and counted. */
static void pack_stage_block(struct entries_packer *p, const struct smtop_block *b, uint64_t now)
{
	unsigned sm = b->sm < ENTRIES_PACK_SMS ? b->sm : ENTRIES_PACK_SMS - 1;
	struct pack_stage *st = &p->stage[sm];

	if (!st->b && !(st->b = malloc(DB_BLOCKCODEC_MAX_BLOCKS * sizeof(*st->b)))) {
		drops_add(DROPS_BLOCKS, 1);
		return;
	}
	if (st->n && st->b[0].sm != b->sm)
		pack_flush(p, sm); /* one SM per chunk */
	if (!st->n)
		st->since = now;
	st->b[st->n++] = *b;
	if (st->n == DB_BLOCKCODEC_MAX_BLOCKS)
		pack_flush(p, sm);
}

struct entries_packer *entries_packer_start(uint32_t device_id, uint32_t context_id, blocks_observer_fn *observer,
					    entries_pack_fn *pack)
{
	struct entries_packer *p = calloc(1, sizeof(*p));

	if (!p || !(p->scratch = malloc(DB_BLOCKCODEC_MAX_BYTES(DB_BLOCKCODEC_MAX_BLOCKS)))) {
		free(p);
		return NULL;
	}
	p->device_id = device_id;
	p->context_id = context_id;
	p->observer = observer;
	p->pack = pack;
	return p;
}

void entries_packer_put(struct entries_packer *p, const struct smtop_block *b, size_t n, uint64_t now)
{
	uint64_t t0 = clock_mono_ns(), t1 = t0;

	if (n && p->observer) {
		p->observer(p->context_id, b, n);
		t1 = clock_mono_ns();
	}
	for (size_t i = 0; i < n; i++)
		pack_stage_block(p, &b[i], now);
	p->observe_ns += t1 - t0;
	p->stage_ns += clock_mono_ns() - t1;
}

void entries_packer_times(const struct entries_packer *p, uint64_t *observe_ns, uint64_t *pack_ns)
{
	if (!p)
		return;
	*observe_ns += p->observe_ns;
	*pack_ns += p->stage_ns;
}

void entries_packer_tick(struct entries_packer *p, uint64_t now)
{
	for (unsigned sm = 0; sm < ENTRIES_PACK_SMS; sm++)
		if (p->stage[sm].n && now - p->stage[sm].since >= ENTRIES_PACK_AGE_NS)
			pack_flush(p, sm);
}

void entries_packer_stop(struct entries_packer *p)
{
	if (!p)
		return;
	for (unsigned sm = 0; sm < ENTRIES_PACK_SMS; sm++) {
		pack_flush(p, sm);
		free(p->stage[sm].b);
	}
	free(p->scratch);
	free(p);
}
