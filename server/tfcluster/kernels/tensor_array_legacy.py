"""The TensorArray ops of graphs written before GraphDef versions 16 and 26 (TensorArray,
TensorArrayWrite, ..., and their V2s), and TensorArrayGradWithShape: the same arrays and the
same kernel bodies as TensorArrayV3's (kernels/tensor_array.py). The first versions hand out
a string handle and no flow from the array's creation and its gradient; TensorArrayPack and
TensorArrayUnpack are Gather and Scatter over every index."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.kernels import tensor_array as v3
from tfcluster.kernels.common import host_ints, invalid, shape_of
from tfcluster.kernels.registry import CPU_ONLY, kernel

XpFactory = Callable[[Any, Any], Any]


def _handle_only(factory: XpFactory) -> XpFactory:
    """The V3 kernel without its flow output (the first versions have none)."""

    def wrapped(node: Any, xp: Any) -> Any:
        compute = factory(node, xp)

        def first(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return compute(ctx, ins)[:1]

        return first

    return wrapped


_SAME_AS_V3: dict[str, XpFactory] = {
    "Write": v3.tensor_array_write,
    "Read": v3.tensor_array_read,
    "Gather": v3.tensor_array_gather,
    "Scatter": v3.tensor_array_scatter,
    "Concat": v3.tensor_array_concat,
    "Split": v3.tensor_array_split,
    "Size": v3.tensor_array_size,
    "Close": v3.tensor_array_close,
}
for _suffix in ("", "V2"):
    kernel(f"TensorArray{_suffix}", devices=CPU_ONLY)(_handle_only(v3.tensor_array))
    kernel(f"TensorArrayGrad{_suffix}", devices=CPU_ONLY)(_handle_only(v3.tensor_array_grad))
    for _op, _factory in _SAME_AS_V3.items():
        kernel(f"TensorArray{_op}{_suffix}", devices=CPU_ONLY)(_factory)


@kernel("TensorArrayPack", devices=CPU_ONLY)
def tensor_array_pack(node: Any, xp: Any) -> Any:
    gather = v3.tensor_array_gather(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = v3.array_of(ins[0], node.name)
        with ta.lock:
            size = len(ta)
        return gather(ctx, [ins[0], np.arange(size, dtype=np.int32), ins[1]])

    return compute


@kernel("TensorArrayUnpack", devices=CPU_ONLY)
def tensor_array_unpack(node: Any, xp: Any) -> Any:
    scatter = v3.tensor_array_scatter(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = shape_of(ins[1])
        if not shape:
            raise invalid("TensorArray unpack requires a value of rank >= 1, got a scalar")
        return scatter(ctx, [ins[0], np.arange(shape[0], dtype=np.int32), ins[1], ins[2]])

    return compute


@kernel("TensorArrayGradWithShape", devices=CPU_ONLY)
def tensor_array_grad_with_shape(node: Any, xp: Any) -> Any:
    """A gradient array whose element shapes are shape_to_prepend + the forward's (one
    gradient array per source; TF's use is a batch of gradients, e.g. jacobians)."""
    grad = v3.tensor_array_grad(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        prepend = host_ints(ins[2])
        fwd = v3.array_of(ins[0], node.name)
        source = str(node.attrs["source"])
        with fwd.lock:
            fresh = source not in fwd.grads
        out = grad(ctx, ins[:2])
        if fresh:
            g = out[0]
            with g.lock:
                g.set_element_shape(TensorShape(prepend).concatenate(as_shape(fwd.element_shape)))
                for e in g.elements:
                    if e.shape is not None:
                        e.shape = (*prepend, *e.shape)
        return out

    return compute
