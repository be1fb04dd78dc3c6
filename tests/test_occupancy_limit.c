/* The occupancy calculator (src/core/occupancy_limit.c) against the CUDA
 * occupancy calculator's figures for an H200 (cc 9.0) and the placement
 * demo's kernels (docs/collector.md), and the edge cases: unknown fields,
 * launches that cannot fit, ties, and the older rules before cc 8.0. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "src/core/occupancy_limit.h"

static const struct smtop_device h200 = {
	.sm_count = 132, .cc_major = 9, .cc_minor = 0, .max_threads_per_sm = 2048,
	.max_blocks_per_sm = 32, .max_regs_per_sm = 65536, .max_smem_per_sm = 233472,
	.max_threads_per_block = 1024, .warp_size = 32,
};

struct occ_case {
	uint32_t threads, registers, smem;
	uint32_t blocks;
	enum occupancy_bound bound;
};

ParameterizedTestParameters(occupancy_limit, h200)
{
	static struct occ_case cases[] = {
		/* the calculator's: 256 threads, 32 regs: warps and registers both 8, warps named */
		{ 256, 32, 0, 8, OCCUPANCY_BOUND_THREADS },
		{ 256, 128, 0, 2, OCCUPANCY_BOUND_REGISTERS },
		{ 256, 64, 0, 4, OCCUPANCY_BOUND_REGISTERS },
		/* 40 regs: 1280 a warp, 12 warps a sub-partition, 48 warps: 6 blocks of 8 */
		{ 256, 40, 0, 6, OCCUPANCY_BOUND_REGISTERS },
		/* the placement demo: register heavy (103: 3328 a warp, 4 warps a
		 * sub-partition), tiny, 96 KiB shared memory, wide */
		{ 256, 103, 0, 2, OCCUPANCY_BOUND_REGISTERS },
		{ 32, 26, 0, 32, OCCUPANCY_BOUND_BLOCKS },
		{ 256, 26, 96 * 1024, 2, OCCUPANCY_BOUND_SMEM },
		{ 1024, 26, 0, 2, OCCUPANCY_BOUND_THREADS },
		/* 64 threads: the warps allow 32, the cap is 32: warps named */
		{ 64, 16, 0, 32, OCCUPANCY_BOUND_THREADS },
		/* 48 KiB + the 1 KiB reservation: 4 blocks in 228 KiB, not 4.75 */
		{ 128, 32, 48 * 1024, 4, OCCUPANCY_BOUND_SMEM },
		/* 100 B rounds up with the reservation to 1152 B: 202 by smem, cap 32 */
		{ 32, 32, 100, 32, OCCUPANCY_BOUND_BLOCKS },
		/* cannot fit: 255 regs x 1024 threads, 256 regs, 300 KiB of shared memory */
		{ 1024, 255, 0, 0, OCCUPANCY_BOUND_REGISTERS },
		{ 32, 256, 0, 0, OCCUPANCY_BOUND_REGISTERS },
		{ 32, 32, 300 * 1024, 0, OCCUPANCY_BOUND_SMEM },
		/* 255 regs a thread fit 64 threads: 8192 a warp, 2 warps a sub-partition */
		{ 64, 255, 0, 4, OCCUPANCY_BOUND_REGISTERS },
		/* 33 threads take two warps */
		{ 33, 16, 0, 32, OCCUPANCY_BOUND_THREADS },
		{ 96, 16, 0, 21, OCCUPANCY_BOUND_THREADS },
	};
	return cr_make_param_array(struct occ_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct occ_case *c, occupancy_limit, h200)
{
	struct occupancy_limit o;
	struct occupancy_launch k = { c->threads, c->registers, c->smem };
	cr_assert_eq(occupancy_limit(&h200, &k, &o), 0);
	cr_expect_eq(o.blocks, c->blocks, "%u threads %u regs %u B: %u blocks, expected %u",
		     c->threads, c->registers, c->smem, o.blocks, c->blocks);
	cr_expect_eq(o.bound, c->bound, "%u threads %u regs %u B: bound %s, expected %s",
		     c->threads, c->registers, c->smem, occupancy_bound_name(o.bound),
		     occupancy_bound_name(c->bound));
}

Test(occupancy_limit, parts_and_allocation)
{
	struct occupancy_limit o;
	cr_assert_eq(occupancy_limit(&h200, &(struct occupancy_launch){ 256, 103, 96 * 1024 }, &o), 0);
	cr_expect_eq(o.by_threads, 8);
	cr_expect_eq(o.by_registers, 2);
	cr_expect_eq(o.by_smem, 2);
	cr_expect_eq(o.by_blocks, 32);
	cr_expect_eq(o.smem_per_block, 96 * 1024 + 1024);
	/* registers first on the tie with shared memory */
	cr_expect_eq(o.bound, OCCUPANCY_BOUND_REGISTERS);
}

Test(occupancy_limit, unknown_fields)
{
	struct occupancy_limit o;
	struct smtop_device none = { .device_id = 0 };
	cr_expect_eq(occupancy_limit(&h200, &(struct occupancy_launch){ 256, 0, 0 }, &o), -1);
	cr_expect_eq(o.bound, OCCUPANCY_BOUND_UNKNOWN);
	cr_expect_eq(occupancy_limit(&h200, &(struct occupancy_launch){ 0, 32, 0 }, &o), -1);
	cr_expect_eq(occupancy_limit(&none, &(struct occupancy_launch){ 256, 32, 0 }, &o), -1);
	cr_expect_eq(o.blocks, 0);
	/* without the SM's shared memory, shared memory bounds nothing */
	struct smtop_device d = h200;
	d.max_smem_per_sm = 0;
	cr_assert_eq(occupancy_limit(&d, &(struct occupancy_launch){ 32, 26, 200 * 1024 }, &o), 0);
	cr_expect_eq(o.blocks, 32);
	cr_expect_eq(o.by_smem, UINT32_MAX);
	/* without the hardware's blocks per SM, the guide's table for the cc */
	d = h200;
	d.max_blocks_per_sm = 0;
	d.cc_major = 8;
	d.cc_minor = 6;
	cr_assert_eq(occupancy_limit(&d, &(struct occupancy_launch){ 32, 26, 0 }, &o), 0);
	cr_expect_eq(o.by_blocks, 16);
}

Test(occupancy_limit, before_sm80)
{
	/* V100 (cc 7.0): 96 KiB of shared memory an SM, no reservation, 256 B units */
	struct smtop_device v100 = h200;
	v100.cc_major = 7;
	v100.max_smem_per_sm = 98304;
	struct occupancy_limit o;
	cr_assert_eq(occupancy_limit(&v100, &(struct occupancy_launch){ 128, 32, 32 * 1024 }, &o), 0);
	cr_expect_eq(o.smem_per_block, 32 * 1024);
	cr_expect_eq(o.blocks, 3);
	cr_assert_eq(occupancy_limit(&v100, &(struct occupancy_launch){ 128, 32, 300 }, &o), 0);
	cr_expect_eq(o.smem_per_block, 512);
}

/* Turing (cc 7.5) has no reservation: a kernel without shared memory
 * allocates none, and shared memory bounds nothing (a division by 0
 * before: SIGFPE on real T4 exports). */
Test(occupancy_limit, no_shared_memory_before_sm80)
{
	struct smtop_device t4 = {
		.sm_count = 40, .cc_major = 7, .cc_minor = 5, .max_threads_per_sm = 1024,
		.max_blocks_per_sm = 16, .max_regs_per_sm = 65536, .max_smem_per_sm = 65536,
		.max_threads_per_block = 1024, .warp_size = 32,
	};
	struct occupancy_limit o;
	cr_assert_eq(occupancy_limit(&t4, &(struct occupancy_launch){ 256, 32, 0 }, &o), 0);
	cr_expect_eq(o.smem_per_block, 0);
	cr_expect_eq(o.by_smem, UINT32_MAX);
	cr_expect_eq(o.blocks, 4);
	cr_expect_eq(o.bound, OCCUPANCY_BOUND_THREADS);
}

/* Whatever a file holds, the arithmetic stays defined: sizes near
 * UINT32_MAX wrap no unit to 0 and overflow nothing. */
Test(occupancy_limit, values_at_the_edges)
{
	const uint32_t big[] = { 1, 31, 32, 33, 255, 256, 65535, 65536, 0x7fffffffu,
				 UINT32_MAX - 256, UINT32_MAX - 1, UINT32_MAX };
	const size_t n = sizeof big / sizeof big[0];
	struct occupancy_limit o;
	for (int cc = 0; cc <= 12; cc++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++) {
				struct smtop_device d = {
					.cc_major = (uint32_t)cc, .warp_size = big[i],
					.max_threads_per_sm = big[j], .max_regs_per_sm = big[n - 1 - i],
					.max_smem_per_sm = big[j], .max_blocks_per_sm = big[i],
				};
				struct occupancy_launch k = { big[j], big[i], big[n - 1 - j] };
				if (occupancy_limit(&d, &k, &o) == 0)
					cr_expect_leq(o.blocks, o.by_blocks);
			}
}

Test(occupancy_limit, names)
{
	cr_expect_str_eq(occupancy_bound_name(OCCUPANCY_BOUND_SMEM), "smem");
	cr_expect_str_eq(occupancy_bound_text(OCCUPANCY_BOUND_SMEM), "shared memory");
	cr_expect_str_eq(occupancy_bound_name(OCCUPANCY_BOUND_UNKNOWN), "unknown");
}
