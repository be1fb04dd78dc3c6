/* The edges of CUDA graphs, for both backends: a graph kernel's ready time
 * is the end of the nodes it depends on in the same launch
 * (docs/analysis.md), which no activity record holds.  The driver, reached
 * through dlopen, tells them.
 *
 * CUPTI (graphs_instantiated): when a graph is instantiated the driver
 * clones its nodes into the executable graph, and CUPTI's records carry the
 * clones' ids; the collector notes each clone on the instantiating thread
 * (graphs_note_clone) and hands the source graph over at the end, whose
 * edges are given in every id space the clones went into.
 *
 * The Compute Sanitizer (graphs_node_launched): its node launches name the
 * executable graph's own nodes, whose dependencies the driver gives at a
 * node's first launch. */
#ifndef SMTOP_COLLECTORS_GRAPHS_H
#define SMTOP_COLLECTORS_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "src/core/records.h"

#pragma GCC visibility push(hidden)

/* A node's id as the backend's records carry it; 0 when unknown. */
typedef uint64_t (*graphs_node_id_fn)(void *node, void *ud);
/* Takes n records (SMTOP_REC_GRAPH_DEP). */
typedef void (*graphs_push_fn)(struct smtop_record *recs, size_t n);

/* Forgets the clones noted on the calling thread (graphs_instantiated
 * does it when done; the tests between cases). */
void graphs_forget_clones(void);

/* The node original_id was cloned as clone_id into graph graph_id (ids as
 * graphs_node_id_fn gives them); out of memory, the clone is forgotten (its
 * edges then read as unknown). */
void graphs_note_clone(uint64_t original_id, uint64_t clone_id, uint32_t graph_id);

/* The graph (a CUgraph) is instantiated: its edges go to push as records
 * of process pid, one per edge and one for each node without dependencies:
 * once with the source nodes' ids and once more with their clones' ids in
 * each graph they were cloned into since the last graphs_forget_clones (whichever
 * the launches' records carry).  Returns how many records went out; 0 when
 * the driver is not reachable. */
size_t graphs_instantiated(void *graph, uint32_t pid, graphs_node_id_fn id, void *ud,
			   graphs_push_fn push);

/* A kernel node's dynamic shared memory, as the driver gives its
 * parameters (the node makes no launch call to read it from); -1 when the
 * driver does not say. */
int64_t graphs_kernel_node_smem(void *node);

/* A node of an executable graph is being launched (the Compute Sanitizer
 * names the executable graph's own nodes, which need not be the source
 * graph's): its dependencies, asked of the driver, go to push as records.
 * Returns how many; 0, and no record, when the driver does not tell or a
 * dependency has no id (its edges stay unknown). */
size_t graphs_node_launched(void *node, uint32_t pid, graphs_node_id_fn id, void *ud,
			    graphs_push_fn push);

/* Pure, for the tests: n_nodes nodes (ids as the records carry them, 0 for
 * none; types CUgraphNodeType), edges from[i] -> to[i] as node indices,
 * made into records in out (room for n_edges + n_nodes); a node with a
 * dependency without an id gets none.  Returns how many. */
size_t graphs_deps(uint32_t pid, const uint64_t *ids, const int32_t *types, size_t n_nodes,
		   const size_t *from, const size_t *to, size_t n_edges, struct smtop_record *out);

/* The id of node id's clone in graph `graph` (following clones of clones),
 * 0 if it has none there; graph 0 is id's own graph: id itself. */
uint64_t graphs_id_in(uint64_t id, uint32_t graph);

/* The graphs clones were noted into, at most max. */
size_t graphs_targets(uint32_t *out, size_t max);

#pragma GCC visibility pop

#endif
