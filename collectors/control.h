/* The collector's control channel: in a process started by `smtop launch`,
 * a thread of the collector's own serves a Unix socket named by the pid in
 * the user's control folder (src/core/control_proto.h), one connection at
 * a time, one line per request.  Only the same user may connect
 * (SO_PEERCRED); the folder is 0700 and the socket 0600.  The requests are
 * carried out by the handlers inject.c gives, on this thread. */
#ifndef SMTOP_COLLECTORS_CONTROL_H
#define SMTOP_COLLECTORS_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct control_proto_status;

struct control_handlers {
	void (*status)(struct control_proto_status *st);
	/* 0, or -1 with a one-line reason. */
	int (*on)(const char *path, char *reason, size_t len);
	int (*off)(char *reason, size_t len);
	int (*window)(uint64_t ms, char *reason, size_t len);
};

/* Makes the socket and starts the thread.  0, or -1 with a one-line
 * reason (the process then runs on without a channel). */
int control_start(const struct control_handlers *h, char *reason, size_t len);

/* Stops the thread (at exit, from the workload's thread) and removes the
 * socket. */
void control_stop(void);

/* Async-signal-safe: removes the socket, for a process a signal ends. */
void control_unlink_from_signal(void);

/* In a forked child: the socket is the parent's; forget it untouched. */
void control_forget(void);

#pragma GCC visibility pop

#endif
