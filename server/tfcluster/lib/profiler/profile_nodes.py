"""The per-node statistics tf.profiler reports: one record per graph op, from the graph
(parameters, FLOPs, op types, input shapes), an optional OpLogProto (extra types and FLOPs)
and optional RunMetadata (run counts, execution time, output bytes, devices)."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any

from tfcluster.framework.graph import Graph, GraphKeys, Operation
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.profiler import flops as flops_stats
from tfcluster.protos import tensor_shape_pb2, tfprof_log_pb2

TRAINABLE_VARIABLES_TYPE = "_trainable_variables"
SCOPE_PARENT_TYPE = "_kTFScopeParent"
ROOT_NAME = "_TFProfRoot"


@dataclass
class NodeStats:
    name: str
    op_types: list[str]
    shape: list[int] = field(default_factory=list)
    parameters: int = 0
    float_ops: int = 0
    input_shapes: dict[int, tensor_shape_pb2.TensorShapeProto] = field(default_factory=dict)
    run_count: int = 0
    exec_micros: int = 0
    cpu_exec_micros: int = 0
    accelerator_exec_micros: int = 0
    requested_bytes: int = 0
    output_bytes: int = 0
    devices: list[str] = field(default_factory=list)
    pseudo: bool = False  # a name scope with no op of its own


def _shape_attr(op: Operation) -> list[int]:
    """The op's "shape" attr (variables, placeholders): what TF counts parameters from."""
    shape = op.attrs.get("shape")
    if shape is None:
        return []
    s = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
    if s.ndims is None:
        return []
    return [-1 if d is None else int(d) for d in s.as_list()]


def _parameters(shape: list[int]) -> int:
    if not shape or any(d < 0 for d in shape):
        return 0
    return prod(shape)


def _shape_proto(t: Any) -> tensor_shape_pb2.TensorShapeProto:
    proto = tensor_shape_pb2.TensorShapeProto()
    shape = t.shape
    if shape.ndims is None:
        proto.unknown_rank = True
        return proto
    for d in shape.as_list():
        proto.dim.add(size=-1 if d is None else int(d))
    return proto


def collect(
    graph: Graph, run_meta: Any = None, op_log: tfprof_log_pb2.OpLogProto | None = None
) -> dict[str, NodeStats]:
    """Statistics of every op of `graph`, by op name."""
    trainable = {
        v.op.name
        for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        if getattr(v, "op", None) is not None
    }
    nodes: dict[str, NodeStats] = {}
    for op in graph.get_operations():
        types = [op.type]
        if op.name in trainable:
            types.append(TRAINABLE_VARIABLES_TYPE)
        shape = _shape_attr(op)
        node = NodeStats(op.name, types, shape, _parameters(shape))
        node.float_ops = flops_stats.flops(op) or 0
        for i, t in enumerate(op.inputs):
            node.input_shapes[i] = _shape_proto(t)
        nodes[op.name] = node
    if op_log is not None:
        for entry in op_log.log_entries:
            logged = nodes.get(entry.name)
            if logged is None:
                continue
            node = logged
            if entry.float_ops:
                node.float_ops = int(entry.float_ops)
            for t in entry.types:
                if t not in node.op_types:
                    node.op_types.append(t)
    if run_meta is not None:
        _add_run_metadata(nodes, run_meta)
    return nodes


def _add_run_metadata(nodes: dict[str, NodeStats], run_meta: Any) -> None:
    for dev in run_meta.step_stats.dev_stats:
        accelerator = "/device:GPU:" in dev.device or "/gpu:" in dev.device.lower()
        for ns in dev.node_stats:
            name = ns.node_name.split(":")[0]
            node = nodes.get(name)
            if node is None:
                continue
            micros = max(int(ns.all_end_rel_micros), 0)
            node.run_count += 1
            node.exec_micros += micros
            if accelerator:
                node.accelerator_exec_micros += micros
            else:
                node.cpu_exec_micros += micros
            for out in ns.output:
                desc = out.tensor_description
                alloc = getattr(desc, "allocation_description", None)
                n = int(getattr(alloc, "requested_bytes", 0) or 0) if alloc is not None else 0
                node.requested_bytes += n
                node.output_bytes += n
            if dev.device and dev.device not in node.devices:
                node.devices.append(dev.device)


__all__ = [
    "NodeStats",
    "ROOT_NAME",
    "SCOPE_PARENT_TYPE",
    "TRAINABLE_VARIABLES_TYPE",
    "collect",
]
