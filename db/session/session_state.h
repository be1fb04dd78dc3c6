/* What the session's files share beyond db/session/session.h: the
 * loader's batches, held kernels and queue of work for the analysis, and
 * the helpers of db/session/session.c (opening, reading, feeding the
 * model), session_loader.c (the analysis' thread and its queue),
 * session_blocks.c (reading and decoding blocks in batches) and
 * session_focus.c (one kernel's or one window's blocks on demand).
 * Private to them. */
#ifndef SMTOP_SRC_SESSION_SESSION_STATE_H
#define SMTOP_SRC_SESSION_SESSION_STATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "db/session/session.h"

/* Kernel records reach the file up to a flush period late and out of order
 * across streams; a live session's verdicts wait this long behind the data. */
#define SESSION_LIVE_SLACK_NS 500000000ull
/* Blocks read and decoded together: enough to keep the pool busy, few enough
 * that a poll with a budget looks at the clock often and that the batches in
 * flight stay small (docs/performance.md, "Loader"). */
#define SESSION_BATCH_BLOCKS (1u << 15)
/* Batches between the reader and the analysis: how far the analysis may fall
 * behind before the reader waits for it. */
#define SESSION_BATCHES 3
#define SESSION_OPS 64
/* A finished session shown before its blocks reads its kernels this many a
 * poll, so that the first frame does not wait for all of them. */
#define SESSION_KERNEL_SLICE 32768
/* Updates of the analysis while a finished session is read with a budget. */
#define SESSION_UPDATES 32
/* Held kernels past this are released through an index by start. */
#define SESSION_HELD_INDEXED 65536

/* One chunk of a batch: where its bytes and its decoded blocks are. */
struct session_chunk {
	uint32_t pid, context_id;
	uint16_t device_id, sm;
	uint32_t count;
	int64_t id;
	struct gpu_clock clock;
	size_t raw, len;                /* bytes in the batch's raw buffer */
	size_t first;                   /* its first block in the batch's blocks */
	size_t src;                     /* the file it came from */
	long n;                         /* blocks decoded, -1 damaged */
	uint64_t max_end;
};

struct session_batch {
	struct session_chunk *chunks;
	size_t n_chunks, cap_chunks;
	uint8_t *raw;
	size_t raw_len, raw_cap;
	struct smtop_block *blocks;
	size_t n_blocks, cap_blocks;
	size_t src;                     /* the file chunks are being taken from */
	int busy;                       /* the analysis has not finished it */
};

/* A kernel read but waiting for its file's blocks to reach its start. */
struct session_held {
	struct smtop_kernel k;
	size_t src;
	int in_model;                   /* given to the model when read (show_stored) */
};

/* Work for the analysis, in the order the loader read it. */
enum session_op_kind {
	OP_KERNELS, OP_STREAMS, OP_CONTEXTS, OP_REQUESTS, OP_DEVICE, OP_BATCH, OP_UPDATE,
	OP_MEMCPYS, OP_MEMSETS, OP_SYNCS, OP_CUDA_EVENTS, OP_GRAPH_DEPS, OP_APIS,
};

struct session_op {
	enum session_op_kind kind;
	void *v;                        /* records (owned by the op), or the batch */
	size_t n;
	uint64_t mark;
	struct smtop_device dev;
};

struct session_loader {
	struct pool *pool;
	int threads;
	struct session_batch batches[SESSION_BATCHES];
	size_t next_batch;
	/* the analysis' thread; with one thread in all, ops run at once */
	int athread_on;
	pthread_t athread;
	pthread_mutex_t qlock;          /* ops, busy flags, a_busy, a_failed, a_seconds */
	pthread_cond_t work, idle, freed;
	struct session_op ops[SESSION_OPS];
	size_t op_head, op_n;
	int a_busy, quit, a_failed;
	double a_seconds;
	pthread_mutex_t alock;          /* the analysis itself */
	struct analysis *analysis;
	/* kernels read but held back while the blocks are behind them, and
	 * those released this poll, bound for the analysis */
	struct session_held *held;
	size_t n_held, cap_held;
	size_t cur_src;                 /* the file kernels are being read from */
	uint64_t edge;                  /* the earliest block end of the files not read
					 * to their end (UINT64_MAX: all were) */
	struct smtop_kernel *kern;
	size_t n_kern, cap_kern;
	void *small;                    /* streams or requests being collected */
	size_t n_small, cap_small;
	uint64_t last_mark;
	int marked;
	int trimmed;                    /* a finished session's loading memory went back */
	uint64_t kernels_read;          /* by hold_kernel, all files */
	/* many held kernels of one file: by start, and which went out */
	uint32_t *order;
	size_t n_order, cursor, n_released;
	unsigned char *released;
};

/* db/session/session.c */
double session_now_s(void);
double session_thread_cpu_s(void);
uint64_t session_source_edge(const struct session_source *src);
int session_release_kernels(struct session *s);
void session_load_report(struct session *s, int done);
int session_read_error(struct session_source *src, char *err, size_t errlen);
int session_out_of_memory(struct session *s, char *err, size_t errlen);

/* db/session/session_loader.c */
int session_loader_submit(struct session *s, struct session_op op);
void session_loader_free(struct session_loader *L);
struct session_loader *session_loader_new(struct analysis *a);
void session_loader_trim(struct session *s);

/* db/session/session_blocks.c */
int session_blocks_poll(struct session *s, double start, char *err, size_t errlen);

/* db/session/session_focus.c */
void session_focus_end(struct session *s);

#endif
