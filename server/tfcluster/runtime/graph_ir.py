"""The runtime's view of a graph: plain nodes with Python attr values.

The master and workers work on these, whether they came from a local tf.Graph (no proto
round trip, which keeps local steps cheap) or from a GraphDef sent over gRPC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tfcluster.framework import attr_values, errors, function_library, op_def_registry
from tfcluster.framework.graph import Operation
from tfcluster.framework.graph_io import input_name, parse_input
from tfcluster.protos import graph_pb2, node_def_pb2


@dataclass(slots=True)
class Node:
    name: str
    op: str
    inputs: list[tuple[str, int]]
    control_inputs: list[str]
    device: str
    attrs: dict[str, Any] = field(default_factory=dict)

    def input_tensor_names(self) -> list[str]:
        return [f"{src}:{idx}" for src, idx in self.inputs]

    def to_node_def(self) -> node_def_pb2.NodeDef:
        nd = node_def_pb2.NodeDef(name=self.name, op=self.op, device=self.device)
        nd.input.extend(src if idx == 0 else f"{src}:{idx}" for src, idx in self.inputs)
        nd.input.extend("^" + c for c in self.control_inputs)
        for key, value in self.attrs.items():
            nd.attr[key].CopyFrom(attr_values.to_proto(value))
        return nd


def node_from_operation(op: Operation) -> Node:
    return Node(
        name=op.name,
        op=op.type,
        inputs=[(t.op.name, t.value_index) for t in op.inputs],
        control_inputs=[c.name for c in op.control_inputs],
        device=op.device,
        attrs=op.attrs,
    )


def node_from_node_def(nd: node_def_pb2.NodeDef) -> Node:
    """Validates one NodeDef (known op, well-formed inputs) as it arrives from a client."""
    if not nd.name:
        raise errors.InvalidArgumentError(None, None, "NodeDef with an empty name")
    if op_def_registry.lookup(nd.op) is None:
        raise errors.NotFoundError(
            None, None, f"Op type not registered '{nd.op}' (node '{nd.name}')"
        )
    inputs: list[tuple[str, int]] = []
    controls: list[str] = []
    seen_control = False
    for raw in nd.input:
        src, idx, is_control = parse_input(raw)
        if not src:
            raise errors.InvalidArgumentError(
                None, None, f"Node '{nd.name}' has a malformed input '{raw}'"
            )
        if is_control:
            seen_control = True
            controls.append(src)
        elif seen_control:
            raise errors.InvalidArgumentError(
                None, None, f"Node '{nd.name}': data input '{raw}' after a control input"
            )
        else:
            inputs.append((src, idx))
    try:
        attrs = {k: attr_values.from_proto(k, v) for k, v in nd.attr.items()}
    except (ValueError, TypeError) as e:
        raise errors.InvalidArgumentError(None, None, f"Node '{nd.name}': bad attr: {e}") from e
    except errors.OpError as e:  # a tensor attr too big for the memory budget, say
        raise type(e)(None, None, f"Node '{nd.name}' ({nd.op}): {e.message}") from None
    attrs.pop("_output_shapes", None)
    return Node(nd.name, nd.op, inputs, controls, nd.device, attrs)


def nodes_from_graph_def(gd: graph_pb2.GraphDef) -> list[Node]:
    """The GraphDef's nodes; one in TF's form (a TF client's, with a function library) gets
    its bodies into its func attrs first."""
    if function_library.needs_import(gd):
        gd = function_library.from_library_form(gd)
    return [node_from_node_def(nd) for nd in gd.node]


def graph_def_from_nodes(nodes: list[Node]) -> graph_pb2.GraphDef:
    gd = graph_pb2.GraphDef()
    gd.node.extend(n.to_node_def() for n in nodes)
    return gd


def tensor_name(src: str, idx: int) -> str:
    return f"{src}:{idx}"


def split_tensor_name(name: str) -> tuple[str, int]:
    op_name, sep, idx = name.rpartition(":")
    if not sep or not idx.isdigit():
        return name, 0
    return op_name, int(idx)


__all__ = [
    "Node",
    "graph_def_from_nodes",
    "input_name",
    "node_from_node_def",
    "node_from_operation",
    "nodes_from_graph_def",
    "split_tensor_name",
    "tensor_name",
]
