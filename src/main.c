/* smtop: the command line's front door. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "src/analysis.h"
#include "src/cli.h"
#include "src/info.h"
#include "src/record.h"
#include "src/report.h"
#include "src/session.h"
#include "src/view.h"

#define SMTOP_VERSION "0.1.0"

static int run_record(const struct cli *c)
{
	struct record_opts o = { .out_path = c->out_path, .argv = c->argv, .quiet = c->quiet };
	return record_main(&o);
}

/* Analyses a whole session, prints the report and stores the events in the
 * session (not in Nsight Systems exports, which smtop never modifies). */
static int run_report(const struct cli *c)
{
	struct analysis_params p;
	struct session s;
	char err[512];
	view_params(c, &p);
	if (session_open(&s, c->file, &p, err, sizeof err) != 0 ||
	    session_poll(&s, err, sizeof err) < 0) {
		fprintf(stderr, "smtop: %s\n", err);
		session_close(&s);
		return 1;
	}
	if (!s.ended)
		analysis_update(s.analysis, ANALYSIS_WATERMARK_ALL);
	struct report_options ro = { .source = c->file, .max_episodes = (size_t)c->top };
	int rc = c->json ? report_json(stdout, s.analysis, &ro) : report_text(stdout, s.analysis, &ro);
	if (!s.info.is_nsys && session_store_events(&s, err, sizeof err) != 0 && !c->quiet)
		fprintf(stderr, "smtop: events not stored: %s\n", err);
	session_close(&s);
	return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct cli c;
	/* A file-size limit reached while writing a session must come back as a
	 * write error (reported as a full disk), not kill smtop. */
	signal(SIGXFSZ, SIG_IGN);
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
	case CLI_DEFAULT:
		return view_default(&c);
	case CLI_OPEN:
		return view_open(&c, c.file, NULL);
	case CLI_RUN:
		return view_live(&c, c.argv, NULL);
	case CLI_DEMO:
		return view_demo(&c);
	case CLI_REPORT:
		return run_report(&c);
	case CLI_INFO:
		return info_main(c.file);
	}
	return 2;
}
