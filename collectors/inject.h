/* Entry point of libsmtop-inject.so, loaded by CUDA_INJECTION64_PATH.  The
 * collector is a guest in the workload's process: it never exits, never
 * crashes the host on purpose, and prints one line only when it fails. */
#ifndef SMTOP_COLLECTORS_INJECT_H
#define SMTOP_COLLECTORS_INJECT_H

#define INJECT_RING_RECORDS (1u << 17)

/* Called by the CUDA driver during cuInit.  Joins the session named by
 * SMTOP_SESSION (does nothing without it) and starts tracing.  Always 1:
 * the workload must run whatever happens here. */
int InitializeInjection(void) __attribute__((visibility("default")));

#endif
