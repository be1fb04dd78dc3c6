/* The NVIDIA driver's management library (NVML), reached through dlopen as
 * libcuda is: smtop builds and runs where it is missing.  Fills a struct
 * machine with the GPUs and the compute processes on each.
 * SMTOP_NVML_LIB names another library to load (tests load a fake one). */
#ifndef SMTOP_APP_NVML_H
#define SMTOP_APP_NVML_H

#include <stddef.h>

struct machine;
struct nvml;

/* Loads and initialises NVML.  0 with *out, or -1 with one line in err
 * (the library missing, the driver not answering). */
int nvml_open(struct nvml **out, char *err, size_t errlen);

/* How many GPUs NVML sees. */
unsigned nvml_count(const struct nvml *n);

/* The GPUs and their compute processes now into m (user, command and
 * collector fields left empty).  0, or -1 with err. */
int nvml_sample(struct nvml *n, struct machine *m, char *err, size_t errlen);

void nvml_close(struct nvml *n);

#endif
