/* The machine view's data: unknown values stay unknown (N/A, never 0),
 * command lines read from /proc become one safe line, and rows keep their
 * order between samples. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/machine.h"
#include "ui/app.h"
#include "ui/canvas.h"
#include "ui/machine_view.h"

Test(machine, bytes)
{
	char b[32];
	cr_assert_str_eq(machine_fmt_bytes(b, sizeof b, MACHINE_UNKNOWN_BYTES), "N/A");
	cr_assert_str_eq(machine_fmt_bytes(b, sizeof b, 0), "0 B");
	cr_assert_str_eq(machine_fmt_bytes(b, sizeof b, 1536ull << 20), "1.5 GiB");
	cr_assert_str_eq(machine_fmt_bytes(b, sizeof b, 312ull << 20), "312 MiB");
	cr_assert_str_eq(machine_fmt_bytes(b, sizeof b, 150ull << 30), "150 GiB");
}

Test(machine, command_line)
{
	static const char raw[] = "python3\0train.py\0--lr\0\x1b[2J\0";
	char b[64];
	machine_command_line(raw, sizeof raw - 1, b, sizeof b);
	cr_assert_str_eq(b, "python3 train.py --lr  [2J");
	machine_command_line(raw, sizeof raw - 1, b, 8);
	cr_assert_str_eq(b, "python3");
}

Test(machine, added_fields_unknown_and_sorted)
{
	struct machine *m = calloc(1, sizeof *m);
	cr_assert(m);
	machine_add(m, -1, 50);
	machine_add(m, 1, 7);
	struct machine_proc *p = machine_add(m, 0, 90);
	cr_assert_eq(p->sm_util, MACHINE_UNKNOWN);
	cr_assert_eq(p->mem_bytes, MACHINE_UNKNOWN_BYTES);
	machine_add(m, 0, 12);
	machine_sort(m);
	cr_assert_eq(m->procs[0].pid, 12);
	cr_assert_eq(m->procs[1].pid, 90);
	cr_assert_eq(m->procs[2].pid, 7);
	cr_assert_eq(m->procs[3].pid, 50, "a process on no GPU comes last");
	cr_assert_eq(machine_find(m, 1, 7), &m->procs[2]);
	cr_assert_null(machine_find(m, 0, 7));
	free(m);
}

/* The view draws N/A for what is unknown, and r and Enter on a process
 * they cannot act on say why instead of asking the caller. */
Test(machine, view_unknowns_and_refusals)
{
	struct machine *m = calloc(1, sizeof *m);
	struct machine_view v;
	struct canvas c;
	cr_assert(m);
	m->n_gpus = 1;
	m->gpus[0] = (struct machine_gpu){ .index = 0, .name = "NVIDIA H200", .util = MACHINE_UNKNOWN,
					   .mem_used = MACHINE_UNKNOWN_BYTES, .mem_total = MACHINE_UNKNOWN_BYTES };
	struct machine_proc *p = machine_add(m, 0, 4242);
	snprintf(p->user, sizeof p->user, "alice");
	snprintf(p->command, sizeof p->command, "./app");
	machine_view_init(&v, m);
	cr_assert_eq(canvas_init(&c, 100, 12), 0);
	machine_view_draw(&c, &v);
	char *t = canvas_dump_text_str(&c);
	cr_assert(strstr(t, "util  N/A   memory N/A / N/A"), "%s", t);
	cr_assert(strstr(t, "4242  alice           N/A  N/A  -                   no   ./app"), "%s", t);
	free(t);
	machine_view_handle_key(&v, 'r');
	cr_assert_eq(v.result, MACHINE_VIEW_STAY);
	cr_assert(strstr(v.msg, "belongs to alice"), "%s", v.msg);
	p->own = 1;
	p->collector = 1;
	machine_view_handle_key(&v, APP_KEY_ENTER);
	cr_assert(strstr(v.msg, "is not recording"), "%s", v.msg);
	machine_view_handle_key(&v, 'r');
	cr_assert_eq(v.result, MACHINE_VIEW_RECORD);
	canvas_free(&c);
	free(m);
}
