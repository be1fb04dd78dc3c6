#include "src/core/xdg.h"

#include <stdio.h>
#include <stdlib.h>

int xdg_dir(const char *var, const char *home_dir, const char *sub, char *buf, size_t len)
{
	const char *xdg = getenv(var);
	const char *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/%s", xdg, sub);
	else if (home && *home)
		n = snprintf(buf, len, "%s/%s/%s", home, home_dir, sub);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -2 : 0;
}
