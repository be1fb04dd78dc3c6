#include "src/core/sm_modes.h"

#include <stdio.h>
#include <string.h>

/* CUPTI is linked into the collector: nothing to find. */
static const struct sm_mode_setup sm_setup_cupti = { NULL, NULL, NULL };

/* libsanitizer-public.so ships with the CUDA Toolkit, not the driver; its
 * API headers may be missing at build time (then the collector has no
 * such backend: SMTOP_HAVE_SANITIZER unset). */
static const struct sm_mode_library sm_sanitizer_library = {
	.env = "SMTOP_SANITIZER_LIB",
	.file = "libsanitizer-public.so",
	.toolkit_dir = "compute-sanitizer",
	.version_env = "SMTOP_SANITIZER_VERSION",
	.missing = "the Compute Sanitizer's libsanitizer-public.so, not found in the CUDA Toolkit "
		   "(compute-sanitizer/ of $CUDA_HOME, /usr/local/cuda, /usr/local/cuda-*; "
		   "or set SMTOP_SANITIZER_LIB)",
};

static const struct sm_mode_setup sm_setup_sanitizer = {
#ifdef SMTOP_HAVE_SANITIZER
	.unbuilt = NULL,
#else
	.unbuilt = "the Compute Sanitizer backend (its API headers were missing; make deps fetches them)",
#endif
	.library = &sm_sanitizer_library,
	/* loaded at the program's start, it stays for its whole life */
	.dormant = "keeps the Compute Sanitizer loaded, which slows every CUDA call a little",
};

/* The first is the default. */
const struct sm_mode sm_modes[] = {
	{ "marked", "CUPTI",
	  "those of kernels built with src/core/smtop_trace.cuh (CUPTI; the default where the Compute "
	  "Sanitizer is not installed)", &sm_setup_cupti },
	{ "entry", "every block's start, ends exact in windows, Compute Sanitizer",
	  "every block of every kernel, its start and SM exact, its end inferred from what came after "
	  "it, exact in windows and in kernels built with the header (Compute Sanitizer, block entry "
	  "alone; the default where it is installed, 3-25% slower on a training step)", &sm_setup_sanitizer },
	{ "exact", "every block's start and end, Compute Sanitizer",
	  "every block, start and end exact (Compute Sanitizer, entry and exit; about 3 times slower)",
	  &sm_setup_sanitizer },
	{ "all", "every block, Compute Sanitizer",
	  "the same through per-SM lanes (about 4 times slower)", &sm_setup_sanitizer },
};
const size_t sm_modes_count = sizeof(sm_modes) / sizeof(sm_modes[0]);

const struct sm_mode *sm_mode_named(const char *name)
{
	for (size_t i = 0; name && i < sm_modes_count; i++)
		if (!strcmp(sm_modes[i].name, name))
			return &sm_modes[i];
	return NULL;
}

const struct sm_mode *sm_mode_default(void)
{
	return &sm_modes[0];
}

const char *sm_modes_list(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sm_modes_count && at < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == sm_modes_count ? " or " : ", ";
		int n = snprintf(buf + at, len - at, "%s'%s' (%s)", sep, sm_modes[i].name, sm_modes[i].what);
		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}
