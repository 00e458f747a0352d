"""TF's collective ops (tensorflow/python/ops/collective_ops.py): CollectiveReduce,
CollectiveGather, CollectiveBcastSend and CollectiveBcastRecv. Every member of a group (one
device each, in this task or others) runs the op with the same group_key, group_size and
instance_key; each gets the reduction / concatenation / broadcast value of all of them.
Kernels: kernels/collective.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import make_op


def _group_member(t: Any, group_size: int, caller: str) -> Tensor:
    """`t` as a tensor, after TF's build-time checks: a collective needs a device and a
    group of two or more."""
    t = convert_to_tensor(t)
    if not t.device:
        raise ValueError("Device assignment required for collective ops")
    _need_group(group_size, caller)
    return t


def _need_group(group_size: int, caller: str) -> None:
    if group_size <= 1:
        raise ValueError(f"Parameter group_size to {caller} must be at least 2.")


def all_reduce(
    t: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    merge_op: str,
    final_op: str,
    subdiv_offsets: Sequence[int] = (0,),
    communication_hint: str = "auto",
) -> Tensor:
    """The reduction (merge_op Add/Mul/Min/Max, then final_op Id/Div) of `t` over the group."""
    t = _group_member(t, group_size, "all_reduce")
    return collective_reduce(
        t,
        group_size=group_size,
        group_key=group_key,
        instance_key=instance_key,
        merge_op=merge_op,
        final_op=final_op,
        subdiv_offsets=subdiv_offsets,
        communication_hint=communication_hint,
    )


def all_gather(
    t: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    communication_hint: str = "auto",
) -> Tensor:
    """The members' `t`s concatenated along dimension 0, in the order of their devices."""
    t = _group_member(t, group_size, "all_gather")
    return collective_gather(
        t,
        group_size=group_size,
        group_key=group_key,
        instance_key=instance_key,
        shape=[0],
        communication_hint=communication_hint,
    )


def broadcast_send(
    t: Any,
    shape: Any,
    dtype: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    communication_hint: str = "auto",
) -> Tensor:
    """Sends `t` to the group's other members (each runs broadcast_recv)."""
    t = _group_member(t, group_size, "broadcast_send")
    if t.shape != TensorShape(shape):
        raise ValueError("Shape of broadcast_send tensor not equal to delcared shape")
    if t.dtype != dtypes.as_dtype(dtype):
        raise ValueError("Type of broadcast_send tensor not equal to declared type")
    return collective_bcast_send(
        t,
        shape=shape,
        group_size=group_size,
        group_key=group_key,
        instance_key=instance_key,
        communication_hint=communication_hint,
    )


def broadcast_recv(
    shape: Any,
    dtype: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    communication_hint: str = "auto",
) -> Tensor:
    """The value the group's broadcast_send member sends."""
    _need_group(group_size, "broadcast_send")  # TF's message names broadcast_send here too
    return collective_bcast_recv(
        shape=shape,
        T=dtype,
        group_size=group_size,
        group_key=group_key,
        instance_key=instance_key,
        communication_hint=communication_hint,
    )


# ---- the ops themselves (gen_collective_ops) --------------------------------------------------
def _keys(group_size: int, group_key: int, instance_key: int, hint: str) -> dict[str, Any]:
    return {
        "group_size": int(group_size),
        "group_key": int(group_key),
        "instance_key": int(instance_key),
        "communication_hint": hint,
    }


def _shaped_collective(
    op_type: str,
    inputs: list[Tensor],
    dtype: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    shape: Any,
    hint: str,
    name: str | None,
) -> Tensor:
    """A gather or broadcast node: the group's keys plus the declared `shape` attr."""
    attrs = {
        "T": dtype.base_dtype,
        **_keys(group_size, group_key, instance_key, hint),
        "shape": TensorShape(shape),
    }
    return make_op(op_type, inputs, attrs, name=name or op_type).outputs[0]


def collective_reduce(
    input: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    merge_op: str,
    final_op: str,
    subdiv_offsets: Sequence[int],
    wait_for: Sequence[int] = (),
    communication_hint: str = "auto",
    name: str | None = None,
) -> Tensor:
    t = convert_to_tensor(input)
    attrs = {
        "T": t.dtype.base_dtype,
        **_keys(group_size, group_key, instance_key, communication_hint),
        "merge_op": merge_op,
        "final_op": final_op,
        "subdiv_offsets": [int(o) for o in subdiv_offsets],
        "wait_for": [int(w) for w in wait_for],
    }
    return make_op("CollectiveReduce", [t], attrs, name=name or "CollectiveReduce").outputs[0]


def collective_gather(
    input: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    shape: Any,
    communication_hint: str = "auto",
    name: str | None = None,
) -> Tensor:
    t = convert_to_tensor(input)
    keys = (group_size, group_key, instance_key, shape, communication_hint)
    return _shaped_collective("CollectiveGather", [t], t.dtype, *keys, name)


def collective_bcast_send(
    input: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    shape: Any,
    communication_hint: str = "auto",
    name: str | None = None,
) -> Tensor:
    t = convert_to_tensor(input)
    keys = (group_size, group_key, instance_key, shape, communication_hint)
    return _shaped_collective("CollectiveBcastSend", [t], t.dtype, *keys, name)


def collective_bcast_recv(
    T: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    shape: Any,
    communication_hint: str = "auto",
    name: str | None = None,
) -> Tensor:
    keys = (group_size, group_key, instance_key, shape, communication_hint)
    return _shaped_collective("CollectiveBcastRecv", [], dtypes.as_dtype(T), *keys, name)


def _gather_shape(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, TensorShape]]:
    t = inputs[0]
    shape = t.shape
    if shape.ndims is None:
        return [(t.dtype.base_dtype, TensorShape(None))]
    if shape.ndims == 0:
        raise ValueError(
            "Shape must be at least rank 1 but is rank 0 for 'CollectiveGather' "
            "(op: 'CollectiveGather') with input shapes: []."
        )
    dims = shape.as_list()
    first = None if dims[0] is None else dims[0] * int(attrs["group_size"])
    return [(t.dtype.base_dtype, TensorShape([first, *dims[1:]]))]


def _recv_shape(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, TensorShape]]:
    return [(dtypes.as_dtype(attrs["T"]).base_dtype, TensorShape(attrs["shape"]))]


op_def_registry.register("CollectiveReduce", op_def_registry.same_as_input(), stateful=True)
op_def_registry.register("CollectiveGather", _gather_shape, stateful=True)
op_def_registry.register("CollectiveBcastSend", op_def_registry.same_as_input(), stateful=True)
op_def_registry.register("CollectiveBcastRecv", _recv_shape, stateful=True)
