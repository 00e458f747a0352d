"""Finds a dependency cycle in the part of a graph a step runs, before it is placed and
split across tasks: a cycle through two tasks would leave each waiting for the other
forever, and no single task's executor could see it."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from tfcluster.framework import errors
from tfcluster.runtime.graph_ir import Node

# The back edge of a TF1 while loop (NextIteration -> Merge) is the one cycle a graph may have.
_BACK_EDGE_OPS = frozenset({"NextIteration", "RefNextIteration"})


def check_acyclic(nodes: Mapping[str, Node], needed: Collection[str], fed: Collection[str]) -> None:
    """InvalidArgumentError naming the nodes of a cycle among `needed` (data edges of fed
    tensors do not count: the feed replaces them)."""
    members = set(needed)
    fed_set = set(fed)
    consumers: dict[str, list[str]] = {n: [] for n in members}
    waiting: dict[str, int] = dict.fromkeys(members, 0)
    for name in members:
        node = nodes[name]
        sources = [s for s, i in node.inputs if f"{s}:{i}" not in fed_set]
        for src in [*sources, *node.control_inputs]:
            if src in members and nodes[src].op not in _BACK_EDGE_OPS:
                consumers[src].append(name)
                waiting[name] += 1
    ready = [n for n, k in waiting.items() if k == 0]
    while ready:
        for c in consumers[ready.pop()]:
            waiting[c] -= 1
            if waiting[c] == 0:
                ready.append(c)
    stuck = sorted(n for n, k in waiting.items() if k > 0)
    if stuck:
        cycle = _one_cycle(stuck, consumers)
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Graph is invalid, contains a cycle with {len(cycle)} nodes, including: "
            + ", ".join(cycle),
        )


def _one_cycle(stuck: list[str], consumers: Mapping[str, list[str]]) -> list[str]:
    """The nodes of one cycle among `stuck`, in dependency order. Every stuck node waits on
    a stuck producer, so walking back from producer to producer must come round."""
    inside = set(stuck)
    producer: dict[str, str] = {}
    for src in stuck:
        for c in consumers[src]:
            if c in inside:
                producer.setdefault(c, src)
    seen: dict[str, int] = {}
    path: list[str] = []
    node = stuck[0]
    while node not in seen:
        seen[node] = len(path)
        path.append(node)
        node = producer[node]
    return list(reversed(path[seen[node] :]))
