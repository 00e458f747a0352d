"""Gradients of math ops: element-wise (with broadcasting), matmul, casts, select, reductions
and scans. Each function returns one gradient (or None) per input of the op, as in TF."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
)
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, constant_op, math_ops


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


def _smart_broadcast_args(x: Tensor, y: Tensor, grad: Tensor) -> Any:
    """TF 1.15's SmartBroadcastGradientArgs for known shapes: per side (shape, reduction
    axes, must reduce). The axes are computed once per graph and shape pair; the first time,
    TF makes a BroadcastGradientArgs op of constant shapes (counted, not made: its value is
    never used). None when a shape is not fully known."""
    if not (x.shape.is_fully_defined() and y.shape.is_fully_defined()):
        return None
    sx = tuple(d or 0 for d in x.shape.as_list())  # fully defined: no None left
    sy = tuple(d or 0 for d in y.shape.as_list())
    sg = tuple(grad.shape.as_list()) if grad.shape.is_fully_defined() else None
    graph = _bcast_cache_graph()
    cache = _BCAST_CACHES.setdefault(graph, {})
    cached = cache.get((sx, sy))
    if cached is None:
        # TF's op and its two shape constants are never read: only their name and op count
        # are kept (a loop body's gradient would otherwise run them every iteration).
        graph_now = get_default_graph()
        graph_now.unique_name("BroadcastGradientArgs")
        graph_now._match_tf1_op_count(3)
        cached = cache[(sx, sy)] = (_axes_to(sx, sy), _axes_to(sy, sx))
    rx, ry = cached
    return (list(sx), rx, sx != sg), (list(sy), ry, sy != sg)


def _axes_to(sa: tuple[int, ...], sb: tuple[int, ...]) -> list[int]:
    """The axes of broadcast(a, b) a's gradient sums over, as TF's BroadcastGradientArgs
    gives them: none for equal shapes, else every axis where a (padded with leading ones)
    is 1, even where b's is 1 too."""
    if sa == sb:
        return []
    n = max(len(sa), len(sb))
    pa = (1,) * (n - len(sa)) + sa
    return [i for i in range(n) if pa[i] == 1]


def _runtime_broadcast_args(x: Tensor, y: Tensor) -> Any:
    """SmartBroadcastGradientArgs where a shape is not fully known: Shape ops (never
    constants) and their BroadcastGradientArgs, each side to be reduced, as TF 1.15 does."""
    sx, sy = array_ops._shape_op(x), array_ops._shape_op(y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    return (sx, rx, True), (sy, ry, True)


def _reduced(g: Tensor, side: tuple[Any, Any, bool]) -> Tensor:
    """One side's gradient from _smart_broadcast_args's (shape, axes, must reduce): summed
    over the axes and reshaped where it must be, else `g` as it is."""
    shape, axes, must_reduce = side
    return array_ops.reshape(math_ops.reduce_sum(g, axes), shape) if must_reduce else g


def unbroadcast(grad: Tensor, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Reduces a broadcast result's gradient back to the shapes of x and y."""
    return _sum_to(grad, x, y), _sum_to(grad, y, x)


def reduce_to(grad: Tensor, x: Tensor, other: Tensor) -> Tensor:
    """The part of `unbroadcast` for x alone."""
    return _sum_to(grad, x, other)


# ---- binary element-wise ops --------------------------------------------------------------
@RegisterGradient("Add")
@RegisterGradient("AddV2")
def _add_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    if not _needs_broadcast(x, y, grad):
        return unbroadcast(grad, x, y)
    smart = _smart_broadcast_args(x, y, grad) or _runtime_broadcast_args(x, y)
    return _reduced(grad, smart[0]), _reduced(grad, smart[1])


def _needs_broadcast(x: Tensor, y: Tensor, grad: Any) -> bool:
    """Not TF's shortcut for equal, known shapes (where a gradient passes on as it is)."""
    if not isinstance(grad, Tensor):
        return False
    shape = x.shape
    return not (shape.is_fully_defined() and shape == y.shape == grad.shape)


@RegisterGradient("Sub")
def _sub_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    if not _needs_broadcast(x, y, grad):
        return _sum_to(grad, x, y), math_ops.negative(_sum_to(grad, y, x))
    smart = _smart_broadcast_args(x, y, grad) or _runtime_broadcast_args(x, y)
    return _reduced(grad, smart[0]), _reduced(math_ops.negative(grad), smart[1])


@RegisterGradient("Mul")
def _mul_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs
    if (
        isinstance(grad, Tensor)
        and grad.dtype.base_dtype in (dtypes.float32, dtypes.int32)
        and x.shape.is_fully_defined()
        and x.shape == y.shape == grad.shape
    ):
        # TF's shortcut for equal, known shapes: no broadcast to undo.
        return math_ops.multiply(grad, y), math_ops.multiply(grad, x)
    # Complex inputs take the conjugate, as TF's (conj of a real tensor is the tensor itself).
    smart = _smart_broadcast_args(x, y, grad) if isinstance(grad, Tensor) else None
    if smart is not None:
        cx, cy = math_ops.conj(x), math_ops.conj(y)
    if smart is None:
        smart = _runtime_broadcast_args(x, y)
        cx, cy = math_ops.conj(x), math_ops.conj(y)
    gx = _reduced(math_ops.multiply(grad, cy), smart[0])
    return gx, _reduced(math_ops.multiply(cx, grad), smart[1])


@RegisterGradient("RealDiv")
@RegisterGradient("Div")
def _real_div_grad(op: Operation, grad: Tensor) -> Any:
    # TF 1.15's ops in its order (shapes, BroadcastGradientArgs, then each side): the op
    # count after a gradient sets the seeds of the random ops made later.
    (sx, rx), (sy, ry) = _shape_and_axes(*op.inputs)
    x, y = (math_ops.conj(t) for t in op.inputs)
    gx = _sum_reshaped(math_ops.realdiv(grad, y), rx, sx)
    gy = grad * math_ops.realdiv(math_ops.realdiv(math_ops.negative(x), y), y)
    return gx, _sum_reshaped(gy, ry, sy)


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op: Operation, grad: Tensor) -> Any:
    (sx, rx), (sy, ry) = _shape_and_axes(*op.inputs)
    x, y = (math_ops.conj(t) for t in op.inputs)
    gx = _sum_reshaped(math_ops.div_no_nan(grad, y), rx, sx)
    gy = grad * math_ops.div_no_nan(math_ops.div_no_nan(math_ops.negative(x), y), y)
    return gx, _sum_reshaped(gy, ry, sy)


def _shape_and_axes(x: Tensor, y: Tensor) -> tuple[tuple[Tensor, Tensor], tuple[Tensor, Tensor]]:
    """TF 1.15's shape(x), shape(y) (constants where known) and their
    BroadcastGradientArgs, made even where the shapes are known."""
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    return (sx, rx), (sy, ry)


def _sum_reshaped(g: Tensor, axes: Tensor, shape: Tensor) -> Tensor:
    return array_ops.reshape(math_ops.reduce_sum(g, axes), shape)


@RegisterGradient("FloorMod")
def _floor_mod_grad(op: Operation, grad: Tensor) -> Any:
    # x mod y = x - floor(x / y) * y, and floor(x / y) is piecewise constant.
    x, y = (math_ops.conj(t) for t in op.inputs)
    (sx, rx), (sy, ry) = _shape_and_axes(x, y)
    floor_xy = math_ops.floor_div(x, y)
    gx = _sum_reshaped(grad, rx, sx)
    return gx, _sum_reshaped(grad * math_ops.negative(floor_xy), ry, sy)


@RegisterGradient("Pow")
def _pow_grad(op: Operation, grad: Tensor) -> Any:
    # TF 1.15's ops, in its order and names (the op count sets later op seeds).
    x, y = op.inputs
    smart = _smart_broadcast_args(x, y, grad) if isinstance(grad, Tensor) else None
    if smart is None:
        smart = _runtime_broadcast_args(x, y)
    x, y = math_ops.conj(x), math_ops.conj(y)
    gx = _reduced(grad * y * math_ops.pow(x, y - 1), smart[0])
    z = math_ops.conj(op.outputs[0])
    # d/dy x^y = x^y log(x); 0 where x <= 0 instead of a false singularity.
    mask = math_ops.not_equal(x, 0) if x.dtype.is_complex else x > 0
    safe_x = array_ops.where(mask, x, array_ops.ones_like(x))
    log_x = array_ops.where(mask, math_ops.log(safe_x), array_ops.zeros_like(x))
    return gx, _reduced(grad * z * log_x, smart[1])


def _maximum_minimum_grad(op: Operation, grad: Tensor, x_wins: Any) -> Any:
    x, y = op.inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    zeros = array_ops.zeros(array_ops.shape(grad), grad.dtype)
    xmask = x_wins(x, y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
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
    two = constant_op.constant(2.0, dtype=grad.dtype.base_dtype, name="scalar")
    x_grad = math_ops.multiply(two, grad) * (x - y)
    if isinstance(grad, Tensor) and not _needs_broadcast(x, y, grad):
        return x_grad, -x_grad
    smart = _smart_broadcast_args(x, y, grad) if isinstance(grad, Tensor) else None
    if smart is None:
        smart = _runtime_broadcast_args(x, y)
    gx = _reduced(x_grad, smart[0])
    return gx, math_ops.negative(_reduced(x_grad, smart[1]))


def _const(value: Any, like: Tensor) -> Tensor:
    return convert_to_tensor(np.asarray(value, dtype=like.dtype.base_dtype.as_numpy_dtype))


def _one(like: Tensor) -> Tensor:
    return _const(1, like)


# ---- unary ops ----------------------------------------------------------------------------
@RegisterGradient("Neg")
def _neg_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.negative(grad)]


@RegisterGradient("Abs")
def _abs_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.multiply(grad, math_ops.sign(op.inputs[0]))]


@RegisterGradient("Square")
def _square_grad(op: Operation, grad: Tensor) -> Any:
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
    return [math_ops.multiply(grad, math_ops.conj(op.outputs[0]))]


@RegisterGradient("Expm1")
def _expm1_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.multiply(grad, math_ops.exp(op.inputs[0]))]


@RegisterGradient("Log")
def _log_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.multiply(grad, math_ops.reciprocal(math_ops.conj(op.inputs[0])))]


@RegisterGradient("Log1p")
def _log1p_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    return [math_ops.multiply(grad, math_ops.reciprocal(math_ops.add(_one(x), x)))]


@RegisterGradient("Sin")
def _sin_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.multiply(grad, math_ops.cos(op.inputs[0]))]


@RegisterGradient("Cos")
def _cos_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.multiply(math_ops.negative(grad), math_ops.sin(op.inputs[0]))]


@RegisterGradient("Tan")
def _tan_grad(op: Operation, grad: Tensor) -> Any:
    sec = math_ops.reciprocal(math_ops.cos(op.inputs[0]))
    return [math_ops.multiply(grad, math_ops.square(sec))]


def _one_minus_square_rsqrt(x: Tensor) -> Tensor:
    return math_ops.rsqrt(math_ops.subtract(_one(x), math_ops.square(x)))


@RegisterGradient("Asin")
def _asin_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.multiply(grad, _one_minus_square_rsqrt(op.inputs[0]))]


@RegisterGradient("Acos")
def _acos_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.negative(math_ops.multiply(grad, _one_minus_square_rsqrt(op.inputs[0])))]


@RegisterGradient("Atan")
def _atan_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    return [math_ops.multiply(grad, math_ops.reciprocal(math_ops.add(_one(x), math_ops.square(x))))]


@RegisterGradient("Conj")
def _conj_grad(op: Operation, grad: Tensor) -> Any:
    return [math_ops.conj(grad)]


@RegisterGradient("Sign")
def _sign_grad(op: Operation, grad: Tensor) -> Any:
    # The derivative is 0 almost everywhere; TF returns zeros rather than no gradient.
    return [array_ops.zeros_like(op.inputs[0])]


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
    return None, math_ops.select(c, grad, zeros), math_ops.select(c, zeros, grad)


@RegisterGradient("SelectV2")
def _select_v2_grad(op: Operation, grad: Tensor) -> Any:
    """Each branch gets the gradient where it was chosen, summed over the dims broadcasting
    added to it."""
    c, x, y = op.inputs
    zeros = array_ops.zeros([], dtype=grad.dtype.base_dtype)
    out_shape = array_ops.shape(op.outputs[0])
    grads = []
    for branch, picked in ((x, math_ops.select_v2(c, grad, zeros)), (y, None)):
        if picked is None:
            picked = math_ops.select_v2(c, zeros, grad)
        branch_shape = array_ops.shape(branch)
        axes, _ = math_ops.broadcast_gradient_args(branch_shape, out_shape)
        summed = math_ops.reduce_sum(picked, axis=axes, keepdims=True)
        grads.append(array_ops.reshape(summed, branch_shape))
    return None, grads[0], grads[1]


@RegisterGradient("AddN")
@RegisterGradient("AccumulateNV2")
def _add_n_grad(op: Operation, grad: Tensor) -> Any:
    return [grad] * len(op.inputs)


# ---- reductions ---------------------------------------------------------------------------
def _reduced_shape(op: Operation) -> Any:
    """The reduction's output shape with the reduced axes kept as 1 (TF's reduced_shape):
    a Python list when static, else an int32 tensor."""
    x, axes = op.inputs
    axes_v = tensor_util.constant_value(axes)
    rank = x.shape.ndims
    if axes_v is not None and rank is not None:
        reduced = {int(a) % rank for a in np.asarray(axes_v).reshape(-1)} if rank else set()
        if x.shape.is_fully_defined():
            return [1 if i in reduced else d for i, d in enumerate(x.shape.as_list())]
        keep = np.array([0 if i in reduced else 1 for i in range(rank)], dtype=np.int32)
        return math_ops.add(
            math_ops.multiply(array_ops.shape(x), keep), convert_to_tensor(1 - keep)
        )
    return _dynamic_reduced_shape(array_ops.shape(x), math_ops.cast(axes, dtypes.int32))


def _dynamic_reduced_shape(input_shape: Tensor, axes: Tensor) -> Tensor:
    """input_shape with the reduced axes set to 1, from graph ops only."""
    rank = array_ops.size(input_shape)
    # max(rank, 1): a scalar has no axes to reduce, and FloorMod by 0 is an error.
    axes_mod = math_ops.floormod(math_ops.add(axes, rank), math_ops.maximum(rank, 1))
    all_axes = math_ops.range(0, rank)
    # 1 where an axis is reduced: any(all_axes[:, None] == axes_mod[None, :], axis=1)
    hits = math_ops.cast(
        math_ops.equal(array_ops.reshape(all_axes, [-1, 1]), array_ops.reshape(axes_mod, [1, -1])),
        dtypes.int32,
    )
    reduced = math_ops.reduce_sum(hits, axis=1)  # 0 or 1: the Sum kernel rejects duplicates
    return math_ops.add(math_ops.multiply(input_shape, math_ops.subtract(1, reduced)), reduced)


def _grad_kept(op: Operation, grad: Tensor) -> Tensor:
    """The reduction's output gradient with the reduced axes kept as size 1."""
    if op._get_attr("keep_dims"):
        return grad
    return array_ops.reshape(grad, _reduced_shape(op))


@RegisterGradient("Sum")
def _sum_grad(op: Operation, grad: Tensor) -> Any:
    """The gradient tiled over the reduced axes, as TF's (a Tile: no multiply, which also
    keeps tf.profiler's FLOP count of a training graph equal to TF's)."""
    x = op.inputs[0]
    axes = tensor_util.constant_value(op.inputs[1])
    rank = x.shape.ndims
    if rank is not None and axes is not None and np.array_equal(axes, np.arange(rank)):
        # TF's fast path for a reduction of every axis, op for op (a Reshape to all ones and
        # a Tile by the input's shape): later ops' seeds count the ops made before them.
        ones = array_ops.reshape(grad, [1] * rank)
        dims = x.shape.as_list()
        if None not in dims:
            multiples: Any = constant_op.constant(dims, dtype=dtypes.int32)
        else:
            multiples = array_ops.shape(x)
        return [array_ops.tile(ones, multiples), None]
    kept = _grad_kept(op, grad)
    shape = _reduced_shape(op)
    if isinstance(shape, list):
        multiples = constant_op.constant(
            [d // max(k, 1) for d, k in zip(x.shape.as_list(), shape)], dtype=dtypes.int32
        )
    else:
        multiples = math_ops.floordiv(array_ops.shape(x), math_ops.maximum(shape, 1))
    return [array_ops.tile(kept, multiples), None]


@RegisterGradient("Mean")
def _mean_grad(op: Operation, grad: Tensor) -> Any:
    sum_grad = _sum_grad(op, grad)[0]
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        factor: Tensor = _const(
            (x.shape.num_elements() or 0) // max(y.shape.num_elements() or 0, 1), sum_grad
        )
    else:
        # TF's ops in TF's order (Shape, Shape, Prod, Prod, Maximum, floordiv, Cast, truediv).
        x_shape, y_shape = array_ops.shape(x), array_ops.shape(y)
        count = math_ops.floordiv(
            math_ops.reduce_prod(x_shape), math_ops.maximum(math_ops.reduce_prod(y_shape), 1)
        )
        factor = math_ops.cast(count, sum_grad.dtype)
    return [math_ops.truediv(sum_grad, factor), None]


def _min_or_max_grad(op: Operation, grad: Tensor) -> Any:
    # The gradient goes to the elements equal to the extremum, split evenly between ties.
    x, axes = op.inputs
    y = op.outputs[0]
    if not op._get_attr("keep_dims"):
        kept = _reduced_shape(op)
        y = array_ops.reshape(y, kept)
        grad = array_ops.reshape(grad, kept)
    indicators = math_ops.cast(math_ops.equal(y, x), grad.dtype)
    num_selected = math_ops.reduce_sum(indicators, axes, keepdims=True)
    return [math_ops.multiply(math_ops.realdiv(indicators, num_selected), grad), None]


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


@RegisterGradient("Prod")
def _prod_grad(op: Operation, grad: Tensor) -> Any:
    """d prod / d x_i = product of the other elements, exact when some x are zero: with no
    zero it is prod / x_i, with one zero only that element gets the product of the rest, with
    more every element gets 0."""
    x, axes = op.inputs
    grad = _grad_kept(op, grad)
    zeros = array_ops.zeros_like(x)
    ones = array_ops.ones_like(x)
    is_zero = math_ops.equal(x, zeros)
    nonzero = math_ops.select(is_zero, ones, x)
    prod_nonzero = math_ops.multiply(math_ops.reduce_prod(nonzero, axes, keepdims=True), ones)
    zero_count = math_ops.multiply(
        math_ops.reduce_sum(math_ops.cast(is_zero, x.dtype), axes, keepdims=True), ones
    )
    others = math_ops.select(
        is_zero,
        math_ops.select(math_ops.equal(zero_count, ones), prod_nonzero, zeros),
        math_ops.select(
            math_ops.equal(zero_count, zeros), math_ops.realdiv(prod_nonzero, nonzero), zeros
        ),
    )
    return [math_ops.multiply(grad, others), None]


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
