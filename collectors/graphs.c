#include "collectors/graphs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/log.h"

/* cuda.h's values, without its header (the collector reaches the driver
 * through dlopen only). */
#define GRAPHS_CUDA_SUCCESS 0

struct graphs_clone {
	uint64_t original, clone;
};

static _Thread_local struct graphs_clone *graphs_clones;
static _Thread_local size_t graphs_n_clones, graphs_cap_clones;
static _Thread_local int graphs_clones_sorted;

void graphs_begin(void)
{
	free(graphs_clones);
	graphs_clones = NULL;
	graphs_n_clones = graphs_cap_clones = 0;
}

void graphs_note_clone(uint64_t original_id, uint64_t clone_id)
{
	if (!original_id || !clone_id || original_id == clone_id)
		return;
	if (graphs_n_clones == graphs_cap_clones) {
		size_t cap = graphs_cap_clones ? graphs_cap_clones * 2 : 64;
		struct graphs_clone *v = realloc(graphs_clones, cap * sizeof *v);
		if (!v)
			return;
		graphs_clones = v;
		graphs_cap_clones = cap;
	}
	graphs_clones[graphs_n_clones++] = (struct graphs_clone){ original_id, clone_id };
	graphs_clones_sorted = 0;
}

static int graphs_cmp_clone(const void *x, const void *y)
{
	const struct graphs_clone *p = x, *q = y;
	return (p->original > q->original) - (p->original < q->original);
}

static const struct graphs_clone *graphs_clone_of(uint64_t id)
{
	struct graphs_clone key = { id, 0 };
	if (!graphs_clones_sorted && graphs_n_clones) {
		qsort(graphs_clones, graphs_n_clones, sizeof *graphs_clones, graphs_cmp_clone);
		graphs_clones_sorted = 1;
	}
	return graphs_n_clones ? bsearch(&key, graphs_clones, graphs_n_clones, sizeof key, graphs_cmp_clone)
			       : NULL;
}

uint64_t graphs_final_id(uint64_t id)
{
	/* instantiation may clone a clone; a few steps cover it, and stop a
	 * cycle no driver should make */
	for (int step = 0; step < 4; step++) {
		const struct graphs_clone *c = graphs_clone_of(id);
		if (!c)
			break;
		id = c->clone;
	}
	return id;
}

size_t graphs_deps(uint32_t pid, const uint64_t *ids, const int32_t *types, size_t n_nodes,
		   const size_t *from, const size_t *to, size_t n_edges, struct smtop_record *out)
{
	size_t n = 0;
	uint8_t *has_dep = calloc(n_nodes ? n_nodes : 1, 1);

	if (!has_dep)
		return 0;
	for (size_t i = 0; i < n_edges; i++) {
		if (from[i] >= n_nodes || to[i] >= n_nodes || !ids[to[i]] || !ids[from[i]])
			continue;
		out[n].kind = SMTOP_REC_GRAPH_DEP;
		out[n++].u.graph_dep = (struct smtop_graph_dep){ ids[to[i]], ids[from[i]], pid,
								 types[to[i]], types[from[i]] };
		has_dep[to[i]] = 1;
	}
	for (size_t i = 0; i < n_nodes; i++) {
		if (has_dep[i] || !ids[i])
			continue;
		out[n].kind = SMTOP_REC_GRAPH_DEP;
		out[n++].u.graph_dep = (struct smtop_graph_dep){ ids[i], 0, pid, types[i], -1 };
	}
	free(has_dep);
	return n;
}

/* ---- the driver ---------------------------------------------------------- */

static struct {
	int (*get_nodes)(void *graph, void **nodes, size_t *n);
	int (*get_edges_v2)(void *graph, void **from, void **to, void *edge_data, size_t *n);
	int (*get_edges)(void *graph, void **from, void **to, size_t *n);
	int (*node_type)(void *node, int32_t *type);
} graphs_cu;
static pthread_once_t graphs_cu_once = PTHREAD_ONCE_INIT;

static void graphs_cu_load(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!lib)
		return;
	*(void **)&graphs_cu.get_nodes = dlsym(lib, "cuGraphGetNodes");
	*(void **)&graphs_cu.get_edges_v2 = dlsym(lib, "cuGraphGetEdges_v2");
	*(void **)&graphs_cu.get_edges = dlsym(lib, "cuGraphGetEdges");
	*(void **)&graphs_cu.node_type = dlsym(lib, "cuGraphNodeGetType");
}

/* The graph's edges as handles; *n_edges their count.  NULL with
 * *n_edges 0 for a graph without edges, or on failure. */
static void **graphs_read_edges(void *graph, size_t *n_edges)
{
	void **v;
	size_t n = 0;
	int rc = graphs_cu.get_edges_v2 ? graphs_cu.get_edges_v2(graph, NULL, NULL, NULL, &n)
					: graphs_cu.get_edges(graph, NULL, NULL, &n);

	*n_edges = 0;
	if (rc != GRAPHS_CUDA_SUCCESS || !n || !(v = malloc(2 * n * sizeof *v)))
		return NULL;
	rc = graphs_cu.get_edges_v2 ? graphs_cu.get_edges_v2(graph, v, v + n, NULL, &n)
				    : graphs_cu.get_edges(graph, v, v + n, &n);
	if (rc != GRAPHS_CUDA_SUCCESS) {
		free(v);
		return NULL;
	}
	*n_edges = n;
	return v;
}

struct graphs_handle {
	void *node;
	size_t index;
};

static int graphs_cmp_handle(const void *x, const void *y)
{
	const struct graphs_handle *p = x, *q = y;
	return (p->node > q->node) - (p->node < q->node);
}

/* Each handle of edges (from..., then to...) as an index into the nodes. */
static int graphs_edge_indices(void *const *nodes, size_t n_nodes, void *const *edges, size_t n_edges,
			       size_t *idx)
{
	struct graphs_handle *h = malloc((n_nodes ? n_nodes : 1) * sizeof *h);
	if (!h)
		return -1;
	for (size_t i = 0; i < n_nodes; i++)
		h[i] = (struct graphs_handle){ nodes[i], i };
	qsort(h, n_nodes, sizeof *h, graphs_cmp_handle);
	for (size_t i = 0; i < 2 * n_edges; i++) {
		struct graphs_handle key = { edges[i], 0 };
		const struct graphs_handle *f = bsearch(&key, h, n_nodes, sizeof *h, graphs_cmp_handle);
		idx[i] = f ? f->index : n_nodes; /* not a node: graphs_deps skips it */
	}
	free(h);
	return 0;
}

size_t graphs_instantiated(void *graph, uint32_t pid, graphs_node_id_fn id, graphs_push_fn push)
{
	void **nodes = NULL, **edges = NULL;
	size_t n_nodes = 0, n_edges = 0, n = 0, *idx = NULL;
	uint64_t *ids = NULL;
	int32_t *types = NULL;
	struct smtop_record *out = NULL;

	pthread_once(&graphs_cu_once, graphs_cu_load);
	if (!graph || !graphs_cu.get_nodes || !graphs_cu.node_type ||
	    (!graphs_cu.get_edges_v2 && !graphs_cu.get_edges) ||
	    graphs_cu.get_nodes(graph, NULL, &n_nodes) != GRAPHS_CUDA_SUCCESS || !n_nodes)
		goto out;
	nodes = malloc(n_nodes * sizeof *nodes);
	ids = malloc(n_nodes * sizeof *ids);
	types = malloc(n_nodes * sizeof *types);
	if (!nodes || !ids || !types || graphs_cu.get_nodes(graph, nodes, &n_nodes) != GRAPHS_CUDA_SUCCESS)
		goto out;
	for (size_t i = 0; i < n_nodes; i++) {
		ids[i] = graphs_final_id(id(nodes[i]));
		if (graphs_cu.node_type(nodes[i], &types[i]) != GRAPHS_CUDA_SUCCESS)
			types[i] = -1;
	}
	edges = graphs_read_edges(graph, &n_edges);
	idx = malloc((2 * n_edges + 1) * sizeof *idx);
	out = malloc((n_edges + n_nodes) * sizeof *out);
	if (!idx || !out || graphs_edge_indices(nodes, n_nodes, edges, n_edges, idx))
		goto out;
	n = graphs_deps(pid, ids, types, n_nodes, idx, idx + n_edges, n_edges, out);
	push(out, n);
	log_debug("graph of %zu nodes, %zu edges: %zu dependency records, %zu clones", n_nodes, n_edges,
		  n, graphs_n_clones);
out:
	free(nodes);
	free(edges);
	free(idx);
	free(ids);
	free(types);
	free(out);
	graphs_begin();
	return n;
}
