#include "ui/app/ls.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ui/app/open.h"
#include "src/core/analysis.h"
#include "src/core/json.h"
#include "db/session/library.h"

#define LS_CMD_MAX_W 48

static const char *const state_names[] = {
	[LIBRARY_COMPLETE] = "complete",
	[LIBRARY_INCOMPLETE] = "incomplete",
	[LIBRARY_OPEN] = "recording",
	[LIBRARY_NSYS] = "nsys",
};

static int utf8_cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int ls_text(FILE *out, const struct library *lib)
{
	struct library_row r;
	char line[1024];
	int cmd_w = 7, file_w = 4;

	if (!lib->n) {
		fprintf(out, "no sessions in %s\n", lib->dir);
		return 0;
	}
	for (size_t i = 0; i < lib->n; i++) {
		library_row(&lib->e[i], &r);
		int cw = utf8_cols(r.command), fw = utf8_cols(r.file);
		cmd_w = cw > cmd_w ? cw : cmd_w;
		file_w = fw > file_w ? fw : file_w;
	}
	cmd_w = cmd_w > LS_CMD_MAX_W ? LS_CMD_MAX_W : cmd_w;
	fprintf(out, "%s\n", library_format_line(NULL, cmd_w, file_w, 0, line, sizeof line));
	for (size_t i = 0; i < lib->n; i++) {
		library_row(&lib->e[i], &r);
		fprintf(out, "%s\n", library_format_line(&r, cmd_w, file_w, 0, line, sizeof line));
	}
	return 0;
}

static void json_u64(FILE *out, const char *key, uint64_t v, int known)
{
	fprintf(out, ", \"%s\": ", key);
	if (known)
		fprintf(out, "%" PRIu64, v);
	else
		fputs("null", out);
}

static void json_entry(FILE *out, const struct library_entry *e)
{
	const struct db_summary *s = &e->sum;
	int span = s->t_first && s->t_last >= s->t_first;

	fputs("    {\"file\": ", out);
	json_write_str(out, e->name);
	fputs(", \"path\": ", out);
	json_write_str(out, e->path);
	fputs(", \"error\": ", out);
	json_write_str(out, e->error);
	if (e->error) {
		fputs("}", out);
		return;
	}
	fputs(", \"state\": ", out);
	json_write_str(out, state_names[e->state]);
	json_u64(out, "created_ns", e->created_ns, e->created_ns != 0);
	fputs(", \"command\": ", out);
	json_write_str(out, e->command);
	fputs(", \"gpu\": ", out);
	json_write_str(out, e->gpu);
	fprintf(out, ", \"gpus\": %d", e->n_gpus);
	json_u64(out, "start_ns", s->t_first, span);
	json_u64(out, "end_ns", s->t_last, span);
	json_u64(out, "duration_ns", span ? s->t_last - s->t_first : 0, span);
	json_u64(out, "kernels", s->kernels, 1);
	json_u64(out, "blocks", s->blocks, 1);
	json_u64(out, "inversions", s->inversions_resident + s->inversions_dispatch, 1);
	json_u64(out, "inversions_resident", s->inversions_resident, 1);
	json_u64(out, "inversions_dispatch", s->inversions_dispatch, 1);
	json_u64(out, "blocking", s->blocking, 1);
	json_u64(out, "timeslice", s->timeslice, 1);
	fprintf(out, ", \"summary\": \"%s\"}", e->cached ? "cached" : e->stored ? "computed, stored"
		: "computed");
}

static int ls_json(FILE *out, const struct library *lib)
{
	fputs("{\"directory\": ", out);
	json_write_str(out, lib->dir);
	fprintf(out, ", \"threshold_us\": %.3f, \"sessions\": [", (double)lib->threshold_ns / 1e3);
	for (size_t i = 0; i < lib->n; i++) {
		fputs(i ? ",\n" : "\n", out);
		json_entry(out, &lib->e[i]);
	}
	fputs(lib->n ? "\n]}\n" : "]}\n", out);
	return ferror(out) ? -1 : 0;
}

int ls_main(const struct cli *c)
{
	char dir[PATH_MAX], err[PATH_MAX + 128];
	struct analysis_params p;
	struct library lib;
	struct stat sb;
	int missing_ok, rc;

	if (library_dir(c->command == CLI_LS ? c->file : NULL, dir, sizeof dir, &missing_ok, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	if (!c->json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		return open_browse(c);
	cli_analysis_params(c, &p);
	if (missing_ok && stat(dir, &sb) != 0 && errno == ENOENT) {
		memset(&lib, 0, sizeof lib);
		lib.dir = dir;
		lib.threshold_ns = p.blocking_threshold_ns;
		return (c->json ? ls_json(stdout, &lib) : ls_text(stdout, &lib)) == 0 ? 0 : 1;
	}
	if (library_scan(&lib, dir, &p, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	rc = c->json ? ls_json(stdout, &lib) : ls_text(stdout, &lib);
	library_free(&lib);
	return rc == 0 ? 0 : 1;
}

int ls_rm_main(const struct cli *c)
{
	char path[PATH_MAX], err[PATH_MAX + 128];

	library_resolve(c->file, path, sizeof path);
	if (library_remove_path(path, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	if (!c->quiet)
		fprintf(stderr, "smtop: removed %s\n", path);
	return 0;
}

int ls_mv_main(const struct cli *c)
{
	char path[PATH_MAX], np[PATH_MAX], err[PATH_MAX + 128];

	library_resolve(c->file, path, sizeof path);
	if (library_rename_path(path, c->new_name, np, sizeof np, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	if (!c->quiet)
		fprintf(stderr, "smtop: renamed %s to %s\n", path, np);
	return 0;
}
