/* Command-line parsing: turns argv into one struct cli, no side effects. */
#ifndef SMTOP_CLI_H
#define SMTOP_CLI_H

#include <stdint.h>
#include <stdio.h>

enum cli_command {
	CLI_DEFAULT,    /* plain `smtop` */
	CLI_RECORD,
	CLI_RUN,
	CLI_DEMO,
	CLI_OPEN,
	CLI_INFO,
	CLI_REPORT,
	CLI_HELP,
	CLI_VERSION,
	CLI_REPLAY,
	CLI_EXPORT,
	CLI_LS,
	CLI_RM,
	CLI_MV,
	CLI_LAUNCH,
	CLI_ENV,
};

#define CLI_MAX_FILES 16

struct cli {
	enum cli_command command;
	const char *out_path;        /* -o FILE */
	const char *sm_mode;         /* --sm marked|entry|exact|all; NULL: the default */
	uint64_t exact_every_ns, exact_for_ns; /* --exact-every, --exact-for */
	int has_exact_every, has_exact_for;
	const char *file;            /* open/info/report/rm/mv FILE, ls DIR */
	const char *new_name;        /* mv FILE NEWNAME */
	const char *demo_name;       /* demo NAME */
	int demo_list;               /* demo --list */
	char **argv;                 /* record/run: the workload, NULL-terminated */
	int json;                    /* report --json */
	int explain;                 /* report --explain */
	int long_names;              /* report --long-names */
	double threshold_us;         /* blocking threshold, default 20 */
	int top;                     /* report: episodes listed */
	int ascii;                   /* --ascii: no UTF-8 glyphs */
	int device;                  /* --device N: the GPU the viewer draws; -1 the first */
	int quiet;
	int no_nvtx;                 /* record/run/demo --no-nvtx */
	double demo_seconds;         /* demo --seconds */
	double speed;                /* replay --speed: real time per GPU time, 0 = default */
	int guided;                  /* replay --guided */
	const char *files[CLI_MAX_FILES]; /* open/replay/info/report/export FILE...; files[0] == file */
	int n_files;
	const char *perfetto_path;   /* export --perfetto OUT.json ("-": stdout) */
	const char *csv_dir;         /* export --csv DIR */
	uint64_t from_ns, to_ns;     /* export --from/--to, from the session start */
	int has_from, has_to;
	long attach_pid;             /* record --attach PID; 0: none */
	uint64_t attach_for_ns;      /* record --attach --for DURATION; 0: until Ctrl-C */
	int has_for;
};

/* "1500" (microseconds), "1.5ms", "2s", "300us", "80ns" -> ns.  0 or -1. */
int cli_parse_time(const char *s, uint64_t *ns);

/* "30" (seconds), "2s", "500ms", "5m", "1h" -> ns, at least 1 ms.  0 or -1. */
int cli_parse_duration(const char *s, uint64_t *ns);

/* Parses argv.  Returns 0, or -1 after writing one line to err_out. */
int cli_parse(int argc, char **argv, struct cli *c, FILE *err_out);

void cli_usage(FILE *out);

struct analysis_params;

/* The analysis' parameters the options ask for (--threshold-us). */
void cli_analysis_params(const struct cli *c, struct analysis_params *p);

#endif
