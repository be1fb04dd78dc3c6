/* Copies a session's WAL into its file from a thread of its own, so that a
 * writer storing tens of millions of blocks a second only appends to the
 * WAL: with SQLite's automatic checkpoints the writer itself copied every
 * page twice and waited for the fsync, and fell behind the fastest block
 * storms (docs/collector.md).  Passive checkpoints never
 * block the writer nor the viewer's readers; if the WAL still outgrows
 * DB_CHECKPOINT_WRITER_FRAMES (the checkpoint cannot catch up with the
 * writes), the writer checkpoints itself, as before. */
#ifndef SMTOP_DB_CHECKPOINT_H
#define SMTOP_DB_CHECKPOINT_H

#include <sqlite3.h>

/* WAL frames (pages) after which the thread checkpoints, and after which the
 * writer does (64 KiB pages: 64 MiB and 1 GiB). */
#define DB_CHECKPOINT_FRAMES 1000
#define DB_CHECKPOINT_WRITER_FRAMES 16000

struct db_checkpoint;

/* Turns off writer_db's automatic checkpoints and starts the thread on a
 * connection of its own to path, to checkpoint once the WAL holds frames
 * frames; past writer_frames the writer checkpoints itself (the collector's
 * writer: DB_CHECKPOINT_FRAMES, DB_CHECKPOINT_WRITER_FRAMES).  NULL
 * (automatic checkpoints stay) when the thread or its connection cannot
 * start. */
struct db_checkpoint *db_checkpoint_start(sqlite3 *writer_db, const char *path, int frames, int writer_frames);

/* Stops the thread after its checkpoint in progress; writer_db checkpoints
 * automatically again.  From the thread that commits on writer_db. */
void db_checkpoint_stop(struct db_checkpoint *c);

#endif
