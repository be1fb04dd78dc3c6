/* Which smtop this is: the release, and the commit it was built from when
 * built in a git checkout (a bug report, and a session, say which build). */
#ifndef SMTOP_VERSION_H
#define SMTOP_VERSION_H

#define SMTOP_RELEASE "0.1.0"

/* "0.1.0", or "0.1.0 (git 1a2b3c4d5e6f)" ("-dirty" when built with
 * uncommitted changes). */
const char *smtop_version(void);

#endif
