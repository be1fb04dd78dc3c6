#include "collectors/entries_share.h"

#include <stdlib.h>

int entries_share_block(const struct entries_share_launch *l, const struct smtop_entry *w, uint64_t *start,
			uint16_t *sm)
{
	/* the common case: one entry a block, all seen taken when copied */
	if (l->whole && l->warps == 1) {
		*start = w->start;
		*sm = w->sm;
		return 1;
	}
	*start = 0;
	for (uint32_t j = 0; j < l->warps; j++)
		if (entries_share_entered(&w[j], l->grid) && (!*start || w[j].start < *start)) {
			*start = w[j].start;
			*sm = w[j].sm;
		}
	return *start != 0;
}

static int entries_share_grow(struct entries_share_list *list)
{
	size_t cap = list->cap ? 2 * list->cap : 4096;
	struct entries_share_item *item = realloc(list->item, cap * sizeof(*item));

	if (!item)
		return -1;
	list->item = item;
	list->cap = cap;
	return 0;
}

/* The launch holding position `at`: the last whose first is at or before it. */
static size_t entries_share_launch_at(const struct entries_share_launch *l, size_t n, uint64_t at)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (l[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t entries_share_split(const struct entries_share_launch *l, size_t n, uint64_t from, uint64_t to,
			     unsigned shares, struct entries_share_list *lists)
{
	uint64_t lost = 0;

	for (size_t k = n ? entries_share_launch_at(l, n, from) : 0; k < n && l[k].at < to; k++) {
		uint64_t i = from > l[k].at ? from - l[k].at : 0;
		uint64_t end = to - l[k].at < l[k].blocks ? to - l[k].at : l[k].blocks;

		for (; i < end; i++) {
			const struct smtop_entry *w = &l[k].e[i * l[k].warps];
			struct entries_share_list *list;
			struct entries_share_item *it;
			uint64_t start;
			uint16_t sm;

			if (!entries_share_block(&l[k], w, &start, &sm))
				continue;
			list = &lists[sm % shares];
			if (list->n == list->cap && entries_share_grow(list) != 0) {
				lost++;
				continue;
			}
			/* field by field: an item built aside and copied whole
			 * waited on its own stores */
			it = &list->item[list->n++];
			it->start = start;
			it->pos = (uint32_t)(l[k].at + i);
			it->sm = sm;
			it->slot = w->slot;
		}
	}
	return lost;
}

void entries_share_list_free(struct entries_share_list *list)
{
	free(list->item);
	*list = (struct entries_share_list){ 0 };
}
