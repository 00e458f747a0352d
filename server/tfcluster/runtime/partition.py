"""Splits a placed graph into one partition per task, joined by _Send/_Recv pairs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-/]", "_", name)


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
    devices = dict(placement)  # and the control joins this adds
    parts: dict[str, Partition] = {}

    def part(task: str) -> Partition:
        p = parts.get(task)
        if p is None:
            p = parts[task] = Partition(task)
        return p

    recv_for: dict[tuple[str, str], str] = {}  # (tensor or ^node, dst task) -> recv node name

    def cross(src: str, idx: int, dst_task: str, dst_device: str, control: bool) -> str:
        tensor = f"^{src}" if control else f"{src}:{idx}"
        key = (tensor, dst_task)
        if key in recv_for:
            return recv_for[key]
        src_device = devices[src]
        src_part = part(task_of_device(src_device))
        base = _safe(tensor.replace("^", "ctrl_").replace(":", "_"))
        dst_tag = _safe(dst_task.strip("/").replace("/", "_"))
        send_input = (src, idx)
        if control:
            dummy = f"_ctrl/{base}/{dst_tag}"
            src_part.nodes.append(
                Node(
                    dummy,
                    "Const",
                    [],
                    [src],
                    src_device,
                    {"value": np.zeros((), np.int32), "dtype": dtypes.int32},
                )
            )
            send_input = (dummy, 0)
        attrs = {
            "tensor_name": tensor,
            "send_device": src_device,
            "recv_device": dst_device,
            "client_terminated": False,
        }
        send_name = f"_send/{base}/{dst_tag}"
        src_part.nodes.append(Node(send_name, "_Send", [send_input], [], src_device, dict(attrs)))
        src_part.targets.append(send_name)
        recv_name = f"_recv/{base}/{_safe(task_of_device(src_device).strip('/').replace('/', '_'))}"
        recv_attrs = dict(attrs)
        recv_attrs["tensor_type"] = dtypes.int32 if control else dtype_of[tensor]
        part(dst_task).nodes.append(Node(recv_name, "_Recv", [], [], dst_device, recv_attrs))
        recv_for[key] = recv_name
        return recv_name

    joins: dict[tuple[tuple[str, ...], str], str] = {}  # (control inputs, dst task) -> NoOp

    def join(group: tuple[str, ...], dst_task: str) -> str:
        key = (group, dst_task)
        name = joins.get(key)
        if name is None:
            src_device = devices[group[0]]
            dst_tag = _safe(dst_task.strip("/").replace("/", "_"))
            name = f"_ctrl_join/{_safe(group[0])}/{len(joins)}/{dst_tag}"
            part(task_of_device(src_device)).nodes.append(
                Node(name, "NoOp", [], list(group), src_device, {})
            )
            # cross() reads the join's placement like any node's.
            devices[name] = src_device
            joins[key] = name
        return name

    for name, device in list(placement.items()):
        node = nodes[name]
        task = task_of_device(device)
        new_inputs: list[tuple[str, int]] = []
        for src, idx in node.inputs:
            t = f"{src}:{idx}"
            if t in fed or task_of_device(devices[src]) == task:
                new_inputs.append((src, idx))
            else:
                new_inputs.append((cross(src, idx, task, device, False), 0))
        new_controls: list[str] = []
        remote_controls: dict[str, list[str]] = {}  # source task -> its control inputs
        for c in node.control_inputs:
            src_task = task_of_device(devices[c])
            if src_task == task:
                new_controls.append(c)
            else:
                remote_controls.setdefault(src_task, []).append(c)
        for group in remote_controls.values():
            # Several control inputs from one task cross as one message: a NoOp there waits
            # for all of them (the node waits for all of them anyway).
            source = group[0] if len(group) == 1 else join(tuple(sorted(set(group))), task)
            new_controls.append(cross(source, 0, task, device, True))
        part(task).nodes.append(
            Node(node.name, node.op, new_inputs, new_controls, device, node.attrs)
        )
        for src, idx in node.inputs:
            t = f"{src}:{idx}"
            if t in fed and t not in part(task).feeds:
                part(task).feeds.append(t)

    for t in fetches:
        if t in fed:
            continue
        src, _ = split_tensor_name(t)
        p = part(task_of_device(devices[src]))
        if t not in p.fetches:
            p.fetches.append(t)
    for name in targets:
        part(task_of_device(devices[name])).targets.append(name)
    return parts
