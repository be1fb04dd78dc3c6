/* smtop's own cache of what it computes when it reads a session it must not
 * write: `smtop report`, `ls`, `open` and `export` never change the files
 * they read, so the summary, occupancy, episodes and findings they compute
 * for a session go to $XDG_CACHE_HOME/smtop/ (else ~/.cache/smtop/), one
 * file per session.  A cache file is named by the session's identity
 * (device, inode, size, modification time), ANALYSIS_VERSION and the smtop
 * binary's (size, modification time), so a session that changed, another
 * analysis or another build finds none; inside, its rows
 * carry the same keys (the session's length, the threshold) as the ones
 * `smtop record` stores in a session it finalises.  It is a SQLite file of
 * the session schema with no records, so db/summary.c and db/events.c read
 * and write it as they do a session. */
#ifndef SMTOP_DB_CACHE_H
#define SMTOP_DB_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* A cache file not used for this long is removed when another is made. */
#define DB_CACHE_KEEP_S (30ull * 24 * 3600)

/* The cache folder: $XDG_CACHE_HOME/smtop (an absolute XDG_CACHE_HOME),
 * else $HOME/.cache/smtop.  0, or -1 when neither names one. */
int db_cache_dir(char *buf, size_t len);

/* The cache file of the session at path.  0 with out set (and its use
 * noted: its modification time is now); 1 when it does not exist yet (out
 * set all the same); -1 when there can be none (no cache folder, path
 * cannot be stat'ed). */
int db_cache_path(const char *path, char *out, size_t len);

/* Removes the cache files of dir (and half-made ones) last used more than
 * keep_s seconds ago; nothing else in dir. */
void db_cache_prune(const char *dir, uint64_t keep_s);

/* db_cache_path, creating the folder and an empty cache file when
 * missing.  0, or -1 with one line in err. */
int db_cache_prepare(const char *path, char *out, size_t len, char *err, size_t errlen);

#endif
