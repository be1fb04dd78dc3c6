/* smtop ls, rm and mv: the session library from the command line. */
#ifndef SMTOP_LS_H
#define SMTOP_LS_H

#include <stddef.h>

#include "src/app/cli.h"

/* smtop ls [DIR] [--json]: a table (or JSON) when the output is not a
 * terminal, the list view on one. */
int ls_main(const struct cli *c);
/* smtop rm FILE */
int ls_rm_main(const struct cli *c);
/* smtop mv FILE NEWNAME */
int ls_mv_main(const struct cli *c);

/* The directory ls shows: ls DIR, else the default library (*missing_ok
 * set: a library not created yet is empty).  Returns 0 or -1 (err set). */
int ls_dir(const struct cli *c, char *buf, size_t len, int *missing_ok, char *err, size_t errlen);

#endif
