#include "db/session/session_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/blockcodec.h"
#include "src/core/analysis.h"
#include "src/core/array.h"
#include "src/core/model.h"
#include "src/core/pool.h"

/* ---- blocks ----------------------------------------------------------------- */

static int batch_take_chunk(void *ud, const struct db_chunk *c)
{
	struct session_batch *b = ud;
	if (array_grow((void **)&b->chunks, &b->cap_chunks, b->n_chunks + 1, sizeof *b->chunks) ||
	    array_grow((void **)&b->raw, &b->raw_cap, b->raw_len + c->len, 1)) {
		b->n_chunks = (size_t)-1; /* out of memory: stop, and say so */
		return 1;
	}
	memcpy(b->raw + b->raw_len, c->data, c->len);
	b->chunks[b->n_chunks++] = (struct session_chunk){
		.pid = c->pid, .context_id = c->context_id, .device_id = c->device_id, .sm = c->sm,
		.count = c->count, .id = c->id, .clock = c->clock,
		.raw = b->raw_len, .len = c->len, .first = b->n_blocks, .src = b->src,
	};
	b->raw_len += c->len;
	b->n_blocks += c->count;
	return b->n_blocks >= SESSION_BATCH_BLOCKS;
}

static void batch_decode_chunk(void *ud, size_t i, int worker)
{
	struct session_batch *b = ud;
	struct session_chunk *c = &b->chunks[i];
	struct smtop_block *out = &b->blocks[c->first];
	(void)worker;
	c->n = db_blockcodec_decode(b->raw + c->raw, c->len, c->sm, c->device_id, out, c->count);
	uint64_t end = 0;
	for (long k = 0; k < c->n; k++) {
		out[k].start = gpu_clock_cupti(&c->clock, out[k].start);
		out[k].end = gpu_clock_cupti(&c->clock, out[k].end);
		if (out[k].end > end)
			end = out[k].end;
	}
	c->max_end = end;
}

/* The next batch, once the analysis is done with it. */
static struct session_batch *batch_next(struct session *s)
{
	struct session_loader *L = s->loader;
	struct session_batch *b = &L->batches[L->next_batch];
	L->next_batch = (L->next_batch + 1) % SESSION_BATCHES;
	if (L->athread_on) {
		pthread_mutex_lock(&L->qlock);
		if (b->busy) {
			double t = session_now_s();
			while (b->busy)
				pthread_cond_wait(&L->freed, &L->qlock);
			s->stats.wait_s += session_now_s() - t;
		}
		pthread_mutex_unlock(&L->qlock);
	}
	b->n_chunks = b->raw_len = b->n_blocks = 0;
	return b;
}

/* Decodes a batch on the pool, feeds the model, hands it to the analysis.
 * Returns 1 if a chunk was damaged (reported in err), 0, or -1. */
static int batch_feed(struct session *s, struct session_batch *b, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	int damaged = 0;
	double t = session_now_s();
	if (array_grow((void **)&b->blocks, &b->cap_blocks, b->n_blocks, sizeof *b->blocks))
		return -1;
	pool_run(L->pool, b->n_chunks, batch_decode_chunk, b);
	double t2 = session_now_s();
	s->stats.decode_s += t2 - t;
	for (size_t i = 0; i < b->n_chunks; i++) {
		struct session_source *src = &s->src[b->chunks[i].src];
		if (b->chunks[i].n > 0 && b->chunks[i].max_end > src->blocks_end)
			src->blocks_end = b->chunks[i].max_end;
	}
	if (session_release_kernels(s))
		return -1;
	for (size_t i = 0; i < b->n_chunks; i++) {
		const struct session_chunk *c = &b->chunks[i];
		if (c->n < 0) {
			if (!damaged)
				snprintf(err, errlen, "%s: block chunk %lld is damaged",
					 s->src[c->src].path, (long long)c->id);
			damaged = 1;
			continue;
		}
		if (c->max_end > s->latest_end)
			s->latest_end = c->max_end;
		s->stats.blocks += (uint64_t)c->n;
		if (s->model && c->n &&
		    model_add_blocks(s->model, &b->blocks[c->first], (size_t)c->n, c->pid,
				     c->context_id) != 0)
			return -1;
	}
	s->stats.chunks += b->n_chunks;
	s->stats.model_s += session_now_s() - t2;
	if (session_loader_submit(s, (struct session_op){ .kind = OP_BATCH, .v = b }))
		return -1;
	return damaged;
}

/* The file to read blocks from next: of those with blocks left, the one
 * whose blocks read end earliest, so that several files advance together in
 * time.  n_src when every file was read to its end. */
static size_t next_source(const struct session *s)
{
	size_t best = s->n_src;
	for (size_t i = 0; i < s->n_src; i++)
		if (!s->src[i].drained &&
		    (best == s->n_src || s->src[i].blocks_end < s->src[best].blocks_end))
			best = i;
	return best;
}

/* Fills b from the files furthest behind until it is full or every file
 * was read to its end.  Returns 0, or -1 (err set). */
static int batch_fill(struct session *s, struct session_batch *b, char *err, size_t errlen)
{
	size_t i;
	double t = session_now_s();
	while (b->n_blocks < SESSION_BATCH_BLOCKS && (i = next_source(s)) < s->n_src) {
		struct session_source *src = &s->src[i];
		b->src = i;
		if (db_reader_new_chunks(src->reader, &src->block_mark, batch_take_chunk, b) != 0)
			return session_read_error(src, err, errlen);
		if (b->n_chunks == (size_t)-1)
			return session_out_of_memory(s, err, errlen);
		/* the walk stopped short of a full batch: nothing is left in this file */
		if (b->n_blocks < SESSION_BATCH_BLOCKS)
			src->drained = 1;
	}
	s->stats.read_s += session_now_s() - t;
	return 0;
}

/* Reads, decodes and feeds new chunks batch by batch until none is left or
 * the poll's budget is spent (then s->behind says more is waiting). */
int session_blocks_poll(struct session *s, double start, char *err, size_t errlen)
{
	struct session_loader *L = s->loader;
	int rc = 0;
	s->behind = 0;
	for (size_t i = 0; i < s->n_src; i++)
		s->src[i].drained = 0;
	for (;;) {
		struct session_batch *b = batch_next(s);
		if (batch_fill(s, b, err, errlen) != 0)
			return -1;
		if (!b->n_chunks)
			break;
		int full = b->n_blocks >= SESSION_BATCH_BLOCKS;
		int r = batch_feed(s, b, err, errlen);
		if (r < 0)
			return session_out_of_memory(s, err, errlen);
		rc |= r;
		session_load_report(s, 0);
		if (!full)
			break;
		if (s->budget_ns && (session_now_s() - start) * 1e9 >= (double)s->budget_ns) {
			s->behind = 1;
			break;
		}
	}
	L->edge = UINT64_MAX;
	for (size_t i = 0; i < s->n_src; i++)
		if (session_source_edge(&s->src[i]) < L->edge)
			L->edge = session_source_edge(&s->src[i]);
	if (session_release_kernels(s))
		return session_out_of_memory(s, err, errlen);
	return rc ? -1 : 0;
}
