"""float64 softmax, log-softmax, the softmax cross entropies and L2Loss as TF 1.15's CPU
kernels compute them (SoftmaxEigenImpl, XentEigenImpl, SparseXentEigenImpl, L2LossOp).

Their sums are Eigen's (_eigen_sum: four lane sums over AVX packets of doubles). Where a sum
reads exp(shifted logits) as an expression, InnerMostDimReducer computes the exps it reads by
packets with Eigen's pexp and the values past each leaf's last whole packet with glibc's exp;
an exp written to a tensor (the softmax, the backprop) is pexp over the flat tensor but its
last size % 4 values (_eigen_double.exp). The log of the row sums is glibc's (doubles have no
log packet). L2Loss is Eigen's whole-tensor sum of x * x * 0.5, split into blocks by the cost
the model gives that expression. Subnormal exps, products and quotients are flushed to zero,
as TF's CPU threads run.

Not reproduced: an exp written by an expression with a broadcast (the softmax, the
backprop) runs in TF's tiled executor, block by block, and Eigen's aligned loop computes a
block's values before its first 32-byte boundary with glibc's exp; where a block starts off
such a boundary (long rows of a length not a multiple of four: each row a block), those values
may differ from TF's in the last bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_double, _eigen_sum
from tfcluster.kernels._eigen_parallel import cost_cycles
from tfcluster.runtime import thread_budget

_D = np.float64
_PACKET = 4
# exp of anything at or above this is a normal double (_eigen_double's bound).
_EXP_NORMAL_FROM = -708.0
# A value of (x.square() * 0.5).sum(): 8 bytes loaded, a square, a product (a packet's cost
# shared by its lanes) and SumReducer's default cost of 10, also per packet.
_L2_CYCLES_PER_VALUE = cost_cycles(8, 0, (1 + 1 + 10) / _PACKET)


# Tensors of more values keep numpy's order: these kernels take 3-5x numpy's time (a
# 256 x 1000 softmax 2.5 ms, where TF's takes under one).
UP_TO = 1 << 16


def applies(xp: Any, x: Any) -> bool:
    """Whether these kernels give TF 1.15's bits for `x`: float64 on the host, up to UP_TO
    values."""
    return _eigen_double.applies(xp, x) and x.size <= UP_TO


def _shifted(logits: np.ndarray) -> np.ndarray:
    """Each row minus its largest value (a new array)."""
    return np.subtract(logits, np.maximum.reduce(logits, axis=1, keepdims=True))


def _may_give_subnormals(shifted: np.ndarray) -> bool:
    """Whether exps (or probabilities exp / sum, sum <= cols) of these shifted logits may be
    subnormal: only then the flush passes run."""
    bound = _EXP_NORMAL_FROM + math.log(shifted.shape[1]) + 1.0
    return bool(shifted.size) and not np.minimum.reduce(shifted, axis=None) >= bound


def _exps(shifted: np.ndarray, small: bool, written: bool) -> tuple[np.ndarray, np.ndarray]:
    """exp(shifted) as the row sums read it (pexp, but glibc's exp at the positions the
    reducer reads by its scalar path: each row's last cols % 4 values while a row is one
    leaf; rows whose starts differ modulo a packet have their own leaves beyond) and, when
    `written`, as written to a tensor (pexp, but glibc's exp for the last size % 4 values;
    else the first again). One pexp pass serves both (the packet formula is elementwise)."""
    rows, cols = shifted.shape
    flat = shifted.reshape(-1)
    packets = _eigen_double.exp_packets(flat)
    in_sums = packets.copy().reshape(rows, cols) if written else packets.reshape(rows, cols)
    # Rows of one leaf, or rows all starting on a packet boundary, share their positions.
    shared = cols <= _eigen_sum.LEAF_PACKETS * _PACKET or not cols % _PACKET
    for phase in range(1 if shared else min(_PACKET, rows)):
        at = _eigen_sum.scalar_positions(phase * cols, cols, _PACKET)
        if at:
            picked = slice(0, rows) if shared else slice(phase, rows, _PACKET)
            in_sums[picked, at] = _eigen_double.exp_scalar(shifted[picked][:, at])
    if written:
        tail = flat.size - flat.size % _PACKET
        if tail < flat.size:
            packets[tail:] = _eigen_double.exp_scalar(flat[tail:])
    if small:
        _eigen_double.flush(in_sums)
        _eigen_double.flush(packets)
    return in_sums, packets.reshape(rows, cols)


def _log(v: np.ndarray) -> np.ndarray:
    return _eigen_double.scalar("log", v)


def softmax(rows: np.ndarray) -> np.ndarray:
    """exp(shifted) written out, times the inverse of its rows' sums (not a division)."""
    with np.errstate(all="ignore"):
        shifted = _shifted(rows)
        small = _may_give_subnormals(shifted)
        e = _eigen_double.exp(shifted)
        inverse = np.divide(1.0, _eigen_sum.rows_sum(e))
        out = np.multiply(e, inverse[:, None], out=e)
        return _eigen_double.flush(out) if small else out


def log_softmax(rows: np.ndarray) -> np.ndarray:
    """The shifted logits minus the log of each row's sum of exps (read by the sum)."""
    with np.errstate(all="ignore"):
        shifted = _shifted(rows)
        in_sums, _ = _exps(shifted, _may_give_subnormals(shifted), written=False)
        sums = _eigen_sum.rows_sum(in_sums)
        return np.subtract(shifted, _log(sums)[:, None], out=shifted)


def _shifted_and_sums(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The shifted logits, their exp as written out, each row's sum of exps, and whether
    subnormal values may arise."""
    shifted = _shifted(logits)
    small = _may_give_subnormals(shifted)
    in_sums, written = _exps(shifted, small, written=True)
    return shifted, written, _eigen_sum.rows_sum(in_sums), small


def softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop): loss = sum(labels * (log(sum) - shifted)), backprop =
    exp(shifted) / sum - labels."""
    with np.errstate(all="ignore"):
        shifted, e, sums, small = _shifted_and_sums(logits)
        loss = _eigen_sum.rows_sum(labels * (_log(sums)[:, None] - shifted))
        backprop = np.divide(e, sums[:, None], out=e)  # a division, not an inverse
        if small:
            _eigen_double.flush(backprop)
        return loss, _eigen_double.flush(np.subtract(backprop, labels, out=backprop))


def sparse_softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop): loss = log(sum) - shifted[label] (a sum of zeros and that value),
    backprop = exp(shifted) / sum - onehot(label)."""
    with np.errstate(all="ignore"):
        shifted, e, sums, small = _shifted_and_sums(logits)
        rows = np.arange(logits.shape[0])
        loss = np.add(_log(sums) - shifted[rows, labels], 0.0)
        backprop = np.divide(e, sums[:, None], out=e)
        if small:
            _eigen_double.flush(backprop)
        backprop[rows, labels] -= 1.0
        return loss, backprop


def l2_loss(flat: np.ndarray) -> np.float64 | None:
    """(x.square() * 0.5).sum() over the 1-D `flat`, each half-square rounded (and flushed)
    before Eigen's whole sum; None past _eigen_sum's cap on whole double sums."""
    if flat.size > _eigen_sum.WHOLE_SUM_MAX_DOUBLE:
        return None
    with np.errstate(all="ignore"):
        halves = _eigen_double.flush(np.multiply(np.square(flat), 0.5))
        total = _eigen_sum.whole_sum(halves, thread_budget.current().intra, _L2_CYCLES_PER_VALUE)
    return _D(total)
