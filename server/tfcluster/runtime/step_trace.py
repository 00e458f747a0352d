"""What a step traced with RunOptions(trace_level=FULL_TRACE) records, per device: each node's
start and duration, its timeline label ("name = Op(input, ^control)", as TensorFlow's executor
writes it) and a description of every output (dtype, shape, bytes). The Chrome-trace
timeline (tf.train.ProfilerHook) is drawn from these."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.protos import step_stats_pb2, tensor_description_pb2
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.resources import VariableRef

SOURCE_NODE = "_SOURCE"


def timeline_label(node: Node) -> str:
    inputs = [src if idx == 0 else f"{src}:{idx}" for src, idx in node.inputs]
    inputs += ["^" + c for c in node.control_inputs]
    return f"{node.name} = {node.op}({', '.join(inputs)})"


def timeline_labels(nodes: Iterable[Node]) -> dict[str, str]:
    labels = {n.name: timeline_label(n) for n in nodes}
    labels.setdefault(SOURCE_NODE, f"{SOURCE_NODE} = NoOp()")
    return labels


def _allocator_name(device: str) -> str:
    """TensorFlow's allocator names: "cpu", "GPU_<n>_bfc"."""
    marker = "/device:GPU:"
    i = device.find(marker)
    if i < 0:
        return "cpu"
    return f"GPU_{device[i + len(marker) :]}_bfc"


def describe_output(value: Any, allocator: str) -> tensor_description_pb2.TensorDescription | None:
    """dtype, shape and size of one output value (a variable's output: its buffer)."""
    if isinstance(value, VariableRef):
        value = value.value
    dtype = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    if dtype is None or shape is None:
        return None
    desc = tensor_description_pb2.TensorDescription()
    with contextlib.suppress(TypeError, ValueError):  # else DT_INVALID: a type TF lacks
        desc.dtype = dtypes.as_dtype(dtype).as_datatype_enum
    for size in shape:
        desc.shape.dim.add(size=int(size))
    nbytes = int(getattr(value, "nbytes", 0))
    alloc = desc.allocation_description
    alloc.requested_bytes = nbytes
    alloc.allocated_bytes = nbytes
    alloc.allocator_name = allocator
    return desc


class StepTrace:
    """Collects the nodes one executor ran in a traced step (outputs described at once: the
    trace holds no arrays, which in-place updates would otherwise have to copy)."""

    def __init__(self, devices: Sequence[str], labels: dict[str, str]) -> None:
        self.start = time.time()
        self._labels = labels
        self._thread_id = threading.get_ident() & 0xFFFFFFFF
        self.by_device: dict[str, list[tuple[str, float, float, list[Any]]]] = {
            d: [(SOURCE_NODE, self.start, self.start, [])] for d in devices
        }

    def add(self, step: Any, t0: float, t1: float, outputs: Any = None) -> None:
        """step: what ran (its .name and .device)."""
        entries = self.by_device.get(step.device)
        if entries is None:
            entries = self.by_device[step.device] = [(SOURCE_NODE, self.start, self.start, [])]
        allocator = _allocator_name(step.device)
        descs = [describe_output(v, allocator) for v in outputs or ()]
        entries.append((step.name, t0, t1, descs))

    def to_protos(self) -> list[step_stats_pb2.DeviceStepStats]:
        out = []
        for device, entries in self.by_device.items():
            ds = step_stats_pb2.DeviceStepStats(device=device)
            for name, t0, t1, descs in entries:
                duration = int((t1 - t0) * 1e6)
                ns = ds.node_stats.add(
                    node_name=name,
                    all_start_micros=int(t0 * 1e6),
                    op_start_rel_micros=0,
                    op_end_rel_micros=duration,
                    all_end_rel_micros=duration,
                    timeline_label=self._labels.get(name, ""),
                    thread_id=self._thread_id,
                )
                for slot, desc in enumerate(descs):
                    if desc is not None:
                        ns.output.add(slot=slot, tensor_description=desc)
            out.append(ds)
        return out


__all__ = ["SOURCE_NODE", "StepTrace", "describe_output", "timeline_label", "timeline_labels"]
