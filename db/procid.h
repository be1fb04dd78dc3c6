/* Which process is which across pid reuse and reboots: a pid, its start time
 * (clock ticks since boot, /proc/PID/stat) and the kernel's boot id.  A
 * session names the smtop that records it this way, so a reader can tell a
 * recording in progress from one whose recorder died. */
#ifndef SMTOP_DB_PROCID_H
#define SMTOP_DB_PROCID_H

#include <stddef.h>
#include <stdint.h>

struct db_procid {
	uint32_t pid;
	uint64_t start;         /* 0: not checked */
	char boot[40];
};

/* The calling process.  Returns 0, or -1 without /proc. */
int db_procid_self(struct db_procid *id);

/* "PID START BOOT", and back (0, or -1 when s is not one). */
void db_procid_format(const struct db_procid *id, char *buf, size_t len);
int db_procid_parse(const char *s, struct db_procid *id);

/* 1 while that process runs on this machine, 0 once it is gone (or the
 * machine rebooted since), -1 when it cannot be told (no /proc). */
int db_procid_alive(const struct db_procid *id);

#endif
