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

static int fake_upload(void *dev, const void *host, size_t bytes, void *stream)
{
	(void)stream;
	memcpy(dev, host, bytes);
	return 0;
}

/* Streams are never NULL: the stream itself is its handle. */
static void *fake_stream_handle(CUcontext ctx, CUstream stream)
{
	(void)ctx;
	return stream;
}

static void fake_context_ids(CUcontext ctx, uint32_t *context_id, uint32_t *device_id)
{
	*context_id = (uint32_t)(uintptr_t)ctx;
	*device_id = 0;
}

static int fake_sync(void *stream)
{
	(void)stream;
	return 0;
}

const struct blocks_host fake_device_mem = {
	.alloc = fake_alloc, .alloc_host = fake_alloc, .memset = fake_memset,
	.upload = fake_upload, .download = fake_download, .sync = fake_sync,
	.stream_handle = fake_stream_handle, .context_ids = fake_context_ids,
};

struct smtop_entry *fake_device_launch_data;

int fake_device_set_data(void *launch, CUfunction f, void *stream, const void *data)
{
	(void)launch;
	(void)f;
	(void)stream;
	fake_device_launch_data = (struct smtop_entry *)data;
	return 0;
}
