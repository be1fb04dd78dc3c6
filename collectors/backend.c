#include "collectors/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/core/sm_modes.h"

/* The stub traces nothing of the GPU: the collector's ring, writer thread
 * and NVTX handlers run as under a real backend, so the end-to-end tests
 * record a workload's NVTX ranges on a machine without a GPU.  Only
 * SMTOP_SM=stub picks it; `smtop record --sm` offers it to nobody. */
static int stub_start(struct ring *ring, uint32_t pid, char *reason, size_t len)
{
	(void)ring;
	(void)pid;
	(void)reason;
	(void)len;
	return 0;
}

static void stub_flush(int forced)
{
	(void)forced;
}

static void stub_nothing(void)
{
}

/* Nothing to switch: what the stub records (NVTX ranges) the collector
 * keeps or drops itself.  SMTOP_STUB_OFF_FAILS=N fails the first N
 * switches off, as a backend whose switch gave up does (the end-to-end
 * tests' way to one). */
static int stub_set_recording(int on, char *reason, size_t len)
{
	static int was_on, off_tries;
	const char *fails = getenv("SMTOP_STUB_OFF_FAILS");

	was_on |= on;
	if (!on && was_on && fails && off_tries++ < atoi(fails)) {
		snprintf(reason, len, "the stub was told to fail %s switches off", fails);
		return -1;
	}
	return 0;
}

static const struct collector_backend collector_backend_stub = {
	.name = "stub",
	.start = stub_start,
	.flush = stub_flush,
	.stop_threads = stub_nothing,
	.disable = stub_nothing,
	.set_recording = stub_set_recording,
};

const struct collector_backend *collector_backend_named(const char *name)
{
	static const struct collector_backend *const all[] = {
		&collector_backend_cupti,
		&collector_backend_sanitizer,
		&collector_backend_entries,
		&collector_backend_exact,
		&collector_backend_stub,
	};

	if (!name || !*name)
		name = sm_mode_default()->name;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
