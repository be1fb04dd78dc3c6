#include "db/session_end.h"

#include <stdio.h>

#include "db/reader.h"
#include "db/writer.h"

static void session_end_clock_keys(struct db_writer *w, const char *suffix, const struct gpu_clock *c)
{
	char key[48], value[32];

	snprintf(key, sizeof key, "clock_ref_ns%s", suffix);
	snprintf(value, sizeof value, "%llu", (unsigned long long)c->ref_ns);
	db_writer_set_meta(w, key, value);
	snprintf(key, sizeof key, "clock_drift_ppb%s", suffix);
	snprintf(value, sizeof value, "%lld", (long long)c->drift_ppb);
	db_writer_set_meta(w, key, value);
	/* the offset last: a reader takes its presence for the whole clock */
	snprintf(key, sizeof key, "clock_offset_ns%s", suffix);
	snprintf(value, sizeof value, "%lld", (long long)c->offset_ns);
	db_writer_set_meta(w, key, value);
}

/* The plain keys hold the first device's clock; with several GPUs (each has
 * its own %globaltimer) keys ending in ".D" hold device D's. */
static void session_end_store_clock(struct db_writer *w, const char *path)
{
	char err[256];
	struct db_reader *r;
	struct db_session_info si;

	if (db_reader_open(&r, path, err, sizeof err) != 0)
		return;
	if (db_reader_info(r, &si) == 0 && si.clock_known) {
		for (size_t i = 0; si.n_clocks > 1 && i < si.n_clocks; i++) {
			char suffix[16];

			snprintf(suffix, sizeof suffix, ".%u", si.clocks[i].device_id);
			session_end_clock_keys(w, suffix, &si.clocks[i].clock);
		}
		session_end_clock_keys(w, "", &si.clock);
	}
	db_reader_close(r);
}

int db_session_end(struct db_writer *w, const char *path, int clean, const char *reason)
{
	if (db_writer_finish_session(w, clean, reason) != 0)
		return -1;
	session_end_store_clock(w, path);
	return 0;
}
