#include "collectors/sanitizer_funcs.h"

#define FUNCS_MASK (FUNCS_MAX - 1)

static size_t funcs_home(const void *f)
{
	uint64_t x = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull;

	return (size_t)(x >> 40) & FUNCS_MASK;
}

/* f's slot, or the empty slot where it would go.  The table is never
 * more than half full, so an empty slot ends every probe. */
static size_t funcs_slot(const struct funcs *t, const void *f)
{
	size_t i = funcs_home(f);

	while (t->e[i].f && t->e[i].f != f)
		i = (i + 1) & FUNCS_MASK;
	return i;
}

/* The entry of the function key names, with handle f; NULL when it was
 * forgotten (or never listed). */
static struct func_entry *funcs_find(const struct funcs *t, const void *f, uint64_t key)
{
	const struct func_entry *e = &t->e[funcs_slot(t, f)];

	return f && e->f == f && e->key == key ? (struct func_entry *)e : NULL;
}

int funcs_launched(struct funcs *t, const void *f, const void *module, uint64_t *key, struct func_attrs *attrs)
{
	struct func_entry *e = &t->e[funcs_slot(t, f)];

	*attrs = (struct func_attrs){ 0 };
	*key = 0;
	if (!f)
		return 1;
	if (e->f == f) {
		*key = e->key;
		if (e->answered)
			*attrs = e->attrs;
		return 0;
	}
	if (t->n * 2 + 2 > FUNCS_MAX) /* past half full, new ones go without */
		return 1;
	*e = (struct func_entry){ .f = f, .module = module, .key = ++t->last_key };
	t->n++;
	t->unasked++;
	*key = e->key;
	return 1;
}

enum funcs_state funcs_known(const struct funcs *t, const void *f, uint64_t key, struct func_attrs *attrs)
{
	const struct func_entry *e = funcs_find(t, f, key);

	if (!e)
		return FUNCS_GONE;
	if (!e->answered)
		return FUNCS_WAITING;
	*attrs = e->attrs;
	return FUNCS_KNOWN;
}

int funcs_take_question(struct funcs *t, struct func_entry *out)
{
	/* the host thread comes every few milliseconds: most times, none */
	for (size_t i = 0; t->unasked && i < FUNCS_MAX; i++) {
		if (t->e[i].f && !t->e[i].asked) {
			t->e[i].asked = 1;
			t->unasked--;
			*out = t->e[i];
			return 1;
		}
	}
	return 0;
}

void funcs_answer(struct funcs *t, const void *f, uint64_t key, const struct func_attrs *attrs)
{
	struct func_entry *e = funcs_find(t, f, key);

	if (e) {
		e->attrs = *attrs;
		e->answered = 1;
	}
}

/* Whether slot k lies cyclically in (from, to]. */
static int funcs_between(size_t from, size_t k, size_t to)
{
	return from <= to ? from < k && k <= to : from < k || k <= to;
}

/* Empties slot i and moves back the entries after it that would no longer
 * be found past the hole (Knuth's deletion for linear probing). */
static void funcs_remove(struct funcs *t, size_t i)
{
	size_t j = i;

	t->n--;
	for (;;) {
		t->e[i] = (struct func_entry){ 0 };
		do {
			j = (j + 1) & FUNCS_MASK;
			if (!t->e[j].f)
				return;
		} while (funcs_between(i, funcs_home(t->e[j].f), j));
		t->e[i] = t->e[j];
		i = j;
	}
}

size_t funcs_forget_module(struct funcs *t, const void *module)
{
	size_t gone = 0;

	/* a removal may move a later entry into slot i: look at i again */
	for (size_t i = 0; t->n && i < FUNCS_MAX;) {
		if (t->e[i].f && t->e[i].module == module) {
			t->unasked -= !t->e[i].asked;
			funcs_remove(t, i);
			gone++;
		} else {
			i++;
		}
	}
	return gone;
}
