/* smtop block tracer for CUDA C kernels.
 *
 *   #include "src/core/smtop_trace.cuh"
 *   __global__ void my_kernel(...)
 *   {
 *       SMTOP_BLOCK_BEGIN();
 *       ... body: no early return, every thread must reach the end ...
 *       SMTOP_BLOCK_END();
 *   }
 *
 * Each module owns one device pointer named SMTOP_TRACE_SYMBOL.  The smtop
 * collector finds it with cuModuleGetGlobal when the module launches its first
 * kernel and stores its ring there.  Without smtop it stays NULL: a block then
 * pays a timer read, a __syncthreads, one load and one branch.
 *
 * Whole-program compilation (the default, no -rdc): every translation unit is
 * its own module, so this header defines the pointer in each of them (nvcc
 * gives the host shadow internal linkage, so the definitions do not clash).
 * Separate compilation (-rdc=true): all translation units end up in one
 * module; define SMTOP_TRACE_DEFINE before including this header in exactly
 * one of them.
 *
 * Layout and claiming rules: src/core/smtop_trace_abi.h. */
#ifndef SMTOP_TRACE_CUH
#define SMTOP_TRACE_CUH

#include <stdint.h>
#include "src/core/smtop_trace_abi.h"

#if defined(SMTOP_TRACE_NO_RING)
/* The Compute Sanitizer patches get the ring as their userdata. */
#elif !defined(__CUDACC_RDC__) || defined(SMTOP_TRACE_DEFINE)
/* A definition (the braces make it one); zero-initialised device memory. */
extern "C" {
__device__ struct smtop_trace_ring *smtop_trace_ring;
}
#else
extern "C" __device__ struct smtop_trace_ring *smtop_trace_ring;
#endif

static __device__ __forceinline__ unsigned long long smtop_globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __device__ __forceinline__ unsigned int smtop_smid(void)
{
	unsigned int s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	return s;
}

static __device__ __forceinline__ unsigned long long smtop_gridid(void)
{
	unsigned long long g;
	asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
	return g;
}

static __device__ __forceinline__ int smtop_is_thread0(void)
{
	return (threadIdx.x | threadIdx.y | threadIdx.z) == 0;
}

/* The host moves limit while kernels run: read it through L2 every time. */
static __device__ __forceinline__ unsigned long long smtop_load_volatile(const unsigned long long *p)
{
	return *(const volatile unsigned long long *)p;
}

/* Claims one slot index of lane l, or returns ~0 when the lane is full (and
 * counts the drop).  Only blocks of one SM share a lane. */
static __device__ __forceinline__ unsigned long long smtop_trace_claim(struct smtop_trace_ring *r, unsigned int l)
{
	struct smtop_trace_lane *lane = &r->lane[l];
	unsigned long long h = smtop_load_volatile(&lane->head);
	for (;;) {
		if (h >= smtop_load_volatile(&r->limit[l])) {
			atomicAdd(&lane->dropped, 1ull);
			return ~0ull;
		}
		unsigned long long seen = atomicCAS(&lane->head, h, h + 1);
		if (seen == h)
			return h;
		h = seen;
	}
}

/* Two 16-byte stores, each carrying the lap tag, so the host can tell a
 * complete slot from a half-written one without a system-wide fence. */
static __device__ __forceinline__ void smtop_trace_store(struct smtop_trace_slot *s, unsigned long long lo0,
							 unsigned long long lo1, unsigned long long hi0,
							 unsigned long long hi1)
{
	asm volatile("st.global.cg.v2.u64 [%0], {%1, %2};" ::"l"(s), "l"(lo0), "l"(lo1) : "memory");
	asm volatile("st.global.cg.v2.u64 [%0], {%1, %2};" ::"l"((char *)s + 16), "l"(hi0), "l"(hi1) : "memory");
}

static __device__ __forceinline__ void smtop_trace_record_at(struct smtop_trace_ring *r, unsigned long long start,
							     unsigned long long end, unsigned int sm)
{
	unsigned int l = sm & (SMTOP_TRACE_LANES - 1);
	unsigned long long idx = smtop_trace_claim(r, l);
	if (idx == ~0ull)
		return;
	uint32_t cap = r->capacity;
	unsigned long long tag = smtop_trace_tag(idx, cap);
	unsigned long long grid = smtop_gridid() & 0xffffffffffffull;
	uint32_t block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	unsigned long long hi1 = (unsigned long long)block | ((unsigned long long)(sm & 0xffffu) << 32) |
				 (tag << 48);
	smtop_trace_store(&r->slots[(size_t)l * cap + (idx & (cap - 1))], grid | (tag << 48), start, end, hi1);
}

/* Not inlined: its symbol in a kernel's code tells the collector that the
 * kernel times its own blocks (SMTOP_TRACE_RECORD_NAME). */
static __device__ __noinline__ void smtop_trace_record(struct smtop_trace_ring *r, unsigned long long start)
{
	smtop_trace_record_at(r, start, smtop_globaltimer(), smtop_smid());
}

/* Thread 0 stamps the block's start; shared rather than a register so the
 * kernel body does not carry it through its register allocation. */
#define SMTOP_BLOCK_BEGIN()                                                                        \
	__shared__ unsigned long long smtop_block_t0_;                                             \
	do {                                                                                       \
		if (smtop_is_thread0())                                                            \
			smtop_block_t0_ = smtop_globaltimer();                                     \
	} while (0)

/* The block ends when its last thread does: every thread must get here. */
#define SMTOP_BLOCK_END()                                                                          \
	do {                                                                                       \
		__syncthreads();                                                                   \
		if (smtop_is_thread0()) {                                                          \
			struct smtop_trace_ring *smtop_r_ = smtop_trace_ring;                      \
			if (smtop_r_ != NULL)                                                      \
				smtop_trace_record(smtop_r_, smtop_block_t0_);                     \
		}                                                                                  \
	} while (0)

#endif
