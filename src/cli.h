/* Command-line parsing: turns argv into one struct cli, no side effects. */
#ifndef SMTOP_CLI_H
#define SMTOP_CLI_H

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
};

struct cli {
	enum cli_command command;
	const char *out_path;        /* -o FILE */
	const char *file;            /* open/info/report FILE */
	const char *demo_name;       /* demo NAME */
	int demo_list;               /* demo --list */
	char **argv;                 /* record/run: the workload, NULL-terminated */
	int json;                    /* report --json */
	double threshold_us;         /* blocking threshold, default 20 */
	int top;                     /* report: episodes listed */
	int ascii;                   /* --ascii: no UTF-8 glyphs */
	int quiet;
	double demo_seconds;         /* demo --seconds */
	double speed;                /* replay --speed: real time per GPU time, 0 = default */
	int guided;                  /* replay --guided */
};

/* Parses argv.  Returns 0, or -1 after writing one line to err_out. */
int cli_parse(int argc, char **argv, struct cli *c, FILE *err_out);

void cli_usage(FILE *out);

#endif
