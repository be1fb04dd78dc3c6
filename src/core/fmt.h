/* Number and time formatting shared by the views, the session library and
 * the commands.  Pure. */
#ifndef SMTOP_CORE_FMT_H
#define SMTOP_CORE_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "310 us", "2.40 ms", "1.25 s"; "N/A" for unknown. */
char *fmt_duration(char *buf, size_t len, uint64_t ns, int known);
/* A time offset from the session start, with digits enough for step ns. */
char *fmt_offset(char *buf, size_t len, uint64_t ns, uint64_t step);
/* Exact below ten million ("18,204", "4,412,345"), then "41.2 M", "1.3 G". */
char *fmt_count(char *buf, size_t len, uint64_t n);

#endif
