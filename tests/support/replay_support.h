/* Helpers for the replay suites: a session recorded on the H200, polled
 * (its analysis complete) and opened for replay into an empty model. */
#ifndef SMTOP_TESTS_REPLAY_SUPPORT_H
#define SMTOP_TESTS_REPLAY_SUPPORT_H

#include <stdint.h>

#include "src/core/model.h"
#include "db/session/session.h"
#include "db/session/replay_feed.h"

#define REPLAY_SUPPORT_PVT "tests/fixtures/priority-vs-training.smtop"

struct replay_fixture {
	struct session s;
	struct model m;
	struct replay_feed p;
};

/* Returns 0, or -1 with the reason on stderr. */
int replay_support_open(struct replay_fixture *f, const char *path);
void replay_support_close(struct replay_fixture *f);
/* replay_feed_to up to clock: 0, or -1 with the reason on stderr. */
int replay_support_feed(struct replay_fixture *f, uint64_t clock);
/* Short kernel names from the fixture's reader (a guide_name_fn). */
const char *replay_support_short_name(void *reader, const char *name);

#endif
