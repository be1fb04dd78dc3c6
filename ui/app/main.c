/* smtop: the command line's front door. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "db/names.h"
#include "db/reader.h"
#include "src/core/analysis.h"
#include "src/core/findings.h"
#include "ui/app/cli.h"
#include "db/session/export.h"
#include "ui/app/info.h"
#include "ui/app/launch.h"
#include "ui/app/ls.h"
#include "ui/app/machine.h"
#include "ui/app/open.h"
#include "ui/app/paper.h"
#include "ui/app/progress_line.h"
#include "ui/app/record.h"
#include "src/core/report.h"
#include "db/session/results.h"
#include "db/session/results_store.h"
#include "db/session/session.h"
#include "src/core/version.h"


static int run_record(const struct cli *c)
{
	struct record_opts o = { .out_path = c->out_path, .argv = c->argv, .quiet = c->quiet,
				  .sm_mode = c->sm_mode, .no_nvtx = c->no_nvtx,
				  .exact_every_ns = c->exact_every_ns, .exact_for_ns = c->exact_for_ns,
				  .has_exact_every = c->has_exact_every, .has_exact_for = c->has_exact_for };
	return record_main(&o);
}

/* What the collector dropped, as the session's info counts it (an Nsight
 * Systems export counts none: unknown, as the viewer's status line says). */
static void report_drops_of(const struct db_session_info *si, struct report_options *ro)
{
	ro->drops_known = !si->is_nsys;
	ro->dropped_blocks = si->drops_blocks;
	ro->dropped_cupti = si->drops_cupti;
	ro->dropped_ring = si->drops_ring;
}

/* Analyses the whole session into f, and keeps the episodes and f in
 * smtop's cache of the session for the next report and the viewer (the
 * file itself is never written; nor is anything kept of Nsight Systems
 * exports or views of several files); ro takes its drops. */
static int report_compute(const struct cli *c, const struct analysis_params *p,
			  struct findings *f, struct report_options *ro)
{
	struct session s;
	char err[512];
	if (session_open_many(&s, c->files, (size_t)c->n_files, p, err, sizeof err) != 0 ||
	    session_poll(&s, err, sizeof err) < 0) {
		progress_line_clear();
		fprintf(stderr, "smtop: %s\n", err);
		session_close(&s);
		return -1;
	}
	if (!s.ended)
		analysis_update(s.analysis, ANALYSIS_WATERMARK_ALL);
	if (results_store_findings(&s, f) != 0) {
		fprintf(stderr, "smtop: out of memory\n");
		session_close(&s);
		return -1;
	}
	/* a cache that cannot be written only costs the next report this read */
	results_store_report(&s, f, err, sizeof err);
	report_drops_of(&s.info, ro);
	session_close(&s);
	return 0;
}

/* The drops of a session whose report was stored, which no read of the
 * session brought: 0, or -1 with the file's error said. */
static int report_stored_drops(const char *path, struct report_options *ro)
{
	char err[512];
	struct db_reader *r;
	struct db_session_info si;
	if (db_reader_open(&r, path, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return -1;
	}
	int rc = db_reader_info(r, &si);
	if (rc == 0)
		report_drops_of(&si, ro);
	else
		fprintf(stderr, "smtop: %s\n", db_reader_error(r));
	db_reader_close(r);
	return rc == 0 ? 0 : -1;
}

/* Prints the report of a finished session from what it (or smtop's cache
 * of it) stores when that is current (same session, threshold and analysis
 * version), else from a read of every block. */
static int run_report(const struct cli *c)
{
	struct analysis_params p;
	struct findings f;
	char err[512];
	cli_analysis_params(c, &p);
	int stored = c->n_files == 1 ? results_report_load(c->file, &p, &f, err, sizeof err) : 1;
	if (stored < 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	struct report_options ro = { .source = c->file, .max_episodes = (size_t)c->top,
				     .explain = c->explain, .long_names = c->long_names,
				     .full_name = db_names_demangle };
	if (stored != 0 && report_compute(c, &p, &f, &ro) != 0)
		return 1;
	if (stored == 0 && report_stored_drops(c->file, &ro) != 0) {
		findings_free(&f);
		return 1;
	}
	ro.registers_from = f.registers_from;
	int rc = c->json ? report_json(stdout, &f, &ro) : report_text(stdout, &f, &ro);
	findings_free(&f);
	return rc == 0 ? 0 : 1;
}

/* Reads the whole session for the analysis (unless the file stores its
 * current findings), then writes the exports. */
static int run_export(const struct cli *c)
{
	struct analysis_params p;
	struct session s;
	struct export_window w;
	char err[512];
	int rc = 0;
	cli_analysis_params(c, &p);
	if (session_open_many(&s, c->files, (size_t)c->n_files, &p, err, sizeof err) != 0 ||
	    session_use_stored(&s, err, sizeof err) < 0 || session_poll(&s, err, sizeof err) < 0 ||
	    export_window(&s, c->from_ns, c->has_to, c->to_ns, &w, err, sizeof err) != 0) {
		progress_line_clear();
		fprintf(stderr, "smtop: %s\n", err);
		session_close(&s);
		return 1;
	}
	if (!s.ended)
		analysis_update(s.analysis, ANALYSIS_WATERMARK_ALL);
	if (c->perfetto_path) {
		int std = !strcmp(c->perfetto_path, "-");
		FILE *f = std ? stdout : fopen(c->perfetto_path, "w");
		if (!f) {
			fprintf(stderr, "smtop: %s: cannot write: %s\n", c->perfetto_path, strerror(errno));
			rc = 1;
		} else {
			/* a write error names the trace; a read error the session */
			if (export_perfetto(&s, f, &w, err, sizeof err) != 0) {
				if (ferror(f))
					fprintf(stderr, "smtop: %s: %s\n", c->perfetto_path, err);
				else
					fprintf(stderr, "smtop: %s\n", err);
				rc = 1;
			}
			if ((std ? fflush(f) : fclose(f)) != 0 && rc == 0) {
				fprintf(stderr, "smtop: %s: cannot write: %s\n", c->perfetto_path,
					strerror(errno));
				rc = 1;
			}
		}
	}
	if (rc == 0 && c->csv_dir && export_csv(&s, c->csv_dir, &w, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		rc = 1;
	}
	session_close(&s);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;
	/* A file-size limit reached while writing a session must come back as a
	 * write error (reported as a full disk), not kill smtop. */
	signal(SIGXFSZ, SIG_IGN);
	if (cli_parse(argc, argv, &c, stderr) != 0)
		return 2;
	/* the commands that print; the viewer shows its progress on screen */
	if (c.command == CLI_RECORD || c.command == CLI_REPORT || c.command == CLI_INFO ||
	    c.command == CLI_EXPORT || c.command == CLI_LS)
		progress_line_setup(c.quiet);
	switch (c.command) {
	case CLI_HELP:
		cli_usage(stdout);
		return 0;
	case CLI_VERSION:
		printf("smtop %s\n", smtop_version());
		return 0;
	case CLI_RECORD:
		return c.attach_pid ? launch_attach_main(&c) : run_record(&c);
	case CLI_LAUNCH:
		return launch_main(&c);
	case CLI_ENV:
		return launch_env_main(&c);
	case CLI_DEFAULT:
		return machine_main(&c);
	case CLI_OPEN:
		return open_main(&c);
	case CLI_RUN:
		return open_run_main(&c);
	case CLI_DEMO:
		if (c.demo_name && !strcmp(c.demo_name, "paper"))
			return paper_main(c.demo_seconds > 0 ? c.demo_seconds : 3.0, c.sm_mode, c.json);
		return open_demo_main(&c);
	case CLI_REPORT:
		return run_report(&c);
	case CLI_INFO:
		return info_main_many(c.files, (size_t)c.n_files);
	case CLI_REPLAY:
		return open_replay_main(&c);
	case CLI_EXPORT:
		return run_export(&c);
	case CLI_LS:
		return ls_main(&c);
	case CLI_RM:
		return ls_rm_main(&c);
	case CLI_MV:
		return ls_mv_main(&c);
	}
	return 2;
}
