"""Fused RNN cells with TF 1.15's math (tensorflow/core/kernels/rnn/lstm_ops.h, gru_ops.h):
LSTMBlockCell / BlockLSTM (gates packed i, ci, f, o; BlockLSTMV2 packs them i, f, ci, o and has
no forget bias), forget_bias added before the forget gate's sigmoid, peepholes on i and f from
cs_prev and on o from cs, cs clipped to [-cell_clip, cell_clip] when cell_clip > 0; the
gradient ops back-propagate through the recorded gates as TF's Bprop functors do. Batches are
one matrix product per step; BlockLSTM runs its time loop inside the kernel, the input half
of every step's product done as one product over all steps."""

from __future__ import annotations

from typing import Any, NamedTuple

from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.math import _sigmoid, _tanh
from tfcluster.kernels.registry import kernel
from tfcluster.runtime import thread_budget

ICFO = (0, 1, 2, 3)  # where i, ci, f, o sit among the four packed gate blocks
IFCO = (0, 2, 1, 3)


def _one_blas_thread(compute: Any) -> Any:
    """Runs a cell kernel with BLAS on one thread: its products are small and many (one per
    step), and BLAS's thread hand-offs would cost more than they share."""

    def run(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        with thread_budget.blas_threads(1):
            return compute(ctx, ins)  # type: ignore[no-any-return]

    return run


class _Gates(NamedTuple):
    i: Any
    cs: Any
    f: Any
    o: Any
    ci: Any
    co: Any
    h: Any


def _split(xp: Any, packed: Any, cell: int, layout: tuple[int, ...]) -> list[Any]:
    return [packed[:, k * cell : (k + 1) * cell] for k in layout]


def _pack(xp: Any, i: Any, ci: Any, f: Any, o: Any, layout: tuple[int, ...]) -> Any:
    blocks: list[Any] = [None] * 4
    for part, k in zip((i, ci, f, o), layout):
        blocks[k] = part
    return xp.concatenate(blocks, axis=1)


def _lstm_step(
    xp: Any,
    pre: Any,
    cs_prev: Any,
    peep: tuple[Any, Any, Any] | None,
    forget_bias: float,
    cell_clip: float,
    layout: tuple[int, ...],
) -> _Gates:
    """One step from the gate pre-activations xh @ w + b."""
    t = pre.dtype.type
    cell = cs_prev.shape[1]
    i_pre, ci_pre, f_pre, o_pre = _split(xp, pre, cell, layout)
    if forget_bias:
        f_pre = f_pre + t(forget_bias)
    if peep is not None:
        i_pre = i_pre + cs_prev * peep[0]
        f_pre = f_pre + cs_prev * peep[1]
    i = _sigmoid(xp, i_pre)
    ci = _tanh(xp, ci_pre)
    f = _sigmoid(xp, f_pre)
    cs = i * ci + f * cs_prev
    if cell_clip > 0.0:
        cs = xp.clip(cs, t(-cell_clip), t(cell_clip))
    if peep is not None:
        o_pre = o_pre + cs * peep[2]
    o = _sigmoid(xp, o_pre)
    co = _tanh(xp, cs)
    return _Gates(i, cs, f, o, ci, co, o * co)


class _CellGrads(NamedTuple):
    cs_prev_grad: Any
    dicfo: Any
    di: Any
    df: Any
    do: Any


def _lstm_bprop(
    xp: Any,
    g: _Gates,
    cs_prev: Any,
    cs_grad: Any,
    h_grad: Any,
    peep: tuple[Any, Any, Any] | None,
    layout: tuple[int, ...],
) -> _CellGrads:
    one = g.o.dtype.type(1)
    do = g.o * (one - g.o) * h_grad * g.co
    dcs = (one - g.co * g.co) * h_grad * g.o + cs_grad
    if peep is not None:
        dcs = dcs + do * peep[2]
    dci = (one - g.ci * g.ci) * dcs * g.i
    df = g.f * (one - g.f) * dcs * cs_prev
    di = g.i * (one - g.i) * dcs * g.ci
    cs_prev_grad = dcs * g.f
    if peep is not None:
        cs_prev_grad = cs_prev_grad + di * peep[0] + df * peep[1]
    return _CellGrads(cs_prev_grad, _pack(xp, di, dci, df, do, layout), di, df, do)


def _attr_float(node: Any, name: str, default: float) -> float:
    return float(node.attrs.get(name, default))


def _check_lstm_shapes(x: Any, cs_prev: Any, h_prev: Any, w: Any, b: Any, peep: Any) -> None:
    if x.ndim != 2:
        raise invalid(f"x must be 2D but got {shape_str(x.shape)}")
    batch, input_size = x.shape
    cell = cs_prev.shape[1] if cs_prev.ndim == 2 else -1
    for what, t in (("cs_prev", cs_prev), ("h_prev", h_prev)):
        if t.ndim != 2 or t.shape[0] != batch:
            raise invalid(f"{what}.dims(0) != batch_size: {shape_str(t.shape)} vs. {batch}")
        if t.shape[1] != cell:
            raise invalid(f"{what}.dims(1) != cell_size: {t.shape[1]} vs. {cell}")
    if w.ndim != 2 or w.shape[0] != input_size + cell:
        raise invalid(
            f"w.dim_size(0) != input_size + cell_size: {shape_str(w.shape)} vs. {input_size + cell}"
        )
    if w.shape[1] != cell * 4:
        raise invalid(f"w.dim_size(1) != cell_size * 4: {w.shape[1]} vs. {cell * 4}")
    if b.ndim != 1 or b.shape[0] != cell * 4:
        raise invalid(f"b.dim_size(0) != cell_size * 4: {shape_str(b.shape)} vs. {cell * 4}")
    if peep is not None:
        for what, t in zip(("wci", "wcf", "wco"), peep):
            if tuple(t.shape) != (cell,):
                raise invalid(f"{what} must be a vector of cell_size {cell}: {shape_str(t.shape)}")


def _peepholes(node: Any, ins: list[Any], first: int) -> tuple[Any, Any, Any] | None:
    if not bool(node.attrs.get("use_peephole", False)):
        return None
    return ins[first], ins[first + 1], ins[first + 2]


# ---- LSTMBlockCell --------------------------------------------------------------------------
@kernel("LSTMBlockCell")
def lstm_block_cell(node: Any, xp: Any) -> Any:
    forget_bias = _attr_float(node, "forget_bias", 1.0)
    cell_clip = _attr_float(node, "cell_clip", 3.0)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, cs_prev, h_prev, w, _, _, _, b = ins
        peep = _peepholes(node, ins, 4)
        _check_lstm_shapes(x, cs_prev, h_prev, w, b, peep)
        pre = xp.concatenate([x, h_prev], axis=1) @ w + b
        return tuple(_lstm_step(xp, pre, cs_prev, peep, forget_bias, cell_clip, ICFO))

    return _one_blas_thread(compute)


@kernel("LSTMBlockCellGrad")
def lstm_block_cell_grad(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, cs_prev, h_prev, w, wci, wcf, wco, b = ins[:8]
        i, cs, f, o, ci, co, cs_grad, h_grad = ins[8:]
        peep = _peepholes(node, ins, 4)
        _check_lstm_shapes(x, cs_prev, h_prev, w, b, peep)
        gates = _Gates(i, cs, f, o, ci, co, None)
        grads = _lstm_bprop(xp, gates, cs_prev, cs_grad, h_grad, peep, ICFO)
        if peep is None:
            zeros = [xp.zeros_like(v) for v in (wci, wcf, wco)]
            return (grads.cs_prev_grad, grads.dicfo, *zeros)
        return (
            grads.cs_prev_grad,
            grads.dicfo,
            xp.sum(grads.di * cs_prev, axis=0),
            xp.sum(grads.df * cs_prev, axis=0),
            xp.sum(grads.do * cs, axis=0),
        )

    return _one_blas_thread(compute)


# ---- BlockLSTM / BlockLSTMV2 ----------------------------------------------------------------
def _seq_len_max(value: Any, timelen: int) -> int:
    arr = host_array(value)
    if arr.size != 1:
        raise invalid(f"seq_len_max must be a scalar, got {shape_str(arr.shape)}")
    n = int(arr.reshape(-1)[0])
    if n < 0 or n > timelen:
        raise invalid(f"seq_len_max {n} must be in [0, {timelen}] (the length of x)")
    return n


def _block_lstm(layout: tuple[int, ...], has_forget_bias: bool, default_clip: float) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        forget_bias = _attr_float(node, "forget_bias", 1.0) if has_forget_bias else 0.0
        cell_clip = _attr_float(node, "cell_clip", default_clip)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, cs_prev, h_prev, w, _, _, _, b = ins[1:]
            if x.ndim != 3:
                raise invalid(f"x must be 3D but got {shape_str(x.shape)}")
            timelen, batch, input_size = x.shape
            steps = _seq_len_max(ins[0], timelen)
            peep = _peepholes(node, ins, 5)
            _check_lstm_shapes(
                x[0] if timelen else x.reshape(0, input_size), cs_prev, h_prev, w, b, peep
            )
            cell = cs_prev.shape[1]
            # TF 1.15 leaves the steps from seq_len_max on uninitialised; here they are zeros.
            outs = [xp.zeros((timelen, batch, cell), dtype=x.dtype) for _ in range(7)]
            if steps:
                # The input half of every step's product at once.
                x_part = (x[:steps].reshape(steps * batch, input_size) @ w[:input_size]).reshape(
                    steps, batch, 4 * cell
                ) + b
                w_h = w[input_size:]
                cs, h = cs_prev, h_prev
                for t in range(steps):
                    g = _lstm_step(
                        xp, x_part[t] + h @ w_h, cs, peep, forget_bias, cell_clip, layout
                    )
                    for out, v in zip(outs, g):
                        out[t] = v
                    cs, h = g.cs, g.h
            return tuple(outs)

        return _one_blas_thread(compute)

    return factory


kernel("BlockLSTM", host=(0,))(_block_lstm(ICFO, True, 3.0))
kernel("BlockLSTMV2", host=(0,))(_block_lstm(IFCO, False, 0.0))


def _block_lstm_grad(layout: tuple[int, ...]) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, cs_prev, h_prev, w, wci, wcf, wco, b = ins[1:9]
            i, cs, f, o, ci, co, h, cs_grad, h_grad = ins[9:18]
            if x.ndim != 3:
                raise invalid(f"x must be 3D but got {shape_str(x.shape)}")
            timelen, batch, input_size = x.shape
            steps = _seq_len_max(ins[0], timelen)
            peep = _peepholes(node, ins, 5)
            _check_lstm_shapes(
                x[0] if timelen else x.reshape(0, input_size), cs_prev, h_prev, w, b, peep
            )
            cell = cs_prev.shape[1]
            x_grad = xp.zeros_like(x)
            cs_prev_grad = xp.zeros_like(cs_prev)
            h_prev_grad = xp.zeros_like(h_prev)
            peep_grads = [xp.zeros_like(v) for v in (wci, wcf, wco)]
            dicfo_all = xp.zeros((steps, batch, 4 * cell), dtype=x.dtype)
            for t in range(steps - 1, -1, -1):
                cs_before = cs_prev if t == 0 else cs[t - 1]
                gates = _Gates(i[t], cs[t], f[t], o[t], ci[t], co[t], None)
                grads = _lstm_bprop(
                    xp,
                    gates,
                    cs_before,
                    cs_prev_grad + cs_grad[t],
                    h_prev_grad + h_grad[t],
                    peep,
                    layout,
                )
                xh_grad = grads.dicfo @ w.T
                x_grad[t] = xh_grad[:, :input_size]
                h_prev_grad = xh_grad[:, input_size:]
                cs_prev_grad = grads.cs_prev_grad
                dicfo_all[t] = grads.dicfo
                if peep is not None:
                    peep_grads[0] = peep_grads[0] + xp.sum(grads.di * cs_before, axis=0)
                    peep_grads[1] = peep_grads[1] + xp.sum(grads.df * cs_before, axis=0)
                    peep_grads[2] = peep_grads[2] + xp.sum(grads.do * cs[t], axis=0)
            # w_grad and b_grad summed over every step at once.
            if steps:
                h_before = xp.concatenate([h_prev[None], h[: steps - 1]], axis=0)
                xh = xp.concatenate([x[:steps], h_before], axis=2).reshape(steps * batch, -1)
                flat = dicfo_all.reshape(steps * batch, 4 * cell)
                w_grad = xh.T @ flat
                b_grad = xp.sum(flat, axis=0)
            else:
                w_grad, b_grad = xp.zeros_like(w), xp.zeros_like(b)
            return (x_grad, cs_prev_grad, h_prev_grad, w_grad, *peep_grads, b_grad)

        return _one_blas_thread(compute)

    return factory


kernel("BlockLSTMGrad", host=(0,))(_block_lstm_grad(ICFO))
kernel("BlockLSTMGradV2", host=(0,))(_block_lstm_grad(IFCO))


# ---- GRUBlockCell ---------------------------------------------------------------------------
def _check_gru_shapes(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> None:
    if x.ndim != 2 or h_prev.ndim != 2:
        raise invalid(f"x and h_prev must be 2D: {shape_str(x.shape)}, {shape_str(h_prev.shape)}")
    batch, input_size = x.shape
    cell = h_prev.shape[1]
    if h_prev.shape[0] != batch:
        raise invalid(f"h_prev.dims(0) != batch_size: {h_prev.shape[0]} vs. {batch}")
    checks = (
        ("w_ru.dim_size(0) != input_size + cell_size", w_ru, (input_size + cell, 2 * cell)),
        ("w_c.dim_size(0) != input_size + cell_size", w_c, (input_size + cell, cell)),
        ("b_ru.dim_size(0) != cell_size * 2", b_ru, (2 * cell,)),
        ("b_c.dim_size(0) != cell_size", b_c, (cell,)),
    )
    for message, t, want in checks:
        if tuple(t.shape) != want:
            raise invalid(f"{message}: {shape_str(t.shape)} vs. {shape_str(want)}")


@kernel("GRUBlockCell")
def gru_block_cell(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, h_prev, w_ru, w_c, b_ru, b_c = ins
        _check_gru_shapes(x, h_prev, w_ru, w_c, b_ru, b_c)
        cell = h_prev.shape[1]
        ru_bar = xp.concatenate([x, h_prev], axis=1) @ w_ru + b_ru
        # Each gate's logistic on its own [batch, cell] slice, as TF's kernel: its scalar
        # tail is the slice's last size % 8 values.
        r, u = _sigmoid(xp, ru_bar[:, :cell]), _sigmoid(xp, ru_bar[:, cell:])
        c = _tanh(xp, xp.concatenate([x, h_prev * r], axis=1) @ w_c + b_c)
        h = u * (h_prev - c) + c  # TF's kernel's form (not (1 - u) * c + u * h_prev)
        return (xp.ascontiguousarray(r), xp.ascontiguousarray(u), c, h)

    return _one_blas_thread(compute)


@kernel("GRUBlockCellGrad")
def gru_block_cell_grad(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h = ins
        _check_gru_shapes(x, h_prev, w_ru, w_c, b_ru, b_c)
        input_size = x.shape[1]
        one = x.dtype.type(1)
        d_c_bar = d_h * (one - u) * (one - c * c)
        d_u_bar = d_h * (h_prev - c) * u * (one - u)
        d_xh_r = d_c_bar @ w_c.T
        d_hr = d_xh_r[:, input_size:]
        d_r_bar = d_hr * h_prev * r * (one - r)
        d_r_bar_u_bar = xp.concatenate([d_r_bar, d_u_bar], axis=1)
        d_xh = d_r_bar_u_bar @ w_ru.T
        d_x = d_xh[:, :input_size] + d_xh_r[:, :input_size]
        d_h_prev = d_xh[:, input_size:] + d_hr * r + d_h * u
        return (d_x, d_h_prev, d_c_bar, d_r_bar_u_bar)

    return _one_blas_thread(compute)
