/* The session library: the directory where sessions are saved by default
 * ($XDG_DATA_HOME/smtop/sessions), the names new sessions get there, and the
 * summary each one shows in `smtop ls` and in the viewer's session list
 * (counts and the analysis' episodes, cached in the session file). */
#ifndef SMTOP_LIBRARY_H
#define SMTOP_LIBRARY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "db/summary.h"

struct analysis_params;
struct session;

#define LIBRARY_EXT ".smtop"

enum library_state {
	LIBRARY_COMPLETE,            /* finalised, the workload exited normally */
	LIBRARY_INCOMPLETE,          /* finalised after a crash or a signal */
	LIBRARY_OPEN,                /* still recording, or never finalised */
	LIBRARY_NSYS,                /* an Nsight Systems export */
};

struct library_entry {
	char *name;                  /* file name in the directory */
	char *path;                  /* directory/name */
	char *error;                 /* NULL, or why the file is not a readable session */
	enum library_state state;
	uint64_t created_ns;         /* 0 unknown */
	uint64_t mtime_ns;
	char *command;               /* NULL unknown */
	char *gpu;                   /* the first GPU, NULL unknown */
	int n_gpus;
	struct db_summary sum;
	int cached;                  /* sum came from the file's smtop_summary */
	int stored;                  /* sum was computed now and stored in the file */
};

struct library {
	char *dir;
	struct library_entry *e;     /* newest first; files that are not sessions too */
	size_t n;
	uint64_t threshold_ns;
};

/* The library directory: $XDG_DATA_HOME/smtop/sessions, else
 * $HOME/.local/share/smtop/sessions.  Returns 0, or -1 with one line in err. */
int library_default_dir(char *buf, size_t len, char *err, size_t errlen);

/* The library to show: given (smtop ls DIR), else the default one
 * (*missing_ok set: a library not created yet is empty).  0, or -1 (err). */
int library_dir(const char *given, char *buf, size_t len, int *missing_ok, char *err, size_t errlen);

/* Creates dir and its missing parents with mode 0700.  Returns 0, or -1 with
 * one line in err naming the directory. */
int library_make_dir(const char *dir, char *err, size_t errlen);

/* The file name of a session of argv started at t (local time), e.g.
 * "2026-11-30T06-47-57-python3-train.smtop": the program's base name and the
 * first argument that is not an option, letters, digits, '-' and '_' only. */
void library_session_name(char *const *argv, time_t t, char *buf, size_t len);

/* dir/NAME for a new session, NAME from library_session_name, made unique
 * among the files present with -2, -3, ...  Returns 0 or -1 (err set). */
int library_new_path(const char *dir, char *const *argv, time_t t, char *buf, size_t len,
		     char *err, size_t errlen);

/* Lists dir: every regular file except dotfiles and the companions of a
 * session present (-wal, -shm, -journal, .log), newest first.  Files that are
 * not sessions are listed with their error.  Summaries come from the files'
 * cache, or are computed with the thresholds of p (NULL: the defaults) and
 * stored.  Returns 0, or -1 with one line in err when dir cannot be read. */
int library_scan(struct library *lib, const char *dir, const struct analysis_params *p,
		 char *err, size_t errlen);
void library_free(struct library *lib);

/* Index of the entry named name, or -1. */
long library_find(const struct library *lib, const char *name);

/* Fills e for the file dir/name (e->error set when it is not a session). */
void library_read_entry(struct library_entry *e, const char *dir, const char *name,
			const struct analysis_params *p);
void library_entry_free(struct library_entry *e);

/* The summary of a session the caller has read to its end (session_poll with
 * the session ended, or analysis_update with ANALYSIS_WATERMARK_ALL), for a
 * session of length key. */
void library_summary_of(struct session *s, const struct db_summary_key *key,
			struct db_summary *out);

/* Summarises path (from its cache when that is current) and stores it.  Used
 * when a recording is finalised.  Returns 0, or -1 with one line in err. */
int library_summarize(const char *path, const struct analysis_params *p, char *err,
		      size_t errlen);

/* What a finalised recording keeps for later: the summary, the occupancy
 * of the whole session and the analysis' episodes (db/session/results.h),
 * from one read of the file.  Returns 0, or -1 with one line in err. */
int library_finalize(const char *path, const struct analysis_params *p, char *err,
		     size_t errlen);

/* Stores the summary of s, which holds the whole of a finalised session
 * (the live viewer's own analysis, so nothing is read twice). */
int library_store_session(struct session *s, char *err, size_t errlen);

/* A session argument of rm and mv: a path when it holds a '/', else a name
 * in the library directory when one is there, else a path.  Returns 0. */
int library_resolve(const char *arg, char *buf, size_t len);

/* Renames the session at path to new_name in the same directory (".smtop"
 * added when missing); new_path receives the result.  Refuses a name with '/'
 * or a leading '.', an existing name, a file that is not a session, and a
 * session another process has open.  Returns 0, or -1 with one line in err. */
int library_rename_path(const char *path, const char *new_name, char *new_path, size_t len,
			char *err, size_t errlen);

/* Removes the session at path and its companions, with the same refusals. */
int library_remove_path(const char *path, char *err, size_t errlen);

/* The same on entry i; the list is updated (renamed entries keep their place). */
int library_rename(struct library *lib, size_t i, const char *new_name, char *err, size_t errlen);
int library_remove(struct library *lib, size_t i, char *err, size_t errlen);

/* One row of the library as text, shared by `smtop ls` and the list view.
 * A file that is not a session has its error in command and "-" elsewhere. */
struct library_row {
	char date[24];               /* "2026-11-30 06:47:57" local time, or N/A */
	char command[256];
	char gpu[96];
	char duration[24];
	char kernels[24], blocks[24], inversions[24];
	const char *file;
	int stray;                   /* not a session: command holds the error, across the row */
};

void library_row(const struct library_entry *e, struct library_row *r);

/* Widths of the fixed columns, in the order of the table:
 * DATE COMMAND GPU DURATION KERNELS BLOCKS INVERSIONS FILE. */
#define LIBRARY_W_DATE 19
#define LIBRARY_W_GPU 12
#define LIBRARY_W_DURATION 8
#define LIBRARY_W_KERNELS 9
#define LIBRARY_W_BLOCKS 9
#define LIBRARY_W_INVERSIONS 10
/* Columns a line may leave out (narrow screens; the list shows the file in
 * its status line instead). */
#define LIBRARY_HIDE_GPU 1u
#define LIBRARY_HIDE_FILE 2u
#define LIBRARY_GPU_W (LIBRARY_W_GPU + 2)
/* Columns a line takes with command cmd_w and file file_w wide. */
int library_line_width(int cmd_w, int file_w, unsigned hide);

/* Writes one line of the table: command cut or padded to cmd_w columns, file
 * to file_w; hide leaves columns out; r NULL gives the title line.  Trailing
 * blanks are trimmed.  Returns buf. */
char *library_format_line(const struct library_row *r, int cmd_w, int file_w, unsigned hide,
			  char *buf, size_t len);

#endif
