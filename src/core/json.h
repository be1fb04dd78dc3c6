/* The JSON that smtop writes (report --json, ls --json, export --perfetto). */
#ifndef SMTOP_JSON_H
#define SMTOP_JSON_H

#include <stdio.h>

/* s as a JSON string (quoted and escaped), or null when s is NULL. */
void json_write_str(FILE *out, const char *s);

#endif
