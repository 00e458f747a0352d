"""Kernels of TF's CudnnRNN family over xp (TF 1.15 runs them on GPUs with cuDNN only).

Parameters, as cuDNN's canonical form (TF's CudnnRNNParamsToCanonical): for each layer, for
each direction, one input matrix [num_units, layer_input] per gate then one recurrent matrix
[num_units, num_units] per gate, and the biases in the same order (an input and a recurrent
bias per gate). Gates: LSTM i, f, c, o; GRU r, z, h (the h gate's recurrent bias inside the
reset product, cuDNN's GRU); rnn_relu / rnn_tanh one. The opaque buffer is every matrix,
flattened in that order, then every bias: what Keras's CuDNNLSTM/CuDNNGRU build with
`_canonical_to_params` for one layer. A gate's pre-activation is W @ x + R @ h + bW + bR.

The forward pass keeps nothing in reserve_space (an empty vector): the backprop recomputes
what it needs from the inputs, which it gets too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.registry import kernel

GATES = {"lstm": 4, "gru": 3, "rnn_relu": 1, "rnn_tanh": 1}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class Spec:
    mode: str
    num_layers: int
    num_units: int
    input_size: int
    dirs: int

    @property
    def gates(self) -> int:
        return GATES[self.mode]

    def layer_input(self, layer: int) -> int:
        return self.input_size if layer == 0 else self.num_units * self.dirs

    def weight_shapes(self) -> list[tuple[int, int]]:
        shapes = []
        for layer in range(self.num_layers):
            for _ in range(self.dirs):
                shapes += [(self.num_units, self.layer_input(layer))] * self.gates
                shapes += [(self.num_units, self.num_units)] * self.gates
        return shapes

    def num_params(self) -> int:
        """Matrices (= biases) in the canonical form."""
        return self.num_layers * self.dirs * 2 * self.gates

    def params_size(self) -> int:
        weights = sum(a * b for a, b in self.weight_shapes())
        return weights + self.num_params() * self.num_units


def _cudnn_only(node: Any, xp: Any, what: str) -> errors.OpError:
    """The error for a cuDNN-only option. TF 1.15 has no CPU kernel for any CudnnRNN op (its
    kernels are cuDNN's): on CPU it refuses the node with InvalidArgumentError, the class
    raised here on CPU too; tfcluster's GPU kernels lack the option (UnimplementedError)."""
    on_gpu = xp is not np or "GPU" in str(getattr(node, "device", "") or "").upper()
    if on_gpu:
        return errors.UnimplementedError(
            None, None, f"{node.name}: CudnnRNN {what} is not implemented"
        )
    return errors.InvalidArgumentError(
        None,
        None,
        f"No OpKernel was registered to support Op '{node.op}' used by node {node.name} with "
        f"{what} on CPU: TensorFlow 1.15 runs CudnnRNN ops on GPU only (cuDNN), tfcluster's "
        "CPU kernel computes linear_input without projection or dropout",
    )


def spec_of(node: Any, num_layers: int, num_units: int, input_size: int, xp: Any = np) -> Spec:
    mode = _text(node.attrs.get("rnn_mode", "lstm"))
    direction = _text(node.attrs.get("direction", "unidirectional"))
    input_mode = _text(node.attrs.get("input_mode", "linear_input"))
    if mode not in GATES:
        raise errors.InvalidArgumentError(None, None, f"Invalid RNN mode: {mode}")
    if input_mode == "skip_input" or (input_mode == "auto_select" and input_size == num_units):
        raise _cudnn_only(node, xp, "input_mode skip_input")
    if int(node.attrs.get("num_proj", 0) or 0):
        raise _cudnn_only(node, xp, "num_proj (LSTM projection)")
    if num_layers < 1 or num_units < 1 or input_size < 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"num_layers, num_units and input_size must be positive, got {num_layers}, "
            f"{num_units}, {input_size}",
        )
    dirs = 2 if direction == "bidirectional" else 1
    return Spec(mode, num_layers, num_units, input_size, dirs)


def split_params(xp: Any, spec: Spec, params: Any) -> tuple[list[Any], list[Any]]:
    """The opaque buffer -> the canonical matrices and biases."""
    flat = params.reshape(-1)
    if flat.shape[0] != spec.params_size():
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Invalid params size: the model needs {spec.params_size()} parameters, "
            f"params has {flat.shape[0]}",
        )
    weights, pos = [], 0
    for rows, cols in spec.weight_shapes():
        weights.append(flat[pos : pos + rows * cols].reshape(rows, cols))
        pos += rows * cols
    biases = []
    for _ in range(spec.num_params()):
        biases.append(flat[pos : pos + spec.num_units])
        pos += spec.num_units
    return weights, biases


def join_params(xp: Any, weights: list[Any], biases: list[Any]) -> Any:
    return xp.concatenate([w.reshape(-1) for w in weights] + [b.reshape(-1) for b in biases])


def _sigmoid(xp: Any, x: Any) -> Any:
    return 1.0 / (1.0 + xp.exp(-x))


class _Cell:
    """One layer and direction: its matrices, biases and per-step caches."""

    def __init__(self, xp: Any, spec: Spec, weights: list[Any], biases: list[Any], k: int):
        g = spec.gates
        base = k * 2 * g
        self.xp, self.mode, self.g = xp, spec.mode, g
        self.W = [weights[base + i] for i in range(g)]
        self.R = [weights[base + g + i] for i in range(g)]
        self.bW = [biases[base + i] for i in range(g)]
        self.bR = [biases[base + g + i] for i in range(g)]

    def step(self, x: Any, h: Any, c: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        xp = self.xp
        wx = [x @ self.W[i].T + self.bW[i] for i in range(self.g)]
        rh = [h @ self.R[i].T + self.bR[i] for i in range(self.g)]
        if self.mode == "lstm":
            i = _sigmoid(xp, wx[0] + rh[0])
            f = _sigmoid(xp, wx[1] + rh[1])
            cc = xp.tanh(wx[2] + rh[2])
            o = _sigmoid(xp, wx[3] + rh[3])
            c2 = f * c + i * cc
            tc = xp.tanh(c2)
            return o * tc, c2, (x, h, c, i, f, cc, o, tc)
        if self.mode == "gru":
            r = _sigmoid(xp, wx[0] + rh[0])
            z = _sigmoid(xp, wx[1] + rh[1])
            hh = xp.tanh(wx[2] + r * rh[2])
            return (1 - z) * hh + z * h, c, (x, h, r, z, hh, rh[2])
        a = wx[0] + rh[0]
        out = xp.maximum(a, 0) if self.mode == "rnn_relu" else xp.tanh(a)
        return out, c, (x, h, out)

    def back(
        self, cache: tuple[Any, ...], dh: Any, dc: Any, grads: dict[str, list[Any]]
    ) -> tuple[Any, Any, Any]:
        """d(x), d(h_prev), d(c_prev) of one step; adds to the matrices' and biases' grads."""
        if self.mode == "lstm":
            x, h, c, i, f, cc, o, tc = cache
            do = dh * tc
            dc2 = dc + dh * o * (1 - tc * tc)
            da = [dc2 * cc * i * (1 - i), dc2 * c * f * (1 - f), dc2 * i * (1 - cc * cc)]
            da.append(do * o * (1 - o))
            dwx = drh = da
            dc_prev = dc2 * f
            dh_extra = 0
        elif self.mode == "gru":
            x, h, r, z, hh, rh2 = cache
            dhh = dh * (1 - z)
            dz = dh * (h - hh)
            dah = dhh * (1 - hh * hh)
            dr = dah * rh2
            dwx = [dr * r * (1 - r), dz * z * (1 - z), dah]
            drh = [dwx[0], dwx[1], dah * r]
            dc_prev = dc
            dh_extra = dh * z
        else:
            x, h, out = cache
            da0 = dh * (out > 0) if self.mode == "rnn_relu" else dh * (1 - out * out)
            dwx = drh = [da0]
            dc_prev = dc
            dh_extra = 0
        dx = 0
        dh_prev = dh_extra
        for k in range(self.g):
            grads["W"][k] = grads["W"][k] + dwx[k].T @ x
            grads["R"][k] = grads["R"][k] + drh[k].T @ h
            grads["bW"][k] = grads["bW"][k] + dwx[k].sum(axis=0)
            grads["bR"][k] = grads["bR"][k] + drh[k].sum(axis=0)
            dx = dx + dwx[k] @ self.W[k]
            dh_prev = dh_prev + drh[k] @ self.R[k]
        return dx, dh_prev, dc_prev


def _order(xp: Any, t_max: int, lengths: Any, reverse: bool) -> list[tuple[Any, Any, Any]]:
    """(time index per batch row, valid mask) for each step a direction takes."""
    steps = []
    batch = lengths.shape[0]
    rows = xp.arange(batch)
    for t in range(t_max):
        valid = t < lengths
        if reverse:
            idx = xp.where(valid, lengths - 1 - t, 0)
        else:
            idx = xp.full((batch,), t)
        steps.append((idx, valid, rows))
    return steps


def forward(
    xp: Any,
    spec: Spec,
    params: Any,
    x: Any,
    h0: Any,
    c0: Any,
    lengths: Any,
    keep: bool = False,
) -> tuple[Any, Any, Any, list[Any]]:
    """x [T, B, input] time-major -> output [T, B, dirs*units], h, c [layers*dirs, B, units];
    with `keep`, the per-step caches the backprop needs."""
    weights, biases = split_params(xp, spec, params)
    t_max, batch = x.shape[0], x.shape[1]
    lstm = spec.mode == "lstm"
    hs, cs, caches = [], [], []
    layer_in = x
    for layer in range(spec.num_layers):
        outs = []
        for d in range(spec.dirs):
            k = layer * spec.dirs + d
            cell = _Cell(xp, spec, weights, biases, k)
            h = h0[k]
            c = c0[k] if lstm else xp.zeros_like(h)
            out = xp.zeros((t_max, batch, spec.num_units), dtype=x.dtype)
            steps = []
            for idx, valid, rows in _order(xp, t_max, lengths, d == 1):
                xt = layer_in[idx, rows]
                h2, c2, cache = cell.step(xt, h, c)
                m = valid[:, None]
                h = xp.where(m, h2, h)
                c = xp.where(m, c2, c)
                out[idx, rows] = xp.where(m, h2, out[idx, rows])
                if keep:
                    steps.append((idx, valid, rows, cache))
            outs.append(out)
            hs.append(h)
            cs.append(c)
            caches.append((cell, steps))
        layer_in = outs[0] if spec.dirs == 1 else xp.concatenate(outs, axis=2)
    c_out = xp.stack(cs) if lstm else c0
    return layer_in, xp.stack(hs), c_out, caches


def backward(
    xp: Any,
    spec: Spec,
    params: Any,
    x: Any,
    h0: Any,
    c0: Any,
    lengths: Any,
    d_out: Any,
    d_h: Any,
    d_c: Any,
) -> tuple[Any, Any, Any, Any]:
    """d(input), d(input_h), d(input_c), d(params) by backpropagation through time."""
    _, _, _, caches = forward(xp, spec, params, x, h0, c0, lengths, keep=True)
    lstm = spec.mode == "lstm"
    n = spec.num_params()
    g = spec.gates
    w_grads: list[Any] = [None] * n
    b_grads: list[Any] = [None] * n
    dh0 = xp.zeros_like(h0)
    dc0 = xp.zeros_like(h0)
    d_layer_out = d_out
    for layer in reversed(range(spec.num_layers)):
        d_in = xp.zeros((x.shape[0], x.shape[1], spec.layer_input(layer)), dtype=x.dtype)
        for d in range(spec.dirs):
            k = layer * spec.dirs + d
            cell, steps = caches[k]
            grads = {
                "W": [xp.zeros_like(w) for w in cell.W],
                "R": [xp.zeros_like(r) for r in cell.R],
                "bW": [xp.zeros_like(b) for b in cell.bW],
                "bR": [xp.zeros_like(b) for b in cell.bR],
            }
            dout_dir = d_layer_out[:, :, d * spec.num_units : (d + 1) * spec.num_units]
            dh = d_h[k]
            dc = d_c[k] if lstm else xp.zeros_like(dh)
            for idx, valid, rows, cache in reversed(steps):
                m = valid[:, None]
                dh_step = dh + xp.where(m, dout_dir[idx, rows], 0)
                dx, dh_prev, dc_prev = cell.back(
                    cache, xp.where(m, dh_step, 0), xp.where(m, dc, 0), grads
                )
                d_in[idx, rows] = d_in[idx, rows] + xp.where(m, dx, 0)
                dh = xp.where(m, dh_prev, dh)
                dc = xp.where(m, dc_prev, dc)
            dh0[k] = dh
            if lstm:
                dc0[k] = dc
            base = k * 2 * g
            for i in range(g):
                w_grads[base + i] = grads["W"][i]
                w_grads[base + g + i] = grads["R"][i]
                b_grads[base + i] = grads["bW"][i]
                b_grads[base + g + i] = grads["bR"][i]
        d_layer_out = d_in
    d_c0 = dc0 if lstm else xp.zeros_like(c0)
    return d_layer_out, dh0, d_c0, join_params(xp, w_grads, b_grads).astype(params.dtype)


# ---- the op kernels ---------------------------------------------------------------------------
def _dims(x: Any, h: Any) -> tuple[int, int, int]:
    if x.ndim != 3:
        raise errors.InvalidArgumentError(
            None, None, f"RNN input must be a 3-D vector, got shape {list(x.shape)}"
        )
    if h.ndim != 3:
        raise errors.InvalidArgumentError(
            None, None, f"RNN input_h must be a 3-D vector, got shape {list(h.shape)}"
        )
    return int(h.shape[0]), int(h.shape[2]), int(x.shape[2])


def _inputs(node: Any, xp: Any, ins: list[Any], v3: bool) -> tuple[Any, ...]:
    x, h, c, params = ins[0], ins[1], ins[2], ins[3]
    time_major = bool(node.attrs.get("time_major", True)) if v3 else True
    if not time_major:
        x = xp.transpose(x, (1, 0, 2))
    layers_dirs, num_units, input_size = _dims(x, h)
    dirs = 2 if _text(node.attrs.get("direction", "unidirectional")) == "bidirectional" else 1
    if layers_dirs % dirs:
        raise errors.InvalidArgumentError(
            None, None, f"input_h's first dimension {layers_dirs} is not a multiple of {dirs}"
        )
    spec = spec_of(node, layers_dirs // dirs, num_units, input_size, xp)
    if h.shape[1] != x.shape[1]:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"input_h's batch {h.shape[1]} differs from the input's {x.shape[1]}",
        )
    if spec.mode == "lstm" and tuple(c.shape) != tuple(h.shape):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"input_c shape {list(c.shape)} must equal input_h shape {list(h.shape)}",
        )
    if v3:
        lengths = xp.asarray(ins[4]).astype(np.int64)
        if lengths.shape != (x.shape[1],):
            raise errors.InvalidArgumentError(
                None, None, f"sequence_lengths must be a vector of {x.shape[1]} lengths"
            )
    else:
        lengths = xp.full((x.shape[1],), x.shape[0], dtype=np.int64)
    return spec, x, h, c, params, lengths, time_major


def _training_dropout(node: Any, xp: Any) -> None:
    if float(node.attrs.get("dropout", 0.0) or 0.0) and bool(node.attrs.get("is_training", True)):
        raise _cudnn_only(node, xp, "dropout between layers")


def _rnn_kernel(v: int) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        _training_dropout(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            spec, x, h, c, params, lengths, time_major = _inputs(node, xp, ins, v == 3)
            out, h_n, c_n, _ = forward(xp, spec, params, x, h, c, lengths)
            if not time_major:
                out = xp.transpose(out, (1, 0, 2))
            reserve = xp.zeros((0,), dtype=x.dtype)
            outs: tuple[Any, ...] = (out, h_n, c_n, reserve)
            if v >= 2:
                outs += (np.zeros((0,), np.int8),)
            return outs

        return compute

    return factory


def _backprop_kernel(v: int) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            spec, x, h, c, params, lengths, time_major = _inputs(node, xp, ins, v == 3)
            k = 5 if v == 3 else 4
            d_out, d_h, d_c = ins[k + 3], ins[k + 4], ins[k + 5]
            if not time_major:
                d_out = xp.transpose(d_out, (1, 0, 2))
            dx, dh, dc, dp = backward(xp, spec, params, x, h, c, lengths, d_out, d_h, d_c)
            if not time_major:
                dx = xp.transpose(dx, (1, 0, 2))
            return (dx, dh, xp.asarray(dc).astype(x.dtype, copy=False), dp)

        return compute

    return factory


kernel("CudnnRNN")(_rnn_kernel(1))
kernel("CudnnRNNV2")(_rnn_kernel(2))
kernel("CudnnRNNV3")(_rnn_kernel(3))
kernel("CudnnRNNBackprop")(_backprop_kernel(1))
kernel("CudnnRNNBackpropV2")(_backprop_kernel(2))
kernel("CudnnRNNBackpropV3")(_backprop_kernel(3))


def _sizes(ins: list[Any]) -> tuple[int, int, int]:
    return tuple(int(np.asarray(v)) for v in ins[:3])  # type: ignore[return-value]


@kernel("CudnnRNNParamsSize", all_host=True)
def cudnn_rnn_params_size(node: Any, xp: Any) -> Any:
    out_dtype = node.attrs["S"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        spec = spec_of(node, *_sizes(ins))
        return (np.asarray(spec.params_size(), dtype=out_dtype),)

    return compute


def _counts(node: Any) -> tuple[int, int]:
    if "num_params" in node.attrs:
        n = int(node.attrs["num_params"])
        return n, n
    return int(node.attrs["num_params_weights"]), int(node.attrs["num_params_biases"])


def _check_counts(node: Any, spec: Spec, weights: int, biases: int) -> None:
    if weights != spec.num_params() or biases != spec.num_params():
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{node.name}: the model has {spec.num_params()} weight matrices and biases, the "
            f"op lists {weights} and {biases}",
        )


@kernel("CudnnRNNParamsToCanonical", host=(0, 1, 2))
def cudnn_rnn_params_to_canonical(node: Any, xp: Any) -> Any:
    return _to_canonical(node, xp)


@kernel("CudnnRNNParamsToCanonicalV2", host=(0, 1, 2))
def cudnn_rnn_params_to_canonical_v2(node: Any, xp: Any) -> Any:
    return _to_canonical(node, xp)


def _to_canonical(node: Any, xp: Any) -> Any:
    n_w, n_b = _counts(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        spec = spec_of(node, *_sizes(ins), xp)
        _check_counts(node, spec, n_w, n_b)
        weights, biases = split_params(xp, spec, ins[3])
        return tuple(w.copy() for w in weights) + tuple(b.copy() for b in biases)

    return compute


@kernel("CudnnRNNCanonicalToParams", host=(0, 1, 2))
def cudnn_rnn_canonical_to_params(node: Any, xp: Any) -> Any:
    return _to_params(node, xp)


@kernel("CudnnRNNCanonicalToParamsV2", host=(0, 1, 2))
def cudnn_rnn_canonical_to_params_v2(node: Any, xp: Any) -> Any:
    return _to_params(node, xp)


def _to_params(node: Any, xp: Any) -> Any:
    n_w, n_b = _counts(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any]:
        spec = spec_of(node, *_sizes(ins), xp)
        _check_counts(node, spec, n_w, n_b)
        weights = list(ins[3 : 3 + n_w])
        biases = list(ins[3 + n_w : 3 + n_w + n_b])
        for w, shape in zip(weights, spec.weight_shapes()):
            if int(np.prod(w.shape)) != shape[0] * shape[1]:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{node.name}: a weight of shape {list(w.shape)} where the model has "
                    f"{list(shape)}",
                )
        for b in biases:
            if int(np.prod(b.shape)) != spec.num_units:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{node.name}: a bias of shape {list(b.shape)} where the model has "
                    f"[{spec.num_units}]",
                )
        return (join_params(xp, weights, biases),)

    return compute
