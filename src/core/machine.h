/* What the machine view shows: the GPUs of this machine and the processes
 * on each, as plain values a sampler fills and a view draws.  A value the
 * driver did not give stays unknown (drawn N/A), never a misleading 0. */
#ifndef SMTOP_CORE_MACHINE_H
#define SMTOP_CORE_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MACHINE_MAX_GPUS 64
#define MACHINE_MAX_PROCS 256
#define MACHINE_UNKNOWN (-1)          /* an int field the driver did not give */
#define MACHINE_UNKNOWN_BYTES UINT64_MAX

struct machine_proc {
	pid_t pid;
	int gpu;                      /* index into machine.gpus; -1: on none */
	uint64_t mem_bytes;           /* MACHINE_UNKNOWN_BYTES: not given */
	int sm_util;                  /* percent, or MACHINE_UNKNOWN */
	char user[32];                /* "" until known */
	char command[256];            /* its command line, spaces between words */
	int own;                      /* the user's own: smtop may control it */
	int collector;                /* carries smtop's collector (a control socket) */
	int recording;                /* collector: recording now */
	char sm_mode[32];             /* collector: its --sm mode, "" unknown */
	char session[4096];           /* collector: the session recorded into, "" none */
};

struct machine_gpu {
	int index;
	char name[96];
	int util;                     /* percent, or MACHINE_UNKNOWN */
	uint64_t mem_used, mem_total; /* MACHINE_UNKNOWN_BYTES: not given */
};

struct machine {
	struct machine_gpu gpus[MACHINE_MAX_GPUS];
	size_t n_gpus;
	struct machine_proc procs[MACHINE_MAX_PROCS]; /* by GPU, then by pid */
	size_t n_procs;
	char driver[64];              /* the data's source, for the header */
};

/* The process listed at pid on gpu, or NULL. */
struct machine_proc *machine_find(struct machine *m, int gpu, pid_t pid);

/* Adds a process (zeroed, its fields unknown); NULL when the table is full. */
struct machine_proc *machine_add(struct machine *m, int gpu, pid_t pid);

/* Sorts the processes by GPU (those on none last), then pid: a row keeps
 * its place between samples. */
void machine_sort(struct machine *m);

/* A command line as read from /proc (NUL between words, n bytes) made one
 * line into buf: words apart by spaces, control characters made spaces. */
void machine_command_line(const char *raw, size_t n, char *buf, size_t len);

/* bytes as "1.5 GiB", "312 MiB" (or "N/A") into buf. */
char *machine_fmt_bytes(char *buf, size_t len, uint64_t bytes);

#endif
