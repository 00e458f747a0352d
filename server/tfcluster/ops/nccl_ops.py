"""TF's NCCL ops (tensorflow/python/ops/nccl_ops.py): all-reduce, reduce and broadcast over
the devices of one process. NcclAllReduce: `num_devices` ops with one `shared_name` (one per
device) each get the reduction of all their inputs; NcclReduce: one op reducing its inputs;
NcclBroadcast: its input, for other devices to read. In TF they are GPU-only; tfcluster's
kernels (kernels/nccl.py) run over xp on GPUs and CPUs alike."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, device
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import make_op

_lock = threading.Lock()
_shared_name_counter = 0


def all_sum(tensors: Sequence[Any]) -> list[Tensor]:
    """Each tensor's device gets the sum of `tensors` (one per device)."""
    return _apply_all_reduce("sum", tensors)


def all_prod(tensors: Sequence[Any]) -> list[Tensor]:
    return _apply_all_reduce("prod", tensors)


def all_min(tensors: Sequence[Any]) -> list[Tensor]:
    return _apply_all_reduce("min", tensors)


def all_max(tensors: Sequence[Any]) -> list[Tensor]:
    return _apply_all_reduce("max", tensors)


def reduce_sum(tensors: Sequence[Any]) -> Tensor:
    """The sum of `tensors`, on the current device (one of theirs)."""
    return _apply_reduce("sum", tensors)


def broadcast(tensor: Any) -> Tensor:
    """`tensor`, for ops on other devices to read."""
    tensor = convert_to_tensor(tensor)
    _check_device(tensor)
    with device(tensor.device):
        return nccl_broadcast(tensor, shape=tensor.shape)


def _apply_all_reduce(reduction: str, tensors: Sequence[Any]) -> list[Tensor]:
    if not tensors:
        raise ValueError("Must pass >0 tensors to all reduce operations")
    shared_name = _get_shared_name()
    out = []
    for t in tensors:
        t = convert_to_tensor(t)
        _check_device(t)
        with device(t.device):
            out.append(nccl_all_reduce(t, reduction, len(tensors), shared_name))
    return out


def _apply_reduce(reduction: str, tensors: Sequence[Any]) -> Tensor:
    if not tensors:
        raise ValueError("Must pass >0 tensors to reduce operations")
    tensors = [convert_to_tensor(t) for t in tensors]
    for t in tensors:
        _check_device(t)
    result = nccl_reduce(tensors, reduction)
    if not any(t.device == result.device for t in tensors):
        raise ValueError("One input tensor must be assigned to current device")
    return result


def _get_shared_name() -> str:
    global _shared_name_counter
    with _lock:
        val = _shared_name_counter
        _shared_name_counter += 1
    return f"c{val}"


def _check_device(tensor: Tensor, expected: str | None = None) -> None:
    if not tensor.device:
        raise ValueError("Device assignment required for nccl collective ops")
    if expected and expected != tensor.device:
        raise ValueError(f"Expected device {expected}, got {tensor.device}")


# ---- the ops themselves (gen_nccl_ops) ---------------------------------------------------------
def nccl_all_reduce(
    input: Any,
    reduction: str,
    num_devices: int,
    shared_name: str,
    name: str | None = None,
) -> Tensor:
    t = convert_to_tensor(input)
    attrs = {
        "reduction": reduction,
        "T": t.dtype.base_dtype,
        "num_devices": int(num_devices),
        "shared_name": shared_name,
    }
    return make_op("NcclAllReduce", [t], attrs, name=name or "NcclAllReduce").outputs[0]


def nccl_reduce(
    input: Sequence[Any],
    reduction: str,
    name: str | None = None,
) -> Tensor:
    ts = [convert_to_tensor(t) for t in input]
    attrs = {"reduction": reduction, "T": ts[0].dtype.base_dtype, "num_devices": len(ts)}
    return make_op("NcclReduce", ts, attrs, name=name or "NcclReduce").outputs[0]


def nccl_broadcast(
    input: Any,
    shape: Any,
    name: str | None = None,
) -> Tensor:
    t = convert_to_tensor(input)
    attrs = {"T": t.dtype.base_dtype, "shape": TensorShape(shape)}
    return make_op("NcclBroadcast", [t], attrs, name=name or "NcclBroadcast").outputs[0]


def _broadcast_shape(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(inputs[0].dtype.base_dtype, TensorShape(attrs["shape"]))]


op_def_registry.register("NcclAllReduce", op_def_registry.same_as_input(), stateful=True)
op_def_registry.register("NcclReduce", op_def_registry.same_as_input(), stateful=True)
op_def_registry.register("NcclBroadcast", _broadcast_shape, stateful=True)
