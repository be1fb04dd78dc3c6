/* The collector's only voice in the workload's stderr: one "smtop:" line on
 * failure, and more only with SMTOP_DEBUG=1. */
#ifndef SMTOP_COLLECTORS_LOG_H
#define SMTOP_COLLECTORS_LOG_H

#pragma GCC visibility push(hidden)

void log_init(void);
void log_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int log_debug_enabled(void);

#pragma GCC visibility pop

#endif
