#include "collectors/graphs.h"

#include <cuda.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/driver.h"
#include "collectors/log.h"

/* cuda.h's values, without its header (the collector reaches the driver
 * through collectors/driver.c only). */
#define GRAPHS_CUDA_SUCCESS 0

struct graphs_clone {
	uint64_t original, clone;
	uint32_t graph;         /* the graph the clone is in */
};

static _Thread_local struct graphs_clone *graphs_clones;
static _Thread_local size_t graphs_n_clones, graphs_cap_clones;
static _Thread_local int graphs_clones_sorted;

void graphs_forget_clones(void)
{
	free(graphs_clones);
	graphs_clones = NULL;
	graphs_n_clones = graphs_cap_clones = 0;
}

void graphs_note_clone(uint64_t original_id, uint64_t clone_id, uint32_t graph_id)
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
	graphs_clones[graphs_n_clones++] = (struct graphs_clone){ original_id, clone_id, graph_id };
	graphs_clones_sorted = 0;
}

static int graphs_cmp_clone(const void *x, const void *y)
{
	const struct graphs_clone *p = x, *q = y;
	if (p->original != q->original)
		return p->original < q->original ? -1 : 1;
	return (p->graph > q->graph) - (p->graph < q->graph);
}

static void graphs_sort_clones(void)
{
	if (!graphs_clones_sorted && graphs_n_clones)
		qsort(graphs_clones, graphs_n_clones, sizeof *graphs_clones, graphs_cmp_clone);
	graphs_clones_sorted = 1;
}

/* The first clone of id, in clone order (original, graph), or NULL. */
static const struct graphs_clone *graphs_first_clone(uint64_t id)
{
	size_t lo = 0, hi = graphs_n_clones;
	graphs_sort_clones();
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (graphs_clones[m].original < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < graphs_n_clones && graphs_clones[lo].original == id ? &graphs_clones[lo] : NULL;
}

uint64_t graphs_id_in(uint64_t id, uint32_t graph)
{
	/* instantiation may clone a clone: a few steps cover it, and stop a
	 * cycle no driver should make */
	uint64_t todo[16] = { id };
	size_t n = 1, done = 0;
	if (!graph)
		return id;
	while (done < n) {
		const struct graphs_clone *c = graphs_first_clone(todo[done++]);
		for (; c && c < graphs_clones + graphs_n_clones && c->original == todo[done - 1]; c++) {
			if (c->graph == graph)
				return c->clone;
			if (n < sizeof todo / sizeof todo[0])
				todo[n++] = c->clone;
		}
	}
	return 0;
}

size_t graphs_targets(uint32_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < graphs_n_clones; i++) {
		size_t j = 0;
		while (j < n && out[j] != graphs_clones[i].graph)
			j++;
		if (j == n && n < max)
			out[n++] = graphs_clones[i].graph;
	}
	return n;
}

size_t graphs_deps(uint32_t pid, const uint64_t *ids, const int32_t *types, size_t n_nodes,
		   const size_t *from, const size_t *to, size_t n_edges, struct smtop_record *out)
{
	size_t n = 0;
	/* per node: 1 it has a dependency, 2 one of them has no id (its edges
	 * are then left unknown, never read as fewer than they are) */
	uint8_t *deps = calloc(n_nodes ? n_nodes : 1, 1);

	if (!deps)
		return 0;
	for (size_t i = 0; i < n_edges; i++)
		if (from[i] < n_nodes && to[i] < n_nodes)
			deps[to[i]] |= ids[from[i]] ? 1 : 3;
	for (size_t i = 0; i < n_edges; i++) {
		if (from[i] >= n_nodes || to[i] >= n_nodes || !ids[to[i]] || deps[to[i]] != 1)
			continue;
		out[n].kind = SMTOP_REC_GRAPH_DEP;
		out[n++].u.graph_dep = (struct smtop_graph_dep){ ids[to[i]], ids[from[i]], pid,
								 types[to[i]], types[from[i]] };
	}
	for (size_t i = 0; i < n_nodes; i++) {
		if (deps[i] || !ids[i])
			continue;
		out[n].kind = SMTOP_REC_GRAPH_DEP;
		out[n++].u.graph_dep = (struct smtop_graph_dep){ ids[i], 0, pid, types[i], -1 };
	}
	free(deps);
	return n;
}

/* ---- the driver ---------------------------------------------------------- */

struct graphs_cu {
	int (*get_nodes)(void *graph, void **nodes, size_t *n);
	int (*get_edges_v2)(void *graph, void **from, void **to, void *edge_data, size_t *n);
	int (*get_edges)(void *graph, void **from, void **to, size_t *n);
	int (*node_type)(void *node, int32_t *type);
	int (*node_deps_v2)(void *node, void **deps, void *edge_data, size_t *n);
	int (*node_deps)(void *node, void **deps, size_t *n);
	int (*kernel_params)(void *node, CUDA_KERNEL_NODE_PARAMS_v2 *p);
};

/* Each may be missing (older drivers lack the _v2 forms): the callers
 * fall back, or go without. */
#define GRAPHS_SYM(field, name) DRIVER_SYMBOL(struct graphs_cu, field, name, 1)
static const struct driver_symbol graphs_symbols[] = {
	GRAPHS_SYM(get_nodes, "cuGraphGetNodes"),
	GRAPHS_SYM(get_edges_v2, "cuGraphGetEdges_v2"),
	GRAPHS_SYM(get_edges, "cuGraphGetEdges"),
	GRAPHS_SYM(node_type, "cuGraphNodeGetType"),
	GRAPHS_SYM(node_deps_v2, "cuGraphNodeGetDependencies_v2"),
	GRAPHS_SYM(node_deps, "cuGraphNodeGetDependencies"),
	GRAPHS_SYM(kernel_params, "cuGraphKernelNodeGetParams_v2"),
};

static struct graphs_cu graphs_cu;
static pthread_once_t graphs_cu_once = PTHREAD_ONCE_INIT;

static void graphs_cu_load(void)
{
	char why[256];

	if (driver_resolve(&graphs_cu, graphs_symbols, sizeof(graphs_symbols) / sizeof(graphs_symbols[0]),
			   why, sizeof(why)) != 0)
		log_debug("graph edges unknown: %s", why);
}

int64_t graphs_kernel_node_smem(void *node)
{
	CUDA_KERNEL_NODE_PARAMS_v2 p;

	pthread_once(&graphs_cu_once, graphs_cu_load);
	if (!node || !graphs_cu.kernel_params || graphs_cu.kernel_params(node, &p) != GRAPHS_CUDA_SUCCESS)
		return -1;
	return p.sharedMemBytes;
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

/* The graph's nodes (handles), their types, its edges as node indices. */
struct graphs_read {
	void **nodes;
	int32_t *types;
	size_t n_nodes, n_edges;
	size_t *idx;            /* from..., then to... */
};

static void graphs_read_free(struct graphs_read *g)
{
	free(g->nodes);
	free(g->types);
	free(g->idx);
}

static int graphs_read_graph(void *graph, struct graphs_read *g)
{
	void **edges;
	int rc = -1;

	memset(g, 0, sizeof *g);
	pthread_once(&graphs_cu_once, graphs_cu_load);
	if (!graph || !graphs_cu.get_nodes || !graphs_cu.node_type ||
	    (!graphs_cu.get_edges_v2 && !graphs_cu.get_edges) ||
	    graphs_cu.get_nodes(graph, NULL, &g->n_nodes) != GRAPHS_CUDA_SUCCESS || !g->n_nodes)
		return -1;
	g->nodes = malloc(g->n_nodes * sizeof *g->nodes);
	g->types = malloc(g->n_nodes * sizeof *g->types);
	if (!g->nodes || !g->types || graphs_cu.get_nodes(graph, g->nodes, &g->n_nodes) != GRAPHS_CUDA_SUCCESS)
		return -1;
	for (size_t i = 0; i < g->n_nodes; i++)
		if (graphs_cu.node_type(g->nodes[i], &g->types[i]) != GRAPHS_CUDA_SUCCESS)
			g->types[i] = -1;
	edges = graphs_read_edges(graph, &g->n_edges);
	g->idx = malloc((2 * g->n_edges + 1) * sizeof *g->idx);
	if (g->idx && !graphs_edge_indices(g->nodes, g->n_nodes, edges, g->n_edges, g->idx))
		rc = 0;
	free(edges);
	return rc;
}

size_t graphs_instantiated(void *graph, uint32_t pid, graphs_node_id_fn id, void *ud,
			   graphs_push_fn push)
{
	struct graphs_read g;
	uint32_t targets[8];
	/* the source graph's own ids, then those of each graph its nodes were
	 * cloned into: the records carry one of them */
	size_t n_targets = 1 + graphs_targets(targets + 1, 7), total = 0;
	uint64_t *src = NULL, *ids = NULL;
	struct smtop_record *out = NULL;

	targets[0] = 0;
	if (graphs_read_graph(graph, &g) == 0 && (src = malloc(g.n_nodes * sizeof *src)) &&
	    (ids = malloc(g.n_nodes * sizeof *ids)) &&
	    (out = malloc((g.n_edges + g.n_nodes) * sizeof *out))) {
		for (size_t i = 0; i < g.n_nodes; i++)
			src[i] = id(g.nodes[i], ud);
		for (size_t t = 0; t < n_targets; t++) {
			for (size_t i = 0; i < g.n_nodes; i++)
				ids[i] = src[i] ? graphs_id_in(src[i], targets[t]) : 0;
			size_t n = graphs_deps(pid, ids, g.types, g.n_nodes, g.idx, g.idx + g.n_edges,
					       g.n_edges, out);
			push(out, n);
			total += n;
		}
		log_debug("graph of %zu nodes, %zu edges: %zu dependency records over %zu id spaces"
			  " (%zu clones noted)", g.n_nodes, g.n_edges, total, n_targets, graphs_n_clones);
	}
	graphs_read_free(&g);
	free(src);
	free(ids);
	free(out);
	graphs_forget_clones();
	return total;
}

/* The node's dependencies as handles in *deps (NULL when it has none), *n
 * their count; -1 when the driver does not tell. */
static int graphs_read_deps(void *node, void ***deps, size_t *n)
{
	void **v;
	int rc;

	*deps = NULL;
	*n = 0;
	rc = graphs_cu.node_deps_v2 ? graphs_cu.node_deps_v2(node, NULL, NULL, n)
				    : graphs_cu.node_deps(node, NULL, n);
	if (rc != GRAPHS_CUDA_SUCCESS)
		return -1;
	if (!*n)
		return 0;
	if (!(v = malloc(*n * sizeof *v)))
		return -1;
	rc = graphs_cu.node_deps_v2 ? graphs_cu.node_deps_v2(node, v, NULL, n)
				    : graphs_cu.node_deps(node, v, n);
	if (rc != GRAPHS_CUDA_SUCCESS) {
		free(v);
		return -1;
	}
	*deps = v;
	return 0;
}

size_t graphs_node_launched(void *node, uint32_t pid, graphs_node_id_fn id, void *ud,
			    graphs_push_fn push)
{
	struct smtop_record root, *out;
	int32_t type = -1, dep_type;
	size_t n_deps = 0, n = 0;
	void **deps;
	uint64_t me;

	pthread_once(&graphs_cu_once, graphs_cu_load);
	if (!node || !graphs_cu.node_type || (!graphs_cu.node_deps_v2 && !graphs_cu.node_deps) ||
	    !(me = id(node, ud)) || graphs_cu.node_type(node, &type) != GRAPHS_CUDA_SUCCESS ||
	    graphs_read_deps(node, &deps, &n_deps) != 0)
		return 0;
	if (!n_deps) {
		root.kind = SMTOP_REC_GRAPH_DEP;
		root.u.graph_dep = (struct smtop_graph_dep){ me, 0, pid, type, -1 };
		push(&root, 1);
		return 1;
	}
	/* all of them or none: a dependency left out would read as edges known */
	if ((out = malloc(n_deps * sizeof *out))) {
		for (; n < n_deps; n++) {
			uint64_t d = id(deps[n], ud);
			if (!d || graphs_cu.node_type(deps[n], &dep_type) != GRAPHS_CUDA_SUCCESS)
				break;
			out[n].kind = SMTOP_REC_GRAPH_DEP;
			out[n].u.graph_dep = (struct smtop_graph_dep){ me, d, pid, type, dep_type };
		}
		if (n == n_deps)
			push(out, n);
		else
			n = 0;
	}
	free(out);
	free(deps);
	return n;
}
