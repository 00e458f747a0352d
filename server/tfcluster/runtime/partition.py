"""Splits a placed graph into one partition per task, joined by _Send/_Recv pairs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.runtime.graph_ir import Node, split_tensor_name
from tfcluster.runtime.placement import task_of_device


@dataclass
class Partition:
    task: str
    nodes: list[Node] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    fetches: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    # The fetches leave the task (the master is elsewhere): fetched variables are read as
    # their op runs, as TF copies a tensor when it is sent.
    snapshot_ref_fetches: bool = False


# Constants up to this size are copied into the partitions of other tasks that read them.
MAX_COPIED_CONST_BYTES = 1 << 20


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-/]", "_", name)


def _tag(task: str) -> str:
    """A task as a name part: '/job:ps/replica:0/task:1' -> 'job_ps_replica_0_task_1'."""
    return _safe(task.strip("/").replace("/", "_"))


class _Partitioner:
    """The state of one partitioning: the partitions so far and the Send/Recv pairs and
    control joins already made, so each crossing is made once per (tensor, destination)."""

    def __init__(
        self,
        nodes: Mapping[str, Node],
        placement: Mapping[str, str],
        dtype_of: Mapping[str, dtypes.DType],
    ) -> None:
        self.nodes = nodes
        self.devices = dict(placement)  # and the control joins this adds
        self.dtype_of = dtype_of
        self.parts: dict[str, Partition] = {}
        self.recv_for: dict[tuple[str, str], str] = {}  # (tensor or ^node, dst task) -> recv
        self.joins: dict[tuple[tuple[str, ...], str], str] = {}  # (controls, dst task) -> NoOp
        self.copies: dict[tuple[str, str], str] = {}  # (Const, dst task) -> its copy there

    def part(self, task: str) -> Partition:
        p = self.parts.get(task)
        if p is None:
            p = self.parts[task] = Partition(task)
        return p

    def task_of(self, name: str) -> str:
        return task_of_device(self.devices[name])

    # ---- crossings ------------------------------------------------------------------------
    def cross(self, src: str, idx: int, dst_task: str, dst_device: str, control: bool) -> str:
        """The Recv on `dst_task` that delivers `src:idx` (or `^src`), made once per pair."""
        tensor = f"^{src}" if control else f"{src}:{idx}"
        key = (tensor, dst_task)
        if key in self.recv_for:
            return self.recv_for[key]
        src_device = self.devices[src]
        base = _safe(tensor.replace("^", "ctrl_").replace(":", "_"))
        attrs = {
            "tensor_name": tensor,
            "send_device": src_device,
            "recv_device": dst_device,
            "client_terminated": False,
        }
        self._add_send(src, idx, control, base, dst_task, attrs)
        recv_name = f"_recv/{base}/{_tag(task_of_device(src_device))}"
        recv_attrs = dict(attrs)
        recv_attrs["tensor_type"] = dtypes.int32 if control else self.dtype_of[tensor]
        self.part(dst_task).nodes.append(Node(recv_name, "_Recv", [], [], dst_device, recv_attrs))
        self.recv_for[key] = recv_name
        return recv_name

    def _add_send(
        self, src: str, idx: int, control: bool, base: str, dst_task: str, attrs: dict[str, Any]
    ) -> None:
        """The _Send on the source's task; a control edge sends a scalar made after `src`."""
        src_device = self.devices[src]
        src_part = self.part(task_of_device(src_device))
        send_input = (src, idx)
        if control:
            dummy = f"_ctrl/{base}/{_tag(dst_task)}"
            value = {"value": np.zeros((), np.int32), "dtype": dtypes.int32}
            src_part.nodes.append(Node(dummy, "Const", [], [src], src_device, value))
            send_input = (dummy, 0)
        send_name = f"_send/{base}/{_tag(dst_task)}"
        src_part.nodes.append(Node(send_name, "_Send", [send_input], [], src_device, dict(attrs)))
        src_part.targets.append(send_name)

    def join(self, group: tuple[str, ...], dst_task: str) -> str:
        """A NoOp on the group's task that waits for all of `group`: one message crosses."""
        key = (group, dst_task)
        name = self.joins.get(key)
        if name is None:
            src_device = self.devices[group[0]]
            name = f"_ctrl_join/{_safe(group[0])}/{len(self.joins)}/{_tag(dst_task)}"
            self.part(task_of_device(src_device)).nodes.append(
                Node(name, "NoOp", [], list(group), src_device, {})
            )
            # cross() reads the join's placement like any node's.
            self.devices[name] = src_device
            self.joins[key] = name
        return name

    # ---- nodes, fetches, targets ----------------------------------------------------------
    def add_node(self, node: Node, device: str, fed: set[str]) -> None:
        """Copies `node` into its task's partition with remote inputs replaced by Recvs."""
        task = task_of_device(device)
        inputs = self._data_inputs(node, task, device, fed)
        controls = self._control_inputs(node, task, device)
        self.part(task).nodes.append(Node(node.name, node.op, inputs, controls, device, node.attrs))
        for t in node.input_tensor_names():
            if t in fed and t not in self.part(task).feeds:
                self.part(task).feeds.append(t)

    def _data_inputs(
        self, node: Node, task: str, device: str, fed: set[str]
    ) -> list[tuple[str, int]]:
        """Fed and same-task inputs stay; the others come from a Recv."""
        inputs: list[tuple[str, int]] = []
        for src, idx in node.inputs:
            if f"{src}:{idx}" in fed or self.task_of(src) == task:
                inputs.append((src, idx))
            elif self._copyable(src, fed):
                inputs.append((self.copy_const(src, task, device), 0))
            else:
                inputs.append((self.cross(src, idx, task, device, False), 0))
        return inputs

    def _copyable(self, src: str, fed: set[str]) -> bool:
        """A small constant read on another task is copied there rather than sent every
        step (its value cannot change; one without control inputs waits for nothing)."""
        node = self.nodes[src]
        if node.op != "Const" or node.control_inputs or f"{src}:0" in fed:
            return False
        value = node.attrs.get("value")
        return isinstance(value, np.ndarray) and value.nbytes <= MAX_COPIED_CONST_BYTES

    def copy_const(self, src: str, task: str, device: str) -> str:
        """The copy of Const `src` in `task`'s partition (one per task), on `device`."""
        key = (src, task)
        name = self.copies.get(key)
        if name is None:
            name = f"_const/{src}"
            node = self.nodes[src]
            attrs = {k: v for k, v in node.attrs.items() if k != "_class"}
            self.part(task).nodes.append(Node(name, "Const", [], [], device, attrs))
            self.devices[name] = device
            self.copies[key] = name
        return name

    def _control_inputs(self, node: Node, task: str, device: str) -> list[str]:
        """Same-task control inputs stay; each other task's ones cross as one message."""
        controls: list[str] = []
        remote: dict[str, list[str]] = {}  # source task -> its control inputs
        for c in node.control_inputs:
            if c not in self.devices:
                continue  # pruned: a fed Placeholder, whose value is there from the start
            src_task = self.task_of(c)
            if src_task == task:
                controls.append(c)
            else:
                remote.setdefault(src_task, []).append(c)
        for group in remote.values():
            # Several control inputs from one task: a NoOp there waits for all of them (the
            # node waits for all of them anyway).
            source = group[0] if len(group) == 1 else self.join(tuple(sorted(set(group))), task)
            controls.append(self.cross(source, 0, task, device, True))
        return controls

    def add_fetches(self, fetches: Sequence[str], fed: set[str]) -> None:
        """Each fetch is returned by the partition that computes it (fed ones by none)."""
        for t in fetches:
            if t in fed:
                continue
            src, _ = split_tensor_name(t)
            p = self.part(self.task_of(src))
            if t not in p.fetches:
                p.fetches.append(t)

    def add_targets(self, targets: Sequence[str]) -> None:
        for name in targets:
            self.part(self.task_of(name)).targets.append(name)


def partition(
    nodes: Mapping[str, Node],
    placement: Mapping[str, str],
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
    dtype_of: Mapping[str, dtypes.DType],
) -> dict[str, Partition]:
    """`placement` holds the needed nodes; `dtype_of` maps tensor names to dtypes (for Recv)."""
    fed = set(feeds)
    partitioner = _Partitioner(nodes, placement, dtype_of)
    for name, device in placement.items():
        partitioner.add_node(nodes[name], device, fed)
    partitioner.add_fetches(fetches, fed)
    partitioner.add_targets(targets)
    return partitioner.parts
