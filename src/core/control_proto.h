/* The control channel between smtop and the collector of a process started
 * by `smtop launch` (docs/collector.md, "Control channel"): where its socket
 * lives, and the one-line requests and answers it carries.  Pure: names and
 * text only, no socket is touched here. */
#ifndef SMTOP_CORE_CONTROL_PROTO_H
#define SMTOP_CORE_CONTROL_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A request or an answer is one line of at most this many bytes. */
#define CONTROL_PROTO_LINE_MAX 8192
#define CONTROL_PROTO_DIRS 2
/* An `off` the backend could not carry out ends its `err` answer so: the
 * process records on, and `off` may be asked again. */
#define CONTROL_PROTO_STILL_RECORDING "; still recording into "

/* The folders a user's sockets may be in, most likely first: SMTOP_CONTROL_DIR
 * alone when set, else $XDG_RUNTIME_DIR/smtop (when set and absolute) and
 * /tmp/smtop-UID.  A collector makes its socket in the first; smtop looks in
 * each, as the workload's environment may not be smtop's.  Returns how
 * many were written (1 or 2). */
int control_proto_dirs(uid_t uid, char dirs[CONTROL_PROTO_DIRS][256]);

/* DIR/PID.sock into buf; 0, or -1 when it does not fit. */
int control_proto_socket_path(const char *dir, pid_t pid, char *buf, size_t len);

/* The pid a socket's file name stands for ("1234.sock"), or 0 when the name
 * is not one of ours. */
pid_t control_proto_pid_of(const char *name);

enum control_proto_verb {
	CONTROL_STATUS,
	CONTROL_ON,
	CONTROL_OFF,
	CONTROL_WINDOW,
};

struct control_proto_request {
	enum control_proto_verb verb;
	const char *path;            /* on: the session file (points into the line) */
	uint64_t ms;                 /* window: its length */
};

/* Parses one request line (its newline removed).  0, or -1 with a one-line
 * reason in err: an unknown verb, a missing or relative path, a bad number. */
int control_proto_parse(char *line, struct control_proto_request *rq, char *err, size_t errlen);

/* What `status` answers, and what smtop reads of it. */
struct control_proto_status {
	pid_t pid;
	char sm[32];                 /* the --sm mode */
	int recording;
	uint64_t blocks;             /* stored into the current session */
	char session[4096];          /* "" when not recording */
	char command[1024];
};

/* "ok\tpid=..\tsm=..\trecording=on|off\tblocks=..\tsession=..\tcommand=.."
 * (tabs apart: paths and commands hold spaces; control characters in them
 * are written as spaces). */
void control_proto_format_status(const struct control_proto_status *st, char *buf, size_t len);

/* Reads an answer of control_proto_format_status.  0, or -1 when line is
 * not one. */
int control_proto_parse_status(const char *line, struct control_proto_status *st);

#endif
