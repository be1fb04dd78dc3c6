/* Kernel names, which come from whatever program was recorded: the writer's
 * demangling and short names (db/names.c) and the model's lane labels.
 * Each must give a non-empty part of what it was given (or of the demangled
 * name), whatever the bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/names.h"
#include "src/core/names.h"
#include "src/core/model.h"
#include "tests/fuzz/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The model's label for a kernel called name. */
static void check_model_label(const char *name)
{
	static struct model m;
	static int ready;
	struct smtop_kernel k = { .start = 1000, .end = 2000, .grid_id = 1, .pid = 1,
				  .context_id = 1, .stream_id = 7, .name = name };
	long i;

	if (!ready) {
		fuzz_check(model_init(&m) == 0, "model_init");
		ready = 1;
	}
	fuzz_check(model_add_kernel(&m, &k) == 0, "a kernel refused for its name");
	i = model_find_kernel(&m, 1, 0, 1);
	fuzz_check(i >= 0, "the kernel just added is not found");
	const char *sn = model_kernel_short_name(&m, &m.kernels[i]);
	fuzz_check(sn && sn[0], "an empty lane label");
	fuzz_check(strstr(name, sn) != NULL,
		   "a lane label that is not part of the name");
	model_free(&m);
	ready = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1), *demangled, *short_name;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = 0;
	if (!name[0]) {
		free(name);
		return 0;
	}
	demangled = db_names_demangle(name);
	fuzz_check(demangled && demangled[0], "an empty demangled name");
	short_name = names_short(demangled);
	fuzz_check(short_name && short_name[0], "an empty short name");
	fuzz_check(strstr(demangled, short_name) != NULL, "a short name that is not part of the name");
	free(short_name);
	free(demangled);
	check_model_label(name);
	free(name);
	return 0;
}
