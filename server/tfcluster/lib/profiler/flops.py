"""Per-op float operation counts, the statistics TF 1.15 registers for tf.profiler (its
RegisterStatistics("<op>", "flops") functions): the same op types and the same formulas, from
the static shapes of an op's inputs and outputs. An op type without a statistic, or with a
shape that is not fully known, counts no FLOPs (as in TF, which then logs none for it)."""

from __future__ import annotations

from collections.abc import Callable
from math import prod

from tfcluster.framework.graph import Operation, Tensor

FlopsFn = Callable[[Operation], int]
_TABLE: dict[str, FlopsFn] = {}


class _Unknown(Exception):
    """A shape the statistic needs is not fully defined."""


def _dims(t: Tensor) -> list[int]:
    shape = t.shape
    if not shape.is_fully_defined():
        raise _Unknown(t.name)
    return [int(d or 0) for d in shape.as_list()]


def _count(t: Tensor) -> int:
    return prod(_dims(t))


def _register(*op_types: str) -> Callable[[FlopsFn], FlopsFn]:
    def wrap(fn: FlopsFn) -> FlopsFn:
        for op_type in op_types:
            _TABLE[op_type] = fn
        return fn

    return wrap


def flops(op: Operation) -> int | None:
    """The op's float operations, or None when TF records no statistic for it."""
    fn = _TABLE.get(op.type)
    if fn is None:
        return None
    try:
        return int(fn(op))
    except _Unknown:
        return None


def _nhwc(op: Operation) -> None:
    fmt = op.attrs.get("data_format", "NHWC")
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    if fmt != "NHWC":
        raise _Unknown(f"{op.name}: only NHWC has a FLOP statistic")


def _unary(per_element: int) -> FlopsFn:
    return lambda op: _count(op.inputs[0]) * per_element


def _binary(per_element: int) -> FlopsFn:
    return lambda op: _count(op.outputs[0]) * per_element


for _op, _n in (("Reciprocal", 1), ("Square", 1), ("Rsqrt", 2), ("Log", 1), ("Neg", 1)):
    _register(_op)(_unary(_n))
for _op in ("AssignSub", "AssignAdd"):
    _register(_op)(_unary(1))
_register("Softmax")(_unary(5))
for _op in (
    "Add",
    "Sub",
    "Mul",
    "RealDiv",
    "Maximum",
    "Minimum",
    "Pow",
    "GreaterEqual",
    "Greater",
    "LessEqual",
    "Less",
    "Equal",
    "NotEqual",
):
    _register(_op)(_binary(1))
_register("RsqrtGrad")(_binary(4))
_register("SquaredDifference")(_binary(2))


@_register("L2Loss")
def _l2_loss(op: Operation) -> int:
    return _count(op.inputs[0]) * 3 - 1


def _reduction(reduce_flops: int, finalize_flops: int) -> FlopsFn:
    def fn(op: Operation) -> int:
        n_in, n_out = _count(op.inputs[0]), _count(op.outputs[0])
        return n_in * reduce_flops + n_out * (finalize_flops - reduce_flops)

    return fn


_register("Mean")(_reduction(1, 1))
for _op in ("Sum", "ArgMax", "ArgMin", "BiasAddGrad"):
    _register(_op)(_reduction(1, 0))


def _ksize_area(op: Operation) -> int:
    return prod(int(k) for k in op.attrs["ksize"])


@_register("AvgPool", "MaxPool")
def _pool(op: Operation) -> int:
    _nhwc(op)
    return _ksize_area(op) * _count(op.outputs[0])


@_register("AvgPoolGrad")
def _avg_pool_grad(op: Operation) -> int:
    _nhwc(op)
    return _ksize_area(op) * _count(op.inputs[1]) * 2


@_register("MaxPoolGrad")
def _max_pool_grad(op: Operation) -> int:
    _nhwc(op)
    n = _count(op.inputs[1])
    return _ksize_area(op) * n + n


def _stride_area(op: Operation) -> int:
    strides = [int(s) for s in op.attrs["strides"]]
    return strides[1] * strides[2]


@_register("Conv2DBackpropInput")
def _conv2d_backprop_input(op: Operation) -> int:
    _nhwc(op)
    out = _dims(op.outputs[0])
    kernel = _count(op.inputs[1])
    return int(2 * prod(out) * kernel / (out[-1] * _stride_area(op)))


@_register("Conv2DBackpropFilter")
def _conv2d_backprop_filter(op: Operation) -> int:
    _nhwc(op)
    image = _dims(op.inputs[0])
    kernel = _count(op.outputs[0])
    return int(2 * prod(image) * kernel / (image[-1] * _stride_area(op)))


@_register("AddN")
def _add_n(op: Operation) -> int:
    if not op.inputs:
        return 0
    return _count(op.inputs[0]) * (len(op.inputs) - 1)


@_register("MatMul")
def _matmul(op: Operation) -> int:
    a = _dims(op.inputs[0])
    k = a[0] if op.attrs.get("transpose_a", False) else a[1]
    return k * _count(op.outputs[0]) * 2


@_register("BatchMatMul")
def _batch_matmul(op: Operation) -> int:
    # TF's statistic reads a transpose_a attr, which BatchMatMul (adj_x) does not have.
    a = _dims(op.inputs[0])
    return a[-1] * _count(op.outputs[0]) * 2


@_register("Conv2D")
def _conv2d(op: Operation) -> int:
    _dims(op.inputs[0])
    f = _dims(op.inputs[1])
    return _count(op.outputs[0]) * f[2] * f[0] * f[1] * 2


@_register("Conv3D")
def _conv3d(op: Operation) -> int:
    _dims(op.inputs[0])
    f = _dims(op.inputs[1])
    return _count(op.outputs[0]) * f[3] * f[0] * f[1] * f[2] * 2


@_register("DepthwiseConv2dNative", "Dilation2D")
def _depthwise(op: Operation) -> int:
    _dims(op.inputs[0])
    f = _dims(op.inputs[1])
    return _count(op.outputs[0]) * f[0] * f[1] * 2


@_register("BiasAdd")
def _bias_add(op: Operation) -> int:
    return _count(op.inputs[0])


__all__ = ["flops"]
