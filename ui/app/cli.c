#include "ui/app/cli.h"

#include <stdlib.h>
#include <string.h>

#include "src/core/analysis.h"
#include "src/core/sm_modes.h"

/* Longest argument shown in a message, escapes included. */
#define CLI_SHOWN_MAX 200

static const struct {
	const char *name;
	enum cli_command command;
} cli_commands[] = {
	{ "record", CLI_RECORD }, { "run", CLI_RUN }, { "demo", CLI_DEMO },
	{ "open", CLI_OPEN }, { "info", CLI_INFO }, { "report", CLI_REPORT },
	{ "help", CLI_HELP }, { "replay", CLI_REPLAY }, { "export", CLI_EXPORT },
	{ "ls", CLI_LS }, { "rm", CLI_RM }, { "mv", CLI_MV },
	{ "launch", CLI_LAUNCH }, { "env", CLI_ENV },
};

/* Where the options' descriptions start, and the widest line they take. */
#define CLI_HELP_COLUMN 29
#define CLI_HELP_WIDTH 81

/* text from column at on, its words wrapped under the descriptions'
 * column; returns the column it ended at. */
static size_t cli_wrap(FILE *out, const char *text, size_t at)
{
	while (*text) {
		size_t word = strcspn(text, " ");

		if (at > CLI_HELP_COLUMN && at + 1 + word > CLI_HELP_WIDTH) {
			fprintf(out, "\n%*s", CLI_HELP_COLUMN, "");
			at = CLI_HELP_COLUMN;
		} else if (at > CLI_HELP_COLUMN) {
			fputc(' ', out);
			at++;
		}
		fwrite(text, 1, word, out);
		at += word;
		text += word;
		text += strspn(text, " ");
	}
	return at;
}

/* --sm and its modes, from the table of modes: a new mode shows up here. */
static void cli_usage_sm(FILE *out)
{
	char names[128] = "", item[512];
	size_t at;

	for (size_t i = 0; i < sm_modes_count; i++)
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "|" : "", sm_modes[i].name);
	at = (size_t)fprintf(out, "  --sm %s", names);
	if (at < CLI_HELP_COLUMN)
		at += (size_t)fprintf(out, "%*s", (int)(CLI_HELP_COLUMN - at), "");
	else {
		fprintf(out, "\n%*s", CLI_HELP_COLUMN, "");
		at = CLI_HELP_COLUMN;
	}
	cli_wrap(out, "record, run, demo, launch, env: which thread blocks are recorded:", at);
	fprintf(out, "\n%*s", CLI_HELP_COLUMN, "");
	at = CLI_HELP_COLUMN;
	for (size_t i = 0; i < sm_modes_count; i++) {
		const struct sm_mode *m = &sm_modes[i];

		/* the helps say which is the default where */
		snprintf(item, sizeof item, "%s: %s%s", m->name, m->help, i + 1 < sm_modes_count ? ";" : "");
		at = cli_wrap(out, item, at);
	}
	fputc('\n', out);
}

void cli_usage(FILE *out)
{
	fputs("usage: smtop [COMMAND] [OPTIONS]\n"
	      "Shows, per SM and live, which stream's thread blocks occupy an NVIDIA GPU,\n"
	      "and where blocking and priority inversions happen.\n"
	      "\n"
	      "commands:\n"
	      "  (none)                     on a GPU machine, the machine view: each GPU and\n"
	      "                             its processes, every second (r records a process\n"
	      "                             started by launch, Enter shows it live); without\n"
	      "                             a GPU, open the bundled session recorded on an H200\n"
	      "  record [-o FILE] -- CMD... run CMD with the collector injected, save a session\n"
	      "  record --attach PID [-o FILE] [--for DURATION]\n"
	      "                             record a process started by smtop launch from now\n"
	      "                             until Ctrl-C or DURATION (30, 2s, 500ms, 5m), then\n"
	      "                             switch it off; prints the session's path\n"
	      "  launch [--sm MODE] -- CMD...\n"
	      "                             run CMD with the collector dormant (nothing\n"
	      "                             recorded until record --attach switches it on;\n"
	      "                             each time a new session)\n"
	      "  env [--sm MODE]            print the export lines of launch, for\n"
	      "                             eval \"$(smtop env)\" before starting programs\n"
	      "  run [-o FILE] -- CMD...    the same, with the live viewer\n"
	      "  demo [NAME] | demo --list  run a built-in scenario live (--seconds S; without\n"
	      "                             NAME: priority-vs-training)\n"
	      "  demo paper [--json]        the paper's comparison on this GPU: inference\n"
	      "                             turnaround alone and beside training, per model\n"
	      "                             shape and sharing mechanism (--seconds S each,\n"
	      "                             default 3; every session kept in the library)\n"
	      "  open [FILE...]             browse a saved session or an Nsight Systems export\n"
	      "                             (several files: one view of their processes);\n"
	      "                             without FILE, pick one from the session library\n"
	      "  replay FILE... [--speed X] [--guided]\n"
	      "                             play a saved session slowed down: one us of GPU time\n"
	      "                             takes X us (1 to 1000000, default 1000); --guided\n"
	      "                             pauses at each key moment with a caption; keys:\n"
	      "                             space pause, < > speed, . , step a block start,\n"
	      "                             n N step an episode, g guided, e lesson, r stop\n"
	      "  info FILE...               print what a session holds\n"
	      "  report FILE... [--json] [--top N] [--explain] [--long-names]\n"
	      "                             print blocking episodes and priority inversions,\n"
	      "                             times from the session start, kernels by short\n"
	      "                             names (--long-names: full ones; --json: both);\n"
	      "                             --explain: why each was ready when (stream order,\n"
	      "                             the work an event wait waited for, the legacy\n"
	      "                             default stream, graph edges or order, host\n"
	      "                             submission or launch call), its first block, and\n"
	      "                             what was resident meanwhile\n"
	      "  export FILE... --perfetto OUT.json | --csv DIR [--from T] [--to T]\n"
	      "                             write a Perfetto/chrome://tracing trace (- for\n"
	      "                             stdout) or kernels.csv, blocks.csv, events.csv,\n"
	      "                             nvtx.csv;\n"
	      "                             T from the session start: 1500 (us), 2ms, 1.5s\n"
	      "  ls [DIR] [--json]          list the session library (on a terminal: browse it)\n"
	      "  rm FILE                    delete a session (a name in the library, or a path)\n"
	      "  mv FILE NEWNAME            rename a session within its directory\n"
	      "\n"
	      "options:\n"
	      "  -o, --output FILE          session file (default: $XDG_DATA_HOME/smtop/sessions/)\n",
	      out);
	cli_usage_sm(out);
	fputs("  --exact-every T, --exact-for D\n"
	      "                             --sm entry: an exact window (entry and exit patched)\n"
	      "                             of D every T (2s, 500ms), each at the program's next\n"
	      "                             launch, longer (up to 10 D) until it saw 16 launches\n"
	      "                             (default: none, only when asked: the live view's x\n"
	      "                             key; --exact-for 20ms)\n"
	      "  --no-nvtx                  record, run, demo: leave the workload's NVTX ranges\n"
	      "                             out (recorded by default, in every --sm mode)\n"
	      "  --threshold-us N           a wait longer than N us is blocking (default 20)\n"
	      "  --ascii                    draw with ASCII only\n"
	      "  --device N                 the GPU the viewer draws, by CUDA device id\n"
	      "                             (default: the first recorded)\n"
	      "  -q, --quiet                no progress lines (report, export, ls, info, record\n"
	      "                             show one on a terminal for steps over 0.5 s)\n"
	      "  -h, --help                 this text;  --version  the version\n"
	      "\n"
	      "  --attach PID, --for DURATION  record: see record --attach above\n"
	      "\n"
	      "environment: NO_COLOR (monochrome), SMTOP_INJECT (collector library path),\n"
	      "SMTOP_CONTROL_DIR (control sockets; default $XDG_RUNTIME_DIR/smtop, else\n"
	      "/tmp/smtop-UID),\n"
	      "SMTOP_NVML_LIB (the machine view's NVML; default libnvidia-ml.so.1),\n"
	      "XDG_DATA_HOME (session library), XDG_CACHE_HOME (what reading computes;\n"
	      "the files read are never written), SMTOP_THREADS (loader threads).\n"
	      "See smtop(1) for the keys of the viewer.\n",
	      out);
}

/* An argument as shown in a message: control characters escaped (a refusal
 * stays one line and sends nothing raw to the terminal), long ones cut. */
static const char *shown(const char *a, char *buf, size_t len)
{
	size_t n = 0;
	for (; *a && n + 8 < len; a++) {
		unsigned char ch = (unsigned char)*a;
		if (ch < 0x20 || ch == 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", ch);
		else
			buf[n++] = (char)ch;
	}
	strcpy(buf + n, *a ? "..." : "");
	return buf;
}

static int find_command(const char *word, enum cli_command *cmd)
{
	for (size_t i = 0; i < sizeof cli_commands / sizeof cli_commands[0]; i++) {
		if (strcmp(word, cli_commands[i].name) == 0) {
			*cmd = cli_commands[i].command;
			return 0;
		}
	}
	return -1;
}

/* Numbers past this (and inf, nan) are refused: they would not fit the
 * integers they become (--top, the threshold in ns). */
#define CLI_NUMBER_MAX 1e9

static int parse_number(const char *opt, const char *s, double lo, double hi, double *out,
			FILE *err)
{
	char *end;
	double v = s ? strtod(s, &end) : 0;
	if (!s || *end || end == s || !(v >= lo && v <= hi)) {
		fprintf(err, "smtop: %s needs a number from %.10g to %.10g\n", opt, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* Options taking a value; returns 1 if argv[*i] was one (consuming the value). */
static int parse_valued(int argc, char **argv, int *i, struct cli *c, FILE *err, int *bad)
{
	const char *a = argv[*i];
	const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	double v = 0;
	if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		if (!val) {
			fprintf(err, "smtop: %s needs a file name\n", a);
			*bad = 1;
		}
		c->out_path = val;
	} else if (!strcmp(a, "--sm")) {
		if (!sm_mode_named(val)) {
			char modes[256];
			fprintf(err, "smtop: --sm needs %s\n", sm_modes_list(modes, sizeof modes));
			*bad = 1;
		}
		c->sm_mode = val;
	} else if (!strcmp(a, "--threshold-us")) {
		*bad = parse_number(a, val, 0, CLI_NUMBER_MAX, &c->threshold_us, err) != 0;
	} else if (!strcmp(a, "--top")) {
		*bad = parse_number(a, val, 1, CLI_NUMBER_MAX, &v, err) != 0;
		c->top = (int)v;
	} else if (!strcmp(a, "--device")) {
		*bad = parse_number(a, val, 0, 65535, &v, err) != 0;
		if (!*bad && v != (int)v) {
			fprintf(err, "smtop: --device needs a whole number from 0 to 65535\n");
			*bad = 1;
		}
		c->device = (int)v;
	} else if (!strcmp(a, "--perfetto") || !strcmp(a, "--csv")) {
		if (!val) {
			fprintf(err, "smtop: %s needs a %s\n", a, a[2] == 'p' ? "file name (- for stdout)"
				: "directory");
			*bad = 1;
		}
		*(a[2] == 'p' ? &c->perfetto_path : &c->csv_dir) = val;
	} else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
		uint64_t ns = 0;
		if (!val || cli_parse_time(val, &ns) != 0) {
			fprintf(err, "smtop: %s needs a time from the session start: 1500 (us), 2ms, 1.5s\n", a);
			*bad = 1;
		}
		if (a[2] == 'f') {
			c->from_ns = ns;
			c->has_from = 1;
		} else {
			c->to_ns = ns;
			c->has_to = 1;
		}
	} else if (!strcmp(a, "--exact-every") || !strcmp(a, "--exact-for")) {
		uint64_t ns = 0;
		if ((!val || strcmp(val, "0")) && cli_parse_duration(val, &ns) != 0) {
			fprintf(err, "smtop: %s needs a duration: 5 (seconds), 2s, 20ms (0: none)\n", a);
			*bad = 1;
		}
		if (a[8] == 'e') {
			c->exact_every_ns = ns;
			c->has_exact_every = 1;
		} else {
			c->exact_for_ns = ns;
			c->has_exact_for = 1;
		}
	} else if (!strcmp(a, "--attach")) {
		*bad = parse_number(a, val, 1, 2147483647.0, &v, err) != 0;
		if (!*bad && v != (long)v) {
			fprintf(err, "smtop: --attach needs a process id\n");
			*bad = 1;
		}
		c->attach_pid = (long)v;
	} else if (!strcmp(a, "--for")) {
		if (cli_parse_duration(val, &c->attach_for_ns) != 0) {
			fprintf(err, "smtop: --for needs a duration: 30 (seconds), 2s, 500ms, 5m\n");
			*bad = 1;
		}
		c->has_for = 1;
	} else if (!strcmp(a, "--seconds")) {
		*bad = parse_number(a, val, 0.1, CLI_NUMBER_MAX, &c->demo_seconds, err) != 0;
	} else if (!strcmp(a, "--speed")) {
		*bad = parse_number(a, val, 1, 1e6, &c->speed, err) != 0;
	} else {
		return 0;
	}
	(*i)++;
	return 1;
}

static int parse_flag(const char *a, struct cli *c)
{
	if (!strcmp(a, "--json"))
		c->json = 1;
	else if (!strcmp(a, "--explain"))
		c->explain = 1;
	else if (!strcmp(a, "--long-names"))
		c->long_names = 1;
	else if (!strcmp(a, "--ascii"))
		c->ascii = 1;
	else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		c->quiet = 1;
	else if (!strcmp(a, "--no-nvtx"))
		c->no_nvtx = 1;
	else if (!strcmp(a, "--list"))
		c->demo_list = 1;
	else if (!strcmp(a, "--guided"))
		c->guided = 1;
	else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		c->command = CLI_HELP;
	else if (!strcmp(a, "--version"))
		c->command = CLI_VERSION;
	else
		return 0;
	return 1;
}

int cli_parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "", 1e3 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v = s ? strtod(s, &end) : -1;
	if (!s || end == s || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double t = v * units[i].ns + 0.5;
			/* inf, nan and times past uint64 (584 years) are refused */
			if (!(t < 18446744073709551615.0))
				return -1;
			*ns = (uint64_t)t;
			return 0;
		}
	}
	return -1;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	double v = s ? strtod(s, &end) : -1;

	if (!s || end == s || !(v > 0))
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "m"))
		v *= 60e9;
	else if (!strcmp(end, "h"))
		v *= 3600e9;
	else if (strcmp(end, "ms") != 0 || (v *= 1e6) < 0)
		return -1;
	if (!(v >= 1e6 && v < 1e18))
		return -1;
	*ns = (uint64_t)v;
	return 0;
}

static int takes_files(enum cli_command cmd)
{
	return cmd == CLI_OPEN || cmd == CLI_INFO || cmd == CLI_REPORT || cmd == CLI_EXPORT ||
	       cmd == CLI_REPLAY;
}

/* The positional words a command takes: FILE... or demo NAME. */
static int take_positional(struct cli *c, const char *a, FILE *err)
{
	if (takes_files(c->command) && c->n_files < CLI_MAX_FILES) {
		c->files[c->n_files++] = a;
		c->file = c->files[0];
		return 0;
	}
	const char **slot = c->command == CLI_DEMO ? &c->demo_name : &c->file;
	if (c->command == CLI_MV && *slot)
		slot = &c->new_name;
	if (c->command == CLI_DEFAULT || c->command == CLI_RECORD || c->command == CLI_RUN ||
	    c->command == CLI_LAUNCH || c->command == CLI_ENV || *slot) {
		char buf[CLI_SHOWN_MAX];
		fprintf(err, "smtop: unexpected argument '%s' (see smtop --help)\n",
			shown(a, buf, sizeof buf));
		return -1;
	}
	*slot = a;
	return 0;
}

static int check_complete(const struct cli *c, FILE *err)
{
	int needs_file = (takes_files(c->command) && c->command != CLI_OPEN) ||
			 c->command == CLI_RM || c->command == CLI_MV;
	if (needs_file && !c->file) {
		fprintf(err, "smtop: this command needs a session FILE (see smtop --help)\n");
		return -1;
	}
	if (c->command == CLI_MV && !c->new_name) {
		fprintf(err, "smtop: mv needs the session and its new name: smtop mv FILE NEWNAME\n");
		return -1;
	}
	if (c->command == CLI_EXPORT && !c->perfetto_path && !c->csv_dir) {
		fprintf(err, "smtop: export needs --perfetto OUT.json or --csv DIR (see smtop --help)\n");
		return -1;
	}
	if (c->command == CLI_EXPORT && c->csv_dir && !strcmp(c->csv_dir, "-")) {
		fprintf(err, "smtop: --csv writes three files into a directory; - is not one\n");
		return -1;
	}
	if (c->has_from && c->has_to && c->to_ns <= c->from_ns) {
		fprintf(err, "smtop: --to must come after --from\n");
		return -1;
	}
	if ((c->attach_pid || c->has_for) && c->command != CLI_RECORD) {
		fprintf(err, "smtop: --attach and --for go with record: smtop record --attach PID [--for DURATION]\n");
		return -1;
	}
	if (c->has_for && !c->attach_pid) {
		fprintf(err, "smtop: --for needs --attach PID (a recording started here ends with its workload)\n");
		return -1;
	}
	if (c->attach_pid && c->argv) {
		fprintf(err, "smtop: --attach records a running process; give no command after it\n");
		return -1;
	}
	if ((c->command == CLI_RECORD || c->command == CLI_RUN || c->command == CLI_LAUNCH) &&
	    !c->attach_pid && (!c->argv || !c->argv[0])) {
		fprintf(err, "smtop: no workload given: smtop %s -- CMD [ARGS...]\n",
			c->command == CLI_RECORD ? "record [-o FILE]" : c->command == CLI_RUN ? "run [-o FILE]"
			: "launch [--sm MODE]");
		return -1;
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *c, FILE *err)
{
	memset(c, 0, sizeof *c);
	c->threshold_us = 20;
	c->top = 20;
	c->device = -1;
	int i = 1;
	if (i < argc && argv[i][0] != '-') {
		if (find_command(argv[i], &c->command) != 0) {
			char buf[CLI_SHOWN_MAX];
			fprintf(err, "smtop: unknown command '%s' (see smtop --help)\n",
				shown(argv[i], buf, sizeof buf));
			return -1;
		}
		i++;
	}
	for (; i < argc; i++) {
		const char *a = argv[i];
		int bad = 0;
		if (!strcmp(a, "--")) {
			c->argv = &argv[i + 1];
			break;
		}
		if (parse_valued(argc, argv, &i, c, err, &bad)) {
			if (bad)
				return -1;
			continue;
		}
		if (parse_flag(a, c))
			continue;
		if (a[0] == '-' && a[1]) {
			char buf[CLI_SHOWN_MAX];
			fprintf(err, "smtop: unknown option '%s' (see smtop --help)\n",
				shown(a, buf, sizeof buf));
			return -1;
		}
		if ((c->command == CLI_RECORD || c->command == CLI_RUN || c->command == CLI_LAUNCH) &&
		    !c->argv) {
			c->argv = &argv[i]; /* `smtop record CMD ARGS` without -- */
			break;
		}
		if (take_positional(c, a, err) != 0)
			return -1;
	}
	if (c->command == CLI_HELP || c->command == CLI_VERSION)
		return 0;
	return check_complete(c, err);
}

void cli_analysis_params(const struct cli *c, struct analysis_params *p)
{
	analysis_params_default(p);
	p->blocking_threshold_ns = (uint64_t)(c->threshold_us * 1000.0 + 0.5);
}
