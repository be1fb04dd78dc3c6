/* The viewer's model: what the screen needs, built incrementally from plain
 * records, with no I/O.  See docs/ui.md ("The model") for the design.
 *
 * Occupancy lives in a pyramid of time bins per SM: level k has bins of
 * MODEL_BASE_NS * 4^k and keeps the most recent MODEL_RING_BINS bins of each
 * SM (a ring), so memory is bounded (at most about 45 MB for 132 SMs; a ring
 * is only as long as its data's span needs, so a session of seconds keeps
 * about half of that) and a frame reads at most a few bins per cell whatever
 * the session size.  Blocks are binned
 * in batches (src/core/binning.c), on a thread pool when one is set.  The coarsest level
 * spans about 19 hours, so it always covers the whole session; fine levels
 * cover only the recent past.  A window finer than what the rings still hold
 * is drawn from the detail level, which the loader fills on request with the
 * blocks of the visible window (model_detail_*).
 *
 * Feeding order: model_set_device first, then streams, kernels, blocks,
 * events and NVTX ranges in any order; call model_flush after each batch
 * (it sorts lanes, computes ready times, and resolves blocks that arrived
 * before their kernel). */
#ifndef SMTOP_MODEL_H
#define SMTOP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/progress.h"
#include "src/core/records.h"
#include "src/core/strmap.h"
#include "src/core/u64map.h"

#define MODEL_BASE_NS 4000ULL          /* finest bin: 4 us (1 us bins cost 3x the build time) */
#define MODEL_LEVELS 13                /* 4 us .. 4 us * 4^12 (67 s) */
#define MODEL_RING_BINS 1024           /* bins kept per SM and level */
#define MODEL_DETAIL_BINS 2048         /* bins of the detail window */
#define MODEL_MAX_STREAMS 64           /* colour/letter slots; more share "+" */
#define MODEL_PENDING_MAX (1u << 20)   /* blocks waiting for their kernel */
#define MODEL_NO_STREAM 0xffff
#define MODEL_ROW_PAD 3                /* bins between SM rows */
#define MODEL_GRID_SEEN 256            /* recent grids remembered for placing blocks */
#define MODEL_MAX_SMS 1024             /* more is damaged data (bins: ~350 MB at this count) */

/* A kernel's launch configuration: few of them per session, so kernels
 * share them (model_kernel_shape). */
struct model_shape {
	int32_t grid[3], block[3];
	uint32_t registers, static_smem, dynamic_smem;
};

/* One per kernel of the session: 40 bytes, the bulk of a long session's
 * kernel memory (docs/performance.md, "Memory").  Times
 * other than start are 32-bit offsets from it, the name an index into the
 * interned names.  A kernel whose values do not fit (a kernel of seconds, a
 * grid id past 32 bits, damaged times) keeps them whole in the model's wide
 * table instead (MODEL_KERNEL_WIDE; end_off then holds its index).  Read
 * the fields through the model_kernel_* accessors below.  What only the
 * details pane shows is not kept: the SMs its blocks ran on and its
 * correlation id are read from the session for the kernel it shows
 * (model_focus), the most of its blocks on one SM is kept beside the
 * kernels for those that have it. */
#define MODEL_OFF_NONE INT32_MIN       /* an offset's "unknown" (the time is 0) */
#define MODEL_KERNEL_WIDE 0x8000u      /* in shape: values in m->wide[end_off] */
#define MODEL_KERNEL_SHAPES (1u << 23) /* shapes a compact kernel can name */
#define MODEL_KERNEL_BLOCKS ((1u << 24) - 1) /* blocks a compact kernel counts */
struct model_kernel {
	uint64_t start;
	uint32_t grid;                  /* grid id */
	uint32_t end_off;               /* end - start */
	int32_t submitted_off;          /* CUPTI latency timestamp - start */
	int32_t first_off, last_off;    /* first block start, last block end - start;
					 * MODEL_OFF_NONE: no block seen */
	uint32_t blocks_seen : 24;
	uint32_t shape_hi : 8;          /* shape index bits 15-22: a session of varying
					 * grids has tens of thousands of shapes */
	uint32_t name;                  /* index into the model's names */
	uint16_t stream;                /* index into model streams: its pid, device,
					 * context and stream id are the kernel's */
	uint16_t shape;                 /* index into model shapes (bits 0-14), and
					 * MODEL_KERNEL_WIDE */
};

/* The kernels of one process and device by grid id (model_find_kernel):
 * grid ids count up per device, so nearly all fit a table from the first
 * one's, 4 bytes a kernel; the others go to the hash. */
struct model_grid_table {
	uint32_t pid, device_id;
	uint64_t lo;                    /* grid id of slot[0] */
	uint32_t *slot;                 /* kernel index + 1, 0 none */
	size_t n, cap, used;            /* slots [0, n) in use, used of them filled */
};

/* kernel index -> a 32-bit value, for the few kernels that have one. */
struct model_map {
	uint64_t *slots;                /* (key + 1) << 32 | value; 0 empty */
	size_t cap, n;
};

/* A kernel's values at full width, when the compact form cannot hold them. */
struct model_kernel_wide {
	uint64_t grid_id, end, submitted, first_block, last_block, blocks_seen;
	uint32_t shape;
};

struct model_stream {
	uint32_t pid, device_id, context_id, stream_id;
	int32_t priority;               /* SMTOP_PRIORITY_UNKNOWN if not known */
	int rank;                       /* order by priority then id: letter and colour */
	char letter;                    /* 'A' + rank, '+' past 26 */
	uint32_t *kernels;              /* indices into model kernels, by start */
	size_t n_kernels, cap_kernels;
	int unsorted;
	int will_run;                   /* replay: ranked as busy before its first kernel */
	uint64_t blocks;
	uint64_t busy_ns;
};

struct model_event {
	struct smtop_event ev;          /* copy; strings owned by the model;
					 * ev.culprits NULL: culprits_held of the
					 * ev.n_culprits are in the model's culprits
					 * from culprits_at (model_event_culprit) */
	int32_t kernel;                 /* victim kernel, -1 if not (yet) known */
	uint32_t culprits_held;         /* all, or the heaviest when m->culprits_stored */
	uint32_t culprits_at;
	uint64_t culprit_streams;       /* bit per model stream index (< 64) */
};

struct model_nvtx {
	uint64_t start, end;
	uint32_t pid, tid;
	int32_t color;
	char *text;
	int dropped;                    /* smtop's range of launches whose blocks were dropped */
};

/* One bin: resident thread-ns of everyone (exact: integer sums do not depend
 * on the order blocks came in) and of the two heaviest streams. */
struct model_bin {
	uint64_t occ;
	uint64_t top_amt;
	float second_amt;
	uint16_t top, second;
};

struct model_level {
	uint64_t width;                 /* ns per bin */
	int64_t hi;                     /* highest absolute bin index held */
	int64_t lo;                     /* detail level only: first bin index */
	int used;                       /* received data since reset */
	int ring;                       /* 1: ring of the last span bins; 0: fixed [lo, lo+n) */
	size_t span;                    /* bins per SM the level stands for (rings:
					 * MODEL_RING_BINS, (hi - span, hi]) */
	size_t n;                       /* bins per SM in memory: the newest n of the span;
					 * a ring grows as its data spans more bins, and
					 * the older bins of its span are empty until then */
	size_t stride;                  /* n plus padding: rows of SMs off one cache set */
	int64_t first;                  /* rings: lowest bin index data was staged for */
	struct model_bin *bins;         /* n_sm * stride */
	struct model_bin *own;          /* a ring below its full size: its own storage */
};

/* A cell of the SM timeline: one group of SMs over one column of time. */
struct model_cell {
	int stream;                     /* dominant model stream, -1 idle */
	int second;                     /* runner-up stream, -1 none */
	float fullness;                 /* 0..1 (or more when the limit is a guess) */
	float share;                    /* dominant's part of the resident work */
};

struct binning;
struct pool;

/* What the details pane shows of the kernel it shows beyond the model's
 * fields, read from the session when that kernel is selected (ui_source
 * focus): kept for that one kernel, not for every kernel of the session. */
struct model_focus {
	long kernel;                    /* the kernel read, -1 none */
	uint64_t blocks_seen;           /* its blocks then: read again once they grow */
	int sms_known;                  /* 0: the read failed */
	uint32_t sms;                   /* SMs its blocks ran on */
	uint32_t correlation_id;        /* its kernel record's; 0 unknown */
	uint32_t most_per_sm;           /* most of its blocks on one SM at once, counted
					 * from them as the analysis counts; 0 unknown */
	long event;                     /* the episode whose culprits are below, -1 */
	struct smtop_culprit *culprits; /* all of them, heaviest first; names owned */
	size_t n_culprits;
};

/* Blocks of one grid waiting for their kernel record (or the device). */
struct model_pending {
	uint32_t pid, context_id, device_id;
	uint64_t grid_id;
	struct smtop_block *blocks;
	size_t n, cap;
};

/* model.ends_bounded: a session whose block ends are upper bounds, and one
 * whose kernels built with the block tracer header timed their own
 * (--sm entry's marks): bits, for views of several sessions. */
#define MODEL_ENDS_BOUND 1
#define MODEL_ENDS_BOUND_BUT_MARKED 2

struct model {
	int has_device;
	struct smtop_device dev;        /* name points to dev_name */
	char *dev_name;
	int one_gpu;                    /* draw only dev's blocks and episodes (smtop
					 * sessions, whose device ids agree everywhere) */
	uint64_t gpus_used;             /* bit (device id % 64) of each GPU that ran a kernel */
	uint32_t n_gpus_used;
	uint32_t n_sm;
	int64_t origin;                 /* ns; bins count from here */
	int has_origin;
	uint64_t t_first, t_last;       /* over everything added; 0 = nothing */
	uint64_t t_block_last;          /* the latest block start added; 0 = none */

	struct model_stream *streams;
	size_t n_streams, cap_streams;
	uint32_t *stream_order;         /* rank -> stream index */

	struct model_kernel *kernels;
	size_t n_kernels, cap_kernels;
	struct model_kernel_wide *wide; /* kernels flagged MODEL_KERNEL_WIDE */
	size_t n_wide, cap_wide;
	struct model_grid_table *gtab;  /* by process and device */
	size_t n_gtab, cap_gtab;
	struct u64map khash;            /* khash_key -> kernel index: the kernels
					 * no grid table holds */
	struct model_name *names;       /* interned kernel names, by index */
	size_t n_names, cap_names;
	struct strmap nhash;            /* name -> its index, and the name's copy */
	struct model_shape *shapes;     /* interned launch shapes */
	size_t n_shapes, cap_shapes;
	struct u64map shash;            /* shape's hash -> shape index */

	struct model_event *events;
	size_t n_events, cap_events;
	struct smtop_culprit *culprits; /* the events' culprits, one array for all */
	size_t n_culprits, cap_culprits;
	struct model_map kevent;        /* victim kernel -> its event */
	struct model_map most;          /* kernel -> most of its blocks on one SM at once
					 * (model_kernel_set_most_per_sm) */
	int events_unsorted;
	uint64_t max_wait_ns;
	int culprits_stored;            /* set by the loader: episodes added from now on
					 * keep only their heaviest culprit; the rest
					 * stay in the session file, read for the one
					 * shown (model_focus) */

	struct model_nvtx *nvtx;
	size_t n_nvtx, cap_nvtx;
	int nvtx_unsorted;
	uint64_t max_nvtx_ns;
	size_t n_dropped_ranges;        /* nvtx with dropped set */

	struct model_bin *bins;         /* storage of all levels */
	struct binning *binning;        /* blocks placed but not yet in the bins */
	struct pool *pool;              /* threads that bin them; NULL: the caller's */
	uint32_t last_pid, last_dev;    /* the kernel of the last block placed */
	uint64_t last_grid;
	long last_kernel;
	struct model_grid_seen {        /* the kernels of recent grids, by grid id: a
					 * chunk interleaves a few kernels' runs */
		uint64_t grid;
		uint32_t pid, device_id;
		long kernel;            /* -1: empty */
	} grid_seen[MODEL_GRID_SEEN];
	struct model_level levels[MODEL_LEVELS];
	int rings_off;                  /* the finest rings_off levels are not kept
					 * (model_rings_for_span) */
	struct model_level detail;
	uint64_t detail_t0, detail_t1;
	int detail_ready;
	/* the whole session's coarse levels from the file (src/core/occupancy.c):
	 * while summary_on, frames draw them instead of the rings, which fill
	 * as the blocks are read */
	struct model_level summary[MODEL_LEVELS];
	int n_summary;                  /* finest first */
	int summary_on;

	struct model_pending *pending;  /* by grid; a hash finds a grid's */
	size_t n_pending_grids, cap_pending;
	struct u64map phash;            /* khash_key -> pending index */
	size_t n_pending;               /* blocks waiting, all grids */
	size_t pending_tried_kernels;   /* n_kernels at the last retry */
	int pending_tried_device;

	double peak_threads;            /* highest mean resident threads of a finest bin */
	uint64_t blocks, blocks_orphan, blocks_bad_sm;
	uint64_t drops;                 /* set by the loader: collector drops */
	int drops_known;                /* 0: shown as N/A (an nsys export has none) */
	int live;                       /* set by the loader */
	int trimmed;                    /* set by the loader: a trim cut the session */
	int regs_maybe_patched;         /* set by the loader: --sm all, registers from the
					 * driver under the Compute Sanitizer */
	int ends_bounded;               /* set by the loader: --sm entry, block ends are
					 * upper bounds (MODEL_ENDS_*) */
	int loading;                    /* set by the loader: more is waiting than it read */
	struct progress load;           /* set by the loader: how far a finished session's
					 * reading is (total 0: not counted) */
	struct model_focus focus;       /* set by the loader on request */
	uint64_t lag_ns;                /* set by the loader: now - newest record */
	uint64_t threshold_ns;          /* blocking threshold the analysis used */
	const char *session_label;      /* set by the loader, not owned */
	uint64_t generation;            /* bumped on every change */
};

/* Returns 0 or -1 (out of memory). */
int model_init(struct model *m);
void model_free(struct model *m);

int model_set_device(struct model *m, const struct smtop_device *d);
int model_add_stream(struct model *m, const struct smtop_stream *s);
int model_add_kernel(struct model *m, const struct smtop_kernel *k);
/* Counts a GPU that runs kernels (model_add_kernel does; a replay tells them
 * all up front): the header says "GPU d of N" once N > 1. */
void model_note_gpu(struct model *m, uint32_t device_id);
/* b on CUPTI time; pid and context name the process whose gridId it is.
 * Counts and kernel fields change at once; the bins at the next model_flush
 * (or when a batch of BINNING_STAGE_MAX blocks is waiting). */
int model_add_block(struct model *m, const struct smtop_block *b, uint32_t pid,
		    uint32_t context_id);
/* The same for n blocks of one process and context (a decoded chunk). */
int model_add_blocks(struct model *m, const struct smtop_block *b, size_t n, uint32_t pid,
		     uint32_t context_id);
/* Bins on p's threads from now on (p outlives m, or is replaced first);
 * NULL bins on the caller's thread.  The bins do not depend on it. */
void model_set_pool(struct model *m, struct pool *p);
int model_add_event(struct model *m, const struct smtop_event *e);
int model_add_nvtx(struct model *m, const struct smtop_nvtx *n);
/* Sorts, computes ready times, links events, resolves pending blocks, bins
 * the blocks added since the last flush. */
int model_flush(struct model *m);
/* Gives back what only the binning of new blocks needs (its stage and
 * scratch, some 10 MB while loading), after a flush, once a session has been
 * read to its end; blocks added later make them again. */
void model_trim(struct model *m);

/* Replay (db/session/replay_feed.c) shows a session cut at a clock that moves on:
 * a block is added cut at the clock (model_add_block), then each later part
 * of it through model_extend_block, which adds its occupancy without
 * counting the block again; a running kernel's end and a waiting victim's
 * start grow the same way.  Both only ever grow. */
int model_extend_block(struct model *m, const struct smtop_block *b, uint32_t pid);
void model_kernel_set_end(struct model *m, size_t i, uint64_t end);
/* The stream runs kernels later on: its letter is kept from the start. */
int model_stream_will_run(struct model *m, uint32_t pid, uint32_t device_id, uint32_t context_id,
			  uint32_t stream_id);
void model_event_set_start(struct model *m, size_t i, uint64_t start);

/* The detail window: bins of (t1 - t0) / MODEL_DETAIL_BINS for [t0, t1),
 * filled by the loader with the blocks of that window. */
void model_detail_begin(struct model *m, uint64_t t0, uint64_t t1);
int model_detail_add_block(struct model *m, const struct smtop_block *b, uint32_t pid);
void model_detail_end(struct model *m);
/* 1 when a window of col_ns per column would be drawn from bins more than
 * two columns wide: the loader should fill the detail level for [t0, t1). */
int model_wants_detail(const struct model *m, uint64_t t0, uint64_t t1, uint64_t col_ns);

/* A finished session of span_ns is read from its start: a ring whose span
 * is below a quarter of it would only ever hold its last moments, while
 * windows anywhere else are drawn from the detail level already.  Those
 * rings are not kept (not binned, no memory; 18 MiB at 1 G blocks): their
 * windows are drawn from the detail level too.  Call before any block. */
void model_rings_for_span(struct model *m, uint64_t span_ns);

/* Gives back the summary levels: frames draw the rings again. */
void model_summary_drop(struct model *m);

/* Samples SMs [sm, sm + n_sm) over ncols columns of col_ns from t0. */
void model_sample_sms(const struct model *m, uint32_t sm, uint32_t n_sm, uint64_t t0,
		      uint64_t col_ns, size_t ncols, struct model_cell *out);
/* Bin idx (absolute bin index) of SM sm in level l, NULL when the level
 * holds no such bin (outside its span) or knows it empty (a ring's bins
 * older than those in memory). */
const struct model_bin *model_level_bin(const struct model_level *l, uint32_t sm, int64_t idx);
/* Width in ns of the bins a window would be drawn from. */
uint64_t model_resolution(const struct model *m, uint64_t t0, uint64_t t1, uint64_t col_ns);

/* Kernel lanes: index in s->kernels of the last kernel starting before t, -1. */
/* k's grid, block, registers and shared memory. */
const struct model_shape *model_kernel_shape(const struct model *m, const struct model_kernel *k);
/* k's values, whole (0 where unknown, as in struct smtop_kernel). */
uint64_t model_kernel_grid(const struct model *m, const struct model_kernel *k);
uint64_t model_kernel_end(const struct model *m, const struct model_kernel *k);
uint64_t model_kernel_submitted(const struct model *m, const struct model_kernel *k);
uint64_t model_kernel_first_block(const struct model *m, const struct model_kernel *k);
uint64_t model_kernel_last_block(const struct model *m, const struct model_kernel *k);
uint64_t model_kernel_blocks_seen(const struct model *m, const struct model_kernel *k);
/* Threads per block (from its shape); 0 unknown. */
uint32_t model_kernel_threads(const struct model *m, const struct model_kernel *k);
const char *model_kernel_name(const struct model *m, const struct model_kernel *k);
const char *model_kernel_short_name(const struct model *m, const struct model_kernel *k);
/* The episode k is the victim of, -1 if none. */
long model_kernel_event(const struct model *m, const struct model_kernel *k);
/* Most of kernel i's blocks resident on one SM at once (the loader sets it
 * from the analysis); 0 unknown.  Set returns 0, or -1 out of memory. */
uint32_t model_kernel_most_per_sm(const struct model *m, const struct model_kernel *k);
int model_kernel_set_most_per_sm(struct model *m, size_t i, uint32_t most);
/* When k became ready: its episode's ready time, else the later of its
 * submission and the end of the kernel before it on its stream; 0 unknown. */
uint64_t model_kernel_ready(const struct model *m, const struct model_kernel *k);
/* The same for the kernel at position i of stream's lane (no search). */
uint64_t model_stream_kernel_ready(const struct model *m, uint32_t stream, size_t i);
/* From ready to its first block (or start); 0 when either is unknown. */
uint64_t model_kernel_wait(const struct model *m, const struct model_kernel *k);

long model_stream_kernel_before(const struct model *m, uint32_t stream, uint64_t t);
const struct model_kernel *model_stream_kernel(const struct model *m, uint32_t stream,
					       size_t i);
const struct model_stream *model_stream_by_rank(const struct model *m, size_t rank);
long model_find_stream(const struct model *m, uint32_t pid, uint32_t device_id,
		       uint32_t context_id, uint32_t stream_id);
long model_find_kernel(const struct model *m, uint32_t pid, uint32_t device_id,
		       uint64_t grid_id);

/* Culprit i of event, heaviest first: the event's own, else the focus'
 * when it read them; NULL when not held (read on request). */
const struct smtop_culprit *model_event_culprit(const struct model *m, size_t event, size_t i);
/* Whether event's culprits past its heaviest are to be read (and are not). */
int model_event_wants_culprits(const struct model *m, size_t event);
/* Hands over the culprits read for event (the focus owns them, and their
 * names; n may be 0). */
void model_focus_culprits(struct model *m, long event, struct smtop_culprit *c, size_t n);
/* Sets the focus' kernel k, with its blocks then, its SMs (known 0: N/A)
 * and its correlation id (0 unknown). */
void model_focus_kernel(struct model *m, long k, uint64_t blocks_seen, int known, uint32_t sms,
			uint32_t correlation_id);

/* Events sorted by ready time: first with ready >= t (n_events if none). */
size_t model_event_at(const struct model *m, uint64_t t);
/* NVTX ranges sorted by start: first that may overlap t. */
size_t model_nvtx_from(const struct model *m, uint64_t t);

/* Bytes the model holds, by what for (from its counts, not from malloc). */
struct model_memory {
	size_t rings;                   /* occupancy rings in memory */
	size_t detail;                  /* the detail level, once filled */
	size_t summary;                 /* the file's summary levels, while drawn */
	size_t stage;                   /* blocks staged for binning, sweep scratch */
	size_t stage_peak;              /* the most the stage took (trimmed since) */
	size_t kernels;                 /* kernels, their hash, lanes, names */
	size_t events;                  /* events with culprits, NVTX ranges */
	size_t pending;                 /* blocks waiting for their kernel */
	size_t total;
};
void model_memory(const struct model *m, struct model_memory *out);

/* Fullness reference: max threads per SM when known, else the peak seen. */
double model_sm_capacity(const struct model *m);
const char *model_event_kind_name(enum smtop_event_kind k);
/* The kind as the details pane titles it: "INVERSION (resident, possible)"
 * for an episode that rests on bounded block ends. */
void model_event_kind_label(const struct smtop_event *e, char *buf, size_t len);

#endif
