#include "tests/support/workload_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/writer.h"
#include "tests/support/db_support.h"

#define WORKLOAD_PERIOD_NS 50000000ull  /* the collector's writer period */

void workload_default(struct workload *w, double rate, uint64_t t0)
{
	*w = (struct workload){ .n_sm = 132, .streams = 4, .grid = 2048, .threads = 64, .t0 = t0,
				.rate = rate, .dur_min = 20000, .dur_max = 1000000, .seed = 42 };
}

static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t start_of(const struct workload *w, uint64_t i)
{
	return w->t0 + (uint64_t)((double)i * 1e9 / w->rate);
}

void workload_block(const struct workload *w, uint64_t i, struct smtop_block *b)
{
	uint64_t h = mix(i * 0x9e3779b97f4a7c15ull + w->seed);
	double f = (double)(h >> 11) / 9007199254740992.0;
	uint64_t dur = (uint64_t)((double)w->dur_min * pow((double)w->dur_max / (double)w->dur_min, f));
	b->grid_id = i / w->grid + 1;
	b->block = (uint32_t)(i % w->grid);
	b->sm = (uint16_t)((h & 0xffffffff) % w->n_sm);
	b->device_id = 0;
	b->start = start_of(w, i);
	b->end = b->start + (dur ? dur : 1);
}

uint32_t workload_stream_id(const struct workload *w, uint32_t stream)
{
	(void)w;
	return 13 + stream;
}

int32_t workload_priority(const struct workload *w, uint32_t stream)
{
	(void)w;
	return stream == 0 ? -5 : 0; /* one inference stream above the training ones */
}

void workload_kernel(const struct workload *w, uint64_t k, struct smtop_kernel *out)
{
	static const char *const names[] = { "_Z10conv2d_fwdPKfPfi", "_Z8gemm_bf16PKvS0_Pvi",
					     "_Z12bn_fwd_reluPfS_i", "_Z9attentionPKfPfi" };
	struct smtop_block b;
	uint64_t end = 0, first = k * w->grid;
	for (uint64_t i = first; i < first + w->grid; i++) {
		workload_block(w, i, &b);
		if (b.end > end)
			end = b.end;
	}
	uint32_t s = (uint32_t)(k % w->streams);
	uint64_t start = start_of(w, first);
	*out = (struct smtop_kernel){
		.start = start, .end = end, .queued = start - 3000, .submitted = start - 2000,
		.grid_id = k + 1, .pid = 1, .device_id = 0, .context_id = 1,
		.stream_id = workload_stream_id(w, s), .correlation_id = (uint32_t)k + 1,
		.grid = { (int32_t)w->grid, 1, 1 }, .block = { (int32_t)w->threads, 1, 1 },
		.registers = 32, .name = names[k % 4],
	};
}

size_t workload_blocks_ending(const struct workload *w, uint64_t n, uint64_t t0, uint64_t t1,
			      struct smtop_block **out, size_t *cap)
{
	/* blocks ending in [t0, t1) started in [t0 - dur_max, t1) */
	double from = ((double)t0 - (double)w->dur_max - (double)w->t0) * w->rate / 1e9 - 1;
	double to = ((double)t1 - (double)w->t0) * w->rate / 1e9 + 1;
	uint64_t i0 = from > 0 ? (uint64_t)from : 0, i1 = to > 0 ? (uint64_t)to : 0;
	if (i1 > n)
		i1 = n;
	size_t m = 0;
	for (uint64_t i = i0; i < i1; i++) {
		struct smtop_block b;
		workload_block(w, i, &b);
		if (b.end < t0 || b.end >= t1)
			continue;
		if (m == *cap) {
			*cap = *cap ? *cap * 2 : 65536;
			*out = realloc(*out, *cap * sizeof **out);
			if (!*out)
				abort();
		}
		(*out)[m++] = b;
	}
	return m;
}

static void write_or_die(struct db_writer *dw, struct smtop_record *r, size_t n)
{
	if (db_writer_write(dw, r, n) != 0) {
		fprintf(stderr, "workload_write: %s\n", db_writer_error(dw));
		abort();
	}
}

struct workload_writer {
	struct workload w;
	struct db_writer *dw;
	uint64_t n, t, last;            /* blocks in all; time written up to; end of all */
	struct smtop_kernel *kv;
	uint64_t kernels, k;            /* kernels before k are written */
	struct smtop_block *b;
	size_t cap;
	struct smtop_record *recs;
	size_t rcap;
};

struct workload_writer *workload_writer_open(const struct workload *w, const char *path,
					     uint64_t n)
{
	struct workload_writer *ww = calloc(1, sizeof *ww);
	if (!ww)
		abort();
	ww->w = *w;
	ww->n = n;
	ww->dw = db_support_writer(path, 1, 1);
	struct smtop_record r[8];
	size_t nr = 0;
	r[nr++] = db_support_device(1, 0, w->n_sm);
	for (uint32_t s = 0; s < w->streams && nr < 8; s++)
		r[nr++] = db_support_stream(1, workload_stream_id(w, s), workload_priority(w, s));
	write_or_die(ww->dw, r, nr);
	db_writer_set_meta(ww->dw, "clock_offset_ns", "0");
	ww->kernels = (n + w->grid - 1) / w->grid;
	ww->kv = malloc((ww->kernels ? ww->kernels : 1) * sizeof *ww->kv);
	if (!ww->kv)
		abort();
	for (uint64_t i = 0; i < ww->kernels; i++)
		workload_kernel(w, i, &ww->kv[i]);
	ww->t = w->t0;
	ww->last = start_of(w, n) + w->dur_max + 1;
	return ww;
}

/* One writer period: the kernels that ended in it, then its blocks. */
static void write_period(struct workload_writer *ww, uint64_t t1)
{
	size_t m = workload_blocks_ending(&ww->w, ww->n, ww->t, t1, &ww->b, &ww->cap), nrec = 0;
	for (uint64_t j = ww->k; j < ww->kernels; j++)
		nrec += ww->kv[j].end < t1;
	if (nrec + 1 > ww->rcap) {
		ww->rcap = nrec + 1;
		ww->recs = realloc(ww->recs, ww->rcap * sizeof *ww->recs);
		if (!ww->recs)
			abort();
	}
	nrec = 0;
	for (uint64_t j = ww->k; j < ww->kernels; j++) {
		if (ww->kv[j].end >= t1)
			continue;
		struct smtop_record kr = { .kind = SMTOP_REC_KERNEL, .u.kernel = ww->kv[j] };
		kr.u.kernel.name = strdup(ww->kv[j].name);
		ww->kv[j].end = UINT64_MAX; /* written */
		ww->recs[nrec++] = kr;
	}
	while (ww->k < ww->kernels && ww->kv[ww->k].end == UINT64_MAX)
		ww->k++;
	if (m)
		ww->recs[nrec++] = db_support_blocks(1, 1, ww->b, (uint32_t)m);
	if (nrec)
		write_or_die(ww->dw, ww->recs, nrec);
	ww->t = t1;
}

void workload_writer_until(struct workload_writer *ww, uint64_t t)
{
	if (t > ww->last)
		t = ww->last;
	while (ww->t < t) {
		uint64_t t1 = ww->t + WORKLOAD_PERIOD_NS;
		write_period(ww, t1 < t ? t1 : t);
	}
}

void workload_writer_close(struct workload_writer *ww, int finish)
{
	if (finish) {
		workload_writer_until(ww, UINT64_MAX);
		db_writer_set_process_status(ww->dw, "exited", NULL);
		db_writer_finish_session(ww->dw, 1, NULL);
	}
	db_writer_close(ww->dw);
	free(ww->recs);
	free(ww->b);
	free(ww->kv);
	free(ww);
}

void workload_write(const struct workload *w, const char *path, uint64_t n, int finish)
{
	struct workload_writer *ww = workload_writer_open(w, path, n);
	workload_writer_until(ww, UINT64_MAX);
	workload_writer_close(ww, finish);
}
