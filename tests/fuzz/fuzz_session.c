/* Session files as they come: any bytes on disk, opened the way `smtop
 * info`, `smtop report` and `smtop open` open them.  The reader must refuse
 * a damaged file with one line, never crash, and everything after it (the
 * loader, the analysis, the report, the viewer's model and screens) must
 * cope with whatever values an accepted file holds, its GPUs' properties
 * set to those of one architecture from cc 3.5 to 12.x or to edge values
 * (fuzz_vary_gpus). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_session(data, size);

	if (!path)
		return 0;
	fuzz_vary_gpus(path, data, size);
	fuzz_walk_reader(path);
	fuzz_load_session(path);
	fuzz_remove_session();
	return 0;
}
