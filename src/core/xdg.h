/* The XDG base directories smtop keeps its files under: the session
 * library in the data home, what reading computes in the cache home. */
#ifndef SMTOP_XDG_H
#define SMTOP_XDG_H

#include <stddef.h>

/* $var/sub when var is set and absolute (the XDG spec ignores a relative
 * one), else $HOME/home_dir/sub.  Returns 0, -1 when neither is set, or -2
 * when the path does not fit in len. */
int xdg_dir(const char *var, const char *home_dir, const char *sub, char *buf, size_t len);

#endif
