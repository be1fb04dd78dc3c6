/* The Compute Sanitizer backend's libraries: libsanitizer-public.so, opened
 * with dlopen where `smtop record` found it, its callback numbering, the
 * patches' file, the driver calls of the host thread, and the sanitizer's
 * memory calls that the lanes reach the GPU through (collectors/sanitizer.c). */
#ifdef SMTOP_HAVE_SANITIZER

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/backend.h"
#include "collectors/driver.h"
#include "collectors/log.h"
#include "collectors/sanitizer_convert.h"
#include "collectors/sanitizer_state.h"
#include "src/core/sm_modes.h"

#define SZ_PATCH_FILE "smtop-patches.fatbin"

struct sz_api sz;
struct sz_cu sz_cu;
const struct sanitizer_numbering *sz_ids;
char sz_patch_path[PATH_MAX];

struct sz_symbol {
	const char *name;
	size_t offset;
};

#define SZ_SYM(field, name) { name, offsetof(struct sz_api, field) }
static const struct sz_symbol sz_symbols[] = {
	SZ_SYM(subscribe, "sanitizerSubscribe"),
	SZ_SYM(unsubscribe, "sanitizerUnsubscribe"),
	SZ_SYM(enable_domain, "sanitizerEnableDomain"),
	SZ_SYM(enable_callback, "sanitizerEnableCallback"),
	SZ_SYM(add_patches_from_file, "sanitizerAddPatchesFromFile"),
	SZ_SYM(patch_instructions, "sanitizerPatchInstructions"),
	SZ_SYM(patch_module, "sanitizerPatchModule"),
	SZ_SYM(set_callback_data, "sanitizerSetCallbackData"),
	SZ_SYM(set_launch_callback_data, "sanitizerSetLaunchCallbackData"),
	SZ_SYM(result_string, "sanitizerGetResultString"),
	SZ_SYM(alloc, "sanitizerAlloc"),
	SZ_SYM(alloc_host, "sanitizerAllocHost"),
	SZ_SYM(memset, "sanitizerMemset"),
	SZ_SYM(upload, "sanitizerMemcpyHostToDeviceAsync"),
	SZ_SYM(stream_synchronize, "sanitizerStreamSynchronize"),
	SZ_SYM(download, "sanitizerMemcpyDeviceToHost"),
	SZ_SYM(get_stream_handle, "sanitizerGetStreamHandle"),
};

/* Every one may be missing: what it would describe stays N/A. */
#define SZ_CU_SYM(field, name) DRIVER_SYMBOL(struct sz_cu, field, name, 1)
static const struct driver_symbol sz_cu_symbols[] = {
	SZ_CU_SYM(stream_get_priority, "cuStreamGetPriority"),
	SZ_CU_SYM(stream_get_flags, "cuStreamGetFlags"),
	SZ_CU_SYM(device_get_attribute, "cuDeviceGetAttribute"),
	SZ_CU_SYM(device_get_name, "cuDeviceGetName"),
	SZ_CU_SYM(device_total_mem, "cuDeviceTotalMem_v2"),
	SZ_CU_SYM(func_get_attribute, "cuFuncGetAttribute"),
	SZ_CU_SYM(stream_get_ctx_v2, "cuStreamGetCtx_v2"),
	SZ_CU_SYM(green_ctx_get_id, "cuGreenCtxGetId"),
	SZ_CU_SYM(ctx_push, "cuCtxPushCurrent_v2"),
	SZ_CU_SYM(ctx_pop, "cuCtxPopCurrent_v2"),
	SZ_CU_SYM(ctx_synchronize, "cuCtxSynchronize"),
};

const char *sz_error(SanitizerResult r)
{
	const char *s = NULL;

	if (!sz.result_string || sz.result_string(r, &s) != SANITIZER_SUCCESS || !s)
		return "unknown Compute Sanitizer error";
	return s;
}

/* ---- the library ---------------------------------------------------------- */

static int sz_load_symbols(void *lib, const char *path, char *reason, size_t len)
{
	for (size_t i = 0; i < sizeof(sz_symbols) / sizeof(sz_symbols[0]); i++) {
		void *p = dlsym(lib, sz_symbols[i].name);

		if (!p) {
			snprintf(reason, len, "%s lacks %s", path, sz_symbols[i].name);
			return -1;
		}
		memcpy((char *)&sz + sz_symbols[i].offset, &p, sizeof(p));
	}
	/* without it patches stay as they were first put: no windows */
	sz.unpatch_module = (__typeof__(sz.unpatch_module))dlsym(lib, "sanitizerUnpatchModule");
	return 0;
}

/* The CUDA major version of the toolkit holding the library at path
 * (TOOLKIT/compute-sanitizer/libsanitizer-public.so): its version.json,
 * else the folder's name. */
static unsigned sz_toolkit_major(const char *path)
{
	char json[PATH_MAX], text[4096];
	const char *slash = strrchr(path, '/');
	unsigned major = 0;
	int fd, n = slash ? (int)(slash - path) : 0;
	ssize_t got;

	snprintf(json, sizeof(json), "%.*s/../version.json", n, path);
	fd = open(json, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (got > 0) {
			text[got] = '\0';
			major = sanitizer_major_of_version_json(text);
		}
	}
	return major ? major : sanitizer_major_of_path(path);
}

/* The callback numbers moved between releases: the library's own CUDA
 * version picks them (the toolkit's version.json, else the library's path;
 * the library's version_env overrides). */
static int sz_pick_numbering(const struct sm_mode_library *need, const char *path, char *reason, size_t len)
{
	const char *v = need->version_env ? getenv(need->version_env) : NULL;
	unsigned major = v && *v ? (unsigned)strtoul(v, NULL, 10) : sz_toolkit_major(path);

	sz_ids = sanitizer_numbering_of(major);
	if (!sz_ids) {
		snprintf(reason, len, "the Compute Sanitizer of CUDA %u is not supported "
			 "(smtop knows the callbacks of CUDA 11.8 and 13)", major);
		return -1;
	}
	return 0;
}

/* The mode this backend was started as (src/core/sm_modes.c): its library
 * is where `smtop record` said. */
static const struct sm_mode *sz_mode(void)
{
	return sm_mode_named(sz_exact ? collector_backend_exact.name
			     : sz_entries ? collector_backend_entries.name : collector_backend_sanitizer.name);
}

int sz_load(char *reason, size_t len)
{
	const struct sm_mode *mode = sz_mode();
	const struct sm_mode_library *need = mode->setup->library;
	const char *path = getenv(need->env);
	char why[256];
	void *lib;

	if (!path || !*path) {
		snprintf(reason, len, "--sm %s needs %s", mode->name, need->missing);
		return -1;
	}
	if (sz_pick_numbering(need, path, reason, len) != 0)
		return -1;
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(reason, len, "cannot load the Compute Sanitizer: %s", dlerror());
		return -1;
	}
	if (sz_load_symbols(lib, path, reason, len) != 0)
		return -1;
	if (driver_resolve(&sz_cu, sz_cu_symbols, sizeof(sz_cu_symbols) / sizeof(sz_cu_symbols[0]),
			   why, sizeof(why)) != 0)
		log_debug("streams, devices and functions stay undescribed: %s", why);
	return 0;
}

/* The patches lie beside libsmtop-inject.so (SMTOP_PATCHES overrides). */
int sz_find_patches(char *reason, size_t len)
{
	const char *env = getenv("SMTOP_PATCHES");
	Dl_info info;
	const char *slash;

	if (env && *env)
		snprintf(sz_patch_path, sizeof(sz_patch_path), "%s", env);
	else if (dladdr((void *)sz_find_patches, &info) && info.dli_fname &&
		 (slash = strrchr(info.dli_fname, '/')))
		snprintf(sz_patch_path, sizeof(sz_patch_path), "%.*s/%s",
			 (int)(slash - info.dli_fname), info.dli_fname, SZ_PATCH_FILE);
	else
		snprintf(sz_patch_path, sizeof(sz_patch_path), "%s", SZ_PATCH_FILE);
	if (access(sz_patch_path, R_OK) != 0) {
		snprintf(reason, len, "the block patches %s are missing (make builds them)", sz_patch_path);
		return -1;
	}
	return 0;
}

/* ---- the sanitizer's memory calls, the lanes' host operations ------------------ */

int sz_mem_alloc(CUcontext ctx, void **dev, size_t bytes)
{
	return sz.alloc(ctx, dev, bytes) == SANITIZER_SUCCESS ? 0 : -1;
}

int sz_mem_alloc_host(CUcontext ctx, void **host, size_t bytes)
{
	return sz.alloc_host(ctx, host, bytes) == SANITIZER_SUCCESS ? 0 : -1;
}

int sz_mem_set(void *dev, int value, size_t bytes, void *stream)
{
	return sz.memset(dev, value, bytes, stream) == SANITIZER_SUCCESS ? 0 : -1;
}

int sz_mem_upload(void *dev, const void *host, size_t bytes, void *stream)
{
	return sz.upload(dev, (void *)host, bytes, stream) == SANITIZER_SUCCESS ? 0 : -1;
}

int sz_mem_download(void *host, const void *dev, size_t bytes, void *stream)
{
	return sz.download(host, (void *)dev, bytes, stream) == SANITIZER_SUCCESS ? 0 : -1;
}

void *sz_mem_stream_handle(CUcontext ctx, CUstream stream)
{
	Sanitizer_StreamHandle h = NULL;

	return sz.get_stream_handle(ctx, stream, &h) == SANITIZER_SUCCESS ? h : NULL;
}

int sz_mem_sync(void *stream)
{
	return sz.stream_synchronize(stream) == SANITIZER_SUCCESS ? 0 : -1;
}

#endif
