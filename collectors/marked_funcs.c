#include "collectors/marked_funcs.h"

#include <elf.h>
#include <string.h>

#include "src/core/smtop_trace_abi.h"

/* A cubin as read: every offset checked against its size before use. */
struct cubin {
	const unsigned char *p;
	size_t size;
	const Elf64_Shdr *sh;
	size_t n_sh;
	const Elf64_Shdr *shstr;
};

static int in_image(const struct cubin *c, uint64_t off, uint64_t len)
{
	return off <= c->size && len <= c->size - off;
}

/* The NUL-terminated string at off of string section s, or NULL. */
static const char *string_at(const struct cubin *c, const Elf64_Shdr *s, uint64_t off)
{
	const char *start;

	if (!s || s->sh_type != SHT_STRTAB || !in_image(c, s->sh_offset, s->sh_size) || off >= s->sh_size)
		return NULL;
	start = (const char *)c->p + s->sh_offset + off;
	return memchr(start, '\0', s->sh_size - off) ? start : NULL;
}

static const Elf64_Shdr *section(const struct cubin *c, uint64_t i)
{
	return i < c->n_sh ? &c->sh[i] : NULL;
}

/* What follows prefix in name, or NULL when name lacks it or ends there. */
static const char *after_prefix(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return name && !strncmp(name, prefix, n) && name[n] ? name + n : NULL;
}

static const char *section_name(const struct cubin *c, const Elf64_Shdr *s)
{
	return s ? string_at(c, c->shstr, s->sh_name) : NULL;
}

/* The kernel whose code section i is (".text.NAME"), or NULL. */
static const char *kernel_of_section(const struct cubin *c, uint64_t i)
{
	return after_prefix(section_name(c, section(c, i)), ".text.");
}

static int cubin_open(struct cubin *c, const void *image, size_t size)
{
	const Elf64_Ehdr *e = image;

	memset(c, 0, sizeof(*c));
	c->p = image;
	c->size = size;
	if (!image || size < sizeof(*e) || memcmp(e->e_ident, ELFMAG, SELFMAG) ||
	    e->e_ident[EI_CLASS] != ELFCLASS64 || e->e_ident[EI_DATA] != ELFDATA2LSB ||
	    e->e_shentsize != sizeof(Elf64_Shdr) || e->e_shoff % _Alignof(Elf64_Shdr) ||
	    !in_image(c, e->e_shoff, (uint64_t)e->e_shnum * sizeof(Elf64_Shdr)))
		return -1;
	c->sh = (const Elf64_Shdr *)(c->p + e->e_shoff);
	c->n_sh = e->e_shnum;
	c->shstr = section(c, e->e_shstrndx);
	return c->shstr ? 0 : -1;
}

/* The entries of table section s, each of size entsize, or NULL. */
static const void *table_of(const struct cubin *c, const Elf64_Shdr *s, size_t entsize, size_t *n)
{
	if (s->sh_entsize != entsize || !in_image(c, s->sh_offset, s->sh_size) || s->sh_offset % 8)
		return NULL;
	*n = s->sh_size / entsize;
	return c->p + s->sh_offset;
}

struct symbols {
	const Elf64_Sym *sym;
	size_t n;
	const Elf64_Shdr *str;
};

static int symbols_open(const struct cubin *c, struct symbols *y)
{
	for (size_t i = 0; i < c->n_sh; i++) {
		if (c->sh[i].sh_type != SHT_SYMTAB)
			continue;
		y->sym = table_of(c, &c->sh[i], sizeof(Elf64_Sym), &y->n);
		y->str = section(c, c->sh[i].sh_link);
		return y->sym && y->str ? 0 : -1;
	}
	y->n = 0; /* no symbols: no kernel names the record function */
	return 0;
}

static int is_record(const struct cubin *c, const struct symbols *y, uint64_t i)
{
	const char *name = i < y->n ? string_at(c, y->str, y->sym[i].st_name) : NULL;

	return name && strstr(name, SMTOP_TRACE_RECORD_NAME);
}

static int add_kernel(struct strmap *names, const char *kernel)
{
	return !kernel || strmap_intern(names, kernel) ? 0 : -1;
}

/* Whole-program cubins: the record function inside a kernel's section. */
static int scan_symbols(const struct cubin *c, const struct symbols *y, struct strmap *names)
{
	for (size_t i = 0; i < y->n; i++) {
		if (ELF64_ST_TYPE(y->sym[i].st_info) == STT_FUNC && is_record(c, y, i) &&
		    add_kernel(names, kernel_of_section(c, y->sym[i].st_shndx)) != 0)
			return -1;
	}
	return 0;
}

/* The code section a relocation section applies to (".rel(a).text.NAME"). */
static const char *relocated_kernel(const struct cubin *c, const Elf64_Shdr *s)
{
	const char *name = section_name(c, s);

	return s->sh_type == SHT_RELA ? after_prefix(name, ".rela.text.") : after_prefix(name, ".rel.text.");
}

/* Separate compilation: a kernel's relocations name the record function. */
static int scan_relocations(const struct cubin *c, const struct symbols *y, struct strmap *names)
{
	for (size_t i = 0; i < c->n_sh; i++) {
		const Elf64_Shdr *s = &c->sh[i];
		int rela = s->sh_type == SHT_RELA;
		const char *kernel = rela || s->sh_type == SHT_REL ? relocated_kernel(c, s) : NULL;
		const unsigned char *t;
		size_t n = 0, size = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);

		if (!kernel || !(t = table_of(c, s, size, &n)))
			continue;
		for (size_t j = 0; j < n; j++) {
			const Elf64_Rel *r = (const Elf64_Rel *)(t + j * size); /* Rela begins as Rel */

			if (is_record(c, y, ELF64_R_SYM(r->r_info))) {
				if (add_kernel(names, kernel) != 0)
					return -1;
				break;
			}
		}
	}
	return 0;
}

int marked_funcs_scan(const void *image, size_t size, struct strmap *names)
{
	struct cubin c;
	struct symbols y = { 0 };

	if (cubin_open(&c, image, size) != 0 || symbols_open(&c, &y) != 0)
		return -1;
	if (scan_symbols(&c, &y, names) != 0 || scan_relocations(&c, &y, names) != 0)
		return -1;
	return 0;
}

static struct marked_module *module_slot(struct marked_modules *t, const void *module)
{
	for (size_t i = 0; i < MARKED_MODULES_MAX; i++)
		if (t->m[i].module == module)
			return &t->m[i];
	return NULL;
}

void marked_modules_add(struct marked_modules *t, const void *module, const void *image, size_t size)
{
	struct marked_module *m;

	if (!module)
		return;
	marked_modules_forget(t, module); /* a handle reused without its unload seen */
	m = module_slot(t, NULL);
	if (!m)
		return; /* the table is full: this module stays unknown */
	/* a module that holds the ring and no kernel found marked was read
	 * in some way this reader does not know: the module-wide answer,
	 * which may lose blocks, is safer than recording them twice */
	if (marked_funcs_scan(image, size, &m->names) != 0 || m->names.n == 0) {
		strmap_clear(&m->names);
		return;
	}
	m->module = module;
}

void marked_modules_forget(struct marked_modules *t, const void *module)
{
	struct marked_module *m = module ? module_slot(t, module) : NULL;

	if (!m)
		return;
	strmap_clear(&m->names);
	m->module = NULL;
}

enum marked_answer marked_modules_kernel(const struct marked_modules *t, const void *module, const char *name)
{
	for (size_t i = 0; module && name && i < MARKED_MODULES_MAX; i++)
		if (t->m[i].module == module)
			return strmap_find(&t->m[i].names, name) ? MARKED_YES : MARKED_NO;
	return MARKED_UNKNOWN;
}

void marked_modules_clear(struct marked_modules *t)
{
	for (size_t i = 0; i < MARKED_MODULES_MAX; i++) {
		strmap_free(&t->m[i].names);
		t->m[i].module = NULL;
	}
}
