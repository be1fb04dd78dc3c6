/* smtop: the command line's front door. */
#include <stdio.h>

#include "src/cli.h"
#include "src/info.h"
#include "src/record.h"

#define SMTOP_VERSION "0.1.0"

static int run_record(const struct cli *c)
{
	struct record_opts o = { .out_path = c->out_path, .argv = c->argv, .quiet = c->quiet };
	return record_main(&o);
}

int main(int argc, char **argv)
{
	struct cli c;
	if (cli_parse(argc, argv, &c, stderr) != 0)
		return 2;
	switch (c.command) {
	case CLI_HELP:
		cli_usage(stdout);
		return 0;
	case CLI_VERSION:
		printf("smtop %s\n", SMTOP_VERSION);
		return 0;
	case CLI_RECORD:
		return run_record(&c);
	case CLI_INFO:
		return info_main(c.file);
	default:
		fprintf(stderr, "smtop: this command is not built yet\n");
		return 2;
	}
}
