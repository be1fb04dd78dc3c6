/* The Compute Sanitizer backend (collector_backend_sanitizer, "--sm all"):
 * every thread block of every kernel, by patching each loaded module at
 * block entry and exit (collectors/sanitizer_patch.cu). */
#ifndef SMTOP_COLLECTORS_SANITIZER_H
#define SMTOP_COLLECTORS_SANITIZER_H

#include "collectors/backend.h"

#endif
