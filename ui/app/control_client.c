#include "ui/app/control_client.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "src/core/clock.h"

void control_client_user(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw && pw->pw_name)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "%u", (unsigned)uid);
}

int control_client_owner(pid_t pid, uid_t *uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	if (pid <= 0 || stat(path, &st) != 0)
		return -1;
	*uid = st.st_uid;
	return 0;
}

static int control_client_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* A socket whose process is gone is left by a process that died by
 * SIGKILL: whoever finds it removes it. */
static int control_client_stale(const char *path, pid_t pid)
{
	if (control_client_alive(pid))
		return 0;
	unlink(path);
	return 1;
}

static int control_client_connect_path(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	size_t n = strlen(path);

	if (n >= sizeof a.sun_path)
		return -1;
	memcpy(a.sun_path, path, n + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The process's own name, for messages. */
static void control_client_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int control_client_connect(pid_t pid, char *err, size_t errlen)
{
	char dirs[CONTROL_PROTO_DIRS][256], path[320], comm[64], user[64];
	int n = control_proto_dirs(getuid(), dirs);
	uid_t owner;

	if (control_client_owner(pid, &owner) != 0) {
		for (int i = 0; i < n; i++)
			if (control_proto_socket_path(dirs[i], pid, path, sizeof path) == 0)
				control_client_stale(path, pid);
		snprintf(err, errlen, "no process %d", (int)pid);
		return -1;
	}
	if (owner != getuid()) {
		control_client_user(owner, user, sizeof user);
		snprintf(err, errlen, "process %d belongs to user %s: smtop controls only your own processes",
			 (int)pid, user);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int fd;

		if (control_proto_socket_path(dirs[i], pid, path, sizeof path) != 0 || access(path, F_OK) != 0)
			continue;
		fd = control_client_connect_path(path);
		if (fd >= 0)
			return fd;
		if (control_client_stale(path, pid))
			continue;
		snprintf(err, errlen, "process %d: its collector does not answer (%s): %s", (int)pid, path,
			 strerror(errno));
		return -1;
	}
	control_client_comm(pid, comm, sizeof comm);
	snprintf(err, errlen, "process %d (%s) was not started by smtop launch: no control socket in %s",
		 (int)pid, comm[0] ? comm : "?", dirs[0]);
	return -1;
}

static int control_client_send(int fd, const char *line)
{
	size_t len = strlen(line), at = 0;

	while (at < len) {
		ssize_t n = send(fd, line + at, len - at, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += (size_t)n;
	}
	return send(fd, "\n", 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* One line, within CONTROL_CLIENT_TIMEOUT_MS. */
static int control_client_read_line(int fd, char *buf, size_t len)
{
	size_t have = 0;
	uint64_t until = clock_mono_ns() + (uint64_t)CONTROL_CLIENT_TIMEOUT_MS * 1000000ull;

	while (have + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = clock_mono_ns();
		ssize_t n;

		if (now >= until || poll(&p, 1, (int)((until - now) / 1000000ull) + 1) == 0)
			return -1;
		n = recv(fd, buf + have, len - 1 - have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		char *nl = strchr(buf, '\n');
		if (nl) {
			*nl = '\0';
			return 0;
		}
	}
	return -1;
}

int control_client_request(pid_t pid, const char *line, char *reply, size_t len, char *err,
			   size_t errlen)
{
	int fd = control_client_connect(pid, err, errlen);
	int rc;

	if (fd < 0)
		return -1;
	/* a refusal may be answered and the socket closed before the request
	 * is read: the answer is read even when sending failed */
	control_client_send(fd, line);
	rc = control_client_read_line(fd, reply, len);
	close(fd);
	if (rc != 0)
		snprintf(err, errlen, "process %d: no answer from its collector", (int)pid);
	return rc;
}

int control_client_status(pid_t pid, struct control_proto_status *st, char *err, size_t errlen)
{
	char reply[CONTROL_PROTO_LINE_MAX];

	if (control_client_request(pid, "status", reply, sizeof reply, err, errlen) != 0)
		return -1;
	if (control_proto_parse_status(reply, st) != 0) {
		snprintf(err, errlen, "process %d: %s", (int)pid, reply);
		return -1;
	}
	return 0;
}

static int control_client_pid_order(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

size_t control_client_list(pid_t *pids, size_t max)
{
	char dirs[CONTROL_PROTO_DIRS][256], path[800];
	int nd = control_proto_dirs(getuid(), dirs);
	size_t n = 0;

	for (int i = 0; i < nd; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			pid_t pid = control_proto_pid_of(e->d_name);
			int seen = 0;

			if (!pid)
				continue;
			snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
			if (control_client_stale(path, pid))
				continue;
			for (size_t k = 0; k < n; k++)
				seen |= pids[k] == pid;
			if (!seen && n < max)
				pids[n++] = pid;
		}
		if (d)
			closedir(d);
	}
	qsort(pids, n, sizeof *pids, control_client_pid_order);
	return n;
}
