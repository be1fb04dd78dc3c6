#include "collectors/cupti_blocks.h"

#include <stdint.h>

#include <cupti.h>

#include "collectors/driver.h"
#include "collectors/log.h"

/* A stream handle is the CUstream itself; a device pointer travels as a
 * void *.  The copies are asynchronous until sync. */
struct cupti_blocks_cu {
	__typeof__(cuMemAlloc) *mem_alloc;
	__typeof__(cuMemHostAlloc) *mem_host_alloc;
	__typeof__(cuMemsetD8Async) *memset_d8_async;
	__typeof__(cuMemcpyHtoDAsync) *memcpy_htod_async;
	__typeof__(cuMemcpyDtoHAsync) *memcpy_dtoh_async;
	__typeof__(cuStreamSynchronize) *stream_synchronize;
};

#define CUPTI_BLOCKS_SYM(field, name) DRIVER_SYMBOL(struct cupti_blocks_cu, field, name, 0)
static const struct driver_symbol cupti_blocks_symbols[] = {
	CUPTI_BLOCKS_SYM(mem_alloc, "cuMemAlloc_v2"),
	CUPTI_BLOCKS_SYM(mem_host_alloc, "cuMemHostAlloc"),
	CUPTI_BLOCKS_SYM(memset_d8_async, "cuMemsetD8Async"),
	CUPTI_BLOCKS_SYM(memcpy_htod_async, "cuMemcpyHtoDAsync_v2"),
	CUPTI_BLOCKS_SYM(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2"),
	CUPTI_BLOCKS_SYM(stream_synchronize, "cuStreamSynchronize"),
};

static struct cupti_blocks_cu cupti_blocks_cu;

/* The context current on the calling thread is ctx (a launch's, or the one
 * the lanes made current). */
static int cupti_blocks_alloc(CUcontext ctx, void **dev, size_t bytes)
{
	CUdeviceptr p = 0;

	(void)ctx;
	if (cupti_blocks_cu.mem_alloc(&p, bytes) != CUDA_SUCCESS)
		return -1;
	*dev = (void *)(uintptr_t)p;
	return 0;
}

static int cupti_blocks_alloc_host(CUcontext ctx, void **host, size_t bytes)
{
	(void)ctx;
	return cupti_blocks_cu.mem_host_alloc(host, bytes, 0) == CUDA_SUCCESS ? 0 : -1;
}

static int cupti_blocks_memset(void *dev, int value, size_t bytes, void *stream)
{
	return cupti_blocks_cu.memset_d8_async((CUdeviceptr)(uintptr_t)dev, (unsigned char)value, bytes,
					       (CUstream)stream) == CUDA_SUCCESS ? 0 : -1;
}

static int cupti_blocks_upload(void *dev, const void *host, size_t bytes, void *stream)
{
	return cupti_blocks_cu.memcpy_htod_async((CUdeviceptr)(uintptr_t)dev, host, bytes,
						 (CUstream)stream) == CUDA_SUCCESS ? 0 : -1;
}

static int cupti_blocks_download(void *host, const void *dev, size_t bytes, void *stream)
{
	return cupti_blocks_cu.memcpy_dtoh_async(host, (CUdeviceptr)(uintptr_t)dev, bytes,
						 (CUstream)stream) == CUDA_SUCCESS ? 0 : -1;
}

static int cupti_blocks_sync(void *stream)
{
	return cupti_blocks_cu.stream_synchronize((CUstream)stream) == CUDA_SUCCESS ? 0 : -1;
}

static void *cupti_blocks_stream_handle(CUcontext ctx, CUstream stream)
{
	(void)ctx;
	return stream;
}

static void cupti_blocks_context_ids(CUcontext ctx, uint32_t *context_id, uint32_t *device_id)
{
	cuptiGetContextId(ctx, context_id);
	cuptiGetDeviceId(ctx, device_id);
}

/* CUPTI records our drain and setup copies like the workload's. */
static int cupti_blocks_own_stream_id(CUcontext ctx, CUstream stream, uint32_t *id)
{
	return cuptiGetStreamIdEx(ctx, stream, 0, id) == CUPTI_SUCCESS ? 0 : -1;
}

static uint32_t cupti_blocks_stream_id(void *stream)
{
	uint32_t id = 0;

	return cuptiGetStreamIdEx(NULL, (CUstream)stream, 0, &id) == CUPTI_SUCCESS ? id : 0;
}

/* Only header-marked kernels write the lanes: a drain thread per four
 * CPUs. */
static const struct blocks_host cupti_blocks_ops = {
	.alloc = cupti_blocks_alloc,
	.alloc_host = cupti_blocks_alloc_host,
	.memset = cupti_blocks_memset,
	.upload = cupti_blocks_upload,
	.download = cupti_blocks_download,
	.sync = cupti_blocks_sync,
	.stream_handle = cupti_blocks_stream_handle,
	.context_ids = cupti_blocks_context_ids,
	.own_stream_id = cupti_blocks_own_stream_id,
	.stream_id = cupti_blocks_stream_id,
	.cpus_per_drain = 4,
};

const struct blocks_host *cupti_blocks_host(void)
{
	char why[256];

	if (driver_resolve(&cupti_blocks_cu, cupti_blocks_symbols,
			   sizeof(cupti_blocks_symbols) / sizeof(cupti_blocks_symbols[0]), why, sizeof(why)) != 0) {
		log_debug("block tracing off: %s", why);
		return NULL;
	}
	return &cupti_blocks_ops;
}
