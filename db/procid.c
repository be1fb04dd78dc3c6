#include "db/procid.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, (int)len, f) != NULL;

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int boot_id(char *buf, size_t len)
{
	return read_line("/proc/sys/kernel/random/boot_id", buf, len);
}

/* Field 22 of /proc/PID/stat; the command name (field 2) may hold spaces
 * and parentheses, so fields are counted from its last ')'. */
static int start_time(uint32_t pid, uint64_t *start)
{
	char path[64], line[1024], *p;
	int field = 2;

	snprintf(path, sizeof path, "/proc/%" PRIu32 "/stat", pid);
	if (read_line(path, line, sizeof line) != 0 || !(p = strrchr(line, ')')))
		return -1;
	while (*p && field < 22) {
		if (*p++ == ' ')
			field++;
	}
	if (field != 22)
		return -1;
	*start = strtoull(p, NULL, 10);
	return 0;
}

int db_procid_self(struct db_procid *id)
{
	memset(id, 0, sizeof *id);
	id->pid = (uint32_t)getpid();
	if (boot_id(id->boot, sizeof id->boot) != 0 || start_time(id->pid, &id->start) != 0)
		return -1;
	return 0;
}

void db_procid_format(const struct db_procid *id, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu32 " %" PRIu64 " %s", id->pid, id->start, id->boot);
}

int db_procid_parse(const char *s, struct db_procid *id)
{
	unsigned long long pid, start;

	memset(id, 0, sizeof *id);
	if (!s || sscanf(s, "%llu %llu %39s", &pid, &start, id->boot) != 3 || !pid)
		return -1;
	id->pid = (uint32_t)pid;
	id->start = start;
	return 0;
}

int db_procid_alive(const struct db_procid *id)
{
	char boot[40];
	uint64_t start;

	if (boot_id(boot, sizeof boot) != 0)
		return -1;
	if (id->boot[0] && strcmp(boot, id->boot) != 0)
		return 0;
	if (kill((pid_t)id->pid, 0) != 0 && errno == ESRCH)
		return 0;
	if (!id->start)
		return 1;
	if (start_time(id->pid, &start) != 0)
		return 1; /* it exists but its start cannot be read (hidepid) */
	return start == id->start;
}
