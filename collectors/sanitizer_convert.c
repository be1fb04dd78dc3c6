#include "collectors/sanitizer_convert.h"

#include <stdlib.h>
#include <string.h>

/* 11.8: the headers smtop builds with.  13: read off CUDA 13.0's
 * sanitizer_callbacks.h, which added STREAM_DESTROY_FINISHED (8) before
 * MODULE_LOADED and GRAPHEXEC_CREATING and _DESTROYING before the graph
 * launch callbacks; the struct fields smtop reads kept their places (new
 * fields came at the ends).  CUDA 12 is not known: its numbering was not
 * checked. */
static const struct sanitizer_numbering sanitizer_numberings[] = {
	{
		.major = 11,
		.context_created = SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED,
		.context_destroying = SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
		.stream_created = SANITIZER_CBID_RESOURCE_STREAM_CREATED,
		.stream_destroying = SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING,
		.module_loaded = SANITIZER_CBID_RESOURCE_MODULE_LOADED,
		.module_unloading = SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
		.launch_begin = SANITIZER_CBID_LAUNCH_BEGIN,
		.graph_node_launch_begin = SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN,
	},
	{
		.major = 13,
		.context_created = 3,
		.context_destroying = 4,
		.stream_created = 6,
		.stream_destroying = 7,
		.module_loaded = 9,
		.module_unloading = 10,
		.launch_begin = 1,
		.graph_node_launch_begin = 4,
	},
};

const struct sanitizer_numbering *sanitizer_numbering_of(unsigned major)
{
	for (size_t i = 0; i < sizeof(sanitizer_numberings) / sizeof(sanitizer_numberings[0]); i++)
		if (sanitizer_numberings[i].major == major)
			return &sanitizer_numberings[i];
	return NULL;
}

unsigned sanitizer_major_of_path(const char *path)
{
	const char *p = path ? strstr(path, "cuda-") : NULL;

	while (p) {
		char *end;
		unsigned long v = strtoul(p + 5, &end, 10);

		if (end != p + 5 && *end == '.' && v > 0 && v < 1000)
			return (unsigned)v;
		p = strstr(p + 5, "cuda-");
	}
	return 0;
}

unsigned sanitizer_major_of_version_json(const char *text)
{
	const char *cuda = text ? strstr(text, "\"cuda\"") : NULL;
	const char *v = cuda ? strstr(cuda, "\"version\"") : NULL;

	if (!v || !(v = strchr(v + 9, '"')))
		return 0;
	unsigned long major = strtoul(v + 1, NULL, 10);
	return major > 0 && major < 1000 ? (unsigned)major : 0;
}

void sanitizer_launch_info(const Sanitizer_LaunchData *ld, uint32_t context_id, uint32_t stream_id,
			   uint64_t launched, int is_graph, struct launch_info *out)
{
	memset(out, 0, sizeof(*out));
	out->grid_id = ld->gridId;
	out->context_id = context_id;
	out->device_id = (uint32_t)ld->device;
	out->stream_id = stream_id;
	out->grid[0] = (int32_t)ld->gridDim_x;
	out->grid[1] = (int32_t)ld->gridDim_y;
	out->grid[2] = (int32_t)ld->gridDim_z;
	out->block[0] = (int32_t)ld->blockDim_x;
	out->block[1] = (int32_t)ld->blockDim_y;
	out->block[2] = (int32_t)ld->blockDim_z;
	out->is_graph = is_graph;
	out->launched = launched;
	out->name = ld->functionName;
}

const Sanitizer_LaunchData *sanitizer_graph_node_launch(const Sanitizer_GraphNodeLaunchData *g)
{
	return g && g->nodeType == CU_GRAPH_NODE_TYPE_KERNEL ? &g->launchData : NULL;
}
