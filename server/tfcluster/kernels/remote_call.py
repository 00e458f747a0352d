"""Kernel of RemoteCall: runs its function on the target device of its `target` input.

A target on this task runs the body here (as PartitionedCall does). A target on another
task of the cluster runs there: the kernel registers, once per target task, a graph of one
PartitionedCall fed by the call's arguments with that task's worker (through the task's
worker cache, over whatever transport reaches it), and runs it as a step of its own.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from tfcluster.framework import device_spec, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.common import invalid
from tfcluster.kernels.functional import _Function
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime import collective_executor
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.partition import Partition


def _target(value: Any) -> device_spec.DeviceSpec:
    import numpy as np

    v = np.asarray(value)
    if v.ndim != 0:
        raise invalid(f"target must be a scalar string, got shape {list(v.shape)}")
    text = v.item().decode() if isinstance(v.item(), bytes) else str(v.item())
    try:
        spec = device_spec.parse(text)
    except ValueError:
        spec = None
    if spec is None or not text.startswith("/"):
        raise invalid(f"Could not parse {text} into a device specification.")
    return spec


def _same_task(spec: device_spec.DeviceSpec, task: str) -> bool:
    mine = device_spec.parse(task)
    return (spec.job in (None, mine.job)) and (spec.task in (None, mine.task or 0))


class _RemoteGraph:
    """The one-call graph registered with a remote task's worker."""

    def __init__(self, node: Any, device: str, num_args: int, num_out: int) -> None:
        a = node.attrs
        args = [
            Node(
                f"_remote_call_arg_{k}",
                "Placeholder",
                [],
                [],
                device,
                {"dtype": dt, "shape": TensorShape(None)},
            )
            for k, dt in enumerate(a["Tin"])
        ]
        call = Node(
            "_remote_call",
            "PartitionedCall",
            [(n.name, 0) for n in args],
            [],
            device,
            {
                "Tin": list(a["Tin"]),
                "Tout": list(a["Tout"]),
                "f": a["f"],
                "config": "",
                "config_proto": "",
                "executor_type": "",
            },
        )
        self.nodes = [*args, call]
        self.feeds = [f"{n.name}:0" for n in args]
        self.fetches = [f"_remote_call:{k}" for k in range(num_out)]


@kernel("RemoteCall", devices=CPU_ONLY)
def remote_call(node: Any, xp: Any) -> Any:
    local = _Function(node.attrs["f"], node.device, f"{node.name} f")
    num_args = len(node.attrs["Tin"])
    num_out = len(node.attrs["Tout"])
    if local.num_args != num_args or local.num_results != num_out:
        raise invalid(
            f"{node.name}: function '{node.attrs['f'].name}' takes {local.num_args} arguments "
            f"and returns {local.num_results}; RemoteCall passes {num_args}, expects {num_out}"
        )
    handles: dict[str, str] = {}  # target task -> its registered graph
    lock = threading.Lock()
    session = f"remote_call/{node.name}/{id(handles):x}"

    def run_remote(ctx: Any, peer: Any, task: str, device: str, ins: list[Any]) -> Any:
        with lock:
            handle = handles.get(task)
            if handle is None:
                g = _RemoteGraph(node, device, num_args, num_out)
                handle = peer.register_graph(
                    session, Partition(task, g.nodes, g.feeds, g.fetches), ctx.deadline
                )
                handles[task] = handle
        step_id = random.getrandbits(62) | 1  # a step of its own on the target task
        try:
            result = peer.run_graph(session, handle, step_id, list(ins), False, ctx.deadline)
        finally:
            peer.cleanup_graph(step_id)
        return tuple(result.fetches)

    def compute(ctx: Any, ins: list[Any]) -> Any:
        spec = _target(ins[0])
        executor = collective_executor.for_resources(ctx.resources)
        cache = executor._worker_cache()
        if _same_task(spec, executor.task) or cache is None:
            if not _same_task(spec, executor.task):
                raise errors.InternalError(
                    None,
                    None,
                    f"Currently don't support instantiating functions on device: "
                    f"{spec.to_string()}",
                )
            return tuple(local(ctx, ins[1:]))
        task = spec.task_name
        if task not in cache.tasks():
            raise errors.InternalError(
                None,
                None,
                f"Currently don't support instantiating functions on device: {spec.to_string()}"
                f" (no task {task} in the cluster)",
            )
        if cache.is_local(task):
            return tuple(local(ctx, ins[1:]))
        device = spec.replace(replica=spec.replica or 0, task=spec.task or 0).to_string()
        return run_remote(ctx, cache.worker(task), task, device, ins[1:])

    return compute
