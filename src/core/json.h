/* The JSON that smtop writes (report --json, ls --json, export --perfetto). */
#ifndef SMTOP_JSON_H
#define SMTOP_JSON_H

#include <stdint.h>
#include <stdio.h>

/* s as a JSON string (quoted and escaped), or null when s is NULL. */
void json_write_str(FILE *out, const char *s);

/* The member "dropped": what the collector counted as dropped, or null
 * when the source counts nothing (!known: an Nsight Systems export). */
void json_write_drops(FILE *out, int known, uint64_t blocks, uint64_t cupti, uint64_t ring);

#endif
