/* Shared pieces of the fuzz harnesses (tests/fuzz/fuzz_*.c, docs/testing.md):
 * a private file for inputs that must live on disk, and the walks that drive
 * every read path of a session the way smtop's commands do. */
#ifndef SMTOP_TESTS_FUZZ_SUPPORT_H
#define SMTOP_TESTS_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct db_reader;

/* The harness's private session path (one per process, under $TMPDIR or
 * /dev/shm), with no file, WAL or shared-memory file left from the last run. */
const char *fuzz_session_path(void);

/* Writes data to fuzz_session_path(); returns the path, or NULL on failure. */
const char *fuzz_write_session(const uint8_t *data, size_t size);

/* Removes the session file and its -wal, -shm and -journal companions. */
void fuzz_remove_session(void);

/* Gives the GPUs of the database at path (TARGET_INFO_GPU, nsys' older
 * TARGET_INFO_CUDA_GPU) the properties of one architecture from cc 3.5 to
 * 12.x, or values no GPU has (zeros, 32- and 64-bit edges), picked by a
 * hash of the input; one input in 29 keeps its own, and some lose their GPU
 * rows.  Whatever fails to apply (a damaged file, no such table) is left. */
void fuzz_vary_gpus(const char *path, const uint8_t *data, size_t size);

/* A sink for text output (/dev/null), opened once. */
FILE *fuzz_null_out(void);

/* One read path of a session file.  To fuzz a new entry point of
 * db/reader.c, add a function and one row to fuzz_reader_walks in support.c;
 * for one that opens the file itself (an importer, db/events.c), a row of
 * fuzz_file_walks.  Every harness that opens sessions runs them all. */
struct fuzz_reader_walk {
	const char *name;
	void (*walk)(struct db_reader *r);
};

struct fuzz_file_walk {
	const char *name;
	void (*walk)(const char *path);
};

extern const struct fuzz_reader_walk fuzz_reader_walks[];
extern const size_t fuzz_reader_walk_count;
extern const struct fuzz_file_walk fuzz_file_walks[];
extern const size_t fuzz_file_walk_count;

/* Runs every file walk, then opens path with the reader and runs every
 * reader walk (a refused file is fine: it must be told why in one line). */
void fuzz_walk_reader(const char *path);

/* What `smtop report`, `open`, `export` and `replay` do with a session,
 * short of the terminal: the loader feeding analysis and model, the report
 * in both formats, the viewer's samples and detail window, the Perfetto
 * export, the replay feed, and (smtop sessions only) the events stored back
 * into the file; then the same with the file opened twice as one view. */
void fuzz_load_session(const char *path);

/* Aborts with msg when a property the harness checks does not hold. */
void fuzz_check(int ok, const char *msg);

#endif
