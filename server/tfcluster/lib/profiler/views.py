"""tf.profiler's views over the node statistics, as TF 1.15's tfprof builds them.

scope: the ops arranged by name ("a/b" under "a"; a scope with no op of its own is a
pseudo-node). graph: the ops, flat. op: the ops grouped by op type. Each view first keeps
the nodes that are *accounted* (an op type matches account_type_regexes) or have accounted
descendants, then shows those that pass the min_* thresholds (on their own values) and the
name filters; a hidden node's shown descendants move up to its nearest shown ancestor. With
account_displayed_op_only, totals sum only what is shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tfcluster.lib.profiler.cxx_sort import cxx_sort
from tfcluster.lib.profiler.profile_nodes import (
    ROOT_NAME,
    SCOPE_PARENT_TYPE,
    NodeStats,
)
from tfcluster.protos import tfprof_output_pb2

_TOTALS = (
    "parameters",
    "float_ops",
    "run_count",
    "exec_micros",
    "cpu_exec_micros",
    "accelerator_exec_micros",
    "requested_bytes",
    "output_bytes",
)


@dataclass
class TreeNode:
    stats: NodeStats
    children: list[TreeNode] = field(default_factory=list)
    account: bool = False
    totals: dict[str, int] = field(default_factory=dict)
    definitions: int = 0

    @property
    def name(self) -> str:
        return self.stats.name

    def reset(self) -> None:
        self.totals = dict.fromkeys(_TOTALS, 0)
        self.definitions = 0

    def add_self(self) -> None:
        self.definitions += 1
        for k in _TOTALS:
            self.totals[k] += getattr(self.stats, k)

    def aggregate(self, child: TreeNode) -> None:
        self.definitions += child.definitions
        for k in _TOTALS:
            self.totals[k] += child.totals[k]


def _full_match(patterns: list[str], name: str) -> bool:
    return any(re.fullmatch(p, name) for p in patterns)


def _accounted(stats: NodeStats, options: dict[str, Any]) -> bool:
    regexes = list(options.get("account_type_regexes", [".*"]))
    if regexes == [".*"]:
        return True
    return any(_full_match(regexes, t) for t in stats.op_types)


def _passes(node: TreeNode, options: dict[str, Any], depth: int) -> bool:
    if node.name == ROOT_NAME:
        return True
    s = node.stats
    checks = (
        (s.requested_bytes, "min_bytes"),
        (s.output_bytes, "min_output_bytes"),
        (s.exec_micros, "min_micros"),
        (s.accelerator_exec_micros, "min_accelerator_micros"),
        (s.cpu_exec_micros, "min_cpu_micros"),
        (s.parameters, "min_params"),
        (s.float_ops, "min_float_ops"),
        (s.run_count, "min_occurrence"),
    )
    for value, key in checks:
        if value < int(options.get(key, 0)):
            return False
    if depth > int(options.get("max_depth", 10000)):
        return False
    show = list(options.get("show_name_regexes", [".*"]))
    if show != [".*"] and not _full_match(show, node.name):
        return False
    return not _full_match(list(options.get("hide_name_regexes", [])), node.name)


def _sort(nodes: list[TreeNode], options: dict[str, Any]) -> list[TreeNode]:
    key = options.get("order_by", "name")
    total_of = {
        "params": "parameters",
        "float_ops": "float_ops",
        "micros": "exec_micros",
        "accelerator_micros": "accelerator_exec_micros",
        "cpu_micros": "cpu_exec_micros",
        "bytes": "requested_bytes",
        "output_bytes": "output_bytes",
        "occurrence": "run_count",
    }.get(key)
    # tfprof's comparator: by name, or by a total, larger first; ties in std::sort's order.
    if total_of is None:
        return cxx_sort(nodes, lambda a, b: a.name < b.name)
    key = total_of
    return cxx_sort(nodes, lambda a, b: a.totals[key] > b.totals[key])


# ---- building the trees ------------------------------------------------------------------
def scope_tree(stats: dict[str, NodeStats]) -> TreeNode:
    nodes: dict[str, TreeNode] = {name: TreeNode(s) for name, s in stats.items()}
    root = TreeNode(NodeStats(ROOT_NAME, [SCOPE_PARENT_TYPE], pseudo=True))
    for name in sorted(stats):
        child = nodes[name]
        while True:
            parent_name, slash, _ = child.name.rpartition("/")
            if not slash:
                root.children.append(child)
                break
            parent = nodes.get(parent_name)
            if parent is not None:
                parent.children.append(child)
                break
            parent = TreeNode(NodeStats(parent_name, [SCOPE_PARENT_TYPE], pseudo=True))
            nodes[parent_name] = parent
            parent.children.append(child)
            child = parent
    return root


def graph_tree(graph_inputs: dict[str, list[str]], stats: dict[str, NodeStats]) -> TreeNode:
    """The graph view: the ops nothing consumes at the top, each op's inputs as its children
    (an op reached twice is placed once, where the walk first meets it)."""
    consumed = {i for inputs in graph_inputs.values() for i in inputs}
    placed: set[str] = set()
    root = TreeNode(NodeStats(ROOT_NAME, [SCOPE_PARENT_TYPE], pseudo=True))

    def place(name: str) -> TreeNode:
        placed.add(name)
        node = TreeNode(stats[name])
        for i in graph_inputs.get(name, []):
            if i not in placed and i in stats:
                node.children.append(place(i))
        return node

    for name in sorted(stats):
        if name not in consumed and name not in placed:
            root.children.append(place(name))
    return root


def _start_roots(root: TreeNode, options: dict[str, Any]) -> list[TreeNode]:
    start = list(options.get("start_name_regexes", [".*"]))
    if start == [".*"]:
        return root.children
    found: list[TreeNode] = []

    def walk(n: TreeNode) -> None:
        if _full_match(start, n.name):
            found.append(n)
            return
        for c in n.children:
            walk(c)

    for c in root.children:
        walk(c)
    return found


def _account(nodes: list[TreeNode], options: dict[str, Any]) -> list[TreeNode]:
    kept = []
    for n in nodes:
        n.reset()
        children = _account(n.children, options)
        n.account = _accounted(n.stats, options)
        if n.account or children:
            n.reset()
            n.add_self()
            for c in children:
                n.aggregate(c)
            n.children = children
            kept.append(n)
    return kept


def _display(
    nodes: list[TreeNode], options: dict[str, Any], depth: int, require_account: bool
) -> list[TreeNode]:
    shown: list[TreeNode] = []
    trim = list(options.get("trim_name_regexes", []))
    for n in nodes:
        show = _passes(n, options, depth) and (
            n.account or not require_account or n.name == ROOT_NAME
        )
        children: list[TreeNode] = []
        if not (trim and _full_match(trim, n.name)) and depth <= int(
            options.get("max_depth", 10000)
        ):
            children = _display(n.children, options, depth + 1, require_account)
        if show:
            if options.get("account_displayed_op_only", False):
                n.reset()
                n.add_self()
                for c in children:
                    n.aggregate(c)
            n.children = _sort(children, options)
            shown.append(n)
        else:
            shown.extend(children)
    return shown


def build_view(root: TreeNode, options: dict[str, Any], require_account: bool = False) -> TreeNode:
    """Accounts, filters and sorts a scope or graph tree; returns its root. The graph view
    shows accounted nodes only; the scope view also the scopes above them."""
    roots = _account(_start_roots(root, options), options)
    root.reset()
    for n in roots:
        root.aggregate(n)
    root.children = roots
    _display([root], options, 0, require_account)
    return root


# ---- results -----------------------------------------------------------------------------
def to_graph_node_proto(node: TreeNode) -> tfprof_output_pb2.GraphNodeProto:
    p = tfprof_output_pb2.GraphNodeProto(name=node.name)
    s = node.stats
    if node.account and not s.pseudo:
        p.parameters = s.parameters
        p.float_ops = s.float_ops
        p.run_count = s.run_count
        p.exec_micros = s.exec_micros
        p.cpu_exec_micros = s.cpu_exec_micros
        p.accelerator_exec_micros = s.accelerator_exec_micros
        p.requested_bytes = s.requested_bytes
        p.output_bytes = s.output_bytes
        p.devices.extend(s.devices)
    t = node.totals
    p.total_parameters = t["parameters"]
    p.total_float_ops = t["float_ops"]
    p.total_run_count = t["run_count"]
    p.total_exec_micros = t["exec_micros"]
    p.total_cpu_exec_micros = t["cpu_exec_micros"]
    p.total_accelerator_exec_micros = t["accelerator_exec_micros"]
    p.total_requested_bytes = t["requested_bytes"]
    p.total_output_bytes = t["output_bytes"]
    p.total_definition_count = node.definitions
    for i, shape in s.input_shapes.items():
        p.input_shapes[i].CopyFrom(shape)
    for c in node.children:
        p.children.append(to_graph_node_proto(c))
    return p


def op_view(
    stats: dict[str, NodeStats], options: dict[str, Any]
) -> tuple[
    tfprof_output_pb2.MultiGraphNodeProto,
    list[tuple[str, dict[str, int], dict[str, int]]],
    dict[str, int],
]:
    """Ops grouped by their op type, counting the ops accounted (any of their types, the
    ones an op log or trainable variables add included, matches account_type_regexes); the
    groups come as a chain (each the child of the one before), as TF's."""
    groups: dict[str, list[NodeStats]] = {}
    for s in stats.values():
        if _accounted(s, options):
            groups.setdefault(s.op_types[0], []).append(s)
    rows: list[tuple[str, dict[str, int], list[NodeStats]]] = []
    for t, members in groups.items():
        totals = dict.fromkeys(_TOTALS, 0)
        for m in members:
            for k in _TOTALS:
                totals[k] += getattr(m, k)
        probe = TreeNode(NodeStats(t, [t]))
        for k in _TOTALS:
            setattr(probe.stats, k, totals[k])
        if not _passes(probe, options, 1):
            continue
        rows.append((t, totals, members))
    order = options.get("order_by", "name")
    key_of: dict[str, Callable[[dict[str, int]], int]] = {
        "params": lambda x: x["parameters"],
        "float_ops": lambda x: x["float_ops"],
        "micros": lambda x: x["exec_micros"],
        "bytes": lambda x: x["requested_bytes"],
        "occurrence": lambda x: x["run_count"],
    }
    if order in key_of:
        rows.sort(key=lambda r: (-key_of[order](r[1]), r[0]))
    else:
        rows.sort(key=lambda r: r[0])
    root = tfprof_output_pb2.MultiGraphNodeProto(name=ROOT_NAME)
    grand = dict.fromkeys(_TOTALS, 0)
    for _, totals, _m in rows:
        for k in _TOTALS:
            grand[k] += totals[k]
    _set_multi_totals(root, grand)
    table = []
    parent = root
    remaining = dict(grand)
    for t, totals, members in rows:
        node = tfprof_output_pb2.MultiGraphNodeProto(name=t)
        node.parameters = totals["parameters"]
        node.float_ops = totals["float_ops"]
        node.exec_micros = totals["exec_micros"]
        node.cpu_exec_micros = totals["cpu_exec_micros"]
        node.accelerator_exec_micros = totals["accelerator_exec_micros"]
        node.requested_bytes = totals["requested_bytes"]
        node.output_bytes = totals["output_bytes"]
        _set_multi_totals(node, remaining)
        for m in sorted(members, key=lambda m: m.name):
            leaf = TreeNode(m, account=True)
            leaf.reset()
            leaf.add_self()
            node.graph_nodes.append(to_graph_node_proto(leaf))
        table.append((t, dict(totals, definitions=len(members)), dict(remaining)))
        remaining = {k: remaining[k] - totals[k] for k in _TOTALS}
        parent.children.append(node)
        parent = parent.children[-1]
    return root, table, grand


def _set_multi_totals(node: tfprof_output_pb2.MultiGraphNodeProto, t: dict[str, int]) -> None:
    node.total_parameters = t["parameters"]
    node.total_float_ops = t["float_ops"]
    node.total_exec_micros = t["exec_micros"]
    node.total_cpu_exec_micros = t["cpu_exec_micros"]
    node.total_accelerator_exec_micros = t["accelerator_exec_micros"]
    node.total_requested_bytes = t["requested_bytes"]
    node.total_output_bytes = t["output_bytes"]


__all__ = ["TreeNode", "build_view", "graph_tree", "op_view", "scope_tree", "to_graph_node_proto"]
