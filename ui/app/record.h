/* `smtop record`: runs a workload with the collector injected and leaves a
 * finalised session behind, whatever way the workload ends. */
#ifndef SMTOP_RECORD_H
#define SMTOP_RECORD_H

#include <stdint.h>
#include <sys/types.h>

struct record_opts {
	const char *out_path;     /* session file; NULL picks the default place */
	char *const *argv;        /* workload command, NULL-terminated */
	const char *log_path;     /* send the workload's stdout/stderr here, or NULL */
	const char *sm_mode;      /* a name of src/core/sm_modes.h, or NULL (record_sm_default) */
	uint64_t exact_every_ns, exact_for_ns; /* --sm entry's exact windows */
	int has_exact_every, has_exact_for;    /* 0: RECORD_EXACT_EVERY_NS, _FOR_NS */
	int quiet;
	int no_nvtx;              /* leave NVTX_INJECTION64_PATH alone */
};

struct record_child {
	pid_t pid;
	char *session_path;       /* absolute, malloc'd */
	char *command;            /* the workload command line, malloc'd */
	char ended[128];          /* how it ended, once record_finish ran ("exited with status 1") */
};

#define RECORD_EXEC_FAILED (-127)

/* Creates the session and starts the workload.  Returns 0, or -1 (or
 * RECORD_EXEC_FAILED when the command could not be run) after printing one
 * line naming what went wrong. */
int record_start(const struct record_opts *o, struct record_child *c);

/* Waits without blocking (block 0) or until the workload ends (block 1).
 * Returns 1 when it has ended (status filled), 0 while running, -1 on error. */
int record_poll(struct record_child *c, int block, int *status);

/* Sends sig to the workload's process group. */
void record_forward_signal(const struct record_child *c, int sig);

/* Writes how the workload ended into the session; returns the exit code smtop
 * should pass on (the workload's, or 128 + signal). */
int record_finish(struct record_child *c, int status);

void record_child_free(struct record_child *c);

/* After the workload ended: 1 when nothing was recorded (the collector never
 * joined the session: no process in it), with why in why (no NVIDIA driver,
 * no GPU, or a workload that never initialised CUDA).  0 when something was
 * recorded, or when the session cannot be read (it is left as it is). */
int record_nothing_recorded(const struct record_child *c, char *why, size_t len);

/* When the recording at session_path dropped blocks (counted), one line
 * on stderr saying how many and why; nothing when none were dropped or it
 * cannot tell. */
void record_say_drops(const char *session_path);

/* Says in one line on stderr that nothing was recorded and why, with how
 * the workload ended and its last line of output (from log_path, the
 * workload's output of run and demo; NULL: none), then removes the
 * session and its companions (.log included): no empty session is left. */
void record_drop_empty(const struct record_child *c, const char *why, const char *log_path);

/* The last non-empty line of path (a workload's output), control
 * characters made spaces; empty when path is NULL or cannot be read. */
void record_last_line(const char *path, char *buf, size_t len);

/* Catches SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to smtop itself (kill,
 * timeout) to pass on: to the workload while it runs, or to skip a step after. */
void record_install_forwarding(void);

/* Runs step(arg) in a child process, so that work done after the workload
 * (the library summary) can be skipped: a forwarded signal, or a Ctrl-C that
 * reaches the child, ends it.  After a second, note (unless NULL) is printed.
 * Returns RECORD_STEP_DONE when step returned 0, RECORD_STEP_FAILED, or
 * RECORD_STEP_SKIPPED. */
enum { RECORD_STEP_DONE, RECORD_STEP_FAILED, RECORD_STEP_SKIPPED };
int record_skippable_step(int (*step)(void *), void *arg, const char *note);

/* `smtop record` from start to end. */
int record_main(const struct record_opts *o);

/* The directory of the running smtop binary: its companions live beside it. */
int record_exe_dir(char *buf, size_t len);

/* Which blocks a recording holds when --sm is not given. */
#define RECORD_SM_DEFAULT "marked" /* sm_modes[0]: where the Compute Sanitizer is not */

/* --sm entry's exact windows by default: none but those asked for, of
 * 20 ms.  A switch holds launches while the GPU drains, which a
 * latency-sensitive stream feels (docs/performance.md). */
#define RECORD_EXACT_EVERY_NS 0ull
#define RECORD_EXACT_FOR_NS 20000000ull

/* The --sm mode when none is given: entry (every block) where this smtop
 * has the Compute Sanitizer backend and finds its library, else marked. */
const char *record_sm_default(void);

/* Finds a library an --sm mode needs (src/core/sm_modes.h): the path in its
 * env, else its folder of the CUDA Toolkit ($CUDA_HOME, $CUDA_PATH, beside
 * nvcc on PATH, /usr/local/cuda, the newest /usr/local/cuda-*).  0, or -1
 * when there is none. */
struct sm_mode_library;
int record_find_library(const struct sm_mode_library *lib, char *buf, size_t len);

/* A program that travels beside the smtop binary (the demo workloads):
 * 0 with its path in buf when it is there and executable, else -1. */
int record_sibling_path(const char *name, char *buf, size_t len);

/* 1 when this machine has an NVIDIA GPU's device files. */
int record_have_gpu(void);

/* Absolute path of the collector library that travels beside the smtop binary. */
int record_find_injector(char *buf, size_t len);

/* SMTOP_COLLECTOR_CPUS, if set, names CPUs of this machine: 1, else 0 with
 * one line on stderr (refused before a program starts, not said by its
 * collector after). */
int record_collector_cpus_ok(void);

/* The default session path, in the session library (created, mode 0700, when
 * missing): $XDG_DATA_HOME/smtop/sessions/DATE-NAME.smtop, unique.  Returns 0,
 * or -1 with one line in err naming the directory. */
int record_default_path(char *const *argv, char *buf, size_t len, char *err, size_t errlen);

#endif
