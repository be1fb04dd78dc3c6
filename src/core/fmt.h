/* Number and time formatting shared by the views, the session library and
 * the commands.  Pure. */
#ifndef SMTOP_CORE_FMT_H
#define SMTOP_CORE_FMT_H

#include <stddef.h>
#include <stdint.h>

/* The one duration format: "4.5 us", "310 us", "2.40 ms", "125.4 ms",
 * "1.25 s", "3m05s" (8 columns at most); "N/A" for unknown. */
char *fmt_duration(char *buf, size_t len, uint64_t ns, int known);
/* A time offset from the session start, with digits enough for step ns. */
char *fmt_offset(char *buf, size_t len, uint64_t ns, uint64_t step);
/* Exact below ten million ("18,204", "4,412,345"), then "41.2 M", "1.3 G":
 * for columns and status lines. */
char *fmt_count(char *buf, size_t len, uint64_t n);
/* Always exact, thousands separated ("126,680", "1,048,576,000"): for
 * commands that print what a session holds. */
char *fmt_count_exact(char *buf, size_t len, uint64_t n);

#endif
