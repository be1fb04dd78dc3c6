/* `smtop export`: a session as a Chrome/Perfetto trace-event JSON file
 * (ui.perfetto.dev, chrome://tracing) or as three CSV files.  Everything is
 * written as it is read: kernels one by one, blocks in time windows, so a
 * session of any size costs memory for its kernels, not its blocks.
 * docs/session-format.md ("Exports") describes the tracks and columns. */
#ifndef SMTOP_EXPORT_H
#define SMTOP_EXPORT_H

#include <stdint.h>
#include <stdio.h>

struct session;

/* Blocks gathered per step of the Perfetto writer (sorted, then written);
 * a span of more than EXPORT_MAX_WINDOWS such steps (over 16 s, or a
 * damaged file's centuries) takes wider ones, so the steps stay bounded. */
#define EXPORT_WINDOW_NS 4000000ull
#define EXPORT_MAX_WINDOWS 4096ull

/* Absolute CUPTI times [t0, t1) to export. */
struct export_window {
	uint64_t t0, t1;
	int whole;              /* the whole session: no --from, no --to */
};

/* The window of a session: from/to are offsets from its first record;
 * has_to 0 means its end.  Returns -1 with err set if the window is empty. */
int export_window(const struct session *s, uint64_t from_ns, int has_to, uint64_t to_ns,
		  struct export_window *w, char *err, size_t errlen);

/* Both expect an analysed session (session_poll and analysis_update done).
 * Return 0, or -1 with one line in err. */
int export_perfetto(struct session *s, FILE *out, const struct export_window *w,
		    char *err, size_t errlen);
/* Writes DIR/kernels.csv, DIR/blocks.csv, DIR/events.csv (DIR is created if
 * missing).  RFC 4180: header row, CRLF, fields quoted when needed. */
int export_csv(struct session *s, const char *dir, const struct export_window *w,
	       char *err, size_t errlen);

#endif
