#!/usr/bin/env python3
"""How many graph kernels of a session have their node's edges recorded
(make test-gpu section graphs): the collector's smtop_graph_dep rows, by the
graphNodeId its kernel records carry.

  check_graph_edges.py SESSION [--expect-all]

Prints one line; with --expect-all exits 1 unless every graph kernel's node
has edges.
"""
import sqlite3
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    deps = set()
    n_deps = 0
    if "smtop_graph_dep" in have:
        for gpid, node in db.execute("SELECT globalPid, nodeId FROM smtop_graph_dep"):
            deps.add((gpid, node))
            n_deps += 1
    graph = with_node = with_edges = 0
    for gpid, node, is_graph in db.execute(
            "SELECT globalPid, graphNodeId, isGraph FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        if not is_graph:
            continue
        graph += 1
        if node:
            with_node += 1
            with_edges += (gpid, node) in deps
    print(f"{sys.argv[1]}: {n_deps} edge rows, {graph} graph kernels, {with_node} with a node id,"
          f" {with_edges} whose node has edges")
    if "--expect-all" in sys.argv and (not graph or with_edges != graph):
        sys.exit(1)


if __name__ == "__main__":
    main()
