"""Kernels of the NCCL ops over xp. NcclAllReduce: the `num_devices` ops of one shared_name
meet in their task's collective table (runtime/collective_meeting; one round per run of the
step), each member named by its node, so several may share a device (a CPU). NcclReduce
reduces its own inputs; NcclBroadcast passes its input on (TF's rewrite then sends it to the
consuming devices, which tfcluster's placement does with ordinary copies)."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import host_array
from tfcluster.kernels.registry import kernel
from tfcluster.runtime import collective_executor
from tfcluster.runtime.collective_meeting import Part

# NCCL's reduction names -> the collective table's merge ops.
_MERGE = {"sum": "Add", "prod": "Mul", "min": "Min", "max": "Max"}
_XP_REDUCE = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum"}

# shared_name -> a group key of its own (negative: never one of a CollectiveReduce's).
_groups: dict[str, int] = {}
_groups_lock = threading.Lock()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _group_key(shared_name: str) -> int:
    with _groups_lock:
        key = _groups.get(shared_name)
        if key is None:
            key = _groups[shared_name] = -(len(_groups) + 1)
        return key


def _reduction(node: Any) -> str:
    reduction = _text(node.attrs["reduction"])
    if reduction not in _MERGE:
        raise errors.InvalidArgumentError(
            None, None, f"{node.name}: reduction must be one of sum, prod, min, max"
        )
    return reduction


# Asynchronous: on CPU devices (the GPU binding has no asynchronous form yet).
@kernel("NcclAllReduce", devices=("CPU",), is_async=True)
def nccl_all_reduce(node: Any, xp: Any) -> Any:
    merge_op = _MERGE[_reduction(node)]
    num_devices = int(node.attrs["num_devices"])
    group_key = _group_key(_text(node.attrs["shared_name"]))

    def wait(ctx: Any, part: Part, done: Callable[..., None]) -> None:
        def check() -> None:
            ctx.time_left()
            aborted = getattr(ctx.rendezvous, "_aborted", None)
            if aborted is not None:
                raise errors.CancelledError(None, None, f"Step was aborted: {aborted}")

        try:
            table = collective_executor.for_resources(ctx.resources).table
            result = table.join(part, check)
            out = result if xp is np else xp.asarray(result)
        except BaseException as e:  # handed to the executor as the op's error
            done(None, e)
            return
        done((out,), None)

    def compute(ctx: Any, ins: list[Any], done: Callable[..., None]) -> None:
        part = Part(
            kind="reduce",
            group_key=group_key,
            group_size=num_devices,
            instance_key=0,
            device=node.name,
            value=np.asarray(host_array(ins[0])),
            merge_op=merge_op,
            final_op="Id",
            attempt=time.time_ns(),
        )
        threading.Thread(target=wait, args=(ctx, part, done), daemon=True).start()

    return compute


@kernel("NcclReduce")
def nccl_reduce(node: Any, xp: Any) -> Any:
    fn = getattr(xp, _XP_REDUCE[_reduction(node)])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        shapes = {tuple(x.shape) for x in ins}
        if len(shapes) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"{node.name}: the inputs have different shapes {sorted(shapes)}"
            )
        dtype = ins[0].dtype
        return (xp.asarray(functools.reduce(fn, ins)).astype(dtype, copy=False),)

    return compute


@kernel("NcclBroadcast")
def nccl_broadcast(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        return (ins[0],)

    return compute
