/* smtop export on sessions recorded on the H200 and on Nsight Systems
 * exports: the CSV files hold one row per record the reader hands out, the
 * trace has one line per event, the window cuts, errors are one line.
 * (tests/e2e/test_export.sh parses the traces with a real JSON parser.) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/core/analysis.h"
#include "ui/app/cli.h"
#include "db/session/export.h"
#include "db/session/session.h"
#include "tests/support/db_support.h"

#define FX "tests/fixtures/"

struct counts {
	uint64_t kernels, blocks;
	uint64_t per_sm[256];
};

static int count_kernel(void *ud, const struct smtop_kernel *k)
{
	(void)k;
	((struct counts *)ud)->kernels++;
	return 0;
}

static int count_block(void *ud, const struct smtop_block *b, uint32_t pid, uint32_t ctx)
{
	struct counts *c = ud;
	(void)pid;
	(void)ctx;
	c->blocks++;
	if (b->sm < 256)
		c->per_sm[b->sm]++;
	return 0;
}

static void open_session(struct session *s, const char *path)
{
	char err[512];
	cr_assert_eq(session_open(s, path, NULL, err, sizeof err), 0, "%s", err);
	cr_assert_geq(session_poll(s, err, sizeof err), 0, "%s", err);
	analysis_update(s->analysis, ANALYSIS_WATERMARK_ALL);
}

static size_t count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c, last = '\n';
	cr_assert_not_null(f, "%s", path);
	while ((c = fgetc(f)) != EOF) {
		if (c == '\n')
			n++;
		last = c;
	}
	fclose(f);
	return n + (last != '\n');
}

static void temp_dir(char *out, size_t len)
{
	char path[256];
	db_support_temp_path(path, sizeof path, "csv");
	snprintf(out, len, "%s", path);
}

/* Rows = header + one per kernel/block/event, as the reader and analysis see them. */
static void check_csv(const char *fixture)
{
	struct session s;
	struct export_window w;
	struct counts c = { 0 };
	char dir[256], file[300], err[512];

	open_session(&s, fixture);
	cr_assert_eq(export_window(&s, 0, 0, 0, &w, err, sizeof err), 0, "%s", err);
	temp_dir(dir, sizeof dir);
	cr_assert_eq(export_csv(&s, dir, &w, err, sizeof err), 0, "%s", err);
	cr_assert_eq(db_reader_kernels(s.reader, 0, INT64_MAX, count_kernel, &c), 0);
	cr_assert_eq(db_reader_blocks(s.reader, 0, INT64_MAX, count_block, &c), 0);
	snprintf(file, sizeof file, "%s/kernels.csv", dir);
	cr_assert_eq(count_lines(file), c.kernels + 1, "%s kernels", fixture);
	cr_assert_eq(c.kernels, s.info.kernels);
	snprintf(file, sizeof file, "%s/blocks.csv", dir);
	cr_assert_eq(count_lines(file), c.blocks + 1, "%s blocks", fixture);
	cr_assert_eq(c.blocks, s.info.blocks);
	snprintf(file, sizeof file, "%s/events.csv", dir);
	cr_assert_eq(count_lines(file), analysis_event_count(s.analysis) + 1, "%s events", fixture);
	session_close(&s);
}

Test(export, csv_rows_equal_session_counts_smoke) { check_csv(FX "smoke.smtop"); }
Test(export, csv_rows_equal_session_counts_inversions) { check_csv(FX "priority-vs-training.smtop"); }
Test(export, csv_rows_equal_session_counts_pytorch) { check_csv(FX "resnet50-two-streams.smtop"); }
Test(export, csv_rows_equal_session_counts_nsys) { check_csv(FX "nsys/nsys-3.28.1.sqlite"); }

Test(export, csv_quotes_fields_rfc4180)
{
	struct session s;
	struct export_window w;
	char dir[256], file[300], err[512], line[4096];
	int quoted = 0;

	/* template kernel names hold commas: they must come quoted */
	open_session(&s, FX "nsys/nsys-3.16.1.sqlite");
	cr_assert_eq(export_window(&s, 0, 0, 0, &w, err, sizeof err), 0);
	temp_dir(dir, sizeof dir);
	cr_assert_eq(export_csv(&s, dir, &w, err, sizeof err), 0, "%s", err);
	snprintf(file, sizeof file, "%s/kernels.csv", dir);
	FILE *f = fopen(file, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof line, f));
	cr_assert(strncmp(line, "pid,device,context,stream,priority,", 35) == 0, "%s", line);
	cr_assert(strstr(line, "\r\n"), "CRLF line ends");
	while (fgets(line, sizeof line, f))
		quoted |= strstr(line, ",\"void at::native::vectorized_elementwise_kernel<4, ") != NULL;
	fclose(f);
	cr_assert(quoted, "a name with a comma is quoted");
	session_close(&s);
}

/* Each trace event is one line: count the X slices per process. */
static void check_trace(const char *fixture)
{
	struct session s;
	struct export_window w;
	struct counts c = { 0 };
	char err[512], *buf = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	uint64_t kernel_slices = 0, per_sm[256] = { 0 }, events = 0;

	open_session(&s, fixture);
	cr_assert_eq(export_window(&s, 0, 0, 0, &w, err, sizeof err), 0);
	FILE *out = open_memstream(&buf, &len);
	cr_assert_eq(export_perfetto(&s, out, &w, err, sizeof err), 0, "%s", err);
	fclose(out);
	cr_assert(strncmp(buf, "{\"displayTimeUnit\":\"ns\"", 23) == 0);
	cr_assert(strstr(buf, "\n]}\n"), "the trace is closed");
	FILE *in = fmemopen(buf, len, "r");
	while (getline(&line, &cap, in) > 0) {
		int pid;
		if (sscanf(line, "{\"ph\":\"X\",\"pid\":%d,", &pid) != 1)
			continue;
		if (pid == 1)
			kernel_slices++;
		else if (pid == 2)
			events++;
		else if (pid >= 16 && pid - 16 < 256)
			per_sm[pid - 16]++;
	}
	fclose(in);
	free(line);
	free(buf);
	cr_assert_eq(db_reader_blocks(s.reader, 0, INT64_MAX, count_block, &c), 0);
	cr_assert_eq(kernel_slices, s.info.kernels, "%s: one slice per kernel", fixture);
	for (int sm = 0; sm < 256; sm++)
		cr_assert_eq(per_sm[sm], c.per_sm[sm], "%s: SM %d", fixture, sm);
	cr_assert_eq(events, analysis_event_count(s.analysis), "%s: one slice per episode", fixture);
	session_close(&s);
}

Test(export, trace_slices_per_sm_and_stream_smoke) { check_trace(FX "smoke.smtop"); }
Test(export, trace_slices_per_sm_and_stream_head_of_line) { check_trace(FX "head-of-line.smtop"); }
Test(export, trace_slices_nsys) { check_trace(FX "nsys/nsys-cuda_lab.sqlite"); }

Test(export, window_cuts_the_session)
{
	struct session s;
	struct export_window all, part;
	char dir[256], file[300], err[512];

	open_session(&s, FX "priority-vs-training.smtop");
	uint64_t span = s.info.t_last - s.info.t_first;
	cr_assert_eq(export_window(&s, 0, 0, 0, &all, err, sizeof err), 0);
	cr_assert_eq(export_window(&s, span / 4, 1, span / 2, &part, err, sizeof err), 0);
	cr_assert_eq(part.t0, s.info.t_first + span / 4);
	cr_assert_eq(part.t1, s.info.t_first + span / 2);
	temp_dir(dir, sizeof dir);
	cr_assert_eq(export_csv(&s, dir, &part, err, sizeof err), 0, "%s", err);
	snprintf(file, sizeof file, "%s/blocks.csv", dir);
	size_t rows = count_lines(file) - 1;
	cr_assert_gt(rows, 0);
	cr_assert_lt(rows, s.info.blocks, "a quarter of the span holds fewer blocks");
	/* every block row overlaps the window */
	FILE *f = fopen(file, "r");
	char line[512];
	cr_assert_not_null(fgets(line, sizeof line, f));
	while (fgets(line, sizeof line, f)) {
		unsigned long long start, end;
		cr_assert_eq(sscanf(line, "%*u,%*u,%*u,%*u,%*u,%*u,%llu,%llu", &start, &end), 2, "%s", line);
		cr_assert(start < part.t1 && end > part.t0, "%s", line);
	}
	fclose(f);
	cr_assert_eq(export_window(&s, span + 1, 0, 0, &part, err, sizeof err), -1);
	cr_assert(strstr(err, "starts after the session's end"), "%s", err);
	session_close(&s);
}

Test(export, csv_into_a_file_is_refused)
{
	struct session s;
	struct export_window w;
	char path[256], err[512];

	open_session(&s, FX "head-of-line.smtop");
	cr_assert_eq(export_window(&s, 0, 0, 0, &w, err, sizeof err), 0);
	db_support_temp_path(path, sizeof path, "plain-file");
	FILE *f = fopen(path, "w");
	fclose(f);
	cr_assert_eq(export_csv(&s, path, &w, err, sizeof err), -1);
	cr_assert(strstr(err, "not a directory"), "%s", err);
	cr_assert_eq(export_csv(&s, "/proc/smtop-no/such", &w, err, sizeof err), -1);
	cr_assert(strstr(err, "cannot create the directory"), "%s", err);
	session_close(&s);
}

Test(export, command_line)
{
	char *ok[] = { "smtop", "export", "a.smtop", "b.sqlite", "--perfetto", "-", "--from", "1.5ms",
		       "--to", "2500", NULL };
	char *no_target[] = { "smtop", "export", "a.smtop", NULL };
	char *csv_stdout[] = { "smtop", "export", "a.smtop", "--csv", "-", NULL };
	char *bad_time[] = { "smtop", "export", "a.smtop", "--csv", "d", "--from", "3 ms", NULL };
	char *backwards[] = { "smtop", "export", "a.smtop", "--csv", "d", "--from", "2ms", "--to",
			      "1ms", NULL };
	char err[256];
	struct cli c;
	FILE *e = fmemopen(err, sizeof err, "w");

	cr_assert_eq(cli_parse(10, ok, &c, e), 0);
	cr_assert_eq(c.command, CLI_EXPORT);
	cr_assert_eq(c.n_files, 2);
	cr_assert_str_eq(c.files[1], "b.sqlite");
	cr_assert_str_eq(c.perfetto_path, "-");
	cr_assert_eq(c.from_ns, 1500000);
	cr_assert_eq(c.to_ns, 2500000, "a bare number is microseconds");
	cr_assert_eq(cli_parse(3, no_target, &c, e), -1);
	cr_assert_eq(cli_parse(5, csv_stdout, &c, e), -1);
	cr_assert_eq(cli_parse(7, bad_time, &c, e), -1);
	cr_assert_eq(cli_parse(9, backwards, &c, e), -1);
	fclose(e);
	uint64_t ns;
	cr_assert_eq(cli_parse_time("80ns", &ns), 0);
	cr_assert_eq(ns, 80);
	cr_assert_eq(cli_parse_time("2s", &ns), 0);
	cr_assert_eq(ns, 2000000000ull);
	cr_assert_eq(cli_parse_time("-1", &ns), -1);
	cr_assert_eq(cli_parse_time("5 min", &ns), -1);
}
