/* `smtop info FILE`: what a session holds, in a few lines. */
#ifndef SMTOP_INFO_H
#define SMTOP_INFO_H

#include <stddef.h>
#include <stdio.h>

struct db_session_info;

int info_main(const char *path);

/* smtop info FILE...: one summary per file; non-zero if any failed. */
int info_main_many(const char *const *paths, size_t n);

/* Writes the summary of one session to out. */
void info_print(FILE *out, const struct db_session_info *si);

#endif
