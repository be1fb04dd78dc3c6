#include "src/core/control_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int control_proto_dirs(uid_t uid, char dirs[CONTROL_PROTO_DIRS][256])
{
	const char *own = getenv("SMTOP_CONTROL_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (own && *own) {
		snprintf(dirs[0], sizeof dirs[0], "%s", own);
		return 1;
	}
	/* the XDG spec ignores a relative XDG_RUNTIME_DIR, and so do we */
	if (xdg && xdg[0] == '/' && strlen(xdg) + sizeof "/smtop" <= sizeof dirs[0])
		snprintf(dirs[n++], sizeof dirs[0], "%s/smtop", xdg);
	snprintf(dirs[n++], sizeof dirs[0], "/tmp/smtop-%u", (unsigned)uid);
	return n;
}

int control_proto_socket_path(const char *dir, pid_t pid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%d.sock", dir, (int)pid);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

pid_t control_proto_pid_of(const char *name)
{
	char *end;
	long v;

	if (!name || name[0] < '1' || name[0] > '9')
		return 0;
	errno = 0;
	v = strtol(name, &end, 10);
	if (errno || strcmp(end, ".sock") != 0 || v <= 0 || v > 0x7fffffffL)
		return 0;
	return (pid_t)v;
}

static int parse_ms(const char *s, uint64_t *ms)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > 3600ull * 1000)
		return -1;
	*ms = v;
	return 0;
}

int control_proto_parse(char *line, struct control_proto_request *rq, char *err, size_t errlen)
{
	char *arg = strchr(line, ' ');

	memset(rq, 0, sizeof *rq);
	if (arg)
		*arg++ = '\0';
	if (!strcmp(line, "status") && !arg) {
		rq->verb = CONTROL_STATUS;
	} else if (!strcmp(line, "off") && !arg) {
		rq->verb = CONTROL_OFF;
	} else if (!strcmp(line, "on")) {
		if (!arg || arg[0] != '/') {
			snprintf(err, errlen, "on needs the session file's absolute path");
			return -1;
		}
		rq->verb = CONTROL_ON;
		rq->path = arg;
	} else if (!strcmp(line, "window")) {
		if (parse_ms(arg, &rq->ms) != 0) {
			snprintf(err, errlen, "window needs milliseconds, 1 to 3600000");
			return -1;
		}
		rq->verb = CONTROL_WINDOW;
	} else {
		snprintf(err, errlen, "unknown request (status, on PATH, off, window MS)");
		return -1;
	}
	return 0;
}

/* s with tabs, newlines and other control characters as spaces. */
static void put_clean(char *buf, size_t len, size_t *at, const char *s)
{
	for (; s && *s && *at + 1 < len; s++)
		buf[(*at)++] = (unsigned char)*s < ' ' || *s == 0x7f ? ' ' : *s;
	buf[*at < len ? *at : len - 1] = '\0';
}

void control_proto_format_status(const struct control_proto_status *st, char *buf, size_t len)
{
	int n = snprintf(buf, len, "ok\tpid=%d\tsm=%s\trecording=%s\tblocks=%llu\tsession=", (int)st->pid,
			 st->sm, st->recording ? "on" : "off", (unsigned long long)st->blocks);
	size_t at;

	if (n < 0 || (size_t)n >= len)
		return;
	at = (size_t)n;
	put_clean(buf, len, &at, st->session);
	if (at + sizeof "\tcommand=" < len) {
		memcpy(buf + at, "\tcommand=", sizeof "\tcommand=");
		at += sizeof "\tcommand=" - 1;
	}
	put_clean(buf, len, &at, st->command);
}

/* The value of key= among line's tab-separated fields into buf. */
static int field(const char *line, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key);

	for (const char *p = line; p; p = strchr(p, '\t')) {
		if (*p == '\t')
			p++;
		if (!strncmp(p, key, k) && p[k] == '=') {
			const char *v = p + k + 1;
			size_t n = strcspn(v, "\t\n");

			snprintf(buf, len, "%.*s", (int)n, v);
			return 0;
		}
	}
	return -1;
}

int control_proto_parse_status(const char *line, struct control_proto_status *st)
{
	char pid[24], rec[8], blocks[24];

	memset(st, 0, sizeof *st);
	if (strncmp(line, "ok\t", 3) != 0 || field(line, "pid", pid, sizeof pid) != 0 ||
	    field(line, "sm", st->sm, sizeof st->sm) != 0 ||
	    field(line, "recording", rec, sizeof rec) != 0 ||
	    field(line, "blocks", blocks, sizeof blocks) != 0 ||
	    field(line, "session", st->session, sizeof st->session) != 0 ||
	    field(line, "command", st->command, sizeof st->command) != 0)
		return -1;
	st->pid = (pid_t)atol(pid);
	st->recording = !strcmp(rec, "on");
	st->blocks = strtoull(blocks, NULL, 10);
	return 0;
}
