#include "collectors/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_debug_on = -1;

void log_init(void)
{
	const char *v = getenv("SMTOP_DEBUG");

	log_debug_on = v && *v && strcmp(v, "0") != 0;
}

int log_debug_enabled(void)
{
	if (log_debug_on < 0)
		log_init();
	return log_debug_on;
}

/* One write per line so lines from several threads do not interleave. */
static void log_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s", prefix);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	strcat(buf, "\n");
	fputs(buf, stderr);
}

void log_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("smtop: ", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_debug_enabled())
		return;
	va_start(ap, fmt);
	log_line("smtop[debug]: ", fmt, ap);
	va_end(ap);
}
