#include "ui/app/progress_line.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/session/session.h"

static struct {
	int shown;                      /* the line is on the terminal now */
	uint64_t drawn_ns;
	uint64_t begun_ns;              /* the step last drawn */
} progress_line;

static void progress_line_show(void *ud, const struct progress *p);
static struct progress_sink progress_line_on = { progress_line_show, NULL };
static struct progress_sink progress_line_off = { NULL, NULL };
static const struct progress_sink *progress_line_current = &progress_line_off;

void progress_line_clear(void)
{
	if (!progress_line.shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_line.shown = 0;
}

static void progress_line_show(void *ud, const struct progress *p)
{
	(void)ud;
	if (p->finished) {
		progress_line_clear();
		return;
	}
	if (p->now_ns - p->begun_ns < PROGRESS_LINE_AFTER_NS)
		return;
	if (progress_line.shown && progress_line.begun_ns == p->begun_ns &&
	    p->now_ns - progress_line.drawn_ns < PROGRESS_LINE_EVERY_NS)
		return;
	char t[64];
	fprintf(stderr, "\rsmtop: %s %s\033[K", p->what ? p->what : "working",
		progress_format(p, ", ", t, sizeof t));
	fflush(stderr);
	progress_line.shown = 1;
	progress_line.drawn_ns = p->now_ns;
	progress_line.begun_ns = p->begun_ns;
}

int progress_line_setup(int quiet)
{
	int on = !quiet && isatty(STDERR_FILENO);
	progress_line_current = on ? &progress_line_on : &progress_line_off;
	session_set_default_progress(progress_line_current);
	return on;
}

const struct progress_sink *progress_line_sink(void)
{
	return progress_line_current;
}
