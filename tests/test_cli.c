#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "ui/app/cli.h"
#include "ui/app/paper.h"
#include "src/core/sm_modes.h"

/* cli keeps pointers into argv, as main's argv lives for the whole run. */
static char *argv[32];

static int parse(struct cli *c, char *line, char *err, size_t errlen)
{
	int argc = 0;
	for (char *tok = strtok(line, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	FILE *e = fmemopen(err, errlen, "w");
	int rc = cli_parse(argc, argv, c, e);
	fclose(e);
	return rc;
}

Test(cli, record_with_separator)
{
	char line[] = "smtop record -o s.smtop -- python3 train.py --epochs 2", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_RECORD);
	cr_assert_str_eq(c.out_path, "s.smtop");
	cr_assert_str_eq(c.argv[0], "python3");
	cr_assert_str_eq(c.argv[3], "2", "workload options stay the workload's");
	cr_assert_null(c.argv[4]);
}

Test(cli, record_without_separator_takes_the_rest)
{
	char line[] = "smtop record ./app -o x", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0);
	cr_assert_null(c.out_path, "-o after the command belongs to the command");
	cr_assert_str_eq(c.argv[1], "-o");
}

Test(cli, device_picks_the_gpu_the_viewer_draws)
{
	char l1[] = "smtop open s.smtop --device 1", l2[] = "smtop open s.smtop", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0, "%s", err);
	cr_expect_eq(c.device, 1);
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0, "%s", err);
	cr_expect_eq(c.device, -1, "the first recorded GPU by default");
}

Test(cli, sm_picks_the_collector_backend)
{
	char l1[] = "smtop record --sm all -o s.smtop -- python3 t.py", l2[] = "smtop demo priority-vs-training --sm marked",
	     l3[] = "smtop record -- ./app", l4[] = "smtop record --sm every -- ./app", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(c.sm_mode, "all");
	cr_expect_str_eq(c.argv[0], "python3");
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(c.sm_mode, "marked");
	cr_assert_eq(parse(&c, l3, err, sizeof err), 0, "%s", err);
	cr_expect_null(c.sm_mode, "unset: smtop record picks the default");
	cr_assert_neq(parse(&c, l4, err, sizeof err), 0);
	cr_expect(strstr(err, "--sm needs 'marked'") != NULL, "%s", err);
}

Test(cli, report_options)
{
	char line[] = "smtop report s.smtop --json --threshold-us 35.5 --top 5", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_REPORT);
	cr_assert_str_eq(c.file, "s.smtop");
	cr_assert(c.json);
	cr_assert_float_eq(c.threshold_us, 35.5, 1e-9);
	cr_assert_eq(c.top, 5);
}

Test(cli, report_explain)
{
	char l1[] = "smtop report s.smtop --explain", l2[] = "smtop report s.smtop", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0, "%s", err);
	cr_expect_eq(c.command, CLI_REPORT);
	cr_expect(c.explain);
	cr_expect(!c.json);
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0, "%s", err);
	cr_expect(!c.explain, "off unless asked");
}

Test(cli, defaults)
{
	char line[] = "smtop", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0);
	cr_assert_eq(c.command, CLI_DEFAULT);
	cr_assert_float_eq(c.threshold_us, 20, 1e-9);
}

Test(cli, demo_name_and_list)
{
	char l1[] = "smtop demo priority-vs-training --seconds 3", l2[] = "smtop demo --list";
	char err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(c.demo_name, "priority-vs-training");
	cr_assert_float_eq(c.demo_seconds, 3, 1e-9);
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0);
	cr_assert(c.demo_list);
}

Test(cli, replay_speed_and_guided)
{
	char l1[] = "smtop replay s.smtop --speed 1e4 --guided", l2[] = "smtop replay s.smtop";
	char err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_REPLAY);
	cr_assert_str_eq(c.file, "s.smtop");
	cr_assert_float_eq(c.speed, 1e4, 1e-9);
	cr_assert(c.guided);
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0, "%s", err);
	cr_assert_float_eq(c.speed, 0, 1e-9, "0: the default speed");
	cr_assert_not(c.guided);
}

Test(cli, replay_of_several_files)
{
	char line[] = "smtop replay a.smtop --speed 100 b.sqlite", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_REPLAY);
	cr_assert_eq(c.n_files, 2);
	cr_assert_str_eq(c.files[0], "a.smtop");
	cr_assert_str_eq(c.files[1], "b.sqlite");
	cr_assert_str_eq(c.file, "a.smtop");
	cr_assert_float_eq(c.speed, 100, 1e-9);
}

struct bad_line {
	char line[96];
	char message[64];
};

ParameterizedTestParameters(cli, bad_input)
{
	static struct bad_line lines[] = {
		{ "smtop frobnicate", "unknown command 'frobnicate'" },
		{ "smtop info", "needs a session FILE" },
		{ "smtop report", "needs a session FILE" },
		{ "smtop record", "no workload given" },
		{ "smtop record -o x --", "no workload given" },
		{ "smtop open a b c d e f g h i j k l m n o p q", "unexpected argument 'q'" },
		{ "smtop report f --threshold-us abc", "--threshold-us needs a number" },
		{ "smtop report f --threshold-us -3", "--threshold-us needs a number" },
		{ "smtop report f --top 0", "--top needs a number" },
		{ "smtop open f --device 1.5", "--device needs a whole number" },
		{ "smtop open f --device -1", "--device needs a number" },
		{ "smtop open f --bogus", "unknown option '--bogus'" },
		{ "smtop record -o", "-o needs a file name" },
		{ "smtop report f --top inf", "--top needs a number" },
		{ "smtop report f --top 1e300", "--top needs a number" },
		{ "smtop report f --threshold-us nan", "--threshold-us needs a number" },
		{ "smtop demo x --seconds inf", "--seconds needs a number" },
		{ "smtop open f --bo\ngus", "unknown option '--bo\\x0agus'" },
		{ "smtop \033[2Jinfo", "unknown command '\\x1b[2Jinfo'" },
		{ "smtop replay", "needs a session FILE" },
		{ "smtop replay f --speed 0.5", "--speed needs a number from 1 to 1000000" },
		{ "smtop replay f --speed 2e6", "--speed needs a number from 1 to 1000000" },
		{ "smtop replay f --speed fast", "--speed needs a number" },
		{ "smtop replay f --speed", "--speed needs a number" },
		{ "smtop export f --perfetto o --to 1e300s", "--to needs a time" },
		{ "smtop export f --perfetto o --from inf", "--from needs a time" },
		{ "smtop rm", "needs a session FILE" },
		{ "smtop mv", "needs a session FILE" },
		{ "smtop mv old.smtop", "smtop mv FILE NEWNAME" },
		{ "smtop mv a b c", "unexpected argument 'c'" },
		{ "smtop rm a b", "unexpected argument 'b'" },
		{ "smtop ls d1 d2", "unexpected argument 'd2'" },
	};
	return cr_make_param_array(struct bad_line, lines, sizeof lines / sizeof lines[0]);
}

ParameterizedTest(struct bad_line *b, cli, bad_input)
{
	char line[96], err[256] = "";
	struct cli c;
	strcpy(line, b->line);
	cr_assert_eq(parse(&c, line, err, sizeof err), -1, "accepted: %s", b->line);
	cr_assert(strstr(err, b->message), "for '%s' got '%s'", b->line, err);
	cr_assert_eq(strchr(err, '\n'), strrchr(err, '\n'), "one line only: %s", err);
}

Test(cli, library_commands)
{
	char l1[] = "smtop ls", l2[] = "smtop ls /data/runs --json --threshold-us 5";
	char l3[] = "smtop rm 2026-11-30T06-47-57-python3-train.smtop -q";
	char l4[] = "smtop mv old.smtop baseline", l5[] = "smtop open", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_LS);
	cr_assert_null(c.file, "no DIR: the default library");
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(c.file, "/data/runs");
	cr_assert(c.json);
	cr_assert_float_eq(c.threshold_us, 5, 1e-9);
	cr_assert_eq(parse(&c, l3, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_RM);
	cr_assert_str_eq(c.file, "2026-11-30T06-47-57-python3-train.smtop");
	cr_assert(c.quiet);
	cr_assert_eq(parse(&c, l4, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_MV);
	cr_assert_str_eq(c.file, "old.smtop");
	cr_assert_str_eq(c.new_name, "baseline");
	cr_assert_eq(parse(&c, l5, err, sizeof err), 0, "open without FILE shows the library: %s", err);
	cr_assert_eq(c.command, CLI_OPEN);
	cr_assert_null(c.file);
}

Test(cli, help_and_version_win)
{
	char l1[] = "smtop info --help", l2[] = "smtop --version", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, l1, err, sizeof err), 0);
	cr_assert_eq(c.command, CLI_HELP);
	cr_assert_eq(parse(&c, l2, err, sizeof err), 0);
	cr_assert_eq(c.command, CLI_VERSION);
}

/* demo paper reads each scenario's turnaround from the demo's own output:
 * the lines recorded on the H200 beside the fixtures. */
Test(cli, paper_reads_the_demos_summary_lines)
{
	static const char *const outs[] = { "tests/fixtures/green-contexts.out",
					    "tests/fixtures/timeslice.out" };
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		FILE *f = fopen(outs[i], "r");
		cr_assert_not_null(f, "%s", outs[i]);
		char line[1024];
		struct paper_turnaround t;
		int found = 0;
		while (fgets(line, sizeof line, f))
			if (paper_parse_summary(line, &t) == 0)
				found++;
		fclose(f);
		cr_assert_eq(found, 1, "%s: one summary line", outs[i]);
		cr_expect_gt(t.requests, 0);
		cr_expect_gt(t.p50, t.solo_p50, "%s: inference is slower beside training", outs[i]);
	}
	struct paper_turnaround t;
	char train[] = "train scenario=timeslice model=resnet batch=32 priority=0 steps=8";
	char cut[] = "summary scenario=timeslice median_ms=35.6";
	cr_expect_neq(paper_parse_summary(train, &t), 0);
	cr_expect_neq(paper_parse_summary(cut, &t), 0, "no p99 or solo figures");
}

Test(cli, launch_takes_the_workload_and_a_mode)
{
	char line[] = "smtop launch --sm entry -- python3 serve.py --port 1", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_LAUNCH);
	cr_assert_str_eq(c.sm_mode, "entry");
	cr_assert_str_eq(c.argv[0], "python3");
	cr_assert_str_eq(c.argv[3], "1");
}

Test(cli, attach_takes_a_pid_and_a_duration)
{
	char line[] = "smtop record --attach 4242 --for 2.5s -o s.smtop", err[256] = "";
	struct cli c;
	cr_assert_eq(parse(&c, line, err, sizeof err), 0, "%s", err);
	cr_assert_eq(c.command, CLI_RECORD);
	cr_assert_eq(c.attach_pid, 4242);
	cr_assert_eq(c.attach_for_ns, 2500000000ull);
	cr_assert_null(c.argv);
}

/* Parameters are copied into each test's process: text, not pointers. */
struct duration_case {
	char text[16];
	int rc;
	uint64_t ns;
};

ParameterizedTestParameters(cli, durations)
{
	static struct duration_case cases[] = {
		{ "30", 0, 30000000000ull }, { "2s", 0, 2000000000ull }, { "500ms", 0, 500000000ull },
		{ "5m", 0, 300000000000ull }, { "1h", 0, 3600000000000ull }, { "0", -1, 0 },
		{ "-1s", -1, 0 }, { "2x", -1, 0 }, { "", -1, 0 }, { "0.5ms", -1, 0 }, { "inf", -1, 0 },
	};
	return cr_make_param_array(struct duration_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct duration_case *dc, cli, durations)
{
	uint64_t ns = 0;
	cr_assert_eq(cli_parse_duration(dc->text, &ns), dc->rc, "%s", dc->text);
	if (dc->rc == 0)
		cr_assert_eq(ns, dc->ns, "%s", dc->text);
}

struct refusal_case {
	char line[64];
	char says[64];
};

ParameterizedTestParameters(cli, alongside_refusals)
{
	static struct refusal_case cases[] = {
		{ "smtop launch", "smtop launch [--sm MODE] -- CMD" },
		{ "smtop record --attach 0", "--attach needs a number" },
		{ "smtop record --attach 12 -- ls", "give no command after it" },
		{ "smtop record --for 2s -- ls", "--for needs --attach PID" },
		{ "smtop open --attach 12", "--attach and --for go with record" },
		{ "smtop env stray", "unexpected argument 'stray'" },
		{ "smtop launch --sm stub -- ls", "--sm needs" },
	};
	return cr_make_param_array(struct refusal_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct refusal_case *rc, cli, alongside_refusals)
{
	char line[128], err[256] = "";
	struct cli c;
	snprintf(line, sizeof line, "%s", rc->line);
	cr_assert_eq(parse(&c, line, err, sizeof err), -1, "%s", rc->line);
	cr_assert(strstr(err, rc->says), "%s: said '%s'", rc->line, err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
}

/* --help lists every --sm mode of the table, each with its help and where
 * it is the default, in lines no wider than the rest of the text. */
Test(cli, help_lists_every_sm_mode)
{
	static char text[16384];
	char want[64];
	FILE *f = fmemopen(text, sizeof text, "w");
	const char *sm, *end, *line;

	cr_assert_not_null(f);
	cli_usage(f);
	fclose(f);
	sm = strstr(text, "  --sm ");
	cr_assert_not_null(sm);
	end = strstr(sm, "\n  --exact-every");
	cr_assert_not_null(end);
	for (size_t i = 0; i < sm_modes_count; i++) {
		snprintf(want, sizeof want, " %s:", sm_modes[i].name);
		cr_expect(memmem(sm, (size_t)(end - sm), want, strlen(want)) != NULL, "%s", sm_modes[i].name);
	}
	cr_expect(memmem(sm, (size_t)(end - sm), "the default where", 17) != NULL, "where each mode is the default");
	cr_expect_str_eq(sm_mode_default()->name, sm_modes[0].name);
	for (line = sm; line < end;) {
		const char *nl = strchr(line, '\n');
		cr_expect_leq(nl - line, 81, "%.*s", (int)(nl - line), line);
		line = nl + 1;
	}
}
