/* smtop ls, rm and mv: the session library from the command line. */
#ifndef SMTOP_LS_H
#define SMTOP_LS_H

#include <stddef.h>

#include "ui/app/cli.h"

/* smtop ls [DIR] [--json]: a table (or JSON) when the output is not a
 * terminal, the list view on one. */
int ls_main(const struct cli *c);
/* smtop rm FILE */
int ls_rm_main(const struct cli *c);
/* smtop mv FILE NEWNAME */
int ls_mv_main(const struct cli *c);


#endif
