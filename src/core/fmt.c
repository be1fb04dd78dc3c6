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
	else if (ns < 100000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns < 1000000000) /* at most 8 columns: the library's */
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns < 60000000000ULL)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(ns / 60000000000ULL),
			 (unsigned long long)(ns / 1000000000ULL % 60));
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

char *fmt_count_exact(char *buf, size_t len, uint64_t n)
{
	char digits[24], out[32];
	int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t o = 0;
	for (int i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, len, "%s", out);
	return buf;
}

char *fmt_count(char *buf, size_t len, uint64_t n)
{
	if (n >= 1000000000ULL)
		snprintf(buf, len, "%.1f G", n / 1e9);
	else if (n >= 10000000ULL)
		snprintf(buf, len, "%.1f M", n / 1e6);
	else
		fmt_count_exact(buf, len, n);
	return buf;
}
