/* The Compute Sanitizer backend's table of functions launched
 * (collectors/sanitizer_funcs.c): a function's attributes once the driver
 * answered, and a module's unload forgetting its functions, whose handles
 * a later module's may take. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/sanitizer_funcs.h"

static struct funcs t;

static void reset(void)
{
	memset(&t, 0, sizeof t);
}

static const void *ptr(uintptr_t v)
{
	return (const void *)v;
}

/* Launches f of module; returns its key, asserting first-ness. */
static uint64_t launch(uintptr_t f, uintptr_t module, int first)
{
	struct func_attrs a;
	uint64_t key;

	cr_assert_eq(funcs_launched(&t, ptr(f), ptr(module), &key, &a), first, "function %#lx first: %d",
		     (unsigned long)f, first);
	return key;
}

/* The host thread's round: takes every question and answers each with
 * registers = f's low byte. */
static int answer_all(void)
{
	struct func_entry q;
	int n = 0;

	while (funcs_take_question(&t, &q)) {
		struct func_attrs a = { .registers = (uint32_t)((uintptr_t)q.f & 0xff), .static_smem = 1, .local_mem = 2 };

		funcs_answer(&t, q.f, q.key, &a);
		n++;
	}
	return n;
}

TestSuite(sanitizer_funcs, .init = reset);

Test(sanitizer_funcs, a_function_is_first_once_and_known_after_the_answer)
{
	struct func_attrs a = { 0 };
	uint64_t key = launch(0x1010, 0x100, 1);

	cr_assert_neq(key, 0);
	cr_expect_eq(launch(0x1010, 0x100, 0), key, "the same key at its next launch");
	cr_expect_eq(funcs_known(&t, ptr(0x1010), key, &a), FUNCS_WAITING);
	cr_expect_eq(answer_all(), 1);
	cr_expect_eq(answer_all(), 0, "asked once");
	cr_expect_eq(funcs_known(&t, ptr(0x1010), key, &a), FUNCS_KNOWN);
	cr_expect_eq(a.registers, 0x10);
	cr_expect_eq(a.local_mem, 2);
}

Test(sanitizer_funcs, an_unloaded_modules_functions_are_forgotten_and_their_handles_new_again)
{
	struct func_attrs a;
	uint64_t old = launch(0x2020, 0x200, 1), other = launch(0x3030, 0x300, 1), again;

	answer_all();
	cr_expect_eq(funcs_forget_module(&t, ptr(0x200)), 1);
	cr_expect_eq(funcs_known(&t, ptr(0x2020), old, &a), FUNCS_GONE);
	cr_expect_eq(funcs_known(&t, ptr(0x3030), other, &a), FUNCS_KNOWN, "another module's stays");
	again = launch(0x2020, 0x201, 1);
	cr_expect_neq(again, old, "a handle taken again names a new function");
	cr_expect_eq(funcs_known(&t, ptr(0x2020), again, &a), FUNCS_WAITING, "asked anew, not the old answer");
	cr_expect_eq(funcs_known(&t, ptr(0x2020), old, &a), FUNCS_GONE, "the old key names nothing now");
}

Test(sanitizer_funcs, an_answer_for_a_function_forgotten_meanwhile_is_dropped)
{
	struct func_entry q;
	struct func_attrs a = { .registers = 40 }, got;
	uint64_t key = launch(0x4040, 0x400, 1), again;

	cr_assert(funcs_take_question(&t, &q));
	funcs_forget_module(&t, ptr(0x400));
	again = launch(0x4040, 0x401, 1);
	funcs_answer(&t, q.f, q.key, &a);
	cr_expect_eq(q.key, key);
	cr_expect_eq(funcs_known(&t, ptr(0x4040), again, &got), FUNCS_WAITING, "the new function waits for its own answer");
}

Test(sanitizer_funcs, a_function_forgotten_before_it_was_asked_about_is_never_asked)
{
	struct func_entry q;

	launch(0x5050, 0x500, 1);
	funcs_forget_module(&t, ptr(0x500));
	cr_expect_not(funcs_take_question(&t, &q), "no question about a forgotten function");
	cr_expect_eq(t.unasked, 0);
	launch(0x6060, 0x600, 1);
	cr_assert(funcs_take_question(&t, &q));
	cr_expect_eq(q.f, ptr(0x6060));
	cr_expect_not(funcs_take_question(&t, &q));
}

/* Random handles, which share home slots in runs, from modules unloaded
 * in turn: each function left is still found after the removals shifted
 * the entries behind them back. */
Test(sanitizer_funcs, removals_keep_every_other_function_found)
{
	enum { N = 4000, MODULES = 7 };
	static uintptr_t handle[N];
	static uint64_t keys[N];
	struct func_attrs a;

	srand(7);
	for (int i = 0; i < N; i++) {
		handle[i] = ((uintptr_t)rand() << 24 ^ (uintptr_t)rand()) << 4 | 0x10;
		keys[i] = launch(handle[i], 0x100 + (uintptr_t)(i % MODULES), 1);
	}
	answer_all();
	for (int m = 0; m < MODULES; m += 2)
		cr_expect_eq(funcs_forget_module(&t, ptr(0x100 + (uintptr_t)m)), (size_t)(N / MODULES + (m < N % MODULES)));
	for (int i = 0; i < N; i++) {
		int gone = (i % MODULES) % 2 == 0;

		cr_expect_eq(funcs_known(&t, ptr(handle[i]), keys[i], &a), gone ? FUNCS_GONE : FUNCS_KNOWN,
			     "function %d (module %d)", i, i % MODULES);
	}
}

/* A program that loads and unloads modules for its whole life never fills
 * the table: a full one would leave every later function without its
 * attributes. */
Test(sanitizer_funcs, churning_modules_never_fills_the_table)
{
	struct func_attrs a;

	for (uintptr_t round = 1; round <= 50000; round++) {
		uint64_t key = launch(0x8000 + round * 0x40, round, 1);

		cr_assert_neq(key, 0, "round %lu went without a key", (unsigned long)round);
		answer_all();
		cr_assert_eq(funcs_known(&t, ptr(0x8000 + round * 0x40), key, &a), FUNCS_KNOWN);
		if (round > 8)
			funcs_forget_module(&t, ptr(round - 8));
	}
	cr_expect_leq(t.n, 9);
}

Test(sanitizer_funcs, a_full_table_gives_new_functions_no_key)
{
	uintptr_t f;
	uint64_t key = 1;

	for (f = 1; key; f++) {
		struct func_attrs a;

		funcs_launched(&t, ptr(f * 16), ptr(1), &key, &a);
	}
	cr_expect_eq(t.n, FUNCS_MAX / 2);
	cr_expect_eq(funcs_forget_module(&t, ptr(1)), FUNCS_MAX / 2);
	cr_expect_eq(t.n, 0);
	cr_expect_neq(launch(0x99990, 2, 1), 0, "room again after the unload");
}
