#include "src/core/model_state.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/array.h"
#include "src/core/binning.h"
#include "src/core/names.h"
#include "src/core/order.h"
#include "src/core/pool.h"

/* ---- queries ---------------------------------------------------------------- */

static int level_covers(const struct model_level *l, const struct model *m, uint64_t t0,
			uint64_t t1)
{
	if (!l->bins)
		return 0;
	int64_t b0 = binning_floor_div(model_rel_time(m, t0), (int64_t)l->width);
	int64_t b1 = binning_floor_div(model_rel_time(m, t1) - 1, (int64_t)l->width);
	if (!l->ring)
		return b0 >= l->lo && b1 < l->lo + (int64_t)l->n;
	if (l->hi == INT64_MIN)
		return 1; /* nothing yet: all idle */
	return b0 > l->hi - (int64_t)l->span;
}

void model_summary_drop(struct model *m)
{
	for (int i = 0; i < m->n_summary; i++)
		free(m->summary[i].own);
	memset(m->summary, 0, sizeof m->summary);
	m->n_summary = 0;
	if (m->summary_on)
		m->generation++;
	m->summary_on = 0;
}

/* The summary holds the whole session: any window is in it (idle outside
 * the session).  As for the rings: the coarsest level with bins no wider
 * than a column, else the finest. */
static const struct model_level *pick_summary(const struct model *m, uint64_t col_ns)
{
	const struct model_level *best = NULL;
	for (int i = m->n_summary - 1; i >= 0; i--) {
		best = &m->summary[i];
		if (best->width <= col_ns)
			break;
	}
	return best;
}

/* The finest level that holds the window, preferring bins no wider than a
 * column; the detail level when it is finer. */
static const struct model_level *pick_level(const struct model *m, uint64_t t0, uint64_t t1,
					    uint64_t col_ns)
{
	const struct model_level *best = NULL;
	int rings = !(m->summary_on && m->n_summary);
	if (!rings)
		best = pick_summary(m, col_ns);
	for (int i = MODEL_LEVELS - 1; rings && i >= 0; i--) {
		const struct model_level *l = &m->levels[i];
		if (!level_covers(l, m, t0, t1))
			break;
		best = l;
		if (l->width <= col_ns)
			break;
	}
	if (!best)
		best = &m->levels[MODEL_LEVELS - 1];
	if (m->detail_ready && t0 >= m->detail_t0 && t1 <= m->detail_t1 &&
	    m->detail.width < best->width && best->width > col_ns)
		best = &m->detail;
	return best;
}

uint64_t model_resolution(const struct model *m, uint64_t t0, uint64_t t1, uint64_t col_ns)
{
	if (!m->has_device)
		return 0;
	return pick_level(m, t0, t1, col_ns)->width;
}

int model_wants_detail(const struct model *m, uint64_t t0, uint64_t t1, uint64_t col_ns)
{
	if (!m->has_device || !m->blocks)
		return 0;
	if (m->detail_ready && t0 >= m->detail_t0 && t1 <= m->detail_t1 &&
	    m->detail.width <= col_ns)
		return 0;
	/* bins up to two columns wide still read well; past that the blocks
	 * of the window are worth reading */
	return pick_level(m, t0, t1, col_ns)->width > 2 * col_ns;
}

void model_memory(const struct model *m, struct model_memory *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < MODEL_LEVELS && m->has_device; k++)
		out->rings += (size_t)m->n_sm * m->levels[k].stride * sizeof(struct model_bin);
	if (m->detail.used || m->detail_ready)
		out->detail = (size_t)m->n_sm * m->detail.stride * sizeof(struct model_bin);
	for (int i = 0; i < m->n_summary; i++)
		out->summary += (size_t)m->n_sm * m->summary[i].n * sizeof(struct model_bin);
	out->stage = m->binning ? binning_memory(m->binning) : 0;
	out->stage_peak = m->binning ? binning_memory_peak(m->binning) : 0;
	for (size_t i = 0; i < m->n_gtab; i++)
		out->kernels += m->gtab[i].n * sizeof *m->gtab[i].slot;
	out->kernels += m->n_kernels * sizeof *m->kernels + m->khash.cap * sizeof *m->khash.e +
		       m->n_wide * sizeof *m->wide + m->n_names * sizeof *m->names +
		       m->nhash.cap * sizeof *m->nhash.e + m->n_shapes * sizeof *m->shapes +
		       m->shash.cap * sizeof *m->shash.e;
	for (size_t i = 0; i < m->n_streams; i++)
		out->kernels += sizeof *m->streams + m->streams[i].cap_kernels * sizeof(uint32_t);
	for (size_t i = 0; i < m->n_names; i++)
		out->kernels += strlen(m->names[i].name) + strlen(m->names[i].short_name) + 2;
	out->events = m->n_events * sizeof *m->events + m->n_nvtx * sizeof *m->nvtx;
	out->events += m->n_culprits * sizeof *m->culprits;
	out->events += m->kevent.cap * sizeof *m->kevent.slots;
	out->kernels += m->most.cap * sizeof *m->most.slots;
	for (size_t i = 0; i < m->n_nvtx; i++)
		out->events += m->nvtx[i].text ? strlen(m->nvtx[i].text) + 1 : 0;
	out->pending = m->cap_pending * sizeof *m->pending + m->phash.cap * sizeof *m->phash.e;
	for (size_t i = 0; i < m->n_pending_grids; i++)
		out->pending += m->pending[i].cap * sizeof(struct smtop_block);
	out->total = out->rings + out->detail + out->summary + out->stage + out->kernels + out->events +
		     out->pending;
}

double model_sm_capacity(const struct model *m)
{
	if (m->has_device && m->dev.max_threads_per_sm)
		return m->dev.max_threads_per_sm;
	return m->peak_threads > 0 ? m->peak_threads : 1;
}

struct cand {
	uint16_t s;
	double amt;
};

static void cand_add(struct cand *c, int *n, uint16_t s, double amt)
{
	if (s == MODEL_NO_STREAM || amt <= 0)
		return;
	for (int i = 0; i < *n; i++)
		if (c[i].s == s) {
			c[i].amt += amt;
			return;
		}
	if (*n < 16)
		c[(*n)++] = (struct cand){ s, amt };
}

const struct model_bin *model_level_bin(const struct model_level *l, uint32_t sm, int64_t i)
{
	if (l->ring) {
		if (l->hi == INT64_MIN || i > l->hi || i <= l->hi - (int64_t)l->n)
			return NULL;
		return &l->bins[(size_t)sm * l->stride + binning_ring_slot(l, i)];
	}
	if (i < l->lo || i >= l->lo + (int64_t)l->n)
		return NULL;
	return &l->bins[(size_t)sm * l->stride + (size_t)(i - l->lo)];
}

/* Indices of the bins l holds; a column wider than them reads only those. */
static void level_held(const struct model_level *l, int64_t *lo, int64_t *hi)
{
	if (!l->ring) {
		*lo = l->lo;
		*hi = l->lo + (int64_t)l->n - 1;
	} else if (l->hi == INT64_MIN) {
		*lo = 1;
		*hi = 0;
	} else {
		*lo = l->hi < INT64_MIN + (int64_t)l->n ? INT64_MIN : l->hi - (int64_t)l->n + 1;
		*hi = l->hi;
	}
}

void model_sample_sms(const struct model *m, uint32_t sm, uint32_t n_sm, uint64_t t0,
		      uint64_t col_ns, size_t ncols, struct model_cell *out)
{
	for (size_t c = 0; c < ncols; c++)
		out[c] = (struct model_cell){ -1, -1, 0, 0 };
	if (!m->has_device || !col_ns || sm >= m->n_sm)
		return;
	if (sm + n_sm > m->n_sm)
		n_sm = m->n_sm - sm;
	const struct model_level *l = pick_level(m, t0, model_time_after(t0, ncols, col_ns), col_ns);
	int64_t w = (int64_t)l->width, held_lo, held_hi;
	double cap = model_sm_capacity(m);
	level_held(l, &held_lo, &held_hi);
	for (size_t c = 0; c < ncols; c++) {
		int64_t cs = model_rel_time(m, model_time_after(t0, c, col_ns));
		int64_t ce = cs + (col_ns > (uint64_t)BINNING_REL_MAX ? BINNING_REL_MAX : (int64_t)col_ns);
		/* bins whose middle falls in the column; the one under the
		 * column's middle when bins are wider than columns */
		int64_t b0 = binning_floor_div(cs - w / 2 + w - 1, w);
		int64_t b1 = binning_floor_div(ce - w / 2 - 1, w);
		if (b1 < b0)
			b0 = b1 = binning_floor_div(cs + (ce - cs) / 2, w);
		struct cand cd[16];
		int nc = 0;
		double occ = 0;
		int64_t i0 = b0 > held_lo ? b0 : held_lo, i1 = b1 < held_hi ? b1 : held_hi;
		for (uint32_t s = sm; s < sm + n_sm; s++)
			for (int64_t i = i0; i <= i1; i++) {
				const struct model_bin *b = model_level_bin(l, s, i);
				if (!b || !b->occ)
					continue;
				occ += b->occ;
				cand_add(cd, &nc, b->top, b->top_amt);
				cand_add(cd, &nc, b->second, b->second_amt);
			}
		if (occ <= 0)
			continue;
		int best = -1, second = -1;
		for (int i = 0; i < nc; i++) {
			if (best < 0 || cd[i].amt > cd[best].amt) {
				second = best;
				best = i;
			} else if (second < 0 || cd[i].amt > cd[second].amt) {
				second = i;
			}
		}
		struct model_cell *o = &out[c];
		o->stream = best >= 0 ? cd[best].s : -1;
		o->second = second >= 0 ? cd[second].s : -1;
		o->fullness = (float)(occ / ((double)(b1 - b0 + 1) * (double)w * n_sm * cap));
		o->share = best >= 0 ? (float)(cd[best].amt / occ) : 0;
	}
}

long model_stream_kernel_before(const struct model *m, uint32_t stream, uint64_t t)
{
	const struct model_stream *s = &m->streams[stream];
	size_t lo = 0, hi = s->n_kernels;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->kernels[s->kernels[mid]].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

const struct model_kernel *model_stream_kernel(const struct model *m, uint32_t stream, size_t i)
{
	const struct model_stream *s = &m->streams[stream];
	return i < s->n_kernels ? &m->kernels[s->kernels[i]] : NULL;
}

const struct model_stream *model_stream_by_rank(const struct model *m, size_t rank)
{
	return rank < m->n_streams ? &m->streams[m->stream_order[rank]] : NULL;
}

const struct smtop_culprit *model_event_culprit(const struct model *m, size_t event, size_t i)
{
	if (event >= m->n_events || i >= m->events[event].ev.n_culprits)
		return NULL;
	const struct model_event *e = &m->events[event];
	if (i < e->culprits_held)
		return &m->culprits[e->culprits_at + i];
	if (m->focus.event == (long)event && i < m->focus.n_culprits)
		return &m->focus.culprits[i];
	return NULL;
}

int model_event_wants_culprits(const struct model *m, size_t event)
{
	return event < m->n_events &&
	       m->events[event].culprits_held < m->events[event].ev.n_culprits &&
	       m->focus.event != (long)event;
}

void model_focus_culprits(struct model *m, long event, struct smtop_culprit *c, size_t n)
{
	for (size_t i = 0; i < m->focus.n_culprits; i++)
		free((char *)m->focus.culprits[i].name);
	free(m->focus.culprits);
	m->focus.event = event;
	m->focus.culprits = c;
	m->focus.n_culprits = n;
	m->generation++;
}

void model_focus_kernel(struct model *m, long k, uint64_t blocks_seen, int known, uint32_t sms,
			uint32_t correlation_id)
{
	m->focus.kernel = k;
	m->focus.blocks_seen = blocks_seen;
	m->focus.sms_known = known;
	m->focus.sms = sms;
	m->focus.correlation_id = correlation_id;
	m->focus.most_per_sm = 0;
	m->generation++;
}

size_t model_event_at(const struct model *m, uint64_t t)
{
	return order_first_at(m->events, m->n_events, sizeof *m->events,
			      offsetof(struct model_event, ev.ready), t);
}

size_t model_nvtx_from(const struct model *m, uint64_t t)
{
	uint64_t from = t > m->max_nvtx_ns ? t - m->max_nvtx_ns : 0;
	return order_first_at(m->nvtx, m->n_nvtx, sizeof *m->nvtx, offsetof(struct model_nvtx, start),
			      from);
}

long model_find_stream(const struct model *m, uint32_t pid, uint32_t device_id,
		       uint32_t context_id, uint32_t stream_id)
{
	return model_stream_find((struct model *)m, pid, device_id, context_id, stream_id, 0);
}

uint64_t model_kernel_wait(const struct model *m, const struct model_kernel *k)
{
	uint64_t first = model_kernel_first_block(m, k), ready = model_kernel_ready(m, k);
	if (!first)
		first = k->start;
	if (!ready || !first || first < ready)
		return 0;
	return first - ready;
}

const char *model_event_kind_name(enum smtop_event_kind k)
{
	switch (k) {
	case SMTOP_EV_BLOCKING:
		return "BLOCKING";
	case SMTOP_EV_INVERSION_RESIDENT:
		return "INVERSION (resident)";
	case SMTOP_EV_INVERSION_DISPATCH:
		return "INVERSION (dispatch)";
	case SMTOP_EV_TIMESLICE:
		return "TIMESLICE";
	}
	return "?";
}

void model_event_kind_label(const struct smtop_event *e, char *buf, size_t len)
{
	const char *k = model_event_kind_name(e->kind);
	size_t n = strlen(k);
	if (!e->possible)
		snprintf(buf, len, "%s", k);
	else if (n && k[n - 1] == ')') /* "INVERSION (resident, possible)" */
		snprintf(buf, len, "%.*s, possible)", (int)(n - 1), k);
	else
		snprintf(buf, len, "%s (possible)", k);
}
