"""Kernels of TF's collective ops: CollectiveReduce, CollectiveGather, CollectiveBcastSend and
CollectiveBcastRecv. Each brings its part to its task's collective executor
(distributed/collective_executor), which meets the group's other members on the group
leader, in this process or over the task servers' transport.

Asynchronous: a member waits for the others in a thread of its own, so that its executor goes
on with the step's other ops (another collective the other members run first)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.common import host_array
from tfcluster.kernels.registry import kernel
from tfcluster.runtime import collective_executor
from tfcluster.runtime.collective_meeting import Part

_DEFAULT_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
# Asynchronous kernels run on CPU devices (the GPU binding has no asynchronous form yet).
_DEVICES = ("CPU",)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _shape_attr(node: Any) -> tuple[int | None, ...] | None:
    shape = node.attrs.get("shape")
    if shape is None:
        return None
    dims = TensorShape(shape).as_list() if TensorShape(shape).ndims is not None else None
    return None if dims is None else tuple(dims)


def _dtype_attr(node: Any) -> Any:
    dtype = node.attrs.get("T")
    return getattr(dtype, "as_numpy_dtype", None)


def _step_check(ctx: Any) -> Callable[[], None]:
    def check() -> None:
        ctx.time_left()  # raises CancelledError / DeadlineExceededError
        aborted = getattr(ctx.rendezvous, "_aborted", None)
        if aborted is not None:
            raise errors.CancelledError(None, None, f"Step was aborted: {aborted}")

    return check


def _member(node: Any, xp: Any, kind: str, **extra: Any) -> Any:
    group_size = int(node.attrs["group_size"])
    group_key = int(node.attrs["group_key"])
    instance_key = int(node.attrs["instance_key"])
    # A member is its device and node: TF allows one member per device (two on one device
    # hang there); here they may share one, as the NCCL ops' members do on a CPU.
    device = f"{node.device or _DEFAULT_DEVICE}#{node.name}"
    shape = _shape_attr(node)
    dtype = _dtype_attr(node)

    def part_for(ins: list[Any]) -> Part:
        value = None if kind == "bcast_recv" else np.asarray(host_array(ins[0]))
        if kind == "bcast_send" and shape is not None:
            _check_send_shape(node, shape, value)
        return Part(
            kind=kind,
            group_key=group_key,
            group_size=group_size,
            instance_key=instance_key,
            device=device,
            value=value,
            shape=shape,
            dtype=dtype,
            attempt=time.time_ns(),
            **extra,
        )

    def wait(ctx: Any, part: Part, done: Callable[..., None]) -> None:
        try:
            executor = collective_executor.for_resources(ctx.resources)
            result = executor.join(part, ctx.deadline, _step_check(ctx))
            if dtype is not None:
                result = np.asarray(result).astype(dtype, copy=False)
            out = result if xp is np else xp.asarray(result)
        except BaseException as e:  # handed to the executor as the op's error
            done(None, e)
            return
        done((out,), None)

    def compute(ctx: Any, ins: list[Any], done: Callable[..., None]) -> None:
        try:
            part = part_for(ins)
        except BaseException as e:
            done(None, e)
            return
        threading.Thread(
            target=wait, args=(ctx, part, done), daemon=True, name=f"collective-{kind}"
        ).start()

    return compute


def _check_send_shape(node: Any, shape: tuple[int | None, ...], value: Any) -> None:
    got = np.shape(value)
    if len(got) != len(shape) or any(w is not None and w != g for w, g in zip(shape, got)):
        raise errors.InternalError(
            None,
            None,
            f"Shape mismatch in the collective instance {int(node.attrs['instance_key'])}: "
            f"{node.name} sends a value of shape {list(got)}, its shape attr is "
            f"{[-1 if d is None else d for d in shape]}",
        )


# TF 1.15's CollectiveReduce kernel takes these only (its op def lists Min and Max too).
_KERNEL_MERGE_OPS = ("Add", "Mul")


@kernel("CollectiveReduce", devices=_DEVICES, is_async=True)
def collective_reduce(node: Any, xp: Any) -> Any:
    merge_op = _text(node.attrs["merge_op"])
    if merge_op not in _KERNEL_MERGE_OPS:
        raise errors.InvalidArgumentError(
            None, None, f'merge_op must be one of {{"Add", "Mul"}} but got {merge_op}'
        )
    return _member(
        node,
        xp,
        "reduce",
        merge_op=_text(node.attrs["merge_op"]),
        final_op=_text(node.attrs["final_op"]),
    )


@kernel("CollectiveGather", devices=_DEVICES, is_async=True)
def collective_gather(node: Any, xp: Any) -> Any:
    return _member(node, xp, "gather")


@kernel("CollectiveBcastSend", devices=_DEVICES, is_async=True)
def collective_bcast_send(node: Any, xp: Any) -> Any:
    return _member(node, xp, "bcast_send")


@kernel("CollectiveBcastRecv", devices=_DEVICES, is_async=True)
def collective_bcast_recv(node: Any, xp: Any) -> Any:
    return _member(node, xp, "bcast_recv")
