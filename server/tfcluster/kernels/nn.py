"""Neural-network kernels over xp: activations, softmax losses, bias_add, in_top_k.

Convolutions are in kernels/conv.py, pooling in kernels/pooling.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import (
    _eigen_double,
    _eigen_double_softmax,
    _eigen_math,
    _eigen_sum,
    _outer_sums,
)
from tfcluster.kernels._eigen_parallel import cost_cycles
from tfcluster.kernels._window import over_batch
from tfcluster.kernels.common import Compute, host_array, invalid, typed
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.resource_waits import shape_text
from tfcluster.runtime import thread_budget

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _sigmoid(xp: Any, x: Any) -> Any:
    # tanh form: no overflow for large |x|.
    return 0.5 * (1.0 + xp.tanh(0.5 * x))


# ---- activations: fn(xp, *inputs) -------------------------------------------------------
def _elu(xp: Any, x: Any) -> Any:
    if _eigen_double.applies(xp, x):
        return _eigen_double.elu(x)
    if _eigen_math.applies(xp, x):
        return _eigen_math.elu(x)  # TF 1.15's bits (exp(x) - 1 by Eigen's exp)
    # TF's functor on every device: exp(x) - 1, not expm1 (its bits near zero).
    return xp.where(x < 0, xp.exp(xp.minimum(x, 0)) - 1, x)


def _selu(xp: Any, x: Any) -> Any:
    if _eigen_double.applies(xp, x):
        return _eigen_double.selu(x)
    if _eigen_math.applies(xp, x):
        return _eigen_math.selu(x)
    scale_alpha = x.dtype.type(SELU_SCALE * SELU_ALPHA)
    return xp.where(
        x < 0, scale_alpha * (xp.exp(xp.minimum(x, 0)) - 1), x * x.dtype.type(SELU_SCALE)
    )


def _softplus(xp: Any, x: Any) -> Any:
    if _eigen_double.applies(xp, x):
        return _eigen_double.softplus(x)
    if _eigen_math.applies(xp, x):
        return _eigen_math.softplus(x)
    return xp.logaddexp(x, 0)


_ACTIVATIONS: dict[str, Callable[..., Any]] = {
    "Relu6": lambda xp, x: xp.clip(x, 0, 6),
    "Elu": _elu,
    "Selu": _selu,
    "Softplus": _softplus,
    "Softsign": lambda xp, x: x / (1 + xp.abs(x)),
}

# (gradients, features or outputs) -> input gradient
_ACTIVATION_GRADS: dict[str, Callable[..., Any]] = {
    "Relu6Grad": lambda xp, g, f: g * ((f > 0) & (f < 6)),
    "EluGrad": lambda xp, g, y: xp.where(y < 0, g * (y + 1), g),
    "SeluGrad": lambda xp, g, y: xp.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE),
    "SoftplusGrad": lambda xp, g, f: g * _sigmoid(xp, f),
    "SoftsignGrad": lambda xp, g, f: g / xp.square(1 + xp.abs(f)),
}


# ---- large float arrays on every core (CPU) ------------------------------------------------
# From this many bytes an element-wise pass over a batch is split over the cores (numpy
# releases the GIL in its loops); smaller ones are not worth the hand-off.
_SPLIT_BYTES = 4 << 20


def _split(xp: Any, x: Any) -> bool:
    """Whether x is large enough, on the CPU, to go over its first axis on every core."""
    return (
        xp is np
        and x.ndim >= 1
        and x.shape[0] >= 2
        and x.nbytes >= _SPLIT_BYTES
        and x.dtype in (np.float32, np.float64)
    )


def _relu(xp: Any, x: Any) -> Any:
    if not _split(xp, x):
        return xp.maximum(x, 0)
    out = np.empty_like(x)
    over_batch(xp, x.shape[0], x.nbytes, lambda r: np.maximum(x[r], 0, out=out[r]))
    return out


def _relu_grad(xp: Any, g: Any, f: Any) -> Any:
    if not (_split(xp, g) and g.shape == f.shape and g.dtype == f.dtype):
        return g * (f > 0)
    out = np.empty_like(g)
    over_batch(xp, g.shape[0], g.nbytes, lambda r: np.multiply(g[r], f[r] > 0, out=out[r]))
    return out


_ACTIVATIONS["Relu"] = _relu
_ACTIVATION_GRADS["ReluGrad"] = _relu_grad  # (the other activations: one pass, one core)


def _elementwise(fn: Callable[..., Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (cast(fn(xp, *(xp.asarray(v) for v in ins))),)

        return compute

    return factory


for _name, _fn in {**_ACTIVATIONS, **_ACTIVATION_GRADS}.items():
    kernel(_name)(_elementwise(_fn))


def _float_attr(value: Any) -> float:
    """A float attr as the kernel reads it: a float32 in the NodeDef (alpha 0.2 is
    0.200000003 to a float64 LeakyRelu, as in TF)."""
    return float(np.float32(value))


@kernel("LeakyRelu")
def leaky_relu(node: Any, xp: Any) -> Compute:
    alpha = _float_attr(node.attrs.get("alpha", 0.2))
    return _elementwise(lambda xp, x: xp.where(x > 0, x, alpha * x))(node, xp)


@kernel("LeakyReluGrad")
def leaky_relu_grad(node: Any, xp: Any) -> Compute:
    alpha = _float_attr(node.attrs.get("alpha", 0.2))
    return _elementwise(lambda xp, g, f: xp.where(f > 0, g, alpha * g))(node, xp)


# ---- softmax and losses ------------------------------------------------------------------
def _log_softmax(xp: Any, x: Any) -> Any:
    if _eigen_math.applies(xp, x):
        # TF 1.15's SoftmaxEigenImpl with log=true
        return _eigen_math.log_softmax(x.reshape(-1, x.shape[-1])).reshape(x.shape)
    if _eigen_double_softmax.applies(xp, x):
        rows = x.reshape(-1, x.shape[-1])
        return _eigen_double_softmax.log_softmax(rows).reshape(x.shape)
    shifted = x - xp.max(x, axis=-1, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))


def _softmax(xp: Any, x: Any) -> Any:
    if _eigen_math.applies(xp, x):
        # TF 1.15's SoftmaxEigenImpl
        return _eigen_math.softmax(x.reshape(-1, x.shape[-1])).reshape(x.shape)
    if _eigen_double_softmax.applies(xp, x):
        rows = x.reshape(-1, x.shape[-1])
        return _eigen_double_softmax.softmax(rows).reshape(x.shape)
    e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
    total = _eigen_sum.trailing_sum(e, (e.ndim - 1,), True)
    if total is None:
        total = xp.sum(e, axis=-1, keepdims=True)
    return e * (1 / total).astype(e.dtype, copy=False)


def _softmax_factory(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = xp.asarray(ins[0])
            if x.ndim < 1:
                raise invalid(f"logits must have >= 1 dimension, got {shape_text(x.shape)}")
            return (cast(fn(xp, x)) if x.size else x,)

        return compute

    return factory


kernel("Softmax")(_softmax_factory(_softmax))
kernel("LogSoftmax")(_softmax_factory(_log_softmax))


@kernel("SoftmaxCrossEntropyWithLogits")
def softmax_xent(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        logits, labels = (xp.asarray(v) for v in ins)
        if logits.shape != labels.shape:
            # TF 1.15's kernel broadcasts the two (a row of labels for every example).
            try:
                shape = np.broadcast_shapes(logits.shape, labels.shape)
            except ValueError:
                raise invalid(
                    "logits and labels must be broadcastable: "
                    f"logits_size={shape_text(logits.shape)} "
                    f"labels_size={shape_text(labels.shape)}"
                ) from None
            logits = xp.ascontiguousarray(xp.broadcast_to(logits, shape))
            labels = xp.ascontiguousarray(xp.broadcast_to(labels, shape))
        if logits.ndim != 2:
            raise invalid(
                "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional"
            )
        if _eigen_math.applies(xp, logits) and logits.size:
            return _eigen_math.softmax_xent(logits, labels)  # TF 1.15's CPU bits
        if _eigen_double_softmax.applies(xp, logits) and logits.size:
            return _eigen_double_softmax.softmax_xent(logits, labels)
        logp = _log_softmax(xp, logits)
        loss = -xp.sum(labels * logp, axis=1)
        backprop = xp.exp(logp) - labels
        return cast(loss), cast(backprop)

    return compute


@kernel("SparseSoftmaxCrossEntropyWithLogits")
def sparse_softmax_xent(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        logits, labels = (xp.asarray(v) for v in ins)
        if logits.ndim != 2:
            raise invalid(f"logits must be 2-D, but got shape {shape_text(logits.shape)}")
        if labels.ndim != 1 or labels.shape[0] != logits.shape[0]:
            raise invalid(
                "logits and labels must have the same first dimension, got logits shape "
                f"{shape_text(logits.shape)} and labels shape {shape_text(labels.shape)}"
            )
        classes = logits.shape[1]
        # Two reductions (the labels' extremes) instead of two comparisons, their union and
        # np.any's dispatch: ~1.5 us of a small batch's step.
        if labels.size and bool(labels.min() < 0 or labels.max() >= classes):
            host = host_array(labels)
            values = " ".join(str(v) for v in host.tolist())
            first = host[(host < 0) | (host >= classes)][0]
            raise invalid(
                f"Received a label value of {first} which is outside the valid range "
                f"of [0, {classes}).  Label values: {values}"
            )
        if _eigen_math.applies(xp, logits) and logits.size:
            return _eigen_math.sparse_softmax_xent(logits, labels)  # TF 1.15's CPU bits
        if _eigen_double_softmax.applies(xp, logits) and logits.size:
            return _eigen_double_softmax.sparse_softmax_xent(logits, labels)
        rows = xp.arange(labels.shape[0])
        logp = _log_softmax(xp, logits)
        loss = -logp[rows, labels]
        backprop = xp.exp(logp)
        backprop[rows, labels] -= 1
        return cast(loss), cast(backprop)

    return compute


# Eigen's cost of one value of (x.square() * 0.5).sum(): 4 bytes loaded, a square, a product
# and an addition.
_L2_CYCLES_PER_VALUE = cost_cycles(4, 0, 3)


@kernel("L2Loss")
def l2_loss(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        flat = xp.asarray(ins[0]).reshape(-1)
        if _eigen_math.applies(xp, flat) and flat.size <= _eigen_sum.WHOLE_SUM_MAX:
            # TF's CPU functor: (x.square() * 0.5).sum(), each half-square rounded, then
            # added in Eigen's order (a dot product's order differed in the last bits).
            halves = np.multiply(np.square(flat), np.float32(0.5))
            budget = thread_budget.current().intra
            return (_eigen_sum.whole_sum(halves, budget, _L2_CYCLES_PER_VALUE),)
        if _eigen_double.applies(xp, flat):
            total = _eigen_double_softmax.l2_loss(flat)
            if total is not None:
                return (total,)
        if xp is np and flat.dtype == np.float32:
            # Past Eigen's repeated order: numpy's pairwise sum of the half-squares, as close
            # to TF's blocked sum as float32 allows (BLAS's dot drifted ~3e-6: a weight decay
            # loss printed differently from the fifth digit).
            return (np.sum(np.multiply(np.square(flat), np.float32(0.5)), dtype=np.float32),)
        return (cast(xp.dot(flat, flat) / 2),)

    return compute


# ---- bias ----------------------------------------------------------------------------------
def _bias_axis(ndim: int, data_format: str) -> int:
    return 1 if data_format == "NCHW" and ndim >= 3 else ndim - 1


@kernel("BiasAdd")
def bias_add(node: Any, xp: Any) -> Compute:
    fmt = node.attrs.get("data_format", "NHWC")
    on_host = xp is np

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, b = ins
        if (
            on_host
            and type(x) is np.ndarray
            and type(b) is np.ndarray
            and x.ndim == 2
            and b.ndim == 1
            and x.shape[1] == b.shape[0]
            and x.nbytes < _SPLIT_BYTES
        ):
            # A dense layer's batch (an LSTM gate's, once per iteration): the sum below
            # takes this branch, without its checks' cost (a few microseconds on 128 x 32).
            return (x + b,)
        x, b = xp.asarray(x), xp.asarray(b)
        if x.ndim < 2:
            raise invalid(f"Input tensor must be at least 2D: {shape_text(x.shape)}")
        if b.ndim != 1:
            raise invalid(f"Biases must be 1D: {shape_text(b.shape)}")
        axis = _bias_axis(x.ndim, fmt)
        if x.shape[axis] != b.shape[0]:
            raise invalid(
                "Must provide as many biases as the last dimension of the input tensor: "
                f"{shape_text(b.shape)} vs. {shape_text(x.shape)}"
            )
        shape = [1] * x.ndim
        shape[axis] = b.shape[0]
        bias = b.reshape(shape)
        if not (_split(xp, x) and b.dtype == x.dtype):
            return (x + bias,)
        out = np.empty_like(x)
        if axis == x.ndim - 1 and x.flags.c_contiguous:
            # Channels last: each batch entry's row against the bias repeated along it (one
            # long inner loop instead of one per position, 1.6x faster for 32 channels).
            rows, flat = x.reshape(x.shape[0], -1), out.reshape(x.shape[0], -1)
            along = np.tile(b, rows.shape[1] // b.shape[0])
            over_batch(xp, x.shape[0], x.nbytes, lambda r: np.add(rows[r], along, out=flat[r]))
            return (out,)
        over_batch(xp, x.shape[0], x.nbytes, lambda r: np.add(x[r], bias, out=out[r]))
        return (out,)

    if on_host:

        def direct(x: Any, b: Any) -> Any:
            """A run plan's call (runtime/run_plan.py): compute's first branch, without its
            list and tuple."""
            if (
                type(x) is np.ndarray
                and type(b) is np.ndarray
                and x.ndim == 2
                and b.ndim == 1
                and x.shape[1] == b.shape[0]
                and x.nbytes < _SPLIT_BYTES
            ):
                return x + b
            return compute(None, [x, b])[0]

        compute.direct = direct  # type: ignore[attr-defined]
    return compute


@kernel("BiasAddGrad")
def bias_add_grad(node: Any, xp: Any) -> Compute:
    fmt = node.attrs.get("data_format", "NHWC")
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        g = xp.asarray(ins[0])
        if g.ndim < 2:
            raise invalid(f"Input tensor must be at least 2D: {shape_text(g.shape)}")
        axis = _bias_axis(g.ndim, fmt)
        others = tuple(i for i in range(g.ndim) if i != axis)
        if xp is np and axis == g.ndim - 1 and g.dtype in (np.float32, np.float64):
            # TF 1.15's order of additions (its bits), on the CPU.
            rows = g.reshape(-1, g.shape[-1])
            return (cast(_outer_sums.outer_dims_sum(rows, thread_budget.current().intra)),)
        if not _split(xp, g) or axis == 0:
            return (cast(xp.sum(g, axis=others)),)
        # Channels first (NCHW) on the CPU: sums of parts of the batch, on every core, added.
        parts = over_batch(xp, g.shape[0], g.nbytes, lambda r: np.sum(g[r], axis=others))
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return (cast(total.astype(g.dtype, copy=False)),)

    return compute


# ---- metrics -------------------------------------------------------------------------------
@kernel("InTopK")
def in_top_k(node: Any, xp: Any) -> Compute:
    k = int(node.attrs["k"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        p, t = xp.asarray(ins[0]), xp.asarray(ins[1])
        if p.ndim != 2 or t.ndim != 1 or p.shape[0] != t.shape[0]:
            raise invalid(
                f"predictions must be 2-D and targets 1-D with the same batch size, got "
                f"{list(p.shape)} and {list(t.shape)}"
            )
        valid = (t >= 0) & (t < p.shape[1])
        target = p[xp.arange(p.shape[0]), xp.where(valid, t, 0)]
        finite = xp.all(xp.isfinite(p), axis=1) & xp.isfinite(target)
        more = xp.sum(p > target[:, None], axis=1)
        return (valid & finite & (more < k),)

    return compute
