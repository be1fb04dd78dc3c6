#include "collectors/control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "collectors/blocks.h"
#include "collectors/log.h"
#include "src/core/control_proto.h"
#include "src/core/threads.h"

/* A client that says nothing for this long is let go, so that one stuck
 * connection cannot keep the others out. */
#define CONTROL_IDLE_MS 10000
#define CONTROL_BACKLOG 8

static struct {
	struct control_handlers h;
	int listen_fd;
	int stop[2];
	pthread_t thread;
	int started;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	volatile sig_atomic_t have_path;
} ctl = { .listen_fd = -1, .stop = { -1, -1 } };

/* The folder must be ours alone: in /tmp anyone could have made it first
 * (or a link in its place) to read or hijack the sockets. */
static int control_private_dir(const char *dir, char *reason, size_t len)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(reason, len, "%s: cannot create the control folder: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		snprintf(reason, len, "%s: not a folder of this user's alone (mode 0700): no control channel", dir);
		return -1;
	}
	return 0;
}

static int control_bind(const char *path, char *reason, size_t len)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof a.sun_path) {
		snprintf(reason, len, "%s: socket path too long", path);
		return -1;
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* a socket of our pid can only be a dead process's: take its place */
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || chmod(path, 0600) != 0 ||
	    listen(fd, CONTROL_BACKLOG) != 0) {
		snprintf(reason, len, "%s: cannot listen: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

static void control_reply(int fd, const char *line)
{
	char buf[CONTROL_PROTO_LINE_MAX + 2];
	int n = snprintf(buf, sizeof buf, "%s\n", line);

	if (n > 0 && send(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, MSG_NOSIGNAL) < 0)
		log_debug("control: answer not sent: %s", strerror(errno));
}

static void control_answer(int fd, int rc, const char *ok, const char *reason)
{
	char line[CONTROL_PROTO_LINE_MAX];

	if (rc == 0)
		snprintf(line, sizeof line, "ok%s%s", ok && *ok ? " " : "", ok ? ok : "");
	else
		snprintf(line, sizeof line, "err %s", reason && *reason ? reason : "failed");
	control_reply(fd, line);
}

static void control_do(int fd, char *line)
{
	struct control_proto_request rq;
	struct control_proto_status st;
	char reason[512] = "", out[CONTROL_PROTO_LINE_MAX];
	int rc;

	if (control_proto_parse(line, &rq, reason, sizeof reason) != 0) {
		control_answer(fd, -1, NULL, reason);
		return;
	}
	switch (rq.verb) {
	case CONTROL_STATUS:
		memset(&st, 0, sizeof st);
		ctl.h.status(&st);
		control_proto_format_status(&st, out, sizeof out);
		control_reply(fd, out);
		return;
	case CONTROL_ON:
		rc = ctl.h.on(rq.path, reason, sizeof reason);
		control_answer(fd, rc, rq.path, reason);
		return;
	case CONTROL_OFF:
		rc = ctl.h.off(reason, sizeof reason);
		control_answer(fd, rc, reason, reason);
		return;
	case CONTROL_WINDOW:
		rc = ctl.h.window(rq.ms, reason, sizeof reason);
		control_answer(fd, rc, reason, reason);
		return;
	}
}

/* Another user may reach the socket only through a folder or a socket
 * whose mode someone loosened: the peer's uid decides, not the file. */
static int control_peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t n = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &n) != 0)
		return 0;
	return cred.uid == geteuid() || cred.uid == getuid();
}

/* Waits for fd or the stop pipe; 1 when fd is readable. */
static int control_wait(int fd, int ms)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = ctl.stop[0], .events = POLLIN } };
	int r;

	do
		r = poll(p, 2, ms);
	while (r < 0 && errno == EINTR);
	return r > 0 && !(p[1].revents & POLLIN) && (p[0].revents & (POLLIN | POLLHUP));
}

/* Serves one client's lines until it closes, idles or sends too long a one. */
static void control_serve(int fd)
{
	char buf[CONTROL_PROTO_LINE_MAX];
	size_t have = 0;

	if (!control_peer_allowed(fd)) {
		control_reply(fd, "err refused: this process belongs to another user");
		return;
	}
	while (control_wait(fd, CONTROL_IDLE_MS)) {
		ssize_t n = recv(fd, buf + have, sizeof buf - 1 - have, 0);
		char *nl;

		if (n <= 0)
			return;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (nl > buf && nl[-1] == '\r')
				nl[-1] = '\0';
			control_do(fd, buf);
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have + 1);
		}
		if (have == sizeof buf - 1) {
			control_reply(fd, "err request line too long");
			return;
		}
	}
}

static void *control_main(void *arg)
{
	(void)arg;
	blocks_set_own_code(1);
	while (control_wait(ctl.listen_fd, -1)) {
		int fd = accept4(ctl.listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			continue;
		control_serve(fd);
		close(fd);
	}
	return NULL;
}

int control_start(const struct control_handlers *h, char *reason, size_t len)
{
	char dirs[CONTROL_PROTO_DIRS][256];

	ctl.h = *h;
	control_proto_dirs(getuid(), dirs);
	if (control_private_dir(dirs[0], reason, len) != 0)
		return -1;
	if (control_proto_socket_path(dirs[0], getpid(), ctl.path, sizeof ctl.path) != 0) {
		snprintf(reason, len, "%s: socket path too long", dirs[0]);
		return -1;
	}
	if (pipe2(ctl.stop, O_CLOEXEC) != 0) {
		snprintf(reason, len, "control channel: %s", strerror(errno));
		return -1;
	}
	ctl.listen_fd = control_bind(ctl.path, reason, len);
	if (ctl.listen_fd < 0)
		goto fail;
	ctl.have_path = 1;
	if (thread_start(&ctl.thread, "smtop-control", control_main, NULL) != 0) {
		snprintf(reason, len, "control channel: cannot start its thread");
		goto fail;
	}
	ctl.started = 1;
	return 0;
fail:
	control_stop();
	return -1;
}

void control_forget(void)
{
	ctl.started = 0;
	ctl.have_path = 0;
	for (int i = 0; i < 2; i++) {
		if (ctl.stop[i] >= 0)
			close(ctl.stop[i]);
		ctl.stop[i] = -1;
	}
	if (ctl.listen_fd >= 0)
		close(ctl.listen_fd);
	ctl.listen_fd = -1;
}

void control_stop(void)
{
	if (ctl.started && write(ctl.stop[1], "s", 1) == 1)
		pthread_join(ctl.thread, NULL);
	if (ctl.have_path)
		unlink(ctl.path);
	control_forget();
}

void control_unlink_from_signal(void)
{
	if (ctl.have_path)
		unlink(ctl.path);
}

