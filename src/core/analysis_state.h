/* The analysis' own state, shared by its files (src/core/analysis*.c) and
 * by no one else: callers see struct analysis only through
 * src/core/analysis.h. */
#ifndef SMTOP_ANALYSIS_STATE_H
#define SMTOP_ANALYSIS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/analysis.h"
#include "src/core/clusters.h"
#include "src/core/profile.h"
#include "src/core/residency.h"
#include "src/core/u64map.h"

#define NB ANALYSIS_PROFILE_BINS
_Static_assert(ANALYSIS_PROFILE_BINS == PROFILE_BINS, "the analysis' profiles are src/core/profile.h's");
#define NKINDS (SMTOP_EV_TIMESLICE + 1)

/* The SMs a grid's blocks ran on, one bit each.  A block on an SM past
 * SM_MASK_BITS sets its grid's sms_far: its SMs are not told apart. */
#define SM_MASK_BITS 256
#define SM_MASK_WORDS (SM_MASK_BITS / 64)
struct smmask {
	uint64_t w[SM_MASK_WORDS];
};

/* What a grid's data pointer holds. */
enum grid_form {
	GRID_EXACT,             /* struct span[n], while n <= ANALYSIS_EXACT_BLOCKS */
	GRID_PROFILE,           /* struct profile, while blocks come */
	GRID_PACKED,            /* the profile packed (profile_pack) at offset data in packs */
};

struct grid {
	uint64_t grid_id;
	uint64_t first_start, last_start, last_end, block_time;
	uint64_t first_end;     /* earliest block end: a later start means blocks waited */
	void *data;             /* as form says */
	uint32_t pid, device_id;
	uint32_t n;
	int32_t kernel;         /* -1 until its kernel record arrives */
	int32_t dev;            /* index into devices */
	uint8_t form;           /* enum grid_form */
	uint8_t exact_cap;
	uint16_t act;           /* index into its device's activities */
	uint16_t most_per_sm;   /* most of its blocks resident on one SM at once */
	uint8_t most_queued;    /* in most_changed */
	uint8_t shared;         /* joined by several kernels: a graph replayed
				 * runs its nodes with the same grid ids, and
				 * blocks carry nothing else to tell them apart */
	uint8_t sms_far;        /* a block ran on an SM past SM_MASK_BITS */
	uint8_t end_bound;      /* a block's end is an upper bound
				 * (SMTOP_BLOCK_END_BOUND, --sm entry) */
	struct smmask sms;      /* the SMs its blocks ran on */
};

/* A kernel as verdicts need it; pid and context are its stream's. */
struct kern {
	uint64_t start, end;
	uint64_t sub;           /* submission: CUPTI's submitted, else queued; 0 unknown */
	uint64_t grid_id;
	uint64_t graph_node;    /* its node of the graph launched, 0 none */
	const char *name;
	uint32_t correlation_id, stream_id, device_id;
	int32_t stream, grid;
	int32_t same_grid;      /* the next kernel of its process, device and grid
				 * id (another launch of a graph), -1 none */
	uint32_t pos : 29;      /* index in its stream's start order */
	uint32_t is_graph : 1;  /* launched from a CUDA graph */
	uint32_t decided : 1;
	uint32_t sub_queued : 1; /* sub is CUPTI's queued: the launch call's end comes first */
	uint16_t threads;       /* per block, 0 unknown (at most 65535: more is damage) */
	uint16_t registers;     /* per thread, 0 unknown */
	uint32_t smem;          /* static + dynamic bytes per block */
};

/* A copy or memset, as stream order needs it. */
struct memop {
	uint64_t start, end;
	uint32_t pid, ctx, dev, sid, corr;
	uint32_t kind;          /* SMTOP_READY_AFTER_MEMCPY or _MEMSET */
	uint64_t graph_node;    /* its node of the graph launched, 0 none */
};

/* An edge of an instantiated graph (struct smtop_graph_dep). */
struct gdep {
	uint64_t node, dep;     /* dep 0: node has no dependency */
	uint32_t pid;
	int32_t dep_type;       /* CUgraphNodeType, -1 none */
};

/* A cudaStreamWaitEvent on a stream (sync records carry no device: a
 * context belongs to one). */
struct swait {
	uint64_t end;
	uint32_t pid, ctx, sid, corr;
	uint32_t event_id;      /* SMTOP_SYNC_NONE: not known */
};

/* A cudaEventRecord: what a wait on its event waits for. */
struct cevent {
	uint64_t device_ts;     /* 0: not collected */
	uint32_t pid, ctx, dev, sid, corr, event_id;
};

/* The end of a launch call, by pid and correlation id; end 0: empty slot. */
struct launch {
	uint64_t end;
	uint32_t pid, corr;
	uint32_t stream_id;     /* a graph launch's stream, if has_stream */
	uint32_t has_stream;
};

struct stream {
	struct smtop_stream s;
	int32_t dev;            /* index into devices, -1 until a kernel comes */
	int32_t *kernels;
	size_t n_kernels, cap_kernels;
	int sorted;
	uint64_t *waits;
	size_t n_waits, cap_waits;
	int waits_sorted;
	size_t waits_unknown;
	size_t events[NKINDS];
	uint64_t delay[NKINDS];
};

/* A kernel's resident extent, for finding culprits by time. */
struct ext {
	uint64_t s, e;
	int32_t k;
};

/* A process's block events (starts and ends) on one device, clustered by
 * ANALYSIS_SLICE_GAP_NS: what the time-slicing test reads. */
struct activity {
	uint32_t pid;
	struct clusters ev;
};

struct device {
	uint32_t id;
	uint32_t sm_count;      /* 0 unless analysis_add_device told us */
	uint32_t sm_seen;       /* highest SM index seen + 1 */
	uint64_t t_min, t_max;
	struct ext *order;      /* ended kernels sorted by start */
	size_t n_order, cap_order;
	uint64_t maxlen;
	struct ext *running;    /* kernels still running at the watermark */
	size_t n_running, cap_running;
	struct activity *acts;  /* per process */
	size_t n_acts, cap_acts;
	struct smtop_device rec; /* the device record, strings dropped; has_rec 0: none */
	int has_rec;
	struct residency res;   /* blocks open on each SM, for grids' most_per_sm */
};

struct request {
	uint32_t pid, stream_id;
	uint64_t turnaround;
};

/* A context (pid, device, context id): whether it is green (its kernels
 * run on a share of the SMs, analysis_add_context), and for each SM the
 * earliest end of a kernel of it that ran a block there (UINT64_MAX:
 * none), kept for every context, since whether it is green may be told
 * after its kernels ended (src/core/analysis_partition.c). */
struct context {
	uint32_t pid, dev, ctx;
	int green;
	uint64_t first_end[SM_MASK_BITS];
};

struct slot {
	uint64_t k1, k2;
	int32_t val;
};

/* (k1, k2) -> val: the entries in order, a hash of the keys to them. */
struct map {
	struct slot *slots;
	size_t cap, n;
	struct u64map idx;
};

/* A hash of indices into kerns or grids, keyed by what the entry holds:
 * the hash of the key and the index a slot, no copy of the key. */
struct imap {
	struct u64map idx;
};

struct vec_event {
	struct smtop_event *v;
	size_t n, cap;
};

/* The kernels, the streams they were launched into and the indexes that
 * find them: what every part reads a kernel through. */
struct kernel_table {
	struct kern *kerns;
	size_t n_kerns, cap_kerns;
	struct stream *streams;
	size_t n_streams, cap_streams;
	size_t *stream_order;
	struct imap kern_map;
	struct imap gnode_map;  /* graph kernels by process, launch and node */
	struct map stream_map;
	size_t kernels_with_blocks_cache;
};

/* The grids, their packed profiles and what is queued about them: the
 * state of src/core/analysis_grids.c. */
struct grid_table {
	struct grid *grids;
	size_t n_grids, cap_grids;
	struct imap grid_map;
	int32_t last_grid;      /* cache: blocks come in runs of one grid */
	uint64_t blocks;
	/* grids whose profile is unpacked, and when to look at them again */
	int32_t *hot;
	size_t n_hot, cap_hot;
	uint64_t blocks_at_sweep;
	/* how close block starts cluster (analysis_grids_init) */
	uint64_t start_link;
	uint64_t block_end_max; /* latest block end added */
	/* packed profiles, one after the other (no allocation of their own);
	 * those unpacked again leave dead bytes, dropped when they are many */
	uint8_t *packs;
	size_t packs_len, packs_cap, packs_dead;
	/* grids whose most_per_sm rose since analysis_most_changed last looked */
	int32_t *most_changed;
	size_t n_most_changed, cap_most_changed;
};

struct device_table {
	struct device *devs;
	size_t n_devs, cap_devs;
};

/* Contexts by (pid, context; device), and the kernels whose SMs have not
 * reached their context yet (they still run): the state of
 * src/core/analysis_partition.c. */
struct context_table {
	struct context *ctxs;
	size_t n_ctxs, cap_ctxs;
	struct map ctx_map;
	int32_t *unfolded;
	size_t n_unfolded, cap_unfolded;
};

/* What ready times read besides kernels, sorted at update. */
struct ready_inputs {
	struct memop *memops;
	size_t n_memops, cap_memops;
	int memops_sorted;
	/* copies and memsets without times (--sm all): only their place on
	 * their stream is known */
	struct memop *untimed;
	size_t n_untimed, cap_untimed;
	int untimed_sorted;
	struct swait *swaits;
	size_t n_swaits, cap_swaits;
	int swaits_sorted;
	struct cevent *cevents;
	size_t n_cevents, cap_cevents;
	int cevents_sorted;
	/* graph edges, and the timed copies and memsets of graph launches */
	struct gdep *gdeps;
	size_t n_gdeps, cap_gdeps;
	int gdeps_sorted;
	struct memop *gmemops;
	size_t n_gmemops, cap_gmemops;
	int gmemops_sorted;
	struct launch *launches; /* in the order first seen */
	size_t n_launches, cap_launches;
	struct u64map launch_idx; /* pid << 32 | correlation id -> launch */
};

/* The kernels still to judge and the episodes judged so far. */
struct verdict_state {
	int32_t *undecided;
	size_t n_undecided, cap_undecided;
	struct vec_event events, prov;
	int events_sorted;
};

/* The analysis, in tables of its own: each part works on the tables it
 * needs rather than on the whole. */
struct analysis {
	struct analysis_params p;
	uint64_t watermark;
	struct kernel_table kt;
	struct grid_table gt;
	struct device_table dt;
	struct context_table ct;
	struct ready_inputs ri;
	struct verdict_state vs;
	struct request *reqs;
	size_t n_reqs, cap_reqs;
};


/* The kernels a verdict weighs as culprits (the time-slicing test reads
 * them too). */
struct cand {
	int32_t k;
	uint64_t overlap;
	uint32_t blocks;
	int from_blocks;
};

struct cands {
	struct cand *v;
	size_t n, cap;
	int incomplete;
};

static inline uint64_t umin(uint64_t x, uint64_t y) { return x < y ? x : y; }
static inline uint64_t umax(uint64_t x, uint64_t y) { return x > y ? x : y; }

static inline uint64_t overlap(uint64_t s, uint64_t e, uint64_t a, uint64_t b)
{
	uint64_t lo = umax(s, a), hi = umin(e, b);
	return hi > lo ? hi - lo : 0;
}

/* The key of entry i of an index map (struct imap), read from the table
 * the map indexes (a struct kernel_table or grid_table). */
typedef void (*imap_key_fn)(const void *table, int32_t i, uint64_t *k1, uint64_t *k2);

void analysis_state_map_free(struct map *m);

int32_t analysis_state_map_get(const struct map *m, uint64_t k1, uint64_t k2);

int analysis_state_map_put(struct map *m, uint64_t k1, uint64_t k2, int32_t val);

int32_t analysis_state_imap_get(const void *table, const struct imap *m, imap_key_fn key,
				uint64_t k1, uint64_t k2);

/* Adds entry v, whose key key() reads from the entry itself. */
int analysis_state_imap_put(const void *table, struct imap *m, imap_key_fn key, int32_t v);

const struct launch *analysis_state_launch_find(const struct ready_inputs *ri, uint32_t pid,
						uint32_t corr);

int analysis_state_launch_put(struct ready_inputs *ri, const struct launch *x);

void analysis_state_events_clear(struct vec_event *v);

#endif
