#include "collectors/driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static void *driver_lib;
static char driver_error[256];

/* The workload's own copy when it has one (it usually does: the driver
 * loaded us), else a fresh one. */
static void driver_open(void)
{
	const char *e;

	driver_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!driver_lib)
		driver_lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!driver_lib && (e = dlerror()))
		snprintf(driver_error, sizeof(driver_error), "%s", e);
	else if (!driver_lib)
		snprintf(driver_error, sizeof(driver_error), "libcuda.so.1 cannot be loaded");
}

int driver_resolve(void *calls, const struct driver_symbol *table, size_t n, char *why, size_t len)
{
	pthread_once(&driver_once, driver_open);
	if (!driver_lib) {
		snprintf(why, len, "%s", driver_error);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(driver_lib, table[i].name);

		if (!p && !table[i].optional) {
			snprintf(why, len, "libcuda lacks %s", table[i].name);
			return -1;
		}
		memcpy((char *)calls + table[i].offset, &p, sizeof(p));
	}
	return 0;
}
