/* The command line: the input split at NUL bytes is argv (after "smtop").
 * cli_parse must accept it or refuse it with exactly one line, and an
 * accepted command line must hold what its command needs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app/cli.h"
#include "tests/fuzz/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static int points_into(char **p, char **argv, int argc)
{
	return p >= argv && p <= argv + argc;
}

static void check_accepted(const struct cli *c, char **argv, int argc, size_t err_len)
{
	fuzz_check(err_len == 0, "an accepted command line wrote to stderr");
	fuzz_check(c->command >= CLI_DEFAULT && c->command <= CLI_ENV, "no such command");
	if (c->command == CLI_HELP || c->command == CLI_VERSION)
		return;
	/* open without a file is the session library */
	if (c->command == CLI_INFO || c->command == CLI_REPORT || c->command == CLI_REPLAY ||
	    c->command == CLI_EXPORT || c->command == CLI_RM || c->command == CLI_MV)
		fuzz_check(c->file != NULL, "a file command accepted without a file");
	if (c->command == CLI_MV)
		fuzz_check(c->new_name != NULL, "mv accepted without a new name");
	if (c->command == CLI_EXPORT)
		fuzz_check(c->perfetto_path || c->csv_dir, "export accepted without an output");
	fuzz_check(c->n_files >= 0 && c->n_files <= CLI_MAX_FILES, "file count out of range");
	fuzz_check(c->n_files == 0 || c->files[0] == c->file, "files[0] is not the file");
	for (int i = 0; i < c->n_files; i++)
		fuzz_check(c->files[i] != NULL, "a file lost");
	if (c->has_from && c->has_to)
		fuzz_check(c->to_ns > c->from_ns, "--to before --from accepted");
	fuzz_check(c->speed == 0 || (c->speed >= 1 && c->speed <= 1e6), "--speed out of range");
	if (c->command == CLI_RUN || c->command == CLI_LAUNCH || (c->command == CLI_RECORD && !c->attach_pid))
		fuzz_check(c->argv && c->argv[0] && points_into(c->argv, argv, argc),
			   "record accepted without a workload");
	fuzz_check(c->threshold_us >= 0, "a negative threshold accepted");
	fuzz_check(c->top >= 1, "--top below 1 accepted");
	fuzz_check(c->demo_seconds == 0 || c->demo_seconds >= 0.1, "--seconds below 0.1 accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *argv[MAX_ARGS + 2];
	char *err = NULL;
	size_t err_len = 0;
	int argc = 0;
	struct cli c;
	FILE *f;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	argv[argc++] = "smtop";
	for (char *p = text; p <= text + size && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	if (size == 0)
		argc = 1;
	argv[argc] = NULL;
	if (!(f = open_memstream(&err, &err_len))) {
		free(text);
		return 0;
	}
	int rc = cli_parse(argc, argv, &c, f);
	fclose(f);
	fuzz_check(rc == 0 || rc == -1, "cli_parse returned neither 0 nor -1");
	if (rc == 0) {
		check_accepted(&c, argv, argc, err_len);
	} else {
		fuzz_check(err_len > 0 && err[err_len - 1] == '\n' && memchr(err, '\n', err_len) == err + err_len - 1,
			   "a refused command line did not get exactly one line");
		fuzz_check(strncmp(err, "smtop: ", 7) == 0, "a refusal that does not start with smtop:");
	}
	free(err);
	free(text);
	return 0;
}
