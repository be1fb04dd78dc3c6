#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/control_proto.h"

Test(control_proto, dirs_prefer_the_runtime_dir_then_tmp)
{
	char d[CONTROL_PROTO_DIRS][256];
	unsetenv("SMTOP_CONTROL_DIR");
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	cr_assert_eq(control_proto_dirs(1000, d), 2);
	cr_assert_str_eq(d[0], "/run/user/1000/smtop");
	cr_assert_str_eq(d[1], "/tmp/smtop-1000");
	setenv("XDG_RUNTIME_DIR", "relative", 1);
	cr_assert_eq(control_proto_dirs(7, d), 1, "a relative XDG_RUNTIME_DIR is ignored");
	cr_assert_str_eq(d[0], "/tmp/smtop-7");
	setenv("SMTOP_CONTROL_DIR", "/x/ctl", 1);
	cr_assert_eq(control_proto_dirs(7, d), 1);
	cr_assert_str_eq(d[0], "/x/ctl");
	unsetenv("SMTOP_CONTROL_DIR");
}

/* Parameters are copied into each test's process: text, not pointers. */
struct pid_case {
	char name[32];
	pid_t pid;
};

ParameterizedTestParameters(control_proto, pid_of)
{
	static struct pid_case cases[] = {
		{ "1234.sock", 1234 }, { "1.sock", 1 }, { "0.sock", 0 }, { "01.sock", 0 },
		{ "12.sock.bak", 0 }, { "x12.sock", 0 }, { "12", 0 }, { ".sock", 0 },
		{ "99999999999.sock", 0 }, { "-3.sock", 0 },
	};
	return cr_make_param_array(struct pid_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct pid_case *pc, control_proto, pid_of)
{
	cr_assert_eq(control_proto_pid_of(pc->name), pc->pid, "%s", pc->name);
}

struct request_case {
	char line[32];
	int rc;
	enum control_proto_verb verb;
	char path[32];
	uint64_t ms;
};

ParameterizedTestParameters(control_proto, requests)
{
	static struct request_case cases[] = {
		{ "status", 0, CONTROL_STATUS, "", 0 },
		{ "off", 0, CONTROL_OFF, "", 0 },
		{ "on /a b/s.smtop", 0, CONTROL_ON, "/a b/s.smtop", 0 },
		{ "window 250", 0, CONTROL_WINDOW, "", 250 },
		{ "on", -1, 0, "", 0 },
		{ "on s.smtop", -1, 0, "", 0 },
		{ "window", -1, 0, "", 0 },
		{ "window 0", -1, 0, "", 0 },
		{ "window 5s", -1, 0, "", 0 },
		{ "window 3600001", -1, 0, "", 0 },
		{ "status now", -1, 0, "", 0 },
		{ "STATUS", -1, 0, "", 0 },
		{ "", -1, 0, "", 0 },
	};
	return cr_make_param_array(struct request_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct request_case *rc, control_proto, requests)
{
	char line[128], err[128] = "";
	struct control_proto_request rq;
	snprintf(line, sizeof line, "%s", rc->line);
	cr_assert_eq(control_proto_parse(line, &rq, err, sizeof err), rc->rc, "'%s'", rc->line);
	if (rc->rc != 0) {
		cr_assert(err[0] && !strchr(err, '\n'), "'%s': one line of why", rc->line);
		return;
	}
	cr_assert_eq(rq.verb, rc->verb);
	if (rc->path[0])
		cr_assert_str_eq(rq.path, rc->path);
	cr_assert_eq(rq.ms, rc->ms);
}

Test(control_proto, status_round_trip_keeps_spaces_and_drops_control_characters)
{
	struct control_proto_status st = { .pid = 42, .recording = 1, .blocks = 123456789012ull }, back;
	char line[CONTROL_PROTO_LINE_MAX];
	snprintf(st.sm, sizeof st.sm, "entry");
	snprintf(st.session, sizeof st.session, "/home/a b/x.smtop");
	snprintf(st.command, sizeof st.command, "python3 train.py\t--name\nx");
	control_proto_format_status(&st, line, sizeof line);
	cr_assert_null(strchr(line, '\n'));
	cr_assert_eq(control_proto_parse_status(line, &back), 0, "%s", line);
	cr_assert_eq(back.pid, 42);
	cr_assert_eq(back.recording, 1);
	cr_assert_eq(back.blocks, 123456789012ull);
	cr_assert_str_eq(back.sm, "entry");
	cr_assert_str_eq(back.session, "/home/a b/x.smtop");
	cr_assert_str_eq(back.command, "python3 train.py --name x");
}

Test(control_proto, an_error_is_not_a_status)
{
	struct control_proto_status st;
	cr_assert_eq(control_proto_parse_status("err refused: this process belongs to another user", &st), -1);
	cr_assert_eq(control_proto_parse_status("ok\tpid=1", &st), -1);
}
