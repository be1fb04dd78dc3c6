/* The rules follow cuda_occupancy.h (CUDA 13.0, cudaOccMaxBlocksPerSM*Limit)
 * and the CUDA C++ Programming Guide, "Compute Capabilities", technical
 * specifications table:
 * - warps: a block takes ceil(threads / warp size) warp slots of the SM's
 *   max threads / warp size;
 * - registers: allocated per warp, regs x warp size rounded up to 256
 *   (every cc from 3.0 to 12.x), in 4 sub-partitions of the register file
 *   (2 on cc 6.0) that each hold whole warps; at most 255 per thread;
 * - shared memory: static + dynamic + the 1 KiB the driver reserves per
 *   block from cc 8.0 on (cudaDevAttrReservedSharedMemoryPerBlock), rounded
 *   up to 128 bytes (cc 8.0 and later; 256 before).  The carveout the
 *   kernel ran with is not recorded, so the SM's maximum shared memory (the
 *   device record's) is taken: the limit is the most the kernel could get;
 * - the hardware's blocks per SM (the device record; the guide's table when
 *   the record lacks it). */
#include "src/core/occupancy_limit.h"

#define REG_UNIT 256u
#define REG_MAX_PER_THREAD 255u
#define SMEM_RESERVED_SM80 1024u
#define NONE UINT32_MAX

/* Every value here may come from a file (an export of any GPU, or damaged
 * data): the arithmetic is done in 64 bits, where no product of two 32-bit
 * values wraps, and results are clamped back to 32. */
static uint64_t div_up(uint64_t x, uint64_t y)
{
	return (x + y - 1) / y;
}

static uint64_t round_up(uint64_t x, uint64_t unit)
{
	return div_up(x, unit) * unit;
}

static uint32_t clamp32(uint64_t x)
{
	return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

static uint32_t sub_partitions(const struct smtop_device *d)
{
	return d->cc_major == 6 && d->cc_minor == 0 ? 2 : 4;
}

/* The guide's "maximum number of resident blocks per SM" by cc. */
static uint32_t blocks_cap(const struct smtop_device *d)
{
	if (d->max_blocks_per_sm)
		return d->max_blocks_per_sm;
	switch (d->cc_major) {
	case 3: return 16;
	case 7: return d->cc_minor == 5 ? 16 : 32;
	case 8: return d->cc_minor == 0 ? 32 : d->cc_minor == 9 ? 24 : 16;
	case 12: return 24;
	default: return 32;
	}
}

static uint32_t by_registers(const struct smtop_device *d, uint64_t warps, uint32_t regs)
{
	uint64_t per_warp = round_up((uint64_t)regs * d->warp_size, REG_UNIT);
	uint64_t parts = sub_partitions(d);
	uint64_t per_block_max = d->max_regs_per_sm; /* 64 Ki on every cc since 5.0 */
	/* the hardware checks a block as if its warps filled every sub-partition;
	 * warps < 2^32 and per_warp < 2^45: the product does not wrap */
	if (regs > REG_MAX_PER_THREAD || per_warp * round_up(warps, parts) > per_block_max)
		return 0;
	uint64_t warps_per_part = d->max_regs_per_sm / parts / per_warp;
	return clamp32(warps_per_part * parts / warps);
}

/* Below cc 8.0 a block without shared memory allocates none: shared
 * memory bounds nothing then, as when the SM's size is unknown. */
static uint32_t by_smem(const struct smtop_device *d, uint32_t smem, uint32_t *alloc)
{
	uint64_t reserved = d->cc_major >= 8 ? SMEM_RESERVED_SM80 : 0;
	uint64_t unit = d->cc_major >= 8 || !d->cc_major ? 128 : 256;
	uint64_t bytes = round_up((uint64_t)smem + reserved, unit);
	*alloc = clamp32(bytes);
	if (!d->max_smem_per_sm || !bytes)
		return NONE;
	return clamp32(d->max_smem_per_sm / bytes);
}

/* The least of the four, the first named on a tie. */
static void pick(struct occupancy_limit *o)
{
	const uint32_t v[] = { o->by_threads, o->by_registers, o->by_smem, o->by_blocks };
	const enum occupancy_bound b[] = { OCCUPANCY_BOUND_THREADS, OCCUPANCY_BOUND_REGISTERS,
					   OCCUPANCY_BOUND_SMEM, OCCUPANCY_BOUND_BLOCKS };
	o->blocks = v[0];
	o->bound = b[0];
	for (int i = 1; i < 4; i++)
		if (v[i] < o->blocks) {
			o->blocks = v[i];
			o->bound = b[i];
		}
}

int occupancy_limit(const struct smtop_device *d, const struct occupancy_launch *k,
		    struct occupancy_limit *out)
{
	*out = (struct occupancy_limit){ 0, OCCUPANCY_BOUND_UNKNOWN, NONE, NONE, NONE, NONE, 0 };
	if (!k->threads || !k->registers || !d->warp_size || !d->max_threads_per_sm ||
	    !d->max_regs_per_sm)
		return -1;
	uint64_t warps = div_up(k->threads, d->warp_size);
	out->by_threads = clamp32(d->max_threads_per_sm / d->warp_size / warps);
	out->by_registers = by_registers(d, warps, k->registers);
	out->by_smem = by_smem(d, k->smem, &out->smem_per_block);
	out->by_blocks = blocks_cap(d);
	pick(out);
	return 0;
}

const char *occupancy_bound_text(enum occupancy_bound b)
{
	switch (b) {
	case OCCUPANCY_BOUND_THREADS: return "threads";
	case OCCUPANCY_BOUND_REGISTERS: return "registers";
	case OCCUPANCY_BOUND_SMEM: return "shared memory";
	case OCCUPANCY_BOUND_BLOCKS: return "blocks per SM";
	case OCCUPANCY_BOUND_UNKNOWN: break;
	}
	return "unknown";
}

const char *occupancy_bound_name(enum occupancy_bound b)
{
	switch (b) {
	case OCCUPANCY_BOUND_THREADS: return "threads";
	case OCCUPANCY_BOUND_REGISTERS: return "registers";
	case OCCUPANCY_BOUND_SMEM: return "smem";
	case OCCUPANCY_BOUND_BLOCKS: return "blocks";
	case OCCUPANCY_BOUND_UNKNOWN: break;
	}
	return "unknown";
}
