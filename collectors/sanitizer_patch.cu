/* Device patches of the Compute Sanitizer backend (collectors/sanitizer.c).
 * The sanitizer inserts calls to these functions at the entry and at every
 * exit of every kernel in every loaded module, so they see each thread block
 * of programs nobody recompiled (cuBLAS, cuDNN, Triton, graph replays).
 * They write the same per-SM lanes as src/core/smtop_trace.cuh, and the same
 * drain threads take the records from there.
 *
 * Built as a tools patch, not linked into anything:
 *   nvcc -arch=sm_90 --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch
 *
 * Each patch runs once per thread.  Only one lane of each group of threads
 * that arrive together (__activemask) touches memory, and it touches only its
 * own SM's lane and open-block table: nothing serialises the whole GPU. */
#include <stdint.h>

#include <sanitizer_patching.h>

#define SMTOP_TRACE_NO_RING
#include "src/core/smtop_trace.cuh"

static __device__ __forceinline__ unsigned int smtop_laneid(void)
{
	unsigned int l;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
	return l;
}

/* Whether this thread is the first of those in mask (the threads that
 * arrived at a patch together), the one that works for them all. */
static __device__ __forceinline__ bool smtop_first_active_lane(unsigned int mask)
{
	return smtop_laneid() == (unsigned int)(__ffs(mask) - 1);
}

static __device__ __forceinline__ uint32_t smtop_linear_block(void)
{
	return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

static __device__ __forceinline__ uint32_t smtop_linear_thread(void)
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/* Never 0 (free) nor SMTOP_OPEN_CLAIMED: the low bits are 1 and 1. */
static __device__ __forceinline__ unsigned long long smtop_open_key(unsigned long long grid, uint32_t block)
{
	unsigned long long x = (grid << 32) ^ block ^ (grid >> 32);
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x | 3ull;
}

static __device__ __forceinline__ struct smtop_open_lane *smtop_open_table(struct smtop_trace_ring *r,
									     unsigned int sm)
{
	return (struct smtop_open_lane *)r->open_blocks + (sm & (SMTOP_TRACE_LANES - 1));
}

/* A slot being filled: matches no key, so nobody joins it half made. */
#define SMTOP_OPEN_CLAIMED 2ull

/* Finds key's entry from its home slot on, or returns -1. */
static __device__ __forceinline__ int smtop_open_find(struct smtop_open_lane *t, unsigned long long key)
{
	unsigned int h = (unsigned int)(key >> 40);

#pragma unroll 1 /* unrolled, the probe holds dozens of registers that every exit saves */
	for (unsigned int i = 0; i < SMTOP_OPEN_SLOTS; i++) {
		unsigned int s = (h + i) & (SMTOP_OPEN_SLOTS - 1);
		if (smtop_load_volatile(&t->key[s]) == key)
			return (int)s;
	}
	return -1;
}

/* Thread 0 alone opens its block's entry, so an entry is never made twice
 * (two warps that each found no entry would both make one, and neither
 * would ever see all the exits).  Claimed first, filled, then published.
 * A full table leaves the block unrecorded and counts one drop. */
static __device__ __forceinline__ void smtop_open_enter(struct smtop_trace_ring *r, unsigned int sm,
							unsigned long long key)
{
	struct smtop_open_lane *t = smtop_open_table(r, sm);
	unsigned int h = (unsigned int)(key >> 40);

	for (unsigned int i = 0; i < SMTOP_OPEN_SLOTS; i++) {
		unsigned int s = (h + i) & (SMTOP_OPEN_SLOTS - 1);

		if (atomicCAS(&t->key[s], 0ull, SMTOP_OPEN_CLAIMED) != 0)
			continue;
		t->start[s] = smtop_globaltimer();
		t->remaining[s] = (int)(blockDim.x * blockDim.y * blockDim.z);
		__threadfence();
		atomicExch(&t->key[s], key);
		return;
	}
	atomicAdd(&r->lane[sm & (SMTOP_TRACE_LANES - 1)].dropped, 1ull);
}

/* The block's first thread, once: its entry (or, entry only, its record). */
static __device__ __noinline__ void smtop_block_entered(struct smtop_trace_ring *r)
{
	unsigned int sm = smtop_smid();

	if (r->patch_flags & SMTOP_PATCH_ENTRY_ONLY) {
		unsigned long long now = smtop_globaltimer();
		smtop_trace_record_at(r, now, now, sm);
		return;
	}
	smtop_open_enter(r, sm, smtop_open_key(smtop_gridid(), smtop_linear_block()));
}

/* The patches the sanitizer calls keep only the test of who works: a tools
 * patch saves every register it uses on entry, in every thread, so the
 * registers of the work below are saved only by the thread that does it
 * (docs/performance.md, "What the patches cost"). */
extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_block_enter(void *userdata, uint64_t pc)
{
	(void)pc;
	if (userdata && smtop_is_thread0())
		smtop_block_entered((struct smtop_trace_ring *)userdata);
	return SANITIZER_PATCH_SUCCESS;
}

/* A warp may end before thread 0 has opened the block (it only has to
 * start): wait for the entry this long before giving up on the block. */
#define SMTOP_OPEN_WAIT_NS 100000ull

static __device__ __forceinline__ int smtop_open_await(struct smtop_open_lane *t, unsigned long long key)
{
	unsigned long long t0 = 0;

	for (;;) {
		int s = smtop_open_find(t, key);
		if (s >= 0)
			return s;
		unsigned long long now = smtop_globaltimer();
		if (!t0)
			t0 = now;
		else if (now - t0 > SMTOP_OPEN_WAIT_NS)
			return -1;
	}
}

/* One lane of the n threads of a warp that exit together; the last of the
 * block's threads to exit writes its record. */
static __device__ __noinline__ void smtop_warp_exited(struct smtop_trace_ring *r, int n)
{
	unsigned int sm, flags = r->patch_flags;
	struct smtop_open_lane *t;
	int s, left;

	if (flags & SMTOP_PATCH_ENTRY_ONLY)
		return;
	sm = smtop_smid();
	t = smtop_open_table(r, sm);
	s = smtop_open_await(t, smtop_open_key(smtop_gridid(), smtop_linear_block()));
	if (s < 0)
		return; /* never opened: counted at entry */
	if ((flags & SMTOP_PATCH_T0_GAP) && smtop_linear_thread() == 0)
		t->t0_end[s] = smtop_globaltimer();
	/* Device scope, though only this block reads the entry: the atomics
	 * are done in L2, and block-scope fences lost counts (docs/collector.md). */
	__threadfence();
	left = atomicSub(&t->remaining[s], n) - n;
	if (left != 0)
		return;
	unsigned long long end = smtop_globaltimer();
	unsigned long long start = (flags & SMTOP_PATCH_T0_GAP) ? t->t0_end[s] : t->start[s];
	atomicExch(&t->key[s], 0ull);
	smtop_trace_record_at(r, start, end, sm);
}

extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_block_exit(void *userdata, uint64_t pc)
{
	unsigned int mask = __activemask();

	(void)pc;
	if (userdata && smtop_first_active_lane(mask))
		smtop_warp_exited((struct smtop_trace_ring *)userdata, __popc(mask));
	return SANITIZER_PATCH_SUCCESS;
}

/* ---- entry only (--sm entry) ------------------------------------------------ */

static __device__ __forceinline__ unsigned int smtop_warpid(void)
{
	unsigned int w;
	asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
	return w;
}

/* One store of an entry into the launch's own buffer at index at
 * (src/core/smtop_trace_abi.h, struct smtop_entry). */
static __device__ __noinline__ void smtop_entry_write(void *buffer, uint32_t at_index)
{
	unsigned long long t = smtop_globaltimer();
	unsigned long long hi = (smtop_gridid() & 0xffffffffull) | ((unsigned long long)(smtop_smid() & 0xffffu) << 32) |
				((unsigned long long)(smtop_warpid() & 0xffu) << 48) |
				((unsigned long long)smtop_entry_check(t) << 56);
	char *at = (char *)buffer + (size_t)at_index * sizeof(struct smtop_entry);

	asm volatile("st.global.cg.v2.u64 [%0], {%1, %2};" ::"l"(at), "l"(t), "l"(hi) : "memory");
}

extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_entry(void *userdata, uint64_t pc)
{
	(void)pc;
	if (userdata && smtop_is_thread0())
		smtop_entry_write(userdata, smtop_linear_block());
	return SANITIZER_PATCH_SUCCESS;
}

/* SMTOP_ENTRY_PER=warp: an entry for every warp, at the block's index
 * times its warps plus the warp's, so each warp's slot bounds its own end. */
extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_entry_warp(void *userdata, uint64_t pc)
{
	unsigned int mask = __activemask();

	(void)pc;
	if (userdata && smtop_first_active_lane(mask)) {
		uint32_t warps = (blockDim.x * blockDim.y * blockDim.z + 31u) / 32u;
		smtop_entry_write(userdata, smtop_linear_block() * warps + smtop_linear_thread() / 32u);
	}
	return SANITIZER_PATCH_SUCCESS;
}

/* Exact windows of --sm entry: the exits too, into the ends half of the
 * launch's buffer (struct smtop_entry_end).  The fence orders the end
 * before the count, so a complete count comes with the block's last end.
 * An arena in pinned host memory (SMTOP_ENTRY_ARENA=host) is read by the
 * drain in place across the bus, for which device-scope atomics and fence
 * order nothing: there they are the system's. */
static __device__ __forceinline__ void smtop_entry_exited(void *buffer, unsigned int threads, bool system)
{
	struct smtop_entry_end *e =
		(struct smtop_entry_end *)((char *)buffer + SMTOP_ENTRIES_ENDS) + smtop_linear_block();
	unsigned long long *end = (unsigned long long *)&e->end;
	unsigned int *count = (unsigned int *)&e->threads;

	*(volatile uint32_t *)&e->grid = (uint32_t)smtop_gridid();
	if (system) {
		atomicMax_system(end, smtop_globaltimer());
		__threadfence_system();
		atomicAdd_system(count, threads);
	} else {
		atomicMax(end, smtop_globaltimer());
		__threadfence();
		atomicAdd(count, threads);
	}
}

/* The exit patches' one lane of each group of threads that exit together. */
static __device__ __noinline__ void smtop_entry_exited_device(void *buffer, unsigned int threads)
{
	smtop_entry_exited(buffer, threads, false);
}

static __device__ __noinline__ void smtop_entry_exited_host(void *buffer, unsigned int threads)
{
	smtop_entry_exited(buffer, threads, true);
}

extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_entry_exit(void *userdata, uint64_t pc)
{
	unsigned int mask = __activemask();

	(void)pc;
	if (userdata && smtop_first_active_lane(mask))
		smtop_entry_exited_device(userdata, (unsigned int)__popc(mask));
	return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult smtop_sz_entry_exit_host(void *userdata, uint64_t pc)
{
	unsigned int mask = __activemask();

	(void)pc;
	if (userdata && smtop_first_active_lane(mask))
		smtop_entry_exited_host(userdata, (unsigned int)__popc(mask));
	return SANITIZER_PATCH_SUCCESS;
}
