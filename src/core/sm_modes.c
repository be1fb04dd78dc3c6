#include "src/core/sm_modes.h"

#include <stdio.h>
#include <string.h>

/* The first is the default. */
const struct sm_mode sm_modes[] = {
	{ "marked", "CUPTI", 0 },
	{ "entry", "every block's start, ends exact in windows, Compute Sanitizer", 1 },
	{ "exact", "every block's start and end, Compute Sanitizer", 1 },
	{ "all", "every block, Compute Sanitizer", 1 },
};
const size_t sm_modes_count = sizeof(sm_modes) / sizeof(sm_modes[0]);

const struct sm_mode *sm_mode_named(const char *name)
{
	for (size_t i = 0; name && i < sm_modes_count; i++)
		if (!strcmp(sm_modes[i].name, name))
			return &sm_modes[i];
	return NULL;
}

const char *sm_modes_list(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sm_modes_count && at < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == sm_modes_count ? " or " : ", ";
		int n = snprintf(buf + at, len - at, "%s'%s' (%s)", sep, sm_modes[i].name, sm_modes[i].what);
		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}
