/* Recording alongside: `smtop launch` starts a program with the collector
 * dormant, `smtop env` prints the same set-up for a shell, and `smtop record
 * --attach PID` switches recording on in such a process and off again. */
#ifndef SMTOP_APP_LAUNCH_H
#define SMTOP_APP_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct cli;

/* Execs c->argv in place of smtop, the collector dormant: returns only on
 * failure (127 when the program cannot be run). */
int launch_main(const struct cli *c);

/* Prints the export lines of that set-up, for eval "$(smtop env)". */
int launch_env_main(const struct cli *c);

/* smtop record --attach PID [-o FILE] [--for DURATION]. */
int launch_attach_main(const struct cli *c);

/* A new session's path for pid, in the library and named as `smtop record`
 * names them, from its command line.  0, or -1 with err. */
int launch_session_path(pid_t pid, char *buf, size_t len, char *err, size_t errlen);

#endif
