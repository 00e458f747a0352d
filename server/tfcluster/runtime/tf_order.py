"""The order TF 1.15's executor runs a step's nodes in, for steps where the order shows.

Where a step writes a variable and, unordered with that write, reads or writes it again
(`sess.run([W.assign(W - lr * grad), cost])`, a hand-written backprop that assigns every
weight in one run), the values the step gives depend on which runs first. TF does not order
them, but its executor's choice is stable once a session has warmed up: it runs the ready
nodes first in, first out, as one thread working through a queue (every kernel is then
cheaper than its inline threshold). Input-less nodes are queued in graph order, then the fed
tensors' arguments; a node's consumers become ready in their own graph order. Such a step
runs in that order here, so a read shallow in the graph sees the value from before a write
at the end of a long chain, and a write that is ready first lands before a deeper read, as in
TF. Steps without such a race keep their depth-first order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from tfcluster.runtime.graph_ir import Node

_RESOURCE_WRITE_PREFIXES = (
    "Assign",
    "ResourceApply",
    "ResourceSparseApply",
    "ResourceScatter",
    "ResourceStridedSliceAssign",
)


def with_resource_uses(
    order: Sequence[Node],
    reads: Sequence[frozenset[str]],
    writes: Sequence[frozenset[str]],
    fed: set[str],
) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """reads/writes (per node of order, of reference variables) with the resource variables
    each node reads (ReadVariableOp, a gather) or writes (an assign, an optimizer's update)
    through its VarHandleOp."""
    handles = {n.name for n in order if n.op == "VarHandleOp"}
    all_reads, all_writes = list(reads), list(writes)
    for i, n in enumerate(order):
        used = {src for src, idx in n.inputs if src in handles and f"{src}:{idx}" not in fed}
        if not used:
            continue
        if n.op.startswith(_RESOURCE_WRITE_PREFIXES):
            all_writes[i] = all_writes[i] | used
        else:
            all_reads[i] = all_reads[i] | used
    return all_reads, all_writes


def has_unordered_variable_access(
    order: Sequence[Node],
    reads: Sequence[frozenset[str]],
    writes: Sequence[frozenset[str]],
    fed: set[str],
) -> bool:
    """Whether some node writes a variable that another node reads or writes with no path
    between the two. order: inputs before consumers; reads/writes: per node of order."""
    written = set().union(*writes) if writes else set()
    if not written:
        return False
    touching: dict[str, list[int]] = {}
    for i, (r, w) in enumerate(zip(reads, writes)):
        for var in (r | w) & written:
            touching.setdefault(var, []).append(i)
    if all(len(nodes) < 2 for nodes in touching.values()):
        return False
    index_of = {n.name: i for i, n in enumerate(order)}
    # Per node, the nodes it waits for, directly or not, as a bit set.
    ancestors: list[int] = []
    for n in order:
        mask = 0
        for dep in _dependencies(n, fed):
            j = index_of.get(dep)
            if j is not None:
                mask |= ancestors[j] | (1 << j)
        ancestors.append(mask)
    for var, nodes in touching.items():
        for a in nodes:
            if var not in writes[a]:
                continue
            for b in nodes:
                if b != a and not (ancestors[a] >> b) & 1 and not (ancestors[b] >> a) & 1:
                    return True
    return False


def executor_order(
    order: Sequence[Node], graph_position: dict[str, int], feeds: Sequence[str]
) -> list[Node]:
    """order's nodes as TF's executor runs them once warm: first in, first out from the
    input-less nodes in graph order, then the nodes waiting only for fed tensors (TF's
    arguments come after every graph node), each node's consumers in graph order."""
    fed = set(feeds)
    by_name = {n.name: n for n in order}
    # Waiting inputs per node, the nodes in graph order.
    pending: dict[str, int] = {}
    consumers: dict[str, list[str]] = {}
    after_feeds: dict[str, list[str]] = {t: [] for t in feeds}
    for n in sorted(order, key=lambda n: graph_position[n.name]):
        count = 0
        for src, idx in n.inputs:
            tensor = f"{src}:{idx}"
            if tensor in fed:
                after_feeds[tensor].append(n.name)
            elif src in by_name:
                consumers.setdefault(src, []).append(n.name)
            else:
                continue
            count += 1
        for src in n.control_inputs:
            if src in by_name:
                consumers.setdefault(src, []).append(n.name)
                count += 1
        pending[n.name] = count
    # The fed tensors' arguments are queued after the graph's own input-less nodes.
    ready: deque[tuple[bool, str]] = deque(
        (False, name) for name, count in pending.items() if count == 0
    )
    ready.extend((True, t) for t in dict.fromkeys(feeds))
    out: list[Node] = []
    while ready:
        is_feed, name = ready.popleft()
        if not is_feed:
            out.append(by_name[name])
        for c in after_feeds[name] if is_feed else consumers.get(name, []):
            pending[c] -= 1
            if pending[c] == 0:
                ready.append((False, c))
    if len(out) != len(order):  # a cycle: keep the order given, whose check names it
        return list(order)
    return out


def _dependencies(node: Node, fed: set[str]) -> list[str]:
    deps = [src for src, idx in node.inputs if f"{src}:{idx}" not in fed]
    return deps + list(node.control_inputs)
