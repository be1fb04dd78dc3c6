/* The block-trace ring shared by instrumented kernels (src/core/smtop_trace.cuh)
 * and the collector (collectors/).  Plain C, no CUDA, so both sides agree on
 * the layout byte for byte.
 *
 * Each instrumented module has a device global SMTOP_TRACE_SYMBOL, a pointer
 * to one ring in device memory.  It is NULL unless the collector found the
 * module at a kernel launch and stored its context's ring there, so a program
 * run without smtop pays one load and one branch per block and writes nothing.
 *
 * The ring is split into one lane per SM (lane = %smid mod SMTOP_TRACE_LANES)
 * so that only blocks of one SM ever contend for a lane's counter: a single
 * global counter serialises every block of the GPU on one compare-and-swap
 * round trip (docs/performance.md, "Block tracer").
 *
 * Claiming: thread 0 of a block, at its end, claims index `head` of its lane
 * with a compare-and-swap that only succeeds while head < limit, so every
 * claimed slot is written and a full lane counts `dropped` instead.  The host
 * drains [read, head) of each lane, keeps the complete prefix and moves the
 * lane's limit to read + capacity.  A slot is complete when both 16-byte
 * halves carry the tag of its lap. */
#ifndef SMTOP_TRACE_ABI_H
#define SMTOP_TRACE_ABI_H

#include <stdint.h>

#define SMTOP_TRACE_ABI_VERSION 2
#define SMTOP_TRACE_SYMBOL "smtop_trace_ring"
/* The header's record function: a kernel whose code calls it times its own
 * blocks (collectors/marked_funcs.h finds them by this name). */
#define SMTOP_TRACE_RECORD_NAME "smtop_trace_record"
#define SMTOP_TRACE_LANES 256

struct smtop_trace_slot {
	uint64_t grid_tag;      /* bits 0..47 %gridid, bits 48..63 lap tag */
	uint64_t start;         /* %globaltimer at block start (thread 0) */
	uint64_t end;           /* %globaltimer at block end, after __syncthreads */
	uint32_t block;         /* linear block index */
	uint16_t sm;            /* %smid */
	uint16_t tag;           /* lap tag, equal to grid_tag >> 48 */
};

/* Device-written counters of one lane, alone on their 64 bytes. */
struct smtop_trace_lane {
	unsigned long long head;     /* next index to claim */
	unsigned long long dropped;  /* blocks not recorded: lane full */
	unsigned long long pad[6];
};

struct smtop_trace_ring {
	uint32_t capacity;           /* slots per lane, a power of two */
	uint32_t lanes;              /* SMTOP_TRACE_LANES */
	uint32_t abi_version;
	uint32_t patch_flags;        /* SMTOP_PATCH_*: how the sanitizer patches record */
	uint64_t open_blocks;        /* device address of the open-block table, or 0 */
	uint64_t reserved[5];        /* the header is 64 bytes */
	unsigned long long limit[SMTOP_TRACE_LANES];     /* host-written */
	struct smtop_trace_lane lane[SMTOP_TRACE_LANES]; /* device-written */
	struct smtop_trace_slot slots[];                 /* lane l: [l * capacity, (l + 1) * capacity) */
};

/* Blocks that have entered and not yet ended, for the Compute Sanitizer
 * patches (collectors/sanitizer_patch.cu): their entry and exit run in
 * different warps, which share no memory smtop owns, so each SM's lane has
 * SMTOP_OPEN_SLOTS entries keyed by (%gridid, block) in global memory.  An
 * SM holds at most 32 blocks at once (cc 9.0), so the table has room for
 * twice that.  Thread 0 opens its block's entry with the block's thread
 * count in `remaining`; every exit subtracts its threads, and the exit that
 * brings it to 0 is the block's last: it writes the record and frees the
 * entry. */
#define SMTOP_OPEN_SLOTS 64

struct smtop_open_lane {
	unsigned long long key[SMTOP_OPEN_SLOTS];     /* 0: free */
	unsigned long long start[SMTOP_OPEN_SLOTS];   /* %globaltimer at entry */
	unsigned long long t0_end[SMTOP_OPEN_SLOTS];  /* thread 0's exit (SMTOP_PATCH_T0_GAP) */
	int remaining[SMTOP_OPEN_SLOTS];              /* threads not yet exited */
};

/* patch_flags */
#define SMTOP_PATCH_ENTRY_ONLY 1u /* a block is recorded at entry, end = start */
#define SMTOP_PATCH_T0_GAP 2u     /* start holds thread 0's exit, to measure the gap */

/* Slots are written with 16-byte vector stores: they must start 16-aligned. */
#ifdef __cplusplus
static_assert(sizeof(struct smtop_trace_ring) % 16 == 0, "trace slots must be 16-byte aligned");
#else
_Static_assert(sizeof(struct smtop_trace_ring) % 16 == 0, "trace slots must be 16-byte aligned");
#endif

#ifdef __CUDACC__
#define SMTOP_TRACE_HD __host__ __device__
#else
#define SMTOP_TRACE_HD
#endif

/* Lap tag of slot index i: never 0, so zeroed memory is never complete.
 * capacity is a power of two (the lanes index slots with capacity - 1), so
 * the lap is a shift: a 64-bit division would call a divide routine, and
 * save its registers, in every block's record on the device. */
static inline SMTOP_TRACE_HD uint16_t smtop_trace_tag(uint64_t index, uint32_t capacity)
{
#ifdef __CUDA_ARCH__
	unsigned int shift = (unsigned int)__ffs(capacity) - 1u;
#else
	unsigned int shift = (unsigned int)__builtin_ctz(capacity);
#endif
	return (uint16_t)((index >> shift) % 65535u + 1u);
}

/* Entry-only tracing (`--sm entry`): the Compute Sanitizer patches block
 * entry alone, and each launch gets a buffer of its own (its per-launch
 * callback data) with one entry per block at its linear index.  Thread 0
 * writes it with one 16-byte store: no atomic, no load, no lane to claim.
 * A block's end is then bounded on the host by the next entry on the same
 * SM and hardware warp slot (%warpid), which a warp keeps for its life.
 * With SMTOP_ENTRY_PER=warp the first lane of each warp writes one, block
 * i's warp w at i * warps + w, and each warp's slot bounds its own end.
 * `grid` tells an entry of this launch from one a previous launch left in
 * the same memory; `check` ties the two 8-byte halves together, so a half
 * read before the other was written is never taken. */
struct smtop_entry {
	uint64_t start;         /* %globaltimer at thread 0's entry (or its warp's) */
	uint32_t grid;          /* low 32 bits of %gridid */
	uint16_t sm;            /* %smid */
	uint8_t slot;           /* %warpid of thread 0's warp (or of the warp) */
	uint8_t check;          /* smtop_entry_check(start) */
};

static inline SMTOP_TRACE_HD uint8_t smtop_entry_check(uint64_t start)
{
	return (uint8_t)((start >> 5) ^ (start >> 13) ^ (start >> 21) ^ (start >> 29) ^ 0x5a);
}

/* Entries in one context's arena (collectors/entries.h).  The arena's
 * second half holds one struct smtop_entry_end per entry, at the same index:
 * a launch's buffer and its ends are SMTOP_ENTRIES_ENDS bytes apart. */
#define SMTOP_ENTRIES_ARENA (1u << 24)
#define SMTOP_ENTRIES_ENDS ((unsigned long long)SMTOP_ENTRIES_ARENA * sizeof(struct smtop_entry))

/* During an exact window the exit is patched too: the first lane of each
 * group of threads that leave together raises `end` to its time and then
 * adds the group's threads, so a block whose `threads` reached its size
 * has its exact end.  Zero until then; `grid` as in struct smtop_entry. */
struct smtop_entry_end {
	uint64_t end;           /* %globaltimer of the block's last exit */
	uint32_t threads;       /* threads that have left */
	uint32_t grid;          /* low 32 bits of %gridid */
};

/* Demo workloads report each inference request's turnaround through this
 * function, found with dlsym(RTLD_DEFAULT, SMTOP_NOTE_REQUEST_SYMBOL); it is
 * absent without smtop.  stream is the cudaStream_t (CUstream) the request ran
 * on; times are CLOCK_REALTIME nanoseconds, the epoch of CUPTI's timestamps. */
#define SMTOP_NOTE_REQUEST_SYMBOL "smtop_note_request"
typedef void (*smtop_note_request_fn)(void *stream, uint64_t start_ns, uint64_t end_ns,
				      const char *label);

#endif
