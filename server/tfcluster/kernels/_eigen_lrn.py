"""float32 LRN and LRNGrad as TensorFlow 1.15's CPU kernels compute them.

LRN (lrn_op.cc, depth up to 384 or a beta other than 0.5 and 1) squares the input and contracts
it with a band matrix of ones: each channel's window of squares is added one after another
from its lowest channel, in float32 (Eigen's kernel accumulates along the contracted dimension;
the band's zeros add nothing), then times alpha plus bias. The output is x * (1 / norm) for
beta 1, x * rsqrt(norm) for beta 0.5 (Eigen's fast reciprocal square root, _eigen_psqrt), else
x * exp(log(norm) * -beta) with Eigen's packet log and exp (_eigen_math). Deeper inputs with
beta 0.5 or 1 take TF's single-threaded loop: the squares times alpha, summed as a running
window (the next channel's added, then the oldest's taken away), plus bias.

LRNGrad is TF's plain loop: per channel j whose incoming gradient is not 0, norm_j = alpha *
(window sum of x*x) + bias, and for each channel k of its window dx_k += ((x_k * (-2 * alpha *
beta * y_j) / norm_j) [+ powf(norm_j, -beta) when k == j]) * dy_j, channel j after channel j.
Both are written over whole tensors, one pass per window offset, so each sum is added in TF's
order.
"""

from __future__ import annotations

import numpy as np

from tfcluster.kernels import _eigen_math, _eigen_psqrt, _libm_float

_F = np.float32
# TF's cut-off above which beta 0.5 and 1 take its single-threaded loop.
_SINGLE_THREADED_DEPTH = 384


def _running_window_norms(x: np.ndarray, radius: int, alpha: float, bias: float) -> np.ndarray:
    """TF's single-threaded norms: bias + a running sum of alpha * x^2 over the window."""
    depth = x.shape[-1]
    scaled = _eigen_math.flush(_eigen_math.flush(x * x) * _F(alpha))
    padded = np.zeros((*x.shape[:-1], depth + 2 * radius), _F)
    padded[..., radius : radius + depth] = scaled
    running = np.zeros(x.shape[:-1], _F)
    for i in range(2 * radius):
        running = running + padded[..., i]
    out = np.empty_like(x)
    for i in range(depth):
        running = running + padded[..., i + 2 * radius]
        out[..., i] = _F(bias) + running
        running = running - padded[..., i]
    return _eigen_math.flush(out)


def _window_sums(sq: np.ndarray, radius: int) -> np.ndarray:
    """Each channel's window of sq added from its lowest channel up, in float32."""
    depth = sq.shape[-1]
    out = np.zeros_like(sq)
    for offset in range(-radius, radius + 1):
        lo, hi = max(0, -offset), min(depth, depth - offset)
        if lo < hi:
            out[..., lo:hi] += sq[..., lo + offset : hi + offset]
    return out


def _norms(x: np.ndarray, radius: int, alpha: float, bias: float) -> np.ndarray:
    """bias + alpha * each channel's window sum of squares (squares flushed to zero where
    subnormal, as TF's kernels run)."""
    squares = _eigen_math.flush(x * x)
    return _eigen_math.flush(_window_sums(squares, radius) * _F(alpha) + _F(bias))


def lrn(x: np.ndarray, radius: int, bias: float, alpha: float, beta: float) -> np.ndarray:
    """TF's float32 LRN output."""
    with np.errstate(all="ignore"):
        single_threaded = _F(beta) in (_F(0.5), _F(1)) and x.shape[-1] > _SINGLE_THREADED_DEPTH
        if single_threaded:
            norm = _running_window_norms(x, radius, alpha, bias)
        else:
            norm = _norms(x, radius, alpha, bias)
        if _F(beta) == _F(1):
            return x * (_F(1) / norm)
        if _F(beta) == _F(0.5):
            return _eigen_math.flush(x * _eigen_psqrt.tf_rsqrt_float32(norm))
        scale = _eigen_math.exp(_eigen_math.log(norm) * -_F(beta))
        return _eigen_math.flush(x * scale)


def lrn_grad(
    dy: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    radius: int,
    bias: float,
    alpha: float,
    beta: float,
) -> np.ndarray:
    """TF's float32 LRNGrad."""
    depth = x.shape[-1]
    with np.errstate(all="ignore"):
        norm = _norms(x, radius, alpha, bias)
        coefficient = _F(-2) * _F(alpha) * _F(beta)
        # Channel j's own term, powf(norm_j, -beta), added where k == j.
        own = _libm_float.powf(norm, np.full_like(norm, -_F(beta)))
        dx = np.zeros_like(x)
        for offset in range(-radius, radius + 1):
            # k = j - offset receives channel j's term; j runs upward for every k.
            lo, hi = max(0, offset), min(depth, depth + offset)  # channels j
            if lo >= hi:
                continue
            j = slice(lo, hi)
            k = slice(lo - offset, hi - offset)
            term = x[..., k] * (coefficient * y[..., j]) / norm[..., j]
            if offset == 0:
                term = term + own[..., j]
            # TF skips a channel whose incoming gradient is 0.
            g = dy[..., j]
            dx[..., k] += np.where(g == 0, _F(0), term * g)
        return _eigen_math.flush(dx)
