"""Parent-side checks for minigrad (trusted: they run in the grader, never in the sandbox)."""

from __future__ import annotations

import re


def _parents(graph) -> list[list[int]]:
    """Parents of every node of a stored graph, by build index (leaves have none)."""
    if "chain" in graph:  # a chain of graph["chain"] ops over one leaf
        return [[]] + [[i] for i in range(graph["chain"])]
    return [[] for _ in graph["leaves"]] + [list(op["args"]) for op in graph["ops"]]


def valid_topological_order(observed, ctx) -> str | None:
    """`observed` lists the build indices of the nodes in topological_order(root) (root = the
    last node built). Valid: each node the root depends on appears exactly once, after all of
    its parents; nothing else the test built appears."""
    m = re.fullmatch(r"order\[(\d+)\]", ctx.name)
    graphs = ctx.inputs if isinstance(ctx.inputs, list) else [ctx.inputs]
    graph = graphs[int(m.group(1))] if m else graphs[0]
    parents = _parents(graph)
    if not isinstance(observed, list) or not all(type(i) is int for i in observed):
        return "expected a list of node indices"
    needed, stack = set(), [len(parents) - 1]
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(parents[node])
    position = {}
    for pos, node in enumerate(observed):
        if node in position:
            return (f"node {node} appears more than once ({observed.count(node)} times): a node "
                    "reached along several paths must be listed once (keep a visited set)")
        if node not in needed:
            return f"node {node} is not an input of the root, but it was listed"
        position[node] = pos
    missing = sorted(needed - position.keys())
    if missing:
        return f"{len(missing)} of the {len(needed)} nodes are missing, e.g. node {missing[0]}"
    for node in needed:
        for p in parents[node]:
            if position[p] > position[node]:
                return f"node {node} is listed before its input {p}"
    return None
