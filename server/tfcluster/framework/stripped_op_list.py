"""The OpDefs a GraphDef uses, and its default-valued attrs, as a MetaGraphDef carries them
(TF's meta_graph.stripped_op_list_for_graph and strip_graph_default_valued_attrs): the
producer's OpDefs let a consumer drop attrs it does not know whose value is the producer's
default, which is how graphs move between TensorFlow versions."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import op_def_protos
from tfcluster.protos import graph_pb2, meta_graph_pb2, op_def_pb2


def ops_used_by_graph_def(graph_def: graph_pb2.GraphDef) -> list[str]:
    """The op types of the graph's nodes and of the library functions they call (through
    calls in functions too); the functions' own names left out."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used: set[str] = set()
    pending: list[Any] = []

    def mark(op_type: str) -> None:
        if op_type not in used and op_type in functions:
            pending.append(functions[op_type])
        used.add(op_type)

    for node in graph_def.node:
        mark(node.op)
    while pending:
        for node in pending.pop().node_def:
            mark(node.op)
    return [op for op in used if op not in functions]


def stripped_op_list_for_graph(graph_def: graph_pb2.GraphDef) -> op_def_pb2.OpList:
    """TF 1.15's OpDef of every op the graph uses, sorted by name. Op types TF has no OpDef
    for (function-internal ones such as _Arg) are left out, as TF leaves them."""
    op_list = op_def_pb2.OpList()
    for op_type in sorted(ops_used_by_graph_def(graph_def)):
        op_def = op_def_protos.op_def(op_type)
        if op_def is not None:
            op_list.op.append(op_def)
    return op_list


def _strip_node(node: Any, functions: set[str]) -> None:
    if node.op in functions:
        return
    op_def = op_def_protos.op_def(node.op)
    if op_def is None:
        return
    defaults = {a.name: a.default_value for a in op_def.attr if a.HasField("default_value")}
    for name in [n for n, value in node.attr.items() if defaults.get(n) == value]:
        del node.attr[name]


def strip_default_valued_attrs(meta_graph_def: meta_graph_pb2.MetaGraphDef) -> None:
    """Removes the attrs equal to their OpDef's default from every node of the graph and of
    its library functions, and says so in meta_info_def.stripped_default_attrs."""
    library = meta_graph_def.graph_def.library
    functions = {f.signature.name for f in library.function}
    for node in meta_graph_def.graph_def.node:
        _strip_node(node, functions)
    for function in library.function:
        for node in function.node_def:
            _strip_node(node, functions)
    meta_graph_def.meta_info_def.stripped_default_attrs = True


def without_unknown_default_attrs(
    graph_def: graph_pb2.GraphDef, producer_op_list: op_def_pb2.OpList
) -> graph_pb2.GraphDef:
    """The graph without the attrs TF 1.15's OpDefs lack whose value is the producer's
    default (a newer TensorFlow's new attrs, left at their defaults); the graph itself when
    there are none."""
    producer = {op.name: op for op in producer_op_list.op}
    changes: list[tuple[int, list[str]]] = []
    for index, node in enumerate(graph_def.node):
        produced = producer.get(node.op)
        known = op_def_protos.op_def(node.op)
        if produced is None or known is None:
            continue
        known_names = {a.name for a in known.attr}
        defaults = {a.name: a.default_value for a in produced.attr if a.HasField("default_value")}
        dropped = [
            name
            for name, value in node.attr.items()
            if name not in known_names and not name.startswith("_") and defaults.get(name) == value
        ]
        if dropped:
            changes.append((index, dropped))
    if not changes:
        return graph_def
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for index, dropped in changes:
        for name in dropped:
            del out.node[index].attr[name]
    return out
