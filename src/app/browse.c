#include "src/app/browse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/core/analysis.h"
#include "src/session/library.h"
#include "ui/sessions.h"
#include "ui/tty.h"
#include "ui/ui.h"

/* Reads the library; a default library not created yet is empty. */
static int load(const struct cli *c, struct library *lib, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct analysis_params p;
	struct stat sb;
	int missing_ok;

	memset(lib, 0, sizeof *lib);
	cli_analysis_params(c, &p);
	if (library_dir(c->command == CLI_LS ? c->file : NULL, dir, sizeof dir, &missing_ok, err, errlen) != 0)
		return -1;
	if (missing_ok && stat(dir, &sb) != 0 && errno == ENOENT) {
		lib->dir = strdup(dir);
		lib->threshold_ns = p.blocking_threshold_ns;
		return 0;
	}
	return library_scan(lib, dir, &p, err, errlen);
}

static int run_list(const struct cli *c, struct library *lib, const char *current,
		    struct model *m, const struct ui_source *bg, const char *msg, char *chosen,
		    size_t len)
{
	struct sessions_view v;
	char err[512];

	sessions_init(&v, lib, current);
	v.ascii = c->ascii;
	if (msg)
		snprintf(v.msg, sizeof v.msg, "%s", msg);
	if (ui_run_sessions(&v, m, bg, err, sizeof err) != 0)
		return BROWSE_QUIT;
	if (v.result == SESSIONS_OPEN) {
		snprintf(chosen, len, "%s", sessions_selected(&v)->path);
		return BROWSE_OPEN;
	}
	if (v.result == SESSIONS_BACK && current)
		return BROWSE_BACK;
	return BROWSE_QUIT;
}

int browse_list(const struct cli *c, const char *current, struct model *m,
		const struct ui_source *bg, const char *msg, char *chosen, size_t len)
{
	struct library lib;
	char err[PATH_MAX + 128];

	/* an unreadable library still shows, empty, with the reason */
	if (load(c, &lib, err, sizeof err) != 0)
		msg = err;
	int r = run_list(c, &lib, current, m, bg, msg, chosen, len);
	library_free(&lib);
	return r;
}

int browse_main(const struct cli *c, browse_open_fn *open)
{
	struct library lib;
	struct tty_caps caps;
	char err[PATH_MAX + 128], verr[PATH_MAX + 128], chosen[PATH_MAX];
	const char *msg = NULL;
	int rc = 0;

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "smtop: the session list needs a terminal (for text, use smtop ls | cat)\n");
		return 1;
	}
	/* before the screen opens, so the reason stays readable */
	if (load(c, &lib, err, sizeof err) != 0) {
		fprintf(stderr, "smtop: %s\n", err);
		return 1;
	}
	/* one terminal for the list and every viewer opened from it */
	if (tty_open(&caps, err, sizeof err) != 0) {
		library_free(&lib);
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (;;) {
		int r = run_list(c, &lib, NULL, NULL, NULL, msg, chosen, sizeof chosen);
		library_free(&lib);
		if (r != BROWSE_OPEN)
			break;
		/* the list names sessions by file; so does the viewer's header */
		rc = open(c, chosen, strrchr(chosen, '/') ? strrchr(chosen, '/') + 1 : chosen,
			  verr, sizeof verr);
		if (rc >= 0)
			break;
		/* it did not open: back to the list, saying why */
		rc = 0;
		msg = verr;
		if (load(c, &lib, err, sizeof err) != 0)
			msg = err;
	}
	tty_close();
	return rc;
}
