#include "tests/support/fake_device.h"

#include <stdlib.h>
#include <string.h>

static int fake_alloc(CUcontext ctx, void **p, size_t bytes)
{
	(void)ctx;
	return (*p = malloc(bytes)) ? 0 : -1;
}

static int fake_memset(void *dev, int value, size_t bytes, void *stream)
{
	(void)stream;
	memset(dev, value, bytes);
	return 0;
}

static int fake_download(void *host, const void *dev, size_t bytes, void *stream)
{
	(void)stream;
	memcpy(host, dev, bytes);
	return 0;
}

static int fake_sync(void *stream)
{
	(void)stream;
	return 0;
}

const struct blocks_host fake_device_mem = {
	.alloc = fake_alloc, .alloc_host = fake_alloc, .memset = fake_memset,
	.download = fake_download, .sync = fake_sync,
};
