#include "src/core/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct machine_proc *machine_find(struct machine *m, int gpu, pid_t pid)
{
	for (size_t i = 0; i < m->n_procs; i++)
		if (m->procs[i].gpu == gpu && m->procs[i].pid == pid)
			return &m->procs[i];
	return NULL;
}

struct machine_proc *machine_add(struct machine *m, int gpu, pid_t pid)
{
	struct machine_proc *p;

	if (m->n_procs >= MACHINE_MAX_PROCS)
		return NULL;
	p = &m->procs[m->n_procs++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->gpu = gpu;
	p->mem_bytes = MACHINE_UNKNOWN_BYTES;
	p->sm_util = MACHINE_UNKNOWN;
	return p;
}

static int machine_proc_order(const void *a, const void *b)
{
	const struct machine_proc *x = a, *y = b;
	/* the processes on no GPU (gpu -1) come last */
	unsigned gx = (unsigned)x->gpu, gy = (unsigned)y->gpu;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void machine_sort(struct machine *m)
{
	qsort(m->procs, m->n_procs, sizeof m->procs[0], machine_proc_order);
}

void machine_command_line(const char *raw, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	/* the last NUL ends the last word, not a gap before another */
	while (n && raw[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n && k + 1 < len; i++) {
		unsigned char ch = (unsigned char)raw[i];

		buf[k++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
	}
	if (len)
		buf[k < len ? k : len - 1] = '\0';
}

char *machine_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes == MACHINE_UNKNOWN_BYTES) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u && v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}
