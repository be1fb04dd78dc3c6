#include "tests/support/replay_support.h"

#include <stdio.h>

#include "db/reader.h"
#include "src/core/analysis.h"

int replay_support_open(struct replay_fixture *f, const char *path)
{
	char err[512];
	struct analysis_params ap;
	analysis_params_default(&ap);
	if (session_open(&f->s, path, &ap, err, sizeof err) != 0 ||
	    session_poll(&f->s, err, sizeof err) < 0 || model_init(&f->m) != 0 ||
	    replay_feed_open(&f->p, &f->s, &f->m, 0, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

void replay_support_close(struct replay_fixture *f)
{
	replay_feed_close(&f->p);
	model_free(&f->m);
	session_close(&f->s);
}

int replay_support_feed(struct replay_fixture *f, uint64_t clock)
{
	char err[512];
	if (replay_feed_to(&f->p, clock, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

const char *replay_support_short_name(void *reader, const char *name)
{
	return db_reader_short_name(reader, name);
}
