"""_Send puts a tensor in the step's rendezvous; _Recv waits for it, locally or from its task.

Both only move host values, so one kernel serves every device: the executor hands a _Send on
a GPU host copies (a tensor leaving the task leaves the device). The GPU's _Recv is its own:
it copies what arrives onto the node's device once, for all of its consumers there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import gpu_backend
from tfcluster.kernels.registry import register, register_for_all_devices
from tfcluster.runtime import device_copy
from tfcluster.runtime import rendezvous as rdv


def _key(node: Any) -> str:
    a = node.attrs
    return rdv.make_key(a["send_device"], a["recv_device"], a["tensor_name"])


@register_for_all_devices("_Send")
def send(node: Any) -> Any:
    key = _key(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ctx.rendezvous.send(key, ins[0])
        return ()

    return compute


@register("_Recv", "CPU", is_async=True)
def recv(node: Any) -> Any:
    key = _key(node)
    expected = node.attrs.get("tensor_type")

    def compute(ctx: Any, ins: list[Any], done: Any) -> None:
        def on_value(value: Any, err: BaseException | None) -> None:
            if err is not None:
                done(None, err)
                return
            if expected is not None and getattr(value, "dtype", None) is not None:
                want = expected.as_numpy_dtype
                if want is not object and value.dtype != want:
                    done(
                        None,
                        errors.InternalError(
                            None,
                            None,
                            f"Received {value.dtype} for {key}, expected {expected.name}",
                        ),
                    )
                    return
            done((value,), None)

        if ctx.remote_recv is not None:
            ctx.remote_recv(ctx.step_id, key, on_value)
        else:
            ctx.rendezvous.recv_async(key, on_value)

    return compute


@register("_Recv", "GPU", is_async=True, accepts=gpu_backend.numeric_only)
def recv_to_device(node: Any) -> Any:
    """The CPU _Recv, its value then moved onto the node's GPU on the thread that delivers it
    (an RPC thread, where the node's GPU must be made current first)."""
    device_copy.activate()
    receive = recv(node)
    device_id = gpu_backend.device_index(node.device)

    def compute(ctx: Any, ins: list[Any], done: Any) -> None:
        def on_value(outs: Any, err: BaseException | None) -> None:
            if err is not None:
                done(None, err)
                return
            try:
                with gpu_backend.on_device(device_id):
                    moved = tuple(_place(v) for v in outs)
            except Exception as e:
                done(None, e)
                return
            done(moved, None)

        receive(ctx, ins, on_value)

    return compute


def _place(value: Any) -> Any:
    # int32 tensors stay in host memory, as TF keeps them (shapes and axes, mostly).
    return value if getattr(value, "dtype", None) == np.int32 else gpu_backend.to_device(value)
