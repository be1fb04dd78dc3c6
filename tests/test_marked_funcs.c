/* Which kernels of a module carry the block tracer's marks
 * (collectors/marked_funcs.c), read from the cubins nvcc made of
 * tests/fixtures/cubin/marks.cu: its marked kernel and not its plain one,
 * whole-program and separately compiled; and what a broken image gives. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/marked_funcs.h"

#define MARKED "_Z13marked_kernelPf"
#define PLAIN "_Z12plain_kernelPf"

static unsigned char *read_image(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long n;

	cr_assert_not_null(f, "%s opens", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n);
	cr_assert_not_null(p);
	cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return p;
}

static void expect_marked_only(const char *path)
{
	struct strmap names = { 0 };
	size_t size;
	unsigned char *image = read_image(path, &size);

	cr_assert_eq(marked_funcs_scan(image, size, &names), 0, "%s is read as a cubin", path);
	cr_expect_not_null(strmap_find(&names, MARKED), "%s: the marked kernel is found", path);
	cr_expect_null(strmap_find(&names, PLAIN), "%s: the plain kernel is not", path);
	strmap_free(&names);
	free(image);
}

Test(marked_funcs, whole_program_cubin)
{
	expect_marked_only("tests/fixtures/cubin/marks.cubin");
}

Test(marked_funcs, separately_compiled_and_linked_cubin)
{
	expect_marked_only("tests/fixtures/cubin/marks-rdc.cubin");
}

Test(marked_funcs, not_a_cubin)
{
	struct strmap names = { 0 };
	static const char ptx[] = ".version 8.0\n.target sm_90\n.visible .entry " MARKED "()\n{ ret; }\n";
	size_t size;
	unsigned char *image = read_image("tests/fixtures/cubin/marks.cubin", &size);

	cr_expect_eq(marked_funcs_scan(ptx, sizeof ptx, &names), -1, "PTX is no cubin");
	cr_expect_eq(marked_funcs_scan(NULL, 0, &names), -1, "no image");
	/* every cut of the cubin short of its section table's end is refused */
	const Elf64_Ehdr *e = (const Elf64_Ehdr *)image;
	size_t table_end = e->e_shoff + (size_t)e->e_shnum * sizeof(Elf64_Shdr);

	cr_assert_leq(table_end, size);
	for (size_t cut = 0; cut < table_end; cut += 97)
		cr_expect_eq(marked_funcs_scan(image, cut, &names), -1, "cut at %zu of %zu", cut, size);
	cr_expect_eq(names.n, 0, "nothing is kept from a refused image");
	strmap_free(&names);
	free(image);
}

/* Corrupted offsets inside the cubin (section names, string and symbol
 * tables pointing outside it) are read without reading past it (ASan and
 * valgrind run this too), and never make the plain kernel a marked one. */
Test(marked_funcs, corrupted_offsets)
{
	size_t size;
	unsigned char *image = read_image("tests/fixtures/cubin/marks.cubin", &size);
	const Elf64_Ehdr *e = (const Elf64_Ehdr *)image;
	unsigned char *copy = malloc(size);

	cr_assert_not_null(copy);
	for (size_t s = 0; s < e->e_shnum; s++) {
		for (size_t field = 0; field < sizeof(Elf64_Shdr); field += 8) {
			struct strmap names = { 0 };
			uint64_t big = 0xfffffffffffff000ull;

			memcpy(copy, image, size);
			memcpy(copy + e->e_shoff + s * sizeof(Elf64_Shdr) + field, &big, sizeof big);
			int r = marked_funcs_scan(copy, size, &names);

			cr_expect(r == 0 || r == -1, "section %zu, field %zu: %d", s, field, r);
			cr_expect_null(strmap_find(&names, PLAIN), "section %zu, field %zu: the plain kernel", s, field);
			strmap_free(&names);
		}
	}
	free(copy);
	free(image);
}

Test(marked_funcs, modules_answer_per_kernel)
{
	struct marked_modules t;
	size_t size;
	unsigned char *image = read_image("tests/fixtures/cubin/marks.cubin", &size);
	const void *mod = (const void *)0x1000, *other = (const void *)0x2000;

	memset(&t, 0, sizeof t);
	marked_modules_add(&t, mod, image, size);
	marked_modules_add(&t, other, "not a cubin", 12);
	cr_expect_eq(marked_modules_kernel(&t, mod, MARKED), MARKED_YES);
	cr_expect_eq(marked_modules_kernel(&t, mod, PLAIN), MARKED_NO, "a kernel of the module without marks");
	cr_expect_eq(marked_modules_kernel(&t, other, MARKED), MARKED_UNKNOWN, "an image not read");
	cr_expect_eq(marked_modules_kernel(&t, (const void *)0x3000, MARKED), MARKED_UNKNOWN, "a module never loaded");
	cr_expect_eq(marked_modules_kernel(&t, mod, NULL), MARKED_UNKNOWN, "a launch without a name");
	marked_modules_forget(&t, mod);
	cr_expect_eq(marked_modules_kernel(&t, mod, MARKED), MARKED_UNKNOWN, "forgotten with its unload");
	/* the handle taken again by a module without the marks */
	marked_modules_add(&t, mod, image, 1024);
	cr_expect_eq(marked_modules_kernel(&t, mod, MARKED), MARKED_UNKNOWN);
	marked_modules_clear(&t);
	free(image);
}

Test(marked_funcs, a_full_table_leaves_later_modules_unknown)
{
	struct marked_modules t;
	size_t size;
	unsigned char *image = read_image("tests/fixtures/cubin/marks.cubin", &size);

	memset(&t, 0, sizeof t);
	for (uintptr_t m = 1; m <= MARKED_MODULES_MAX + 1; m++)
		marked_modules_add(&t, (const void *)(m * 16), image, size);
	cr_expect_eq(marked_modules_kernel(&t, (const void *)(uintptr_t)(MARKED_MODULES_MAX * 16), MARKED), MARKED_YES);
	cr_expect_eq(marked_modules_kernel(&t, (const void *)(uintptr_t)((MARKED_MODULES_MAX + 1) * 16), MARKED),
		     MARKED_UNKNOWN);
	marked_modules_forget(&t, (const void *)16);
	marked_modules_add(&t, (const void *)(uintptr_t)((MARKED_MODULES_MAX + 1) * 16), image, size);
	cr_expect_eq(marked_modules_kernel(&t, (const void *)(uintptr_t)((MARKED_MODULES_MAX + 1) * 16), PLAIN),
		     MARKED_NO, "a slot freed by an unload is taken");
	marked_modules_clear(&t);
	free(image);
}
