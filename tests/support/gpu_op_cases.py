"""One small graph per op type that has a GPU kernel, to run on /cpu:0 and /device:GPU:0.

`CASES[op]()` builds, under the caller's device scope, a graph whose fetches depend on at
least one node of type `op`; inputs are constants from a fixed seed, so two builds (one per
device) compute the same thing, and `check_gpu_matches_cpu` compares them. tests/gpu does so
on a real GPU; tests/unit on a strict stand-in for cupy (strict_cupy.py), and checks on the
CPU that every GPU kernel has a case and that each case builds its op and runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import registry
from tfcluster.ops import nn_ops, op_util, training_ops

# Registered for every device and exercised by every cross-task step.
ALL_DEVICE_OPS = frozenset({"NoOp", "_Send", "_Recv"})
GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
# (rtol, atol) for a dtype: how far the GPU's floating-point values may be from the CPU's.
Tolerance = Callable[[np.dtype[Any]], tuple[float, float]]


@dataclass
class Build:
    fetches: list[Any]
    feeds: dict[Any, Any] = field(default_factory=dict)
    # Run in order before the fetches (initializers, then updates).
    before: list[Any] = field(default_factory=list)

    def run(self, sess: Any) -> list[Any]:
        for ops in self.before:
            sess.run(ops, self.feeds)
        return [np.asarray(v) for v in sess.run(self.fetches, self.feeds)]


CASES: dict[str, Callable[[], Build]] = {}


def gpu_ops() -> list[str]:
    """Op types with a GPU kernel of their own (loading the GPU table needs no cupy)."""
    registry.has_kernel("MatMul", "GPU")
    return sorted(
        op for op, dev in registry.registered_kernels() if dev == "GPU" and op not in ALL_DEVICE_OPS
    )


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _rng() -> np.random.Generator:
    return np.random.default_rng(7)


def _f32(*shape: int, low: float = -2.0, high: float = 2.0) -> Any:
    return tf.constant(_rng().uniform(low, high, shape).astype(np.float32))


def _raw(op: str, inputs: list[Any], **attrs: Any) -> list[Any]:
    return list(op_util.make_op(op, inputs, attrs).outputs)


def _grad(y: Any, x: Any) -> Any:
    dy = tf.constant(_rng().uniform(0.5, 1.5, y.shape.as_list()).astype(np.float32))
    return tf.gradients(y, x, grad_ys=dy)[0]


# ---- math ----------------------------------------------------------------------------------
_BINARY_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "Add": lambda x, y: _raw("Add", [x, y], T=x.dtype)[0],
    "AddV2": lambda x, y: _raw("AddV2", [x, y], T=x.dtype)[0],
    "Sub": tf.subtract,
    "Mul": tf.multiply,
    "RealDiv": tf.realdiv,
    "Div": lambda x, y: _raw("Div", [x, y], T=x.dtype)[0],
    "DivNoNan": tf.div_no_nan,
    "FloorDiv": tf.floordiv,
    "TruncateDiv": tf.truncatediv,
    "FloorMod": tf.floormod,
    "TruncateMod": tf.truncatemod,
    "Pow": tf.pow,
    "Maximum": tf.maximum,
    "Minimum": tf.minimum,
    "SquaredDifference": tf.squared_difference,
}
# Integer kernels differ from the float ones (C++ division, zero checks): both are covered.
_INT_BINARY = {"Div", "FloorDiv", "TruncateDiv", "FloorMod", "TruncateMod", "Pow"}


def _binary_case(op: str) -> Callable[[], Build]:
    fn = _BINARY_FNS[op]

    def build() -> Build:
        rng = _rng()
        x = tf.constant(rng.uniform(0.5, 3.0, (3, 4)).astype(np.float32))
        y = tf.constant(np.array([1.5, -2.0, 0.75, 2.5], np.float32))  # broadcast [4]
        # Negative bases would make Pow NaN: it gets negative exponents instead.
        fetches = [fn(x, y), fn(x + 1.0, -y) if op == "Pow" else fn(-x, y)]
        if op == "DivNoNan":
            fetches.append(fn(x, tf.constant(np.array([1.0, 0.0, 2.0, 0.0], np.float32))))
        if op in _INT_BINARY:
            a = tf.constant(np.array([[7, -7, 9], [-9, 5, 0]], np.int32))
            b = tf.constant(np.array([2, 3, -4], np.int32))
            fetches.append(fn(a, tf.abs(b) if op == "Pow" else b))
            if op not in ("Pow",):
                fetches.append(fn(tf.cast(a, tf.int64), tf.cast(b, tf.int64)))
        return Build(fetches)

    return build


for _op in _BINARY_FNS:
    CASES[_op] = _binary_case(_op)

_COMPARE_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "Less": tf.less,
    "LessEqual": tf.less_equal,
    "Greater": tf.greater,
    "GreaterEqual": tf.greater_equal,
    "Equal": tf.equal,
    "NotEqual": tf.not_equal,
}


def _compare_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        x = tf.constant(np.array([[1.0, 2.0, 3.0], [4.0, 2.0, 0.0]], np.float32))
        y = tf.constant(np.array([2.0, 2.0, 0.0], np.float32))
        return Build([_COMPARE_FNS[op](x, y)])

    return build


for _op in _COMPARE_FNS:
    CASES[_op] = _compare_case(_op)


@_case("LogicalAnd", "LogicalOr", "LogicalNot")
def _logical() -> Build:
    a = tf.constant(np.array([True, False, True, False]))
    b = tf.constant(np.array([True, True, False, False]))
    return Build([tf.logical_and(a, b), tf.logical_or(a, b), tf.logical_not(a)])


_UNARY_FNS: dict[str, tuple[Callable[[Any], Any], float, float]] = {
    "Neg": (tf.negative, -3, 3),
    "Abs": (tf.abs, -3, 3),
    "Square": (tf.square, -3, 3),
    "Sqrt": (tf.sqrt, 0.1, 4),
    "Rsqrt": (tf.rsqrt, 0.1, 4),
    "Exp": (tf.exp, -3, 3),
    "Log": (tf.log, 0.1, 4),
    "Log1p": (tf.log1p, -0.5, 3),
    "Expm1": (tf.expm1, -3, 3),
    "Sign": (tf.sign, -3, 3),
    "Reciprocal": (tf.reciprocal, 0.5, 3),
    "Floor": (tf.floor, -3, 3),
    "Ceil": (tf.ceil, -3, 3),
    "Sin": (tf.sin, -3, 3),
    "Cos": (tf.cos, -3, 3),
    "Tan": (tf.tan, -1, 1),
    "Asin": (tf.asin, -0.9, 0.9),
    "Acos": (tf.acos, -0.9, 0.9),
    "Atan": (tf.atan, -3, 3),
    "Tanh": (tf.tanh, -3, 3),
    "Sigmoid": (tf.sigmoid, -30, 30),
}


def _unary_case(op: str) -> Callable[[], Build]:
    fn, low, high = _UNARY_FNS[op]

    def build() -> Build:
        fetches = [fn(_f32(3, 5, low=low, high=high))]
        if op == "Reciprocal":
            fetches.append(fn(tf.constant(np.array([1, 2, -3], np.int64))))
        return Build(fetches)

    return build


for _op in _UNARY_FNS:
    CASES[_op] = _unary_case(_op)


@_case("Round")
def _round() -> Build:
    # Halves round to even, as TF's Round.
    return Build([tf.round(tf.constant(np.array([-2.5, -1.5, -0.4, 0.5, 1.5, 2.6], np.float32)))])


@_case("Conj")
def _conj() -> Build:
    z = np.array([1 + 2j, -3 - 0.5j], np.complex64)
    return Build([tf.conj(tf.constant(z))])


@_case("IsFinite", "IsNan", "IsInf")
def _predicates() -> Build:
    x = tf.constant(np.array([1.0, np.inf, -np.inf, np.nan, 0.0], np.float32))
    return Build([tf.is_finite(x), tf.is_nan(x), tf.is_inf(x)])


_GRAD_HELPER_FNS = {
    "TanhGrad": tf.tanh,
    "SigmoidGrad": tf.sigmoid,
    "SqrtGrad": tf.sqrt,
    "RsqrtGrad": tf.rsqrt,
    "ReciprocalGrad": tf.reciprocal,
}


def _grad_helper_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        x = _f32(3, 4, low=0.5, high=2.0)
        return Build([_grad(_GRAD_HELPER_FNS[op](x), x)])

    return build


for _op in _GRAD_HELPER_FNS:
    CASES[_op] = _grad_helper_case(_op)


@_case("Cast")
def _cast() -> Build:
    x = tf.constant(np.array([-2.7, -0.5, 0.0, 1.5, 3.9], np.float32))
    return Build([tf.cast(x, tf.int32), tf.cast(x, tf.float16), tf.cast(x, tf.bool)])


@_case("Select")
def _select() -> Build:
    x, y = _f32(3, 2), _f32(3, 2, low=5, high=6)
    same = tf.constant(np.array([[True, False], [False, True], [True, True]]))
    rows = tf.constant(np.array([True, False, True]))
    return Build([tf.where(same, x, y), tf.where(rows, x, y)])


@_case("SelectV2")
def _select_v2() -> Build:
    x, y = _f32(3, 2), _f32(2, low=5, high=6)
    cond = tf.constant(np.array([[True, False], [False, True], [True, True]]))
    return Build([tf.where_v2(cond, x, y), tf.where_v2(tf.constant([True, False]), x, 0.5)])


@_case("AddN", "AccumulateNV2")
def _add_n() -> Build:
    a, b, c = _f32(2, 3), _f32(2, 3, low=1, high=2), _f32(2, 3, low=-5, high=-4)
    return Build([tf.add_n([a, b, c]), tf.accumulate_n([a, b])])


@_case("MatMul")
def _matmul() -> Build:
    a, b = _f32(4, 6), _f32(5, 6)
    return Build(
        [tf.matmul(a, b, transpose_b=True), tf.matmul(b, a, transpose_a=False, transpose_b=True)]
    )


@_case("BatchMatMul")
def _batch_matmul() -> Build:
    a, b = _f32(2, 3, 4), _f32(2, 3, 5)
    # tf.matmul of batches makes BatchMatMulV2 (TF 1.15): the older op is built directly.
    return Build([tf.raw_ops.BatchMatMul(x=a, y=b, adj_x=True)])


@_case("Sum", "Prod", "Mean", "Max", "Min")
def _reductions() -> Build:
    x = _f32(3, 4, 2, low=0.5, high=1.5)
    ints = tf.constant(np.array([[3, -7, 5], [2, 2, -1]], np.int32))
    empty = tf.constant(np.zeros((0, 3), np.float32))
    return Build(
        [
            tf.reduce_sum(x, axis=1, keepdims=True),
            tf.reduce_sum(x),
            tf.reduce_prod(x, axis=[0, 2]),
            tf.reduce_mean(x, axis=-1),
            tf.reduce_mean(ints, axis=1),
            tf.reduce_mean(tf.cast(x, tf.float16), axis=0),
            tf.reduce_max(x, axis=0),
            tf.reduce_min(x, axis=[1]),
            tf.reduce_max(empty, axis=0),
            tf.reduce_min(ints),
        ]
    )


@_case("All", "Any")
def _bool_reductions() -> Build:
    b = tf.constant(np.array([[True, False, True], [True, True, True]]))
    return Build([tf.reduce_all(b, axis=1), tf.reduce_any(b, axis=0), tf.reduce_all(b)])


@_case("ArgMax", "ArgMin")
def _arg() -> Build:
    x = _f32(4, 5)
    return Build([tf.argmax(x, axis=1), tf.argmin(x, axis=0)])


@_case("Cumsum", "Cumprod")
def _scans() -> Build:
    x = _f32(3, 4, low=0.5, high=1.5)
    return Build(
        [
            tf.cumsum(x, axis=1),
            tf.cumsum(x, axis=0, exclusive=True, reverse=True),
            tf.cumprod(x, axis=1, exclusive=True),
            tf.cumprod(x, axis=0, reverse=True),
        ]
    )


@_case("BroadcastGradientArgs")
def _bcast_args() -> Build:
    s0 = tf.constant(np.array([2, 1, 3], np.int32))
    s1 = tf.constant(np.array([4, 3], np.int32))
    return Build(_raw("BroadcastGradientArgs", [s0, s1], T=tf.int32))


@_case("Range")
def _range() -> Build:
    return Build([tf.range(1, 10, 2), tf.range(0.5, 3.0, 0.75)])


# ---- arrays --------------------------------------------------------------------------------
@_case("Const", "Identity", "StopGradient")
def _const() -> Build:
    f = _f32(2, 3)
    i = tf.constant(np.array([1, 2, 3], np.int32))
    return Build([tf.identity(f), tf.stop_gradient(f) * 2, i + 1, tf.constant(np.float64(2.5))])


@_case("Placeholder", "PlaceholderWithDefault")
def _placeholders() -> Build:
    p = tf.placeholder(tf.float32, [2, 3])
    d = tf.placeholder_with_default(_f32(4), [4])
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    return Build([p * 2.0, d + 1.0], feeds={p: value})


@_case("Shape", "ShapeN", "Rank", "Size")
def _shapes() -> Build:
    x = _f32(2, 3, 4)
    # Raw ops: the tf.* functions fold known static shapes into constants.
    return Build(
        [
            *_raw("Shape", [x], T=tf.float32, out_type=tf.int32),
            *_raw("ShapeN", [x, _f32(5)], N=2, T=tf.float32, out_type=tf.int64),
            *_raw("Shape", [x], T=tf.float32, out_type=tf.int64),
            *_raw("Rank", [x], T=tf.float32),
            *_raw("Size", [x], T=tf.float32, out_type=tf.int32),
        ]
    )


@_case("ConcatOffset")
def _concat_offset() -> Build:
    # Where a concat's gradient slices its gradient: shapes from ShapeN, as TF's gradient.
    x, y = _f32(2, 3, 4), _f32(2, 5, 4)
    return Build(tf.raw_ops.ConcatOffset(concat_dim=1, shape=tf.shape_n([x, y])))


@_case("Reshape", "Fill", "ZerosLike", "OnesLike")
def _reshape_fill() -> Build:
    x = _f32(2, 6)
    return Build(
        [
            tf.reshape(x, [3, -1]),
            tf.reshape(x, tf.shape(tf.transpose(x))),
            tf.fill([2, 3], 1.5),
            *_raw("ZerosLike", [x], T=tf.float32),
            *_raw("OnesLike", [x], T=tf.float32),
        ]
    )


@_case("FakeParam")
def _fake_param() -> Build:
    # A function parameter that is never read: TF allocates its shape, unknown dimensions as 0.
    return Build(
        [
            *_raw("FakeParam", [], dtype=tf.float32, shape=tf.TensorShape([2, 3])),
            *_raw("FakeParam", [], dtype=tf.int32, shape=tf.TensorShape([None, 4])),
        ]
    )


@_case("Transpose", "InvertPermutation")
def _transpose() -> Build:
    x = _f32(2, 3, 4)
    perm = tf.constant(np.array([2, 0, 1], np.int32))
    return Build([tf.transpose(x, perm), tf.transpose(x), tf.invert_permutation(perm)])


@_case("DiagPart", "MatrixDiag", "MatrixSetDiag")
def _matrices() -> Build:
    from tfcluster.ops import linalg_ops

    return Build(
        [
            linalg_ops.diag_part(_f32(3, 3)),
            linalg_ops.diag_part(_f32(2, 3, 2, 3)),
            linalg_ops.matrix_diag(_f32(2, 3)),
            linalg_ops.matrix_set_diag(_f32(2, 3, 4), _f32(2, 3, low=5, high=6)),
        ]
    )


@_case("ConcatV2", "Pack", "Unpack")
def _join() -> Build:
    a, b = _f32(2, 3), _f32(2, 3, low=3, high=4)
    return Build(
        [
            tf.concat([a, b], axis=0),
            tf.concat([a, b], -1),
            tf.stack([a, b], axis=1),
            *tf.unstack(a, axis=1),
        ]
    )


@_case("Split", "SplitV")
def _split() -> Build:
    x = _f32(4, 6)
    return Build(tf.split(x, 3, axis=1) + tf.split(x, [1, -1, 2], axis=1))


@_case("Slice", "StridedSlice", "StridedSliceGrad")
def _slices() -> Build:
    x = _f32(4, 5, 3)
    sliced = x[1:, ::2, 0]
    return Build(
        [
            tf.slice(x, [1, 0, 1], [2, -1, 2]),
            sliced,
            x[..., tf.newaxis, 1],
            x[-1],
            _grad(sliced, x),
        ]
    )


@_case("GatherV2")
def _gather() -> Build:
    x = _f32(5, 3)
    idx = tf.constant(np.array([[4, 0], [2, 2]], np.int32))
    return Build([tf.gather(x, idx), tf.gather(x, tf.constant(np.array([2, 0], np.int64)), axis=1)])


@_case("GatherNd", "ScatterNd")
def _nd() -> Build:
    x = _f32(3, 4)
    idx = tf.constant(np.array([[0, 1], [2, 3], [0, 1]], np.int32))
    updates = tf.constant(np.array([1.0, 2.0, 4.0], np.float32))
    return Build(
        [
            tf.gather_nd(x, idx),
            tf.gather_nd(x, tf.constant(np.array([[2], [0]], np.int32))),
            tf.scatter_nd(idx, updates, [3, 4]),  # repeated index: the updates add up
        ]
    )


@_case("Tile", "ExpandDims", "Squeeze")
def _dims() -> Build:
    x = _f32(2, 3)
    e = tf.expand_dims(x, 1)
    return Build([tf.tile(x, [2, 3]), e, tf.expand_dims(x, -1), tf.squeeze(e), tf.squeeze(e, [1])])


@_case("Pad", "PadV2", "MirrorPad", "MirrorPadGrad")
def _pads() -> Build:
    x = _f32(3, 4)
    pads = [[1, 2], [2, 1]]
    mirrored = tf.pad(x, pads, mode="REFLECT")
    return Build(
        [
            tf.pad(x, pads),
            tf.pad(x, pads, constant_values=1.5),
            mirrored,
            tf.pad(x, pads, mode="SYMMETRIC"),
            _grad(mirrored, x),
        ]
    )


@_case("ReverseV2")
def _reverse() -> Build:
    x = _f32(2, 3, 4)
    return Build([tf.reverse(x, [0, 2]), tf.reverse(x, [-2])])


@_case("Where")
def _where() -> Build:
    return Build([tf.where(_f32(3, 4) > 0.5)])


@_case("OneHot")
def _one_hot() -> Build:
    idx = tf.constant(np.array([[0, 3], [2, -1]], np.int32))
    return Build([tf.one_hot(idx, 4), tf.one_hot(idx, 3, on_value=5.0, off_value=-1.0, axis=0)])


# ---- nn ------------------------------------------------------------------------------------
_ACTIVATIONS: dict[str, Callable[[Any], Any]] = {
    "Relu": tf.nn.relu,
    "Relu6": tf.nn.relu6,
    "Elu": tf.nn.elu,
    "Selu": tf.nn.selu,
    "Softplus": tf.nn.softplus,
    "Softsign": tf.nn.softsign,
    "LeakyRelu": lambda x: tf.nn.leaky_relu(x, alpha=0.1),
}


def _activation_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        x = tf.constant(np.linspace(-8.0, 8.0, 24, dtype=np.float32).reshape(4, 6))
        y = _ACTIVATIONS[op](x)
        if op == "Softplus":  # TF 1.15's gradient is grad * sigmoid(x): its op run raw
            dy = tf.constant(np.linspace(0.5, 1.5, 24, dtype=np.float32).reshape(4, 6))
            return Build([y, _grad(y, x), *_raw("SoftplusGrad", [dy, x], T=tf.float32)])
        return Build([y, _grad(y, x)])

    return build


for _op in _ACTIVATIONS:
    CASES[_op] = CASES[f"{_op}Grad"] = _activation_case(_op)


@_case("Softmax", "LogSoftmax")
def _softmax() -> Build:
    x = _f32(3, 5, low=-5, high=5)
    return Build([tf.nn.softmax(x), tf.nn.log_softmax(x)])


@_case("SoftmaxCrossEntropyWithLogits")
def _xent() -> Build:
    logits = _f32(4, 3, low=-3, high=3)
    labels = tf.nn.softmax(_f32(4, 3, low=-1, high=1) * 3.0)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return Build([loss, _grad(loss, logits)])


@_case("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent() -> Build:
    logits = _f32(4, 3, low=-3, high=3)
    labels = tf.constant(np.array([0, 2, 1, 2], np.int64))
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return Build([loss, _grad(loss, logits)])


@_case("L2Loss")
def _l2() -> Build:
    return Build([tf.nn.l2_loss(_f32(3, 4))])


@_case("BiasAdd", "BiasAddGrad")
def _bias() -> Build:
    x, b = _f32(2, 3, 4), _f32(4)
    y = tf.nn.bias_add(x, b)
    return Build([y, _grad(y, b)])


@_case("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
def _conv() -> Build:
    x, f = _f32(2, 7, 6, 3), _f32(3, 2, 3, 4)
    same = tf.nn.conv2d(x, f, strides=[1, 2, 2, 1], padding="SAME")
    dilated = tf.nn.conv2d(x, f, strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 1, 1])
    first = tf.nn.conv2d(
        tf.transpose(x, [0, 3, 1, 2]),
        f,
        [1, 1, 1, 2],
        [[0, 0], [0, 0], [1, 0], [2, 1]],
        data_format="NCHW",
    )
    # A stride that divides the filter, enough input channels: the input gradient by the
    # stride's phases (kernels/_conv_phases.py).
    wide, f4 = _f32(2, 8, 7, 16), _f32(4, 2, 16, 5)
    phased = tf.nn.conv2d(wide, f4, strides=[1, 2, 2, 1], padding="SAME")
    return Build(
        [
            same,
            dilated,
            first,
            phased,
            *tf.gradients(tf.reduce_sum(same * same), [x, f]),
            *tf.gradients(tf.reduce_sum(first * first), [x, f]),
            *tf.gradients(tf.reduce_sum(phased * phased), [wide, f4]),
        ]
    )


@_case("MaxPool", "MaxPoolGrad", "AvgPool", "AvgPoolGrad")
def _pool() -> Build:
    x = _f32(2, 5, 6, 3)
    mx = tf.nn.max_pool(x, [1, 3, 2, 1], [1, 2, 2, 1], "SAME")
    av = tf.nn.avg_pool(x, [1, 2, 3, 1], [1, 2, 1, 1], "SAME")
    return Build([mx, av, _grad(mx, x), _grad(av, x)])


# The attrs of the graph optimizer's fused convolutions in these cases: a stride-1 SAME
# convolution of float32 NHWC tensors.
_CONV_ATTRS = {
    "strides": [1, 1, 1, 1],
    "padding": "SAME",
    "data_format": "NHWC",
    "dilations": [1, 1, 1, 1],
    "T": tf.float32,
}


@_case("_FusedConv2D")
def _fused_conv() -> Build:
    # The graph optimizer makes these from Conv2D -> BiasAdd -> Relu; built here directly.
    x, f, b = _f32(2, 7, 6, 3), _f32(3, 2, 3, 4), _f32(4)
    attrs = {**_CONV_ATTRS, "num_args": 1, "epsilon": 0.0}
    relu = op_util.make_op(
        "_FusedConv2D", [x, f, b], {**attrs, "fused_ops": ["BiasAdd", "Relu"]}, name="Relu"
    ).outputs[0]
    bias = op_util.make_op(
        "_FusedConv2D", [x, f, b], {**attrs, "fused_ops": ["BiasAdd"]}, name="BiasAdd"
    ).outputs[0]
    return Build([relu, bias])


@_case("_FusedMatMul")
def _fused_matmul() -> Build:
    # The graph optimizer makes these from MatMul -> BiasAdd; built here directly.
    attrs = {"fused_ops": ["BiasAdd"], "num_args": 1, "epsilon": 0.0, "T": tf.float32}
    one = op_util.make_op(
        "_FusedMatMul", [_f32(5, 3), _f32(3, 1), _f32(1)], {**attrs}, name="BiasAdd"
    ).outputs[0]
    narrow = op_util.make_op(
        "_FusedMatMul",
        [_f32(3, 4), _f32(6, 3), _f32(6)],
        {**attrs, "transpose_a": True, "transpose_b": True},
        name="BiasAdd_1",
    ).outputs[0]
    return Build([one, narrow])


@_case("_FusedMaxPoolGradReluGrad")
def _fused_pool_grad() -> Build:
    # MaxPoolGrad -> ReluGrad of the pool's input, fused by the graph optimizer: windows that
    # tile the input, and windows that overlap (the unfused computation).
    x = tf.nn.relu(_f32(2, 6, 8, 3))
    outs = []
    for k, s, padding in ((2, 2, "VALID"), (3, 2, "SAME")):
        y = tf.nn.max_pool(x, [1, k, k, 1], [1, s, s, 1], padding)
        g = _f32(*y.shape.as_list())
        attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": padding}
        fused = op_util.make_op(
            "_FusedMaxPoolGradReluGrad", [x, y, g], {**attrs, "T": tf.float32}, name="ReluGrad"
        )
        outs.append(fused.outputs[0])
    return Build(outs)


@_case("_FusedConv2DBackprop")
def _fused_conv_backprop() -> Build:
    # A convolution's filter and input gradients of one out_backprop, fused by the graph
    # optimizer; on the GPU (and for these few channels on the CPU) the two computations.
    x, f, dy = _f32(2, 7, 6, 3), _f32(3, 2, 3, 4), _f32(2, 7, 6, 4)
    fused = op_util.make_op(
        "_FusedConv2DBackprop",
        [x, tf.constant([3, 2, 3, 4]), dy, tf.constant([2, 7, 6, 3]), f],
        _CONV_ATTRS,
        name="Conv2DBackpropFilter",
    )
    return Build(list(fused.outputs))


@_case("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")
def _conv3d() -> Build:
    x, f = _f32(2, 4, 5, 4, 2), _f32(2, 3, 2, 2, 3)
    y = tf.nn.conv3d(x, f, strides=[1, 1, 2, 1, 1], padding="SAME")
    first = tf.nn.conv3d(
        tf.transpose(x, [0, 4, 1, 2, 3]), f, [1, 1, 1, 1, 1], "VALID", data_format="NCDHW"
    )
    return Build([y, first, *tf.gradients(tf.reduce_sum(y * y), [x, f])])


@_case(
    "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter",
)
def _depthwise() -> Build:
    x, f = _f32(2, 6, 5, 3), _f32(3, 2, 3, 2)
    y = tf.nn.depthwise_conv2d_native(x, f, [1, 2, 1, 1], "SAME")
    return Build([y, *tf.gradients(tf.reduce_sum(y * y), [x, f])])


@_case("MaxPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3D", "AvgPool3DGrad")
def _pool3d() -> Build:
    x = _f32(2, 4, 5, 4, 2)
    mx = tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 1, 1], "SAME")
    av = tf.nn.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], "VALID")
    gmx = tf.gradients(tf.reduce_sum(mx * mx), x)[0]
    return Build([mx, av, gmx, _grad(av, x), tf.gradients(tf.reduce_sum(gmx * gmx), x)[0]])


@_case("MaxPoolGradGrad")
def _max_pool_grad_grad() -> Build:
    x = _f32(2, 5, 6, 3)
    mx = tf.nn.max_pool(x, [1, 3, 2, 1], [1, 2, 2, 1], "SAME")
    g = tf.gradients(tf.reduce_sum(mx * mx), x)[0]
    return Build([tf.gradients(tf.reduce_sum(g * g), x)[0]])


@_case("MaxPoolWithArgmax", "MaxPoolGradWithArgmax", "MaxPoolGradGradWithArgmax")
def _argmax_pool() -> Build:
    x = _f32(2, 5, 6, 3)
    y, arg = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    _, arg_b = tf.nn.max_pool_with_argmax(
        x, [1, 3, 3, 1], [1, 1, 1, 1], "VALID", include_batch_in_index=True
    )
    attrs = {
        "ksize": [1, 2, 2, 1],
        "strides": [1, 2, 2, 1],
        "padding": "SAME",
        "include_batch_in_index": False,
        "Targmax": tf.int64,
        "T": tf.float32,
    }
    gg = _raw("MaxPoolGradGradWithArgmax", [x, x * 2.0, arg], **attrs)[0]
    return Build([y, arg, arg_b, _grad(y, x), gg])


@_case(
    "SpaceToBatchND",
    "BatchToSpaceND",
    "SpaceToBatch",
    "BatchToSpace",
    "SpaceToDepth",
    "DepthToSpace",
)
def _space_to_batch() -> Build:
    x = _f32(2, 4, 6, 3)
    s2b = tf.space_to_batch_nd(x, [2, 3], [[0, 2], [1, 2]])
    b2s = tf.batch_to_space_nd(s2b, [2, 3], [[0, 2], [1, 2]])
    v1 = tf.space_to_batch(x, [[1, 1], [0, 0]], block_size=2)
    back = _raw(
        "BatchToSpace",
        [v1, tf.constant([[1, 1], [0, 0]])],
        block_size=2,
        T=tf.float32,
        Tidx=tf.int32,
    )[0]
    s2d = tf.space_to_depth(x, 2)
    d2s = tf.depth_to_space(s2d, 2, data_format="NHWC")
    raw_v1 = _raw(
        "SpaceToBatch",
        [x, tf.constant([[0, 0], [0, 0]])],
        block_size=2,
        T=tf.float32,
        Tpaddings=tf.int32,
    )[0]
    return Build([s2b, b2s, v1, back, s2d, d2s, raw_v1, _grad(s2b, x), _grad(s2d, x)])


@_case("FusedBatchNormV3", "FusedBatchNormGradV3")
def _fused_batch_norm() -> Build:
    x, scale, offset = _f32(4, 3, 5, 2), _f32(2, low=0.5), _f32(2)
    y, mean, var = tf.nn.fused_batch_norm(x, scale, offset, epsilon=0.01)
    yi, _, _ = tf.nn.fused_batch_norm(
        tf.transpose(x, [0, 3, 1, 2]),
        scale,
        offset,
        mean=_f32(2),
        variance=_f32(2, low=0.5),
        is_training=False,
        data_format="NCHW",
    )
    return Build(
        [
            y,
            mean,
            var,
            yi,
            *tf.gradients(tf.reduce_sum(y * y * x), [x, scale, offset]),
            *tf.gradients(tf.reduce_sum(yi * yi), [x, scale]),
        ]
    )


@_case("InTopK")
def _in_top_k() -> Build:
    p = tf.constant(np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.9, 0.05, 0.05]], np.float32))
    t = tf.constant(np.array([2, 0, 0], np.int32))
    # tf.nn.in_top_k makes TF 1.15's InTopKV2; the attr form InTopK stays for imported graphs.
    return Build([nn_ops.in_top_k(p, t, 1), nn_ops.in_top_k(p, t, 2)])


# ---- variables and optimizer updates ------------------------------------------------------
@_case("VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized")
def _variables() -> Build:
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    w = tf.Variable(tf.zeros([3]), name="w")
    inc = tf.assign_add(v, tf.ones([2, 3]))
    with tf.control_dependencies([inc]):
        dec = tf.assign_sub(w, tf.constant([1.0, 2.0, 3.0]))
    return Build(
        [v, w, tf.is_variable_initialized(v), v.read_value()],
        before=[[v.initializer, w.initializer], [dec], [tf.assign(w, v[0] * 2.0)]],
    )


@_case("_InitializedValue")
def _initialized_value() -> Build:
    a = tf.Variable(_f32(3), name="a")
    b = tf.Variable(a.initialized_value() * 2.0, name="b")
    return Build([b], before=[[a.initializer], [b.initializer]])


def _apply_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        rng = _rng()
        var = tf.Variable(rng.uniform(-1, 1, (2, 3)).astype(np.float32), name="var")
        # Slot 0 small, so centered RMSProp's ms - mg^2 stays positive.
        slots = [
            tf.Variable(rng.uniform(lo, lo + 0.5, (2, 3)).astype(np.float32), name=f"slot{i}")
            for i, lo in enumerate((0.0, 0.5, 0.5))
        ]
        g = tf.constant(rng.uniform(-1, 1, (2, 3)).astype(np.float32))
        update = {
            "ApplyGradientDescent": lambda: training_ops.apply_gradient_descent(var, 0.1, g),
            "ApplyMomentum": lambda: training_ops.apply_momentum(
                var, slots[0], 0.1, g, 0.9, use_nesterov=True
            ),
            "ApplyAdam": lambda: training_ops.apply_adam(
                var, slots[0], slots[1], 0.9, 0.999, 0.01, 0.9, 0.999, 1e-7, g
            ),
            "ApplyAdagrad": lambda: training_ops.apply_adagrad(var, slots[0], 0.1, g),
            "ApplyRMSProp": lambda: training_ops.apply_rms_prop(
                var, slots[0], slots[1], 0.01, 0.9, 0.5, 1e-7, g
            ),
            "ApplyCenteredRMSProp": lambda: training_ops.apply_centered_rms_prop(
                var, slots[0], slots[1], slots[2], 0.01, 0.9, 0.5, 1e-7, g
            ),
        }[op]()
        return Build(
            [var, *slots],
            before=[[var.initializer, *(s.initializer for s in slots)], [update], [update]],
        )

    return build


for _op in (
    "ApplyGradientDescent",
    "ApplyMomentum",
    "ApplyAdam",
    "ApplyAdagrad",
    "ApplyRMSProp",
    "ApplyCenteredRMSProp",
):
    CASES[_op] = _apply_case(_op)


# ---- random: drawn on the host on either device, so seeded draws agree exactly --------------
@_case("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt")
def _random() -> Build:
    return Build(
        [
            tf.random_normal([3, 4], seed=1),
            tf.truncated_normal([50], stddev=2.0, seed=2),
            tf.random_uniform([2, 5], seed=3),
            tf.random_uniform([6], minval=-3, maxval=9, dtype=tf.int32, seed=4),
        ]
    )


@_case("RandomShuffle")
def _shuffle() -> Build:
    return Build([tf.random_shuffle(_f32(6, 2), seed=5)])


# ---- image: the cases live beside their family -------------------------------------------
def _image_cases() -> None:
    from support.gpu_op_cases_image import CASES_IMAGE

    CASES.update(CASES_IMAGE)


_image_cases()


def _quantization_cases() -> None:
    from support.gpu_op_cases_quantization import CASES_QUANTIZATION

    CASES.update(CASES_QUANTIZATION)


_quantization_cases()


# ---- comparing the devices ----------------------------------------------------------------
def _traced_run(sess: Any, build: Build) -> tuple[list[Any], set[str]]:
    """The build's values, and the names of the nodes that ran on the GPU meanwhile."""
    on_gpu: set[str] = set()

    def run(fetches: Any) -> Any:
        meta = tf.RunMetadata()
        out = sess.run(
            fetches,
            build.feeds,
            options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
            run_metadata=meta,
        )
        for dev in meta.step_stats.dev_stats:
            if dev.device == GPU:
                on_gpu.update(n.node_name for n in dev.node_stats)
        return out

    for ops in build.before:
        run(ops)
    return list(run(build.fetches)), on_gpu


def check_gpu_matches_cpu(op: str, tolerance: Tolerance) -> None:
    """op's case built on /cpu:0 and on /device:GPU:0 of one graph (no soft placement, so the
    GPU build really runs there) and run in one session: a node of type op ran on the GPU,
    every fetch came back in host memory, and the values agree within tolerance(dtype)."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/cpu:0"):
            on_cpu = CASES[op]()
        existing = {o.name for o in graph.get_operations()}
        with tf.device("/device:GPU:0"):
            on_gpu = CASES[op]()
        targets = {o.name for o in graph.get_operations() if o.type == op} - existing
    with tf.Session(graph=graph) as sess:
        want = on_cpu.run(sess)
        got, ran_on_gpu = _traced_run(sess, on_gpu)
    if op != "Placeholder":  # a fed placeholder never runs
        assert targets & ran_on_gpu, f"no {op} node ran on {GPU}: {sorted(targets)}"
    assert len(got) == len(want)
    for i, (w, g) in enumerate(zip(want, got)):
        assert isinstance(g, np.ndarray | np.generic), f"fetch {i} is a {type(g)}, not host memory"
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, g.shape, w.dtype, w.shape)
        if w.dtype.kind in "fc":
            rtol, atol = tolerance(w.dtype)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=op)
        else:
            np.testing.assert_array_equal(g, w, err_msg=op)


def check_gpu_errors_are_tf_errors() -> None:
    """Bad input to GPU kernels (indices, labels, integer division) raises TF's errors."""
    with tf.device("/device:GPU:0"):
        params = tf.constant(np.ones((3, 2), np.float32))
        bad = tf.gather(params, tf.constant(np.array([0, 5], np.int32)))
        labels = tf.placeholder(tf.int64, [2])
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=tf.constant(np.zeros((2, 3), np.float32))
        )
        # FloorDiv checks for zero (InvalidArgument); TF's TruncateDiv reports it as Internal.
        div = tf.floordiv(tf.constant(np.array([1, 2], np.int32)), tf.constant([1, 0]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in"):
            sess.run(bad)
        with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 7"):
            sess.run(xent, {labels: np.array([0, 7])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            sess.run(div)


# The families written once over xp since (math, debugging, sparse updates) add their cases.
from support import (  # noqa: E402, F401
    gpu_op_cases_array_extras,
    gpu_op_cases_block_rnn,
    gpu_op_cases_collectives,
    gpu_op_cases_features,
    gpu_op_cases_funcops,
    gpu_op_cases_legacy_ops,
    gpu_op_cases_mathops,
    gpu_op_cases_nn_extras,
    gpu_op_cases_resource_vars,
    gpu_op_cases_signal,
    gpu_op_cases_sparse_training,
    gpu_op_cases_v1_control_flow,
)

__all__ = [
    "ALL_DEVICE_OPS",
    "CASES",
    "GPU",
    "Build",
    "Tolerance",
    "check_gpu_errors_are_tf_errors",
    "check_gpu_matches_cpu",
    "gpu_ops",
]
