"""Neural-network kernels over xp: activations, softmax losses, bias_add, conv2d, pooling.

Convolution is im2col (a strided window view of the padded input, copied once) followed by
one matrix product (BLAS on the CPU, cuBLAS on a GPU); its backprops are the transposed
product plus a scatter-add over the kernel taps. Pooling walks the kernel taps, each a
strided slice of the padded input, so every step is one array operation over the batch.
Window geometry (padding, output sizes, their checks) is host arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.kernels.common import Compute, host_array, host_ints, invalid, typed
from tfcluster.kernels.registry import kernel

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _sigmoid(xp: Any, x: Any) -> Any:
    # tanh form: no overflow for large |x|.
    return 0.5 * (1.0 + xp.tanh(0.5 * x))


# ---- activations: fn(xp, *inputs) -------------------------------------------------------
def _elu(xp: Any, x: Any) -> Any:
    return xp.where(x < 0, xp.expm1(xp.minimum(x, 0)), x)


def _selu(xp: Any, x: Any) -> Any:
    return SELU_SCALE * xp.where(x < 0, SELU_ALPHA * xp.expm1(xp.minimum(x, 0)), x)


_ACTIVATIONS: dict[str, Callable[..., Any]] = {
    "Relu": lambda xp, x: xp.maximum(x, 0),
    "Relu6": lambda xp, x: xp.clip(x, 0, 6),
    "Elu": _elu,
    "Selu": _selu,
    "Softplus": lambda xp, x: xp.logaddexp(x, 0),
    "Softsign": lambda xp, x: x / (1 + xp.abs(x)),
}

# (gradients, features or outputs) -> input gradient
_ACTIVATION_GRADS: dict[str, Callable[..., Any]] = {
    "ReluGrad": lambda xp, g, f: g * (f > 0),
    "Relu6Grad": lambda xp, g, f: g * ((f > 0) & (f < 6)),
    "EluGrad": lambda xp, g, y: xp.where(y < 0, g * (y + 1), g),
    "SeluGrad": lambda xp, g, y: xp.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE),
    "SoftplusGrad": lambda xp, g, f: g * _sigmoid(xp, f),
    "SoftsignGrad": lambda xp, g, f: g / xp.square(1 + xp.abs(f)),
}


def _elementwise(fn: Callable[..., Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (cast(fn(xp, *(xp.asarray(v) for v in ins))),)

        return compute

    return factory


for _name, _fn in {**_ACTIVATIONS, **_ACTIVATION_GRADS}.items():
    kernel(_name)(_elementwise(_fn))


@kernel("LeakyRelu")
def leaky_relu(node: Any, xp: Any) -> Compute:
    alpha = float(node.attrs.get("alpha", 0.2))
    return _elementwise(lambda xp, x: xp.where(x > 0, x, alpha * x))(node, xp)


@kernel("LeakyReluGrad")
def leaky_relu_grad(node: Any, xp: Any) -> Compute:
    alpha = float(node.attrs.get("alpha", 0.2))
    return _elementwise(lambda xp, g, f: xp.where(f > 0, g, alpha * g))(node, xp)


# ---- softmax and losses ------------------------------------------------------------------
def _log_softmax(xp: Any, x: Any) -> Any:
    shifted = x - xp.max(x, axis=-1, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))


def _softmax(xp: Any, x: Any) -> Any:
    e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
    return e / xp.sum(e, axis=-1, keepdims=True)


def _softmax_factory(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = xp.asarray(ins[0])
            if x.ndim < 1:
                raise invalid(
                    f"logits must have >= 1 dimension, got shape {list(x.shape)} ({node.name})"
                )
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
        if logits.ndim != 2 or logits.shape != labels.shape:
            raise invalid(
                f"logits and labels must be same size: logits_size={list(logits.shape)} "
                f"labels_size={list(labels.shape)}"
            )
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
            raise invalid(f"logits must be 2-D, but got shape {list(logits.shape)}")
        if labels.ndim != 1 or labels.shape[0] != logits.shape[0]:
            raise invalid(
                "logits and labels must have the same first dimension, got logits shape "
                f"{list(logits.shape)} and labels shape {list(labels.shape)}"
            )
        classes = logits.shape[1]
        if bool(xp.any((labels < 0) | (labels >= classes))):
            host = host_array(labels)
            values = " ".join(str(v) for v in host.tolist())
            first = host[(host < 0) | (host >= classes)][0]
            raise invalid(
                f"Received a label value of {first} which is outside the valid range "
                f"of [0, {classes}).  Label values: {values}"
            )
        rows = xp.arange(labels.shape[0])
        logp = _log_softmax(xp, logits)
        loss = -logp[rows, labels]
        backprop = xp.exp(logp)
        backprop[rows, labels] -= 1
        return cast(loss), cast(backprop)

    return compute


@kernel("L2Loss")
def l2_loss(node: Any, xp: Any) -> Compute:
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        flat = xp.asarray(ins[0]).reshape(-1)
        return (cast(xp.dot(flat, flat) / 2),)

    return compute


# ---- bias ----------------------------------------------------------------------------------
def _bias_axis(ndim: int, data_format: str) -> int:
    return 1 if data_format == "NCHW" and ndim >= 3 else ndim - 1


@kernel("BiasAdd")
def bias_add(node: Any, xp: Any) -> Compute:
    fmt = node.attrs.get("data_format", "NHWC")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, b = (xp.asarray(v) for v in ins)
        if x.ndim < 2:
            raise invalid(f"Input tensor must be at least 2D: {list(x.shape)}")
        if b.ndim != 1:
            raise invalid(f"Biases must be 1D: {list(b.shape)}")
        axis = _bias_axis(x.ndim, fmt)
        if x.shape[axis] != b.shape[0]:
            raise invalid(
                "Must provide as many biases as the channel dimension of the input tensor: "
                f"{list(b.shape)} vs. {list(x.shape)}"
            )
        shape = [1] * x.ndim
        shape[axis] = b.shape[0]
        return (x + b.reshape(shape),)

    return compute


@kernel("BiasAddGrad")
def bias_add_grad(node: Any, xp: Any) -> Compute:
    fmt = node.attrs.get("data_format", "NHWC")
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        g = xp.asarray(ins[0])
        if g.ndim < 2:
            raise invalid(f"Input tensor must be at least 2D: {list(g.shape)}")
        axis = _bias_axis(g.ndim, fmt)
        return (cast(xp.sum(g, axis=tuple(i for i in range(g.ndim) if i != axis))),)

    return compute


# ---- window geometry -----------------------------------------------------------------------
class _Window:
    """Kernel size, strides, dilations and padding of one conv/pool node, resolved per input."""

    def __init__(self, node: Any, ksize_attr: str | None) -> None:
        attrs = node.attrs
        self.name = node.name
        self.padding = attrs["padding"]
        if self.padding not in ("SAME", "VALID"):
            raise invalid(f"Unknown padding {self.padding!r} ({node.name})")
        if attrs.get("data_format", "NHWC") != "NHWC":
            raise invalid(f"{node.op} supports only NHWC on CPU ({node.name})")
        s = [int(v) for v in attrs["strides"]]
        d = [int(v) for v in attrs.get("dilations", [1, 1, 1, 1])]
        k = [int(v) for v in attrs[ksize_attr]] if ksize_attr else [1, 0, 0, 1]
        for vals in (s, d, k if ksize_attr else [1, 1, 1, 1]):
            if len(vals) != 4 or vals[0] != 1 or vals[3] != 1:
                raise invalid(
                    f"Current implementation does not yet support strides, dilations or ksize "
                    f"in the batch and depth dimensions ({node.name})"
                )
        self.sh, self.sw = s[1], s[2]
        self.dh, self.dw = d[1], d[2]
        self.kh, self.kw = k[1], k[2]

    def plan(self, h: int, w: int, kh: int | None = None, kw: int | None = None) -> tuple[int, ...]:
        """(out_h, out_w, pad_top, pad_bottom, pad_left, pad_right) for an h x w input."""
        kh = self.kh if kh is None else kh
        kw = self.kw if kw is None else kw
        oh, pt, pb = windowed_output_size(h, kh, self.sh, self.dh, self.padding)
        ow, pl, pr = windowed_output_size(w, kw, self.sw, self.dw, self.padding)
        if oh <= 0 or ow <= 0:
            raise invalid(
                f"Computed output size would be negative: input {h}x{w}, window {kh}x{kw}, "
                f"strides {self.sh}x{self.sw}, dilations {self.dh}x{self.dw} ({self.name})"
            )
        return oh, ow, pt, pb, pl, pr

    def tap(self, padded: Any, i: int, j: int, oh: int, ow: int) -> Any:
        """The strided view of the padded input that kernel tap (i, j) reads for all outputs."""
        r, c = i * self.dh, j * self.dw
        return padded[
            :, r : r + self.sh * (oh - 1) + 1 : self.sh, c : c + self.sw * (ow - 1) + 1 : self.sw, :
        ]

    def valid_counts(self, h: int, w: int, plan: tuple[int, ...]) -> np.ndarray:
        """How many real (unpadded) input elements each output window covers: [1, OH, OW, 1]."""
        oh, ow, pt, _, pl, _ = plan
        starts_h = np.arange(oh) * self.sh - pt
        starts_w = np.arange(ow) * self.sw - pl
        rows = np.minimum(starts_h + self.kh, h) - np.maximum(starts_h, 0)
        cols = np.minimum(starts_w + self.kw, w) - np.maximum(starts_w, 0)
        return np.outer(rows, cols).reshape(1, oh, ow, 1)


def _pad(xp: Any, x: Any, pt: int, pb: int, pl: int, pr: int, value: float = 0) -> Any:
    if not (pt or pb or pl or pr):
        return x
    return xp.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=value)


def _check_4d(x: Any, what: str, name: str) -> None:
    if x.ndim != 4:
        raise invalid(f"{what} must be 4-dimensional: {list(x.shape)} ({name})")


def _shape_arg(value: Any, what: str, name: str) -> tuple[int, ...]:
    shape = tuple(host_ints(value))
    if len(shape) != 4:
        raise invalid(f"{what} must be a 4-element shape, got {list(shape)} ({name})")
    return shape


def _lowest(dtype: np.dtype[Any]) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# ---- convolution ---------------------------------------------------------------------------
def _im2col(xp: Any, win: _Window, x: Any, kh: int, kw: int) -> tuple[Any, tuple[int, ...]]:
    """Patches of x as rows [N*OH*OW, KH*KW*C] (one copy), and the plan they came from."""
    n, h, w, c = x.shape
    plan = win.plan(h, w, kh, kw)
    oh, ow, pt, pb, pl, pr = plan
    padded = xp.ascontiguousarray(_pad(xp, x, pt, pb, pl, pr))
    s0, s1, s2, s3 = padded.strides
    view = xp.lib.stride_tricks.as_strided(
        padded,
        shape=(n, oh, ow, kh, kw, c),
        strides=(s0, s1 * win.sh, s2 * win.sw, s1 * win.dh, s2 * win.dw, s3),
    )
    return view.reshape(n * oh * ow, kh * kw * c), plan


@kernel("Conv2D")
def conv2d(node: Any, xp: Any) -> Compute:
    win = _Window(node, None)
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, f = (xp.asarray(v) for v in ins)
        _check_4d(x, "input", node.name)
        _check_4d(f, "filter", node.name)
        kh, kw, ci, co = f.shape
        if x.shape[3] != ci:
            raise invalid(
                f"input depth must be evenly divisible by filter depth: {x.shape[3]} vs {ci} "
                f"({node.name})"
            )
        cols, plan = _im2col(xp, win, x, kh, kw)
        out = cols @ f.reshape(kh * kw * ci, co)
        return (cast(out.reshape(x.shape[0], plan[0], plan[1], co)),)

    return compute


@kernel("Conv2DBackpropInput", host=[0])
def conv2d_backprop_input(node: Any, xp: Any) -> Compute:
    win = _Window(node, None)
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        sizes = _shape_arg(ins[0], "input_sizes", node.name)
        f, dy = xp.asarray(ins[1]), xp.asarray(ins[2])
        _check_4d(f, "filter", node.name)
        _check_4d(dy, "out_backprop", node.name)
        n, h, w, c = sizes
        kh, kw, ci, co = f.shape
        oh, ow, pt, pb, pl, pr = win.plan(h, w, kh, kw)
        if ci != c or tuple(dy.shape) != (n, oh, ow, co):
            raise invalid(
                f"Conv2DBackpropInput: out_backprop shape {list(dy.shape)} and filter shape "
                f"{list(f.shape)} do not match input sizes {list(sizes)} ({node.name})"
            )
        dcols = (dy.reshape(-1, co) @ f.reshape(-1, co).T).reshape(n, oh, ow, kh, kw, c)
        dx_padded = xp.zeros((n, h + pt + pb, w + pl + pr, c), dtype=dcols.dtype)
        for i in range(kh):
            for j in range(kw):
                win.tap(dx_padded, i, j, oh, ow)[...] += dcols[:, :, :, i, j, :]
        return (cast(dx_padded[:, pt : pt + h, pl : pl + w, :]),)

    return compute


@kernel("Conv2DBackpropFilter", host=[1])
def conv2d_backprop_filter(node: Any, xp: Any) -> Compute:
    win = _Window(node, None)
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        sizes = _shape_arg(ins[1], "filter_sizes", node.name)
        dy = xp.asarray(ins[2])
        _check_4d(x, "input", node.name)
        _check_4d(dy, "out_backprop", node.name)
        kh, kw, ci, co = sizes
        cols, (oh, ow, *_) = _im2col(xp, win, x, kh, kw)
        if ci != x.shape[3] or tuple(dy.shape) != (x.shape[0], oh, ow, co):
            raise invalid(
                f"Conv2DBackpropFilter: out_backprop shape {list(dy.shape)} does not match "
                f"input {list(x.shape)} and filter sizes {list(sizes)} ({node.name})"
            )
        dw = cols.T @ dy.reshape(-1, co)
        return (cast(dw.reshape(kh, kw, ci, co)),)

    return compute


# ---- pooling -------------------------------------------------------------------------------
@kernel("MaxPool")
def max_pool(node: Any, xp: Any) -> Compute:
    win = _Window(node, "ksize")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        _check_4d(x, "input", node.name)
        oh, ow, pt, pb, pl, pr = win.plan(x.shape[1], x.shape[2])
        padded = _pad(xp, x, pt, pb, pl, pr, _lowest(x.dtype))
        out = win.tap(padded, 0, 0, oh, ow).copy()
        for i in range(win.kh):
            for j in range(win.kw):
                if i or j:
                    xp.maximum(out, win.tap(padded, i, j, oh, ow), out=out)
        return (out,)

    return compute


@kernel("MaxPoolGrad")
def max_pool_grad(node: Any, xp: Any) -> Compute:
    win = _Window(node, "ksize")
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, y, g = (xp.asarray(v) for v in ins)
        _check_4d(x, "orig_input", node.name)
        n, h, w, c = x.shape
        oh, ow, pt, pb, pl, pr = win.plan(h, w)
        if tuple(y.shape) != (n, oh, ow, c) or g.shape != y.shape:
            raise invalid(
                f"MaxPoolGrad: orig_output {list(y.shape)} / grad {list(g.shape)} do not match "
                f"the pooled shape {[n, oh, ow, c]} ({node.name})"
            )
        padded = _pad(xp, x, pt, pb, pl, pr, _lowest(x.dtype))
        dx_padded = xp.zeros(padded.shape, dtype=g.dtype)
        # Each window's gradient goes to its first maximum, in row-major tap order (as TF).
        taken = xp.zeros(y.shape, dtype=bool)
        for i in range(win.kh):
            for j in range(win.kw):
                hit = (win.tap(padded, i, j, oh, ow) == y) & ~taken
                win.tap(dx_padded, i, j, oh, ow)[...] += xp.where(hit, g, 0)
                taken |= hit
        return (cast(dx_padded[:, pt : pt + h, pl : pl + w, :]),)

    return compute


@kernel("AvgPool")
def avg_pool(node: Any, xp: Any) -> Compute:
    win = _Window(node, "ksize")
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        _check_4d(x, "input", node.name)
        plan = win.plan(x.shape[1], x.shape[2])
        oh, ow, pt, pb, pl, pr = plan
        padded = _pad(xp, x, pt, pb, pl, pr)
        total = win.tap(padded, 0, 0, oh, ow).copy()
        for i in range(win.kh):
            for j in range(win.kw):
                if i or j:
                    total += win.tap(padded, i, j, oh, ow)
        counts = xp.asarray(win.valid_counts(x.shape[1], x.shape[2], plan))
        return (cast(total / counts),)

    return compute


@kernel("AvgPoolGrad", host=[0])
def avg_pool_grad(node: Any, xp: Any) -> Compute:
    win = _Window(node, "ksize")
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        n, h, w, c = _shape_arg(ins[0], "orig_input_shape", node.name)
        g = xp.asarray(ins[1])
        plan = win.plan(h, w)
        oh, ow, pt, pb, pl, pr = plan
        if tuple(g.shape) != (n, oh, ow, c):
            raise invalid(
                f"AvgPoolGrad: grad shape {list(g.shape)} does not match the pooled shape "
                f"{[n, oh, ow, c]} ({node.name})"
            )
        share = g / xp.asarray(win.valid_counts(h, w, plan))
        dx_padded = xp.zeros((n, h + pt + pb, w + pl + pr, c), dtype=share.dtype)
        for i in range(win.kh):
            for j in range(win.kw):
                win.tap(dx_padded, i, j, oh, ow)[...] += share
        return (cast(dx_padded[:, pt : pt + h, pl : pl + w, :]),)

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
