#include "src/core/fmt.h"

#include <stdio.h>

char *fmt_duration(char *buf, size_t len, uint64_t ns, int known)
{
	if (!known)
		snprintf(buf, len, "N/A");
	else if (ns < 10000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

char *fmt_offset(char *buf, size_t len, uint64_t ns, uint64_t step)
{
	if (step >= 1000000000ULL)
		snprintf(buf, len, "%.0fs", ns / 1e9);
	else if (step >= 100000000ULL)
		snprintf(buf, len, "%.1fs", ns / 1e9);
	else if (step >= 1000000ULL)
		snprintf(buf, len, "%.0fms", ns / 1e6);
	else if (step >= 100000ULL)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else if (step >= 10000ULL)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fms", ns / 1e6);
	return buf;
}

char *fmt_count(char *buf, size_t len, uint64_t n)
{
	if (n >= 1000000000ULL)
		snprintf(buf, len, "%.1f G", n / 1e9);
	else if (n >= 10000000ULL)
		snprintf(buf, len, "%.1f M", n / 1e6);
	else if (n >= 1000000ULL)
		snprintf(buf, len, "%llu,%03llu,%03llu", (unsigned long long)(n / 1000000),
			 (unsigned long long)(n / 1000 % 1000), (unsigned long long)(n % 1000));
	else if (n >= 1000ULL)
		snprintf(buf, len, "%llu,%03llu", (unsigned long long)(n / 1000),
			 (unsigned long long)(n % 1000));
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}
