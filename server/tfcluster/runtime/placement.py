"""Assigns every node a full device name: colocation groups, explicit devices, then defaults.

Default placement, as in TensorFlow 1.x: a node with no job goes to the first task of the
cluster (jobs sorted by name, lowest index), so same-named variables are shared by every
session.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tfcluster.framework import (
    attr_summaries,
    attr_values,
    device_spec,
    errors,
    op_def_registry,
    op_signatures,
)
from tfcluster.protos import attr_value_pb2
from tfcluster.runtime import kernel_table
from tfcluster.runtime.graph_ir import Node


@dataclass(frozen=True)
class TaskDevices:
    """What one task offers: device type -> count (CPU is always 1)."""

    job: str
    task: int
    counts: Mapping[str, int]

    @property
    def name(self) -> str:
        return f"/job:{self.job}/replica:0/task:{self.task}"


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def limit_devices(tasks: list[TaskDevices], device_count: Mapping[str, int]) -> list[TaskDevices]:
    """ConfigProto.device_count: at most that many devices of a type per task (e.g. {"GPU": 0}
    keeps a session on the CPUs); every task keeps its CPU."""
    limits = {k.upper(): int(v) for k, v in device_count.items() if k.upper() != "CPU"}
    if not limits:
        return tasks
    return [
        TaskDevices(
            t.job, t.task, {k: min(n, limits[k]) if k in limits else n for k, n in t.counts.items()}
        )
        for t in tasks
    ]


def default_task(tasks: Iterable[TaskDevices]) -> TaskDevices:
    return min(tasks, key=lambda t: (t.job, t.task))


def place(
    nodes: Mapping[str, Node],
    needed: Iterable[str],
    tasks: list[TaskDevices],
    allow_soft_placement: bool = False,
    prefer_gpu: bool = True,
) -> dict[str, str]:
    """node name -> '/job:J/replica:0/task:T/device:TYPE:I' for every needed node."""
    needed = list(needed)
    _check_some_kernel(nodes, needed, tasks)
    by_task = {(t.job, t.task): t for t in tasks}
    fallback = default_task(tasks)
    uf = _UnionFind()
    for name in needed:
        node = nodes[name]
        uf.find(name)
        for group in node.attrs.get("_class", ()) or ():
            if isinstance(group, bytes) and group.startswith(b"loc:@"):
                target = group[5:].decode()
                if target in nodes:
                    uf.union(target, name)
        op_def = op_def_registry.lookup(node.op)
        if op_def is not None:
            for i in op_def.ref_inputs:
                if i < len(node.inputs):
                    uf.union(node.inputs[i][0], name)
        for src, _ in node.inputs:
            # A resource variable's handle passed on (Identity, Switch): its consumer goes
            # with it, as TF's placer colocates every resource edge.
            if src in nodes and nodes[src].op in _HANDLE_OPS:
                uf.union(src, name)

    groups: dict[str, list[str]] = {}
    for name in needed:
        groups.setdefault(uf.find(name), []).append(name)

    placement: dict[str, str] = {}
    for root, members in groups.items():
        ordered = [root, *[m for m in members if m != root]] if root in nodes else members
        spec = _merge_group(ordered, nodes, allow_soft_placement)
        device = _resolve(spec, ordered, nodes, by_task, fallback, allow_soft_placement, prefer_gpu)
        for m in members:
            placement[m] = device
    return placement


def _merge_group(
    members: list[str], nodes: Mapping[str, Node], allow_soft: bool
) -> device_spec.DeviceSpec:
    merged = device_spec.DeviceSpec()
    first_with_device = None
    for m in members:
        node = nodes.get(m)
        if node is None or not node.device:
            continue
        spec = device_spec.parse(node.device)
        if (_ref_consumer(node) or _takes_handle(node, nodes)) and _conflicts(merged, spec):
            # As TF's placer: a node reading a reference goes where the reference lives,
            # ignoring its own device ("... because the input edge ... is a reference
            # connection"), e.g. SyncReplicasOptimizer's assign to the worker's local step.
            continue
        for field in ("job", "task", "device_type"):
            a, b = getattr(merged, field), getattr(spec, field)
            if a is not None and b is not None and a != b and not allow_soft:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot colocate nodes '{first_with_device}' and '{m}': Cannot merge "
                    f"devices with incompatible {field}s: '{merged}' and '{spec}'",
                )
        if first_with_device is None:
            first_with_device = m
        # Earlier members win: the colocation target's device comes first.
        merged = spec.make_merged_spec(merged) if merged != device_spec.DeviceSpec() else spec
    return merged


# Ops whose output is a resource variable's handle.
_HANDLE_OPS = frozenset({"VarHandleOp"})


def _takes_handle(node: Node, nodes: Mapping[str, Node]) -> bool:
    return any(src in nodes and nodes[src].op in _HANDLE_OPS for src, _ in node.inputs)


def _ref_consumer(node: Node) -> bool:
    op_def = op_def_registry.lookup(node.op)
    return bool(op_def is not None and op_def.ref_inputs)


def _conflicts(a: device_spec.DeviceSpec, b: device_spec.DeviceSpec) -> bool:
    return any(
        getattr(a, f) is not None and getattr(b, f) is not None and getattr(a, f) != getattr(b, f)
        for f in ("job", "task", "device_type")
    )


def _resolve(
    spec: device_spec.DeviceSpec,
    members: list[str],
    nodes: Mapping[str, Node],
    by_task: Mapping[tuple[str, int], TaskDevices],
    fallback: TaskDevices,
    allow_soft: bool,
    prefer_gpu: bool,
) -> str:
    job = spec.job
    task = spec.task
    if job is None:
        job, task = fallback.job, fallback.task if task is None else task
    if task is None:
        indices = sorted(i for (j, i) in by_task if j == job)
        task = indices[0] if indices else 0
    target = by_task.get((job, task))
    if target is None or spec.replica not in (None, 0):
        # Soft placement relaxes only the device type and index, as TF's: never the task.
        raise _no_such_device(members[0], spec, by_task)
    # Kernels are chosen per node: a GPU kernel may not take the node's dtypes (strings).
    placed = [nodes[m] for m in members if m in nodes]
    dtype = spec.device_type
    if dtype is None:
        gpu_ok = target.counts.get("GPU", 0) > 0 and all(
            kernel_table.supports(n.op, "GPU", n.attrs) for n in placed
        )
        dtype = "GPU" if prefer_gpu and gpu_ok else "CPU"
    index = spec.device_index if spec.device_index is not None else 0
    available = target.counts.get(dtype, 0)
    missing_kernel = [n.op for n in placed if not kernel_table.supports(n.op, dtype, n.attrs)]
    if index >= available or missing_kernel:
        if not allow_soft and index >= available:
            raise _no_such_device(members[0], spec, by_task)
        if not allow_soft:
            raise _no_kernel(members, spec, dtype, placed, target)
        dtype, index = "CPU", 0
    return device_spec.full_device_name(target.job, target.task, dtype, index)


def _check_some_kernel(
    nodes: Mapping[str, Node], needed: list[str], tasks: list[TaskDevices]
) -> None:
    """As TF 1.15's placer, before it colocates anything: a node whose op has a kernel on no
    device type of the session (an op TF 1.15's CPU build defines without any kernel: TPU
    ops, MKL-only ops) fails with the op's registered kernels, none."""
    types = sorted({kind for t in tasks for kind, count in t.counts.items() if count > 0})
    for name in needed:
        node = nodes[name]
        if not op_signatures.tf_has_no_kernel(node.op):
            continue
        if any(kernel_table.supports(node.op, kind, node.attrs) for kind in types):
            continue
        attrs = ", ".join(f"{key}={_summary(value)}" for key, value in sorted(node.attrs.items()))
        raise errors.InvalidArgumentError(
            None,
            None,
            f"No OpKernel was registered to support Op '{node.op}' used by "
            f"{{{{node {node.name}}}}}with these attrs: [{attrs}]\n"
            f"Registered devices: [{', '.join(types)}]\n"
            "Registered kernels:\n"
            "  <no registered kernels>\n"
            f"\n\t [[{node.name}]]",
        )


# What tfcluster's function attrs carry beside TF's (the function's body), left out of what TF
# prints of them.
_FUNCTION_BODY_ATTRS = ("graph_def", "exports", "accumulate", "sliced_captures")


def _summary(value: object) -> str:
    """An attr's value as TF's error message writes it; a value no AttrValue holds (a
    client's malformed string, undecodable bytes) as its repr: the error must still be
    InvalidArgument."""
    try:
        return attr_summaries.summarize_attr_value(_as_tf_attr(value))
    except (TypeError, ValueError, UnicodeError):
        return repr(value)


def _as_tf_attr(value: object) -> attr_value_pb2.AttrValue:
    proto = attr_values.to_proto(value)
    funcs = [proto.func] if proto.HasField("func") else list(proto.list.func)
    for func in funcs:
        for key in _FUNCTION_BODY_ATTRS:
            if key in func.attr:
                del func.attr[key]
    return proto


def _no_kernel(
    members: list[str],
    spec: device_spec.DeviceSpec,
    dtype: str,
    placed: list[Node],
    target: TaskDevices,
) -> errors.OpError:
    """TF 1.15's placer error for a colocation group asked onto a device type that has no
    kernel for one of its nodes: each op type of the group with the device types that take
    it, then the members and their requested devices."""
    types: dict[str, list[str]] = {}
    for n in placed:
        kinds = [
            k
            for k in _KERNEL_DEVICE_TYPES
            if k in target.counts and kernel_table.supports(n.op, k, n.attrs)
        ]
        types.setdefault(n.op, kinds)
    lines = [
        f"Cannot assign a device for operation {members[0]}: Could not satisfy explicit device "
        f"specification '{spec}' because no supported kernel for {dtype} devices is available.",
        "Colocation Debug Info:",
        "Colocation group had the following types and supported devices: ",
        *(f"{op}: {' '.join(kinds)} " for op, kinds in types.items()),
        "",
        "Colocation members, user-requested devices, and framework assigned devices, if any:",
        *(f"  {n.name} ({n.op}) {n.device}" for n in placed),
        "",
        f"\t [[{members[0]}]]",
    ]
    return errors.InvalidArgumentError(None, None, "\n".join(lines))


# The device types a node's supported kinds are listed among, in TF's order.
_KERNEL_DEVICE_TYPES = ("CPU", "GPU", "XLA_CPU")


# The order TF 1.15 lists a task's devices in: its CPUs, the XLA_CPU device, then the rest.
_LISTING_ORDER = {"CPU": 0, "XLA_CPU": 1}


def _no_such_device(
    node: str, spec: device_spec.DeviceSpec, by_task: Mapping[tuple[str, int], TaskDevices]
) -> errors.OpError:
    """TF 1.15's placer error for a device the cluster lacks: every device it has."""
    devices = [
        device_spec.full_device_name(t.job, t.task, kind, i)
        for t in sorted(by_task.values(), key=lambda t: (t.job, t.task))
        for kind in sorted(t.counts, key=lambda k: (_LISTING_ORDER.get(k, 2), k))
        for i in range(t.counts[kind])
    ]
    message = (
        f"Cannot assign a device for operation {node}: {{{{node {node}}}}} was explicitly "
        f"assigned to {spec} but available devices are [ {', '.join(devices)} ]. Make sure "
        "the device specification refers to a valid device."
    )
    if spec.device_type == "GPU" and not any(t.counts.get("GPU") for t in by_task.values()):
        message += " The requested device appears to be a GPU, but CUDA is not enabled."
    message += f"\n\t [[{node}]]"
    return errors.InvalidArgumentError(None, None, message)


def task_of_device(device: str) -> str:
    """'/job:a/replica:0/task:1/device:CPU:0' -> '/job:a/replica:0/task:1'."""
    i = device.find("/device:")
    return device if i < 0 else device[:i]
