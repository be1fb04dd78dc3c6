/* Helpers for session-store tests: temporary session paths and builders of
 * collector-side records (strings and arrays malloc'd, as the writer expects). */
#ifndef SMTOP_TESTS_DB_SUPPORT_H
#define SMTOP_TESTS_DB_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "db/writer.h"
#include "src/core/records.h"

/* A fresh path name in a new temporary directory (the file does not exist). */
void db_support_temp_path(char *out, size_t len, const char *name);

/* Opens a writer for pid; create 1 makes the session.  Aborts the test on failure. */
struct db_writer *db_support_writer(const char *path, uint32_t pid, int create);

struct smtop_record db_support_kernel(uint32_t pid, uint32_t stream, uint64_t start,
				      uint64_t end, uint64_t grid_id, const char *name);
struct smtop_record db_support_stream(uint32_t pid, uint32_t stream, int32_t priority);
struct smtop_record db_support_device(uint32_t pid, uint32_t device, uint32_t sm_count);
struct smtop_record db_support_api(uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
				   int is_driver, const char *name);
struct smtop_record db_support_nvtx(uint32_t pid, uint64_t start, uint64_t end,
				    const char *text, const char *domain);
struct smtop_record db_support_request(uint32_t pid, uint32_t stream, uint64_t start,
				       uint64_t end, const char *label);
/* Copies n blocks into a record of one process and context. */
struct smtop_record db_support_blocks(uint32_t pid, uint32_t context,
				      const struct smtop_block *b, uint32_t n);

/* Deterministic pseudo-random blocks: grids of consecutive indices spread
 * round-robin over n_sms SMs, times on a 32 ns tick. */
void db_support_synthetic_blocks(struct smtop_block *out, size_t n, uint64_t t0,
				 uint32_t n_sms, uint64_t *seed);

uint64_t db_support_rand(uint64_t *seed);

/* The first column of the first row of sql on the file at path (read-only),
 * or -1 when there is no row.  Aborts the test when sql does not prepare. */
int64_t db_support_sql_int(const char *path, const char *sql);

/* Frees what a built record owns (records_free_owned).  Referencing it here
 * also pulls src/records.o into suites, whatever order the archives link in. */
void db_support_free_record(struct smtop_record *r);

#endif
