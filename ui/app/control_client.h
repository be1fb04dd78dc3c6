/* smtop's side of the collector's control channel (docs/collector.md):
 * finds a process's socket, sends one request, reads its one-line answer,
 * and lists the processes of this user that carry a collector. */
#ifndef SMTOP_APP_CONTROL_CLIENT_H
#define SMTOP_APP_CONTROL_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

#include "src/core/control_proto.h"

/* How long an answer may take: switching recording may wait for the GPU
 * to drain (the Compute Sanitizer backends). */
#define CONTROL_CLIENT_TIMEOUT_MS 30000

/* Sends line to pid's collector and reads the answer into reply (its
 * newline removed).  0 when it came (it may still be "err ..."), or -1 with
 * one line in err: no such process, another user's, not started by smtop
 * (no control socket), not answering. */
int control_client_request(pid_t pid, const char *line, char *reply, size_t len, char *err,
			   size_t errlen);

/* The same for status, parsed; -1 with err also when the answer is not a
 * status. */
int control_client_status(pid_t pid, struct control_proto_status *st, char *err, size_t errlen);

/* The pids with a live socket in this user's control folders, ascending;
 * sockets of processes that are gone are removed on the way.  Returns how
 * many (at most max). */
size_t control_client_list(pid_t *pids, size_t max);

/* The user name of uid into buf (its number when it has none). */
void control_client_user(uid_t uid, char *buf, size_t len);

/* The owner of process pid; 0, or -1 when there is no such process. */
int control_client_owner(pid_t pid, uid_t *uid);

#endif
