#include "src/core/version.h"

/* SMTOP_BUILD_ID comes from the Makefile: `git describe --always --dirty`
 * of the tree it built, empty outside a checkout. */
#ifndef SMTOP_BUILD_ID
#define SMTOP_BUILD_ID ""
#endif

const char *smtop_version(void)
{
	return SMTOP_BUILD_ID[0] ? SMTOP_RELEASE " (git " SMTOP_BUILD_ID ")" : SMTOP_RELEASE;
}
