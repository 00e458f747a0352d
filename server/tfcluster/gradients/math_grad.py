"""Gradients of math ops: element-wise (with broadcasting), matmul, casts, select, reductions
and scans. Each function returns one gradient (or None) per input of the op, as in TF."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations, tensor_util
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, constant_op, counting_ops, math_ops, partition_ops


# ---- broadcasting -------------------------------------------------------------------------
def _static_reduction_axes(x: Tensor, y: Tensor) -> list[int] | None:
    """Axes of broadcast(x, y) to sum over for x's gradient; None when only run time knows."""
    if x.shape.ndims is None or y.shape.ndims is None:
        return None
    xd, yd = x.shape.as_list(), y.shape.as_list()
    n = max(len(xd), len(yd))
    lead = n - len(xd)
    y_padded = [1] * (n - len(yd)) + yd
    axes = list(range(lead))
    for i, dx in enumerate(xd):
        dy = y_padded[lead + i]
        if dx == 1:
            axes.append(lead + i)  # summing is right whether or not y broadcasts it
        elif dx is None and dy != 1:
            return None  # x's dim might be 1 and broadcast against y's
    return axes


def _bcast_cache_graph() -> Graph:
    """The graph whose cache of broadcast reduction axes TF 1.15 uses: its gradient ops
    (those of a cond branch too) are all made in the one graph."""
    graph = get_default_graph()
    while (outer := getattr(graph, "outer_graph", None)) is not None:
        graph = outer
    return graph


_BCAST_CACHES: weakref.WeakKeyDictionary[Graph, dict[tuple[Any, Any], Any]] = (
    weakref.WeakKeyDictionary()
)

# One side of a broadcasting op's gradient: (its shape, the axes its gradient sums over, and
# whether it must be summed and reshaped at all), as tuples when static, else int32 tensors.
_Side = tuple[Any, Any, bool]


def _shape_tuple(t: Tensor) -> tuple[Any, ...] | None:
    return None if t.shape.ndims is None else tuple(t.shape.as_list())


def _fully_specified_and_equal(x: Tensor, y: Tensor, grad: Any) -> bool:
    """TF's _ShapesFullySpecifiedAndEqual: the gradient passes on as it is."""
    if not isinstance(grad, Tensor):
        return False
    sx = _shape_tuple(x)
    return sx is not None and None not in sx and sx == _shape_tuple(y) == _shape_tuple(grad)


def _smart_broadcast_args(x: Tensor, y: Tensor, grad: Any) -> tuple[_Side, _Side]:
    """TF 1.15's SmartBroadcastGradientArgs, op for op. With both shapes static, the axes are
    computed once per graph and shape pair (the first time from a BroadcastGradientArgs op of
    constant shapes, which TF makes and never runs); else from Shape ops at run time."""
    sx, sy = _shape_tuple(x), _shape_tuple(y)
    if not isinstance(grad, Tensor) or sx is None or None in sx or sy is None or None in sy:
        if isinstance(grad, Tensor):
            tx, ty = (
                array_ops.shape_internal(x, optimize=False),
                array_ops.shape_internal(y, optimize=False),
            )
        else:
            tx, ty = array_ops.shape(x), array_ops.shape(y)
        axes_x, axes_y = math_ops.broadcast_gradient_args(tx, ty)
        return (tx, axes_x, True), (ty, axes_y, True)
    sg = _shape_tuple(grad)
    cache = _BCAST_CACHES.setdefault(_bcast_cache_graph(), {})
    cached = cache.get((sx, sy))
    if cached is None:
        _constant_broadcast_gradient_args(sx, sy)
        cached = cache[(sx, sy)] = (_axes_to(sx, sy), _axes_to(sy, sx))
    rx, ry = cached
    return (sx, rx, sx != sg), (sy, ry, sy != sg)


def _constant_broadcast_gradient_args(sx: tuple[int, ...], sy: tuple[int, ...]) -> None:
    """The BroadcastGradientArgs op of two constant shapes TF makes to learn the axes."""
    with name_scope(None, "BroadcastGradientArgs") as scope:
        s0 = constant_op.constant(list(sx), dtype=dtypes.int32, name="s0")
        s1 = constant_op.constant(list(sy), dtype=dtypes.int32, name="s1")
        math_ops.broadcast_gradient_args(s0, s1, name=scope)


def _axes_to(sa: tuple[int, ...], sb: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of broadcast(a, b) a's gradient sums over, as TF's BroadcastGradientArgs
    gives them: none for equal shapes, else every axis where a (padded with leading ones)
    is 1, even where b's is 1 too."""
    if sa == sb:
        return ()
    n = max(len(sa), len(sb))
    pa = (1,) * (n - len(sa)) + sa
    return tuple(i for i in range(n) if pa[i] == 1)


def _sum_reshaped(g: Tensor, axes: Any, shape: Any) -> Tensor:
    """TF's `reshape(reduce_sum(g, axes), shape)`, with static axes and shapes as constants."""
    return array_ops.reshape(math_ops.reduce_sum(g, _as_list(axes)), _as_list(shape))


def _as_list(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _reduced(g: Tensor, side: _Side) -> Tensor:
    """One side's gradient from _smart_broadcast_args: summed and reshaped where it must be."""
    shape, axes, must_reduce = side
    return _sum_reshaped(g, axes, shape) if must_reduce else g


def _broadcast_shapes(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The gradients' older form in TF 1.15 (RealDiv, Maximum, FloorMod, ...): both shapes
    (constants when static) and the axes from a BroadcastGradientArgs op."""
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    return sx, sy, rx, ry


# The remaining users of the static reduction (complex, special-function and linear-algebra
# gradients) keep tfcluster's smaller graph.
def _sum_to(grad: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """The gradient of broadcast(x, y) summed back to x's shape."""
    axes = _static_reduction_axes(x, y)
    if axes is None:
        sx = array_ops.shape(x)
        rx, _ = math_ops.broadcast_gradient_args(sx, array_ops.shape(y))
        return array_ops.reshape(math_ops.reduce_sum(grad, rx), sx)
    if not axes:
        return grad
    lead = max(x.shape.ndims or 0, y.shape.ndims or 0) - (x.shape.ndims or 0)
    if lead == 0:
        return math_ops.reduce_sum(grad, axes, keepdims=True)
    if axes == list(range(lead)):
        return math_ops.reduce_sum(grad, axes)
    target: Any = x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
    return array_ops.reshape(math_ops.reduce_sum(grad, axes), target)


def reduce_to(grad: Tensor, x: Tensor, other: Tensor) -> Tensor:
    """A broadcast result's gradient summed back to x's shape (x broadcast against other)."""
    return _sum_to(grad, x, other)


# ---- binary element-wise ops --------------------------------------------------------------
# Each builds TF 1.15's ops in TF's order: gradient tensors carry TF's names, and random ops
# made after minimize() are seeded with TF's op count.
@RegisterGradient("Add")
@RegisterGradient("AddV2")
def _add_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    if _fully_specified_and_equal(x, y, grad):
        return grad, grad
    side_x, side_y = _smart_broadcast_args(x, y, grad)
    return _reduced(grad, side_x), _reduced(grad, side_y)


@RegisterGradient("Sub")
def _sub_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    if _fully_specified_and_equal(x, y, grad):
        return grad, -grad
    side_x, side_y = _smart_broadcast_args(x, y, grad)
    gx = _reduced(grad, side_x)
    return gx, _reduced(-grad, side_y)  # -grad: an IndexedSlices stays sparse (TF)


@RegisterGradient("Mul")
def _mul_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    if _fully_specified_and_equal(x, y, grad) and grad.dtype.base_dtype in (
        dtypes.int32,
        dtypes.float32,
    ):
        return math_ops.multiply(grad, y), math_ops.multiply(grad, x)
    side_x, side_y = _smart_broadcast_args(x, y, grad)
    # Complex inputs take the conjugate, as TF's (conj of a real tensor is the tensor itself).
    cx, cy = math_ops.conj(x), math_ops.conj(y)
    gx = _reduced(math_ops.multiply(grad, cy), side_x)
    return gx, _reduced(math_ops.multiply(cx, grad), side_y)


def _quotient_grad(op: Operation, grad: Tensor, divide: Any) -> Any:
    """TF 1.15's gradient of x / y for its three divisions (RealDiv, Div, DivNoNan), op for
    op: grad / y for x, grad * (-x / y / y) for y, each summed back to its input's shape."""
    x, y = op.inputs
    sx, sy, rx, ry = _broadcast_shapes(x, y)
    x, y = math_ops.conj(x), math_ops.conj(y)
    gx = _sum_reshaped(divide(grad, y), rx, sx)
    neg_x_over_y2 = divide(divide(math_ops.negative(x), y), y)
    return gx, _sum_reshaped(grad * neg_x_over_y2, ry, sy)


@RegisterGradient("RealDiv")
def _real_div_grad(op: Operation, grad: Tensor) -> Any:
    return _quotient_grad(op, grad, math_ops.realdiv)


@RegisterGradient("Div")
def _div_grad(op: Operation, grad: Tensor) -> Any:
    return _quotient_grad(op, grad, math_ops.divide)


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op: Operation, grad: Tensor) -> Any:
    return _quotient_grad(op, grad, math_ops.div_no_nan)


@RegisterGradient("FloorMod")
def _floor_mod_grad(op: Operation, grad: Tensor) -> Any:
    # x mod y = x - floor(x / y) * y, and floor(x / y) is piecewise constant.
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    sx, sy, rx, ry = _broadcast_shapes(x, y)
    floor_xy = math_ops.floor_div(x, y)
    gx = _sum_reshaped(grad, rx, sx)
    return gx, _sum_reshaped(grad * math_ops.negative(floor_xy), ry, sy)


@RegisterGradient("Pow")
def _pow_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    side_x, side_y = _smart_broadcast_args(x, y, grad)
    x, y = math_ops.conj(x), math_ops.conj(y)
    gx = _reduced(grad * y * math_ops.pow(x, y - 1), side_x)
    z = math_ops.conj(op.outputs[0])
    # d/dy x^y = x^y log(x); 0 where x <= 0 (complex: where x == 0) instead of a false
    # singularity.
    mask = math_ops.not_equal(x, 0) if x.dtype.is_complex else x > 0
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    safe_x = array_ops.where(mask, x, array_ops.ones_like(x))
    log_x = array_ops.where(mask, math_ops.log(safe_x), array_ops.zeros_like(x))
    return gx, _reduced(grad * z * log_x, side_y)


def _maximum_minimum_grad(op: Operation, grad: Tensor, x_wins: Any) -> Any:
    x, y = op.inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    zeros = array_ops.zeros(array_ops.shape(grad), grad.dtype)
    xmask = x_wins(x, y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    gx = _sum_reshaped(array_ops.where(xmask, grad, zeros), rx, sx)
    return gx, _sum_reshaped(array_ops.where(xmask, zeros, grad), ry, sy)


@RegisterGradient("Maximum")
def _maximum_grad(op: Operation, grad: Tensor) -> Any:
    return _maximum_minimum_grad(op, grad, math_ops.greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op: Operation, grad: Tensor) -> Any:
    return _maximum_minimum_grad(op, grad, math_ops.less_equal)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    with get_default_graph().control_dependencies([grad]):
        x_grad = math_ops.scalar_mul(2.0, grad) * (x - y)
    if _fully_specified_and_equal(x, y, grad):
        return x_grad, -x_grad
    side_x, side_y = _smart_broadcast_args(x, y, grad)
    gx = _reduced(x_grad, side_x)
    shape, axes, must_reduce = side_y
    return gx, -(_sum_reshaped(x_grad, axes, shape) if must_reduce else x_grad)


def _const(value: Any, like: Tensor) -> Tensor:
    return convert_to_tensor(np.asarray(value, dtype=like.dtype.base_dtype.as_numpy_dtype))


def _one(like: Tensor) -> Tensor:
    return _const(1, like)


# ---- unary ops ----------------------------------------------------------------------------
@RegisterGradient("Neg")
def _neg_grad(op: Operation, grad: Tensor) -> Any:
    return [-grad]  # as TF's: a gather's IndexedSlices stays sparse


@RegisterGradient("Abs")
def _abs_grad(op: Operation, grad: Tensor) -> Any:
    return [grad * math_ops.sign(op.inputs[0])]


@RegisterGradient("Square")
def _square_grad(op: Operation, grad: Tensor) -> Any:
    # As TF: under a control dependency on grad, so that the constant 2 waits for it.
    with get_default_graph().control_dependencies([grad]):
        x = math_ops.conj(op.inputs[0])
        return [math_ops.multiply(grad, math_ops.multiply(x, _const(2, x)))]


@RegisterGradient("Sqrt")
def _sqrt_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.sqrt_grad(op.outputs[0], grad)]


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.rsqrt_grad(op.outputs[0], grad)]


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.reciprocal_grad(op.outputs[0], grad)]


@RegisterGradient("Tanh")
def _tanh_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.tanh_grad(op.outputs[0], grad)]


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.sigmoid_grad(op.outputs[0], grad)]


@RegisterGradient("Exp")
def _exp_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        return [grad * math_ops.conj(op.outputs[0])]


@RegisterGradient("Expm1")
def _expm1_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        return [grad * math_ops.exp(math_ops.conj(op.inputs[0]))]


@RegisterGradient("Log")
def _log_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        return [grad * math_ops.reciprocal(math_ops.conj(op.inputs[0]))]


@RegisterGradient("Log1p")
def _log1p_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        x = math_ops.conj(op.inputs[0])
        return [grad * math_ops.reciprocal(1 + x)]


@RegisterGradient("Sin")
def _sin_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        return [grad * math_ops.cos(math_ops.conj(op.inputs[0]))]


@RegisterGradient("Cos")
def _cos_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        return [-grad * math_ops.sin(math_ops.conj(op.inputs[0]))]


@RegisterGradient("Tan")
def _tan_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        secx = math_ops.reciprocal(math_ops.cos(math_ops.conj(op.inputs[0])))
        return [math_ops.square(secx) * grad]


def _inverse_sqrt_one_minus_square(x: Tensor, grad: Tensor) -> Tensor:
    """TF 1.15's 1 / sqrt(1 - x^2) of the Asin and Acos gradients, op for op."""
    x2 = math_ops.square(math_ops.conj(x))
    one = constant_op.constant(1, dtype=grad.dtype.base_dtype)
    return math_ops.reciprocal(math_ops.sqrt(math_ops.subtract(one, x2)))


@RegisterGradient("Asin")
def _asin_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        return [grad * _inverse_sqrt_one_minus_square(op.inputs[0], grad)]


@RegisterGradient("Acos")
def _acos_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        inv = _inverse_sqrt_one_minus_square(op.inputs[0], grad)
        return [-grad * inv]


@RegisterGradient("Atan")
def _atan_grad(op: Operation, grad: Tensor) -> Any:
    with get_default_graph().control_dependencies([grad]):
        x2 = math_ops.square(math_ops.conj(op.inputs[0]))
        one = constant_op.constant(1, dtype=grad.dtype.base_dtype)
        return [grad * math_ops.reciprocal(math_ops.add(one, x2))]


@RegisterGradient("Conj")
def _conj_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.conj(grad)]


@RegisterGradient("Sign")
def _sign_grad(op: Operation, grad: Tensor) -> Any:
    # The derivative is 0 almost everywhere; TF returns zeros of the input's shape (a Fill of
    # its Shape) rather than no gradient.
    x = op.inputs[0]
    return [array_ops.zeros(array_ops.shape(x), dtype=x.dtype.base_dtype)]


# Gradients of TF's fused gradient ops (second derivatives), as in TF's math_grad.py.
@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op: Operation, grad: Tensor) -> Any:
    y, dy = op.inputs
    ga = math_ops.multiply(math_ops.multiply(grad, _const(-2, grad)), math_ops.multiply(dy, y))
    return ga, math_ops.tanh_grad(y, grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op: Operation, grad: Tensor) -> Any:
    y, dy = op.inputs
    gb = math_ops.multiply(grad, dy)
    ga = math_ops.subtract(gb, math_ops.multiply(math_ops.multiply(gb, _const(2, gb)), y))
    return ga, math_ops.sigmoid_grad(y, grad)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op: Operation, grad: Tensor) -> Any:
    y = op.inputs[0]
    ga = math_ops.realdiv(grad, y)
    return (
        math_ops.negative(math_ops.multiply(ga, op.outputs[0])),
        math_ops.multiply(ga, _const(0.5, ga)),
    )


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op: Operation, grad: Tensor) -> Any:
    y, dy = op.inputs
    ga = math_ops.multiply(
        math_ops.multiply(grad, _const(-1.5, grad)), math_ops.multiply(dy, math_ops.square(y))
    )
    return ga, math_ops.rsqrt_grad(y, grad)


@RegisterGradient("ReciprocalGrad")
def _reciprocal_grad_grad(op: Operation, grad: Tensor) -> Any:
    y, dy = op.inputs
    ga = math_ops.multiply(math_ops.multiply(grad, _const(-2, grad)), math_ops.multiply(dy, y))
    return ga, math_ops.reciprocal_grad(y, grad)


# ---- matmul, cast, select, n-ary sums -----------------------------------------------------
@RegisterGradient("MatMul")
def _matmul_grad(op: Operation, grad: Tensor) -> Any:
    a, b = op.inputs
    ta = op._get_attr("transpose_a")
    tb = op._get_attr("transpose_b")
    mm = math_ops.matmul
    if not ta and not tb:
        return mm(grad, b, transpose_b=True), mm(a, grad, transpose_a=True)
    if not ta and tb:
        return mm(grad, b), mm(grad, a, transpose_a=True)
    if ta and not tb:
        return mm(b, grad, transpose_b=True), mm(a, grad)
    return (
        mm(b, grad, transpose_a=True, transpose_b=True),
        mm(grad, a, transpose_a=True, transpose_b=True),
    )


@RegisterGradient("BatchMatMul")
def _batch_matmul_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    adj_x = op._get_attr("adj_x")
    adj_y = op._get_attr("adj_y")
    mm = math_ops.matmul
    if not adj_x and not adj_y:
        return mm(grad, y, adjoint_b=True), mm(x, grad, adjoint_a=True)
    if not adj_x and adj_y:
        return mm(grad, y), mm(grad, x, adjoint_a=True)
    if adj_x and not adj_y:
        return mm(y, grad, adjoint_b=True), mm(x, grad)
    return mm(y, grad, adjoint_a=True, adjoint_b=True), mm(grad, x, adjoint_a=True, adjoint_b=True)


_DIFFERENTIABLE_CASTS = (
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.bfloat16,
    dtypes.complex64,
    dtypes.complex128,
)


@RegisterGradient("Cast")
def _cast_grad(op: Operation, grad: Tensor) -> Any:
    src = op.inputs[0].dtype.base_dtype
    dst = grad.dtype.base_dtype
    if src in _DIFFERENTIABLE_CASTS and dst in _DIFFERENTIABLE_CASTS:
        return [math_ops.cast(grad, src)]
    return [None]


@RegisterGradient("Select")
def _select_grad(op: Operation, grad: Tensor) -> Any:
    c = op.inputs[0]
    zeros = array_ops.zeros_like(op.inputs[1])
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    return None, math_ops.select(c, grad, zeros), math_ops.select(c, zeros, grad)


@RegisterGradient("SelectV2")
def _select_v2_grad(op: Operation, grad: Tensor) -> Any:
    """TF's _SelectGradV2, op for op: each branch gets the gradient where it was chosen,
    summed over the dims broadcasting added to it."""
    c, x, y = op.inputs
    zeros = array_ops.zeros([], dtype=grad.dtype.base_dtype)
    gx = math_ops.select_v2(c, grad, zeros)
    x_shape = array_ops.shape(x)
    output_shape = array_ops.shape(op.outputs[0])
    reduce_x, _ = math_ops.broadcast_gradient_args(x_shape, output_shape)
    gx = array_ops.reshape(math_ops.reduce_sum(gx, axis=reduce_x, keepdims=True), x_shape)
    gy = math_ops.select_v2(c, zeros, grad)
    y_shape = array_ops.shape(y)
    reduce_y, _ = math_ops.broadcast_gradient_args(y_shape, output_shape)
    gy = array_ops.reshape(math_ops.reduce_sum(gy, axis=reduce_y, keepdims=True), y_shape)
    return None, gx, gy


@RegisterGradient("AddN")
@RegisterGradient("AccumulateNV2")
def _add_n_grad(op: Operation, grad: Tensor) -> Any:
    return [grad] * len(op.inputs)


# ---- reductions ---------------------------------------------------------------------------
# Each builds TF 1.15's ops in TF's order (see the binary ops above for why).
def reduced_shape(input_shape: Any, axes: Any) -> Tensor:
    """TF's math_ops.reduced_shape, op for op: input_shape with the reduced axes set to 1."""
    input_shape = math_ops.cast(input_shape, dtypes.int32)
    axes = math_ops.cast(axes, dtypes.int32)
    input_rank = array_ops.size(input_shape)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    return partition_ops.dynamic_stitch(
        [math_ops.range(input_rank), axes], [input_shape, array_ops.fill(axes_shape, 1)]
    )


def _safe_shape_div(x: Any, y: Any) -> Any:
    """x // max(y, 1): a reduced axis of size 0 divides as 0 / 0 = 0."""
    return x // math_ops.maximum(y, 1)


_REDUCED_SHAPE_CACHES: weakref.WeakKeyDictionary[
    Graph, dict[tuple[Any, Any], tuple[list[int], list[int]]]
] = weakref.WeakKeyDictionary()


def _static_kept_and_scaling(shape: tuple[int, ...], axes: Any) -> tuple[list[int], list[int]]:
    """(reduced shape with kept axes, tile multiples) of a reduction of a static shape over
    constant axes, once per graph: the first time TF makes (and never runs) the ops of
    reduced_shape and _safe_shape_div over constants to evaluate them."""
    axes_t = tuple(int(a) for a in np.asarray(axes).reshape(-1))
    cache = _REDUCED_SHAPE_CACHES.setdefault(_bcast_cache_graph(), {})
    hit = cache.get((shape, axes_t))
    if hit is None:
        reduced = {a % len(shape) for a in axes_t} if shape else set()
        kept = [1 if i in reduced else d for i, d in enumerate(shape)]
        reduced_shape(list(shape), list(axes_t))
        _safe_shape_div(list(shape), kept)
        hit = cache[(shape, axes_t)] = (kept, [d // max(k, 1) for d, k in zip(shape, kept)])
    return hit


@RegisterGradient("Sum")
def _sum_grad(op: Operation, grad: Tensor) -> Any:
    """The gradient tiled over the reduced axes, as TF's (a Tile: no multiply, which also
    keeps tf.profiler's FLOP count of a training graph equal to TF's)."""
    x = op.inputs[0]
    shape = _shape_tuple(x)
    if shape is not None:
        axes = tensor_util.constant_value(op.inputs[1])
        if axes is not None:
            rank = len(shape)
            if np.array_equal(axes, np.arange(rank)):
                # Every axis reduced: a Reshape to all ones and a Tile by the input's shape.
                ones = array_ops.reshape(grad, [1] * rank)
                if None not in shape:
                    multiples: Any = constant_op.constant(list(shape), dtype=dtypes.int32)
                else:
                    multiples = array_ops.shape(x)
                return [array_ops.tile(ones, multiples), None]
            if None not in shape:
                kept, scaling = _static_kept_and_scaling(shape, axes)
                return [array_ops.tile(array_ops.reshape(grad, kept), scaling), None]
    input_shape = array_ops.shape(x)
    # As TF: the shape arithmetic is colocated with the input's Shape op.
    with get_default_graph().colocate_with(input_shape.op):
        kept_t = reduced_shape(input_shape, op.inputs[1])
        scaling_t = _safe_shape_div(input_shape, kept_t)
    return [array_ops.tile(array_ops.reshape(grad, kept_t), scaling_t), None]


@RegisterGradient("Mean")
def _mean_grad(op: Operation, grad: Tensor) -> Any:
    sum_grad = _sum_grad(op, grad)[0]
    in_shape, out_shape = _shape_tuple(op.inputs[0]), _shape_tuple(op.outputs[0])
    if in_shape is not None and out_shape is not None and None not in in_shape + out_shape:
        factor: Any = constant_op.constant(
            int(np.prod(in_shape, dtype=np.int64)) // max(int(np.prod(out_shape)), 1),
            dtype=sum_grad.dtype,
        )
    else:
        in_shape_t = array_ops.shape(op.inputs[0])
        out_shape_t = array_ops.shape(op.outputs[0])
        factor = _safe_shape_div(
            math_ops.reduce_prod(in_shape_t), math_ops.reduce_prod(out_shape_t)
        )
    return [math_ops.truediv(sum_grad, math_ops.cast(factor, sum_grad.dtype)), None]


def _min_or_max_grad(op: Operation, grad: Tensor) -> Any:
    # The gradient goes to the elements equal to the extremum, split evenly between ties.
    kept = reduced_shape(array_ops.shape(op.inputs[0]), op.inputs[1])
    y = array_ops.reshape(op.outputs[0], kept)
    grad = array_ops.reshape(grad, kept)
    indicators = math_ops.cast(math_ops.equal(y, op.inputs[0]), grad.dtype)
    num_selected = array_ops.reshape(math_ops.reduce_sum(indicators, op.inputs[1]), kept)
    return [math_ops.divide(indicators, num_selected) * grad, None]


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


def _static_prod_perm(x: Tensor, axes: Tensor) -> list[int] | None:
    """The Prod gradient's transpose permutation (the reduced axes first, then the others in
    order) where x's rank and the axes are known statically, else None."""
    rank = x.shape.ndims
    value = tensor_util.constant_value(axes)
    if rank is None or value is None:
        return None
    axes_list = [int(a) for a in np.asarray(value).reshape(-1)]
    if rank == 0 and axes_list:
        return None  # an error of the reduction itself
    reduced = [(a + rank) % rank for a in axes_list]
    return reduced + [i for i in range(rank) if i not in reduced]


@RegisterGradient("Prod")
def _prod_grad(op: Operation, grad: Tensor) -> Any:
    """The product of the other elements as two exclusive cumulative products (exact where
    some elements are zero), over the reduced axes packed into one."""
    x = op.inputs[0]
    input_shape = array_ops.shape(x)
    reduction_indices = array_ops.reshape(op.inputs[1], [-1])
    kept = reduced_shape(input_shape, op.inputs[1])
    scaling = _safe_shape_div(input_shape, kept)
    grad = array_ops.tile(array_ops.reshape(grad, kept), scaling)
    # Shape arithmetic on the CPU, as TF (ListDiff has no GPU kernel).
    with get_default_graph().device("/cpu:0"):
        rank = array_ops.rank(x)
        reduction_indices = (reduction_indices + rank) % rank
        reduced = math_ops.cast(reduction_indices, dtypes.int32)
        idx = math_ops.range(0, rank)
        internal_deprecations.called_internally(internal_deprecations.SETDIFF1D)
        other, _ = counting_ops.setdiff1d(idx, reduced)
        perm = array_ops.concat([reduced, other], 0)
        reduced_num = math_ops.reduce_prod(array_ops.gather(input_shape, reduced))
        other_num = math_ops.reduce_prod(array_ops.gather(input_shape, other))
    permuted = array_ops.transpose(x, perm)
    static_perm = _static_prod_perm(x, op.inputs[1])
    if static_perm is not None:
        # TF's shape inference evaluates the constant perm: the permuted shape is static
        # where x's is (and its Shape then a constant).
        dims = x.shape.as_list()
        permuted.set_shape([dims[i] for i in static_perm])
    permuted_shape = array_ops.shape(permuted)
    reshaped = array_ops.reshape(permuted, (reduced_num, other_num))
    left = math_ops.cumprod(reshaped, axis=0, exclusive=True)
    right = math_ops.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = array_ops.reshape(math_ops.conj(left) * math_ops.conj(right), permuted_shape)
    out = grad * array_ops.transpose(y, array_ops.invert_permutation(perm))
    return [array_ops.reshape(out, input_shape), None]


@RegisterGradient("Cumsum")
def _cumsum_grad(op: Operation, grad: Tensor) -> Any:
    axis = op.inputs[1]
    exclusive = op._get_attr("exclusive")
    reverse = op._get_attr("reverse")
    return [math_ops.cumsum(grad, axis, exclusive=exclusive, reverse=not reverse), None]


@RegisterGradient("Cumprod")
def _cumprod_grad(op: Operation, grad: Tensor) -> Any:
    # As TF: sum over later outputs of grad * output, divided by x (undefined where x is 0).
    x, axis = op.inputs
    exclusive = op._get_attr("exclusive")
    reverse = op._get_attr("reverse")
    prod = math_ops.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = math_ops.cumsum(
        math_ops.multiply(prod, grad), axis, exclusive=exclusive, reverse=not reverse
    )
    return [math_ops.realdiv(out, x), None]


for _op in (
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "Equal",
    "NotEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
    "Range",
    "BroadcastGradientArgs",
):
    not_differentiable(_op)


# TF 1.15 registers gradients of None for these (not NotDifferentiable): tf.gradients gives
# None through them either way, and the table says "gradient" as TF's does.
def _no_input_grads(op: Operation, *grads: Any) -> Any:
    return [None] * len(op.inputs)


for _op in ("ArgMax", "ArgMin", "Floor", "Ceil", "Round", "FloorDiv", "TruncateDiv"):
    RegisterGradient(_op)(_no_input_grads)
