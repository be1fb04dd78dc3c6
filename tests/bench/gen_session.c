/* gen_session: writes a synthetic session of N thread blocks through the
 * session writer, the way `smtop record` and its collector write one.
 *
 * A small block-scheduler simulation stands in for the GPU: an H200 of 132
 * SMs (2048 threads, 32 blocks each), 8 streams at priorities -5 to 0.  Three
 * request-driven inference streams and a bursty one launch short kernels of
 * small grids; four training streams keep the GPU full with GEMMs,
 * convolutions and elementwise kernels of up to 32 K blocks.  Free SM room
 * goes to the highest-priority ready kernel (kept for it until its block
 * fits), so a
 * high-priority kernel that arrives while training blocks hold the SMs waits
 * for them (resident inversions); now and then the dispatcher keeps feeding
 * the kernel it was dispatching for a few tens of microseconds after a
 * higher-priority one became ready (dispatch inversions).  The mix runs at
 * about 40 M blocks per second of GPU time, inside the 20-50 M blocks/s of
 * real DNN workloads.
 *
 * Records reach the writer as the collector hands them over: block records
 * on a 32 ns %globaltimer tick, drained every 5 ms of GPU time, one
 * transaction every 50 ms, kernel and request records when they end.  The
 * session is then finalised as `smtop record` does it.
 *
 * Usage: gen_session OUT BLOCKS [SEED]
 * Prints one line of key=value figures (read by tests/bench/run.sh); the
 * ingest rates count the time spent in db_writer_write only, in wall-clock
 * and in CPU time (ingest_cpu, the figure that holds on a busy machine). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/writer.h"
#include "db/session/library.h"
#include "tests/bench/bench_util.h"

#define SMS 132
#define SM_THREADS 2048
#define SM_BLOCKS 32
#define N_STREAMS 8
#define TICK_NS 32                      /* %globaltimer step on the H200 */
#define DRAIN_NS 5000000ull             /* collector drains block lanes */
#define COMMIT_NS 50000000ull           /* writer thread commits */
#define CLOCK_OFFSET_NS 16896           /* CUPTI time = globaltimer + this */
#define T0 1764480000000000000ull
#define PID 4242
#define CONTEXT 1

struct kind {
	const char *name;
	uint32_t grid_min, grid_max, threads;
	uint32_t dur_min, dur_max;      /* block duration, ns */
};

static const struct kind kinds[] = {
	{ "_Z11gemm_kernelILi128ELi128EEvPKfS1_Pfiii", 264, 2112, 256, 30000, 90000 },
	{ "_Z17conv2d_fwd_implicit_gemmPKfS0_Pfiiii", 396, 3168, 256, 20000, 60000 },
	{ "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_", 1024, 8192, 512, 6000, 16000 },
	{ "_Z17layer_norm_kernelPKfPfS0_S0_ii", 528, 2048, 256, 10000, 30000 },
	{ "_Z15softmax_forwardPKfPfii", 132, 1056, 512, 8000, 24000 },
	{ "_Z12small_gemm_nnPKfS0_Pfiii", 32, 264, 128, 5000, 15000 },
	{ "_Z13relu_backwardPKfS0_Pfi", 1024, 8192, 256, 8000, 20000 },
};
enum { K_GEMM, K_CONV, K_ELEM, K_NORM, K_SOFTMAX, K_SMALL, K_RELU_BWD };

struct profile {
	int32_t priority;
	uint64_t period_ns;             /* between requests; 0: back to back */
	uint32_t per_request;           /* kernels per request */
	uint32_t grid_cap;              /* inference runs small batches */
	const int *mix;
	size_t n_mix;
};

static const int infer_mix[] = { K_SMALL, K_SMALL, K_NORM, K_SOFTMAX, K_SMALL, K_GEMM };
static const int burst_mix[] = { K_ELEM, K_NORM, K_SMALL };
static const int train_mix[] = { K_GEMM, K_CONV, K_ELEM, K_NORM, K_GEMM, K_RELU_BWD, K_SOFTMAX };

static const struct profile profiles[N_STREAMS] = {
	{ -5, 2000000, 16, 528, infer_mix, 6 },         /* inference, 2 ms requests */
	{ -4, 3000000, 10, 528, infer_mix, 6 },         /* a second model */
	{ -3, 5000000, 24, 1056, infer_mix, 6 },        /* a detector */
	{ -2, 10000000, 40, 0, burst_mix, 3 },          /* preprocessing bursts */
	{ -1, 20000000, 60, 0, burst_mix, 3 },          /* optimizer steps */
	{ 0, 0, 0, 0, train_mix, 7 },                   /* training, back to back */
	{ 0, 0, 0, 0, train_mix, 7 },                   /* a second training job */
	{ 0, 8000000, 30, 0, burst_mix, 3 },            /* data augmentation */
};

struct kernel {
	uint64_t grid_id;
	uint32_t nblocks, next, done, threads;
	uint64_t dur_min, dur_span;
	uint64_t submitted, visible;    /* the dispatcher sees it from visible */
	uint64_t first_start, last_end;
	const char *name;
	uint32_t registers;
};

struct stream {
	const struct profile *p;
	uint32_t id;
	int active;                     /* k is being dispatched or runs */
	int pending;                    /* k is launched, not yet visible */
	struct kernel k;
	uint64_t prev_end;
	uint64_t request_at;            /* arrival of the current request */
	uint32_t request_left;          /* kernels of it still to launch */
	uint64_t request_start;
};

struct inflight {
	uint64_t end, start, grid;
	uint32_t block;
	uint16_t sm;
	uint8_t stream;
};

struct sim {
	struct stream st[N_STREAMS];
	int order[N_STREAMS];           /* by priority, highest first */
	uint32_t free_threads[SMS], free_blocks[SMS];
	struct inflight *heap;
	size_t n_heap, cap_heap;
	uint64_t now, rng, next_grid, correlation;
	uint64_t budget;                /* blocks still to launch */
	uint64_t emitted, kernels, requests, delayed;
	int rr;                         /* first SM of the next dispatch round */
};

struct out {
	struct db_writer *w;
	struct smtop_record *recs;
	size_t n_recs, cap_recs;
	struct smtop_block *blocks;
	size_t n_blocks, cap_blocks;
	uint64_t drain_at, commit_at;
	double write_s, write_cpu_s;
};

/* CPU time of this (only) thread: the figure that holds on a busy machine */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t between(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return hi > lo ? lo + rnd(s) % (hi - lo + 1) : lo;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "gen_session: out of memory\n");
		exit(1);
	}
	return p;
}

/* ---- the records, as the collector hands them to its writer ---- */

static void out_push(struct out *o, struct smtop_record r)
{
	o->recs = grow(o->recs, &o->cap_recs, o->n_recs + 1, sizeof *o->recs);
	o->recs[o->n_recs++] = r;
}

static void out_drain(struct out *o)
{
	struct smtop_record r = { .kind = SMTOP_REC_BLOCKS };

	if (!o->n_blocks)
		return;
	r.u.blocks = (struct smtop_blocks){ .pid = PID, .device_id = 0, .context_id = CONTEXT,
					    .count = (uint32_t)o->n_blocks, .blocks = o->blocks };
	out_push(o, r);
	o->blocks = NULL;
	o->n_blocks = o->cap_blocks = 0;
}

static void out_commit(struct out *o)
{
	double t, c;

	out_drain(o);
	if (!o->n_recs)
		return;
	t = now_s();
	c = cpu_s();
	if (db_writer_write(o->w, o->recs, o->n_recs) != 0) {
		fprintf(stderr, "gen_session: %s\n", db_writer_error(o->w));
		exit(1);
	}
	o->write_s += now_s() - t;
	o->write_cpu_s += cpu_s() - c;
	o->n_recs = 0;
}

/* Called with the simulated time before every record: drains and commits on
 * the collector's periods. */
static void out_clock(struct out *o, uint64_t t)
{
	if (t >= o->commit_at) {
		out_commit(o);
		while (o->commit_at <= t)
			o->commit_at += COMMIT_NS;
	}
	if (t >= o->drain_at) {
		out_drain(o);
		while (o->drain_at <= t)
			o->drain_at += DRAIN_NS;
	}
}

static void out_block(struct out *o, const struct inflight *b)
{
	out_clock(o, b->end);
	o->blocks = grow(o->blocks, &o->cap_blocks, o->n_blocks + 1, sizeof *o->blocks);
	o->blocks[o->n_blocks++] = (struct smtop_block){ .grid_id = b->grid, .start = b->start,
		.end = b->end, .block = b->block, .sm = b->sm, .device_id = 0 };
}

static void out_kernel(struct out *o, const struct stream *s, uint64_t correlation)
{
	const struct kernel *k = &s->k;
	struct smtop_record r = { .kind = SMTOP_REC_KERNEL };

	r.u.kernel = (struct smtop_kernel){
		.start = k->first_start + CLOCK_OFFSET_NS - 1024,
		.end = k->last_end + CLOCK_OFFSET_NS,
		.queued = k->submitted + CLOCK_OFFSET_NS - 1800,
		.submitted = k->submitted + CLOCK_OFFSET_NS,
		.grid_id = k->grid_id, .pid = PID, .device_id = 0, .context_id = CONTEXT,
		.stream_id = s->id, .correlation_id = (uint32_t)correlation,
		.grid = { (int32_t)k->nblocks, 1, 1 }, .block = { (int32_t)k->threads, 1, 1 },
		.registers = k->registers, .static_smem = 4096, .dynamic_smem = 0,
		.name = strdup(k->name),
	};
	out_push(o, r);
}

static void out_request(struct out *o, const struct stream *s)
{
	struct smtop_record r = { .kind = SMTOP_REC_REQUEST };

	r.u.request = (struct smtop_request){ .start = s->request_start + CLOCK_OFFSET_NS,
		.end = s->k.last_end + CLOCK_OFFSET_NS + 1024, .pid = PID, .stream_id = s->id,
		.label = strdup("request") };
	out_push(o, r);
}

static void out_setup(struct out *o, const struct sim *m)
{
	struct smtop_record r = { .kind = SMTOP_REC_DEVICE };

	r.u.device = (struct smtop_device){ .pid = PID, .device_id = 0, .sm_count = SMS,
		.cc_major = 9, .cc_minor = 0, .max_threads_per_sm = SM_THREADS,
		.max_blocks_per_sm = SM_BLOCKS, .max_regs_per_sm = 65536, .max_smem_per_sm = 233472,
		.max_threads_per_block = 1024, .warp_size = 32, .global_memory_bytes = 150ull << 30,
		.name = strdup("NVIDIA H200"), .uuid = strdup("GPU-synthetic-bench") };
	out_push(o, r);
	r = (struct smtop_record){ .kind = SMTOP_REC_CONTEXT };
	r.u.context = (struct smtop_context){ .pid = PID, .device_id = 0, .context_id = CONTEXT,
					      .null_stream_id = 7 };
	out_push(o, r);
	for (int i = 0; i < N_STREAMS; i++) {
		r = (struct smtop_record){ .kind = SMTOP_REC_STREAM };
		r.u.stream = (struct smtop_stream){ .pid = PID, .device_id = 0, .context_id = CONTEXT,
			.stream_id = m->st[i].id, .priority = m->st[i].p->priority, .flags = 1 };
		out_push(o, r);
	}
	out_commit(o);
}

/* ---- the block scheduler ---- */

static void heap_push(struct sim *m, struct inflight b)
{
	size_t i;

	m->heap = grow(m->heap, &m->cap_heap, m->n_heap + 1, sizeof *m->heap);
	i = m->n_heap++;
	while (i && m->heap[(i - 1) / 2].end > b.end) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = b;
}

static struct inflight heap_pop(struct sim *m)
{
	struct inflight top = m->heap[0], last = m->heap[--m->n_heap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n_heap)
			break;
		if (c + 1 < m->n_heap && m->heap[c + 1].end < m->heap[c].end)
			c++;
		if (m->heap[c].end >= last.end)
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->n_heap)
		m->heap[i] = last;
	return top;
}

static int fits(const struct sim *m, int sm, const struct kernel *k)
{
	return m->free_blocks[sm] && m->free_threads[sm] >= k->threads;
}

static void place(struct sim *m, int si, int sm)
{
	struct kernel *k = &m->st[si].k;
	uint64_t start = m->now, dur = k->dur_min + rnd(&m->rng) % (k->dur_span + 1);
	struct inflight b = { .start = start, .end = (start + dur) / TICK_NS * TICK_NS + TICK_NS,
			      .grid = k->grid_id, .block = k->next++, .sm = (uint16_t)sm,
			      .stream = (uint8_t)si };

	if (!k->first_start)
		k->first_start = start;
	m->free_blocks[sm]--;
	m->free_threads[sm] -= k->threads;
	heap_push(m, b);
}

/* Freed room on one SM goes to the highest-priority ready kernel; when its
 * block does not fit yet, the room is kept for it rather than handed to
 * lower-priority work. */
static void dispatch_sm(struct sim *m, int sm)
{
	for (int i = 0; i < N_STREAMS; i++) {
		int si = m->order[i];
		struct stream *s = &m->st[si];

		if (!s->active || s->k.next >= s->k.nblocks)
			continue;
		while (s->k.next < s->k.nblocks && fits(m, sm, &s->k))
			place(m, si, sm);
		return;
	}
}

/* Whether a kernel of higher priority than stream si still has blocks to
 * place: the room it waits for is not for si. */
static int outranked(const struct sim *m, int si)
{
	for (int i = 0; i < N_STREAMS && m->order[i] != si; i++) {
		const struct stream *s = &m->st[m->order[i]];

		if (s->active && s->k.next < s->k.nblocks &&
		    s->p->priority < m->st[si].p->priority)
			return 1;
	}
	return 0;
}

/* A kernel became visible: its blocks go round-robin over the SMs with room
 * (room left behind means no other ready kernel's block fitted there). */
static void dispatch_new(struct sim *m, int si)
{
	struct kernel *k = &m->st[si].k;
	int placed = 1;

	if (outranked(m, si))
		return;
	while (placed && k->next < k->nblocks) {
		placed = 0;
		for (int j = 0; j < SMS && k->next < k->nblocks; j++) {
			int sm = (m->rr + j) % SMS;

			if (fits(m, sm, k)) {
				place(m, si, sm);
				placed = 1;
			}
		}
	}
	m->rr = (m->rr + 37) % SMS;
}

/* Launches the stream's next kernel (submitted on the host, visible to the
 * dispatcher once the previous one ended). */
static void launch(struct sim *m, int si)
{
	struct stream *s = &m->st[si];
	const struct profile *p = s->p;
	const struct kind *kd = &kinds[p->mix[rnd(&m->rng) % p->n_mix]];
	struct kernel *k = &s->k;
	uint64_t grid;

	if (!m->budget)
		return;
	if (p->period_ns && !s->request_left) {
		/* next request: on its period, with jitter; late if the last ran over */
		s->request_at += p->period_ns - p->period_ns / 8 + rnd(&m->rng) % (p->period_ns / 4);
		if (s->request_at < s->prev_end)
			s->request_at = s->prev_end;
		s->request_left = p->per_request;
		s->request_start = s->request_at;
	}
	grid = between(&m->rng, kd->grid_min, kd->grid_max);
	if (p->grid_cap && grid > p->grid_cap)
		grid = p->grid_cap;
	if (grid > m->budget)
		grid = m->budget;
	m->budget -= grid;
	memset(k, 0, sizeof *k);
	k->grid_id = ++m->next_grid;
	k->nblocks = (uint32_t)grid;
	k->threads = kd->threads;
	k->dur_min = kd->dur_min;
	k->dur_span = kd->dur_max - kd->dur_min;
	k->name = kd->name;
	k->registers = 32 + (uint32_t)(rnd(&m->rng) % 4) * 32;
	if (p->period_ns) {
		uint32_t i = p->per_request - s->request_left--;

		/* the host enqueues the whole request at once, 4 us per launch */
		k->submitted = s->request_at + i * 4000;
	} else {
		/* training runs ahead of the GPU: launched long before it can start */
		k->submitted = s->prev_end > 200000 ? s->prev_end - 200000 : T0;
	}
	/* ready as the analysis defines it: submitted, and the previous kernel ended */
	k->visible = k->submitted > s->prev_end ? k->submitted : s->prev_end + TICK_NS;
	/* Sometimes the dispatcher goes on with lower-priority work for a while. */
	if (p->priority < 0 && rnd(&m->rng) % 64 == 0) {
		k->visible += between(&m->rng, 20000, 60000);
		m->delayed++;
	}
	s->pending = 1;
	m->kernels++;
}

static void kernel_done(struct sim *m, struct out *o, int si)
{
	struct stream *s = &m->st[si];

	out_kernel(o, s, ++m->correlation);
	if (s->p->period_ns && !s->request_left) {
		out_request(o, s);
		m->requests++;
	}
	s->active = 0;
	s->prev_end = s->k.last_end;
	launch(m, si);
}

static void complete(struct sim *m, struct out *o, const struct inflight *b)
{
	struct stream *s = &m->st[b->stream];
	struct kernel *k = &s->k;

	m->now = b->end;
	m->free_blocks[b->sm]++;
	m->free_threads[b->sm] += k->threads;
	out_block(o, b);
	m->emitted++;
	if (b->end > k->last_end)
		k->last_end = b->end;
	if (++k->done == k->nblocks)
		kernel_done(m, o, b->stream);
	dispatch_sm(m, b->sm);
}

/* The stream whose launched kernel becomes visible first, or -1. */
static int next_visible(const struct sim *m, uint64_t *at)
{
	int best = -1;

	for (int i = 0; i < N_STREAMS; i++) {
		const struct stream *s = &m->st[i];

		if (s->pending && (best < 0 || s->k.visible < *at)) {
			best = i;
			*at = s->k.visible;
		}
	}
	return best;
}

static void run(struct sim *m, struct out *o)
{
	for (;;) {
		uint64_t at = 0;
		int si = next_visible(m, &at);

		if (si >= 0 && (!m->n_heap || at <= m->heap[0].end)) {
			struct stream *s = &m->st[si];

			m->now = at;
			s->pending = 0;
			s->active = 1;
			if (s->k.nblocks == 0) {
				kernel_done(m, o, si);
				continue;
			}
			dispatch_new(m, si);
			continue;
		}
		if (!m->n_heap)
			break;
		struct inflight b = heap_pop(m);
		complete(m, o, &b);
	}
}

static int by_priority(const void *a, const void *b, void *ud)
{
	const struct sim *m = ud;
	int pa = m->st[*(const int *)a].p->priority, pb = m->st[*(const int *)b].p->priority;

	return pa != pb ? pa - pb : *(const int *)a - *(const int *)b;
}

static void sim_init(struct sim *m, uint64_t blocks, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	m->rng = seed;
	m->budget = blocks;
	for (int i = 0; i < SMS; i++) {
		m->free_threads[i] = SM_THREADS;
		m->free_blocks[i] = SM_BLOCKS;
	}
	for (int i = 0; i < N_STREAMS; i++) {
		m->st[i].p = &profiles[i];
		m->st[i].id = 13 + (uint32_t)i;
		m->st[i].prev_end = T0;
		m->st[i].request_at = T0 + rnd(&m->rng) % 1000000;
		m->order[i] = i;
	}
	qsort_r(m->order, N_STREAMS, sizeof m->order[0], by_priority, m);
}

static struct db_writer *open_writer(const char *path, uint32_t pid, int create)
{
	struct db_writer_options opt = {
		.path = path, .pid = pid, .ppid = pid ? 1 : 0, .create = create,
		.command = pid ? "python3 train_and_serve.py --synthetic" : NULL,
		.session_command = create ? "smtop record -- python3 train_and_serve.py --synthetic" : NULL,
	};
	struct db_writer *w;
	char err[512];

	if (db_writer_open(&w, &opt, err, sizeof err) != 0) {
		fprintf(stderr, "gen_session: %s\n", err);
		exit(1);
	}
	return w;
}

/* What `smtop record` does once the workload has exited: the end, then
 * (unless GEN_NO_SUMMARY is set, to make a session as older smtops left
 * them) what the library keeps: summary, occupancy, episodes. */
static void finalise(const char *path)
{
	struct db_writer *w = open_writer(path, 0, 0);
	char v[32];

	snprintf(v, sizeof v, "%d", CLOCK_OFFSET_NS);
	if (db_writer_set_meta(w, "clock_offset_ns", v) != 0 ||
	    db_writer_finish_session(w, 1, "exited with status 0") != 0) {
		fprintf(stderr, "gen_session: %s\n", db_writer_error(w));
		exit(1);
	}
	db_writer_close(w);
}

static double summarise(const char *path)
{
	char err[4096];
	double t = now_s();

	if (getenv("GEN_NO_SUMMARY"))
		return 0;
	if (library_finalize(path, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "gen_session: %s\n", err);
		exit(1);
	}
	return now_s() - t;
}

static void remove_session(const char *path)
{
	char side[4096];

	unlink(path);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
}

static uint64_t parse_count(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end == 'k' || *end == 'K')
		v *= 1e3;
	else if (*end == 'M')
		v *= 1e6;
	else if (*end == 'G')
		v *= 1e9;
	return (uint64_t)v;
}

int main(int argc, char **argv)
{
	struct sim m;
	struct out o = { .drain_at = T0 + DRAIN_NS, .commit_at = T0 + COMMIT_NS };
	struct rusage ru;
	struct stat sb;
	uint64_t blocks;
	double t0, wall;

	if (argc < 3) {
		fprintf(stderr, "usage: gen_session OUT BLOCKS [SEED]\n");
		return 2;
	}
	blocks = parse_count(argv[2]);
	remove_session(argv[1]);
	t0 = now_s();
	db_writer_close(open_writer(argv[1], 0, 1));
	o.w = open_writer(argv[1], PID, 0);
	sim_init(&m, blocks, argc > 3 ? strtoull(argv[3], NULL, 10) : 7);
	out_setup(&o, &m);
	for (int i = 0; i < N_STREAMS; i++)
		launch(&m, i);
	run(&m, &o);
	out_commit(&o);
	free(o.blocks);
	if (db_writer_set_process_status(o.w, "exited", NULL) != 0) {
		fprintf(stderr, "gen_session: %s\n", db_writer_error(o.w));
		return 1;
	}
	db_writer_close(o.w);
	finalise(argv[1]);
	wall = now_s() - t0;
	/* the writer's memory, before the summary's reading adds its own */
	getrusage(RUSAGE_SELF, &ru);
	double summary_s = summarise(argv[1]);
	if (stat(argv[1], &sb) != 0) {
		perror(argv[1]);
		return 1;
	}
	double gpu_s = (double)(m.now - T0) / 1e9;
	printf("blocks=%" PRIu64 " kernels=%" PRIu64 " requests=%" PRIu64 " delayed=%" PRIu64
	       " gpu_s=%.3f gpu_rate=%.1f wall_s=%.2f write_s=%.2f ingest=%.2f ingest_cpu=%.2f"
	       " bytes=%lld bytes_per_block=%.2f rss_mb=%.1f summary_s=%.2f\n",
	       m.emitted, m.kernels, m.requests, m.delayed, gpu_s, (double)m.emitted / gpu_s / 1e6,
	       wall, o.write_s, (double)m.emitted / o.write_s / 1e6,
	       (double)m.emitted / o.write_cpu_s / 1e6, (long long)sb.st_size,
	       (double)sb.st_size / (double)m.emitted, (double)ru.ru_maxrss / 1024.0, summary_s);
	free(m.heap);
	free(o.recs);
	return 0;
}
