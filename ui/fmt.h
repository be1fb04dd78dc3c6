/* Number and time formatting shared by the views. */
#ifndef SMTOP_UI_FMT_H
#define SMTOP_UI_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "310 us", "2.40 ms", "1.25 s"; "N/A" for unknown. */
char *fmt_duration(char *buf, size_t len, uint64_t ns, int known);
/* A time offset from the session start, with digits enough for step ns. */
char *fmt_offset(char *buf, size_t len, uint64_t ns, uint64_t step);
/* "18,204" below a million, "41.2 M" above. */
char *fmt_count(char *buf, size_t len, uint64_t n);

#endif
