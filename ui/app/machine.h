/* Plain smtop: on a machine with an NVIDIA GPU, the machine view (every GPU
 * and its processes, those started by smtop launch controllable from it);
 * without one, the bundled session (open.c). */
#ifndef SMTOP_APP_MACHINE_H
#define SMTOP_APP_MACHINE_H

struct cli;

/* smtop without a command. */
int machine_main(const struct cli *c);

#endif
