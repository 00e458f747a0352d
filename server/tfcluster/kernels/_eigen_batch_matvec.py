"""BatchMatMul's matrix-vector products (one output row or one output column per batch) summed
in the order TF 1.15's CPU kernel sums them.

TF 1.15's BatchMatMul runs a product whose smallest dimension is 1 through its
SequentialMatMulKernel: an Eigen dense product of row-major maps, batch by batch, not the
tensor contraction MatMul uses. Eigen decides by the sizes at run time:

- depth + rows + columns below 20: a coefficient-based (lazy) product, each output a running
  sum of rounded products in the contracted order (p0 + p1 + p2 ...; no fused multiply-add
  in TF's AVX build), or, where both operands' terms lie contiguous (an untransposed first
  and an adjoint second operand), Eigen's vectorized reduction of the products: packets of
  32 bytes summed in two accumulators, the packet's lanes added as its horizontal sum, then
  the terms left over one by one;
- otherwise a matrix-vector routine, one output column checked before one output row (Eigen's
  GEMM dispatch), in the column-major or row-major form of _eigen_gemv by the operands'
  storage: the same sums as MatMul's matrix-vector shapes, except a 1x1 product of an
  untransposed row, which takes the row-major form here.

numpy's matmul sums in BLAS's order, so a dot product written as tf.matmul of rank-unknown
placeholders (a BatchMatMulV2) came out a last bit apart from TF. Batches are taken one by
one: products of more than _eigen_gemv.MAX_WORK multiply-adds or more than MAX_BATCHES (4)
batches stay BLAS's (None).
"""

from __future__ import annotations

import math

import numpy as np

from tfcluster.kernels._eigen_gemv import MAX_WORK, _col_major, _lane_sum, _row_major

_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
# EIGEN_GEMM_TO_COEFFBASED_THRESHOLD: below this depth + rows + columns a product is lazy.
_COEFF_BASED_BELOW = 20
# A loop over batches in Python (~5-25 us a batch against BLAS's ~0.5): more batches than this
# stay BLAS's (time, not exactness); 256 batches of [1, 64] x [64, 50] took 1.7 ms for 0.1,
# and an attention decoder makes two such products a step: the exact order is kept for the
# dot products and few-batch products programs print, not for batched attention.
MAX_BATCHES = 4


def _coefficient_based(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x [m, depth] @ y [depth, n] as a running sum of rounded products."""
    out = x[:, 0:1] * y[0:1, :]
    for k in range(1, x.shape[1]):
        out = out + x[:, k : k + 1] * y[k : k + 1, :]
    return np.asarray(out)


def _packet_reduction(terms: np.ndarray) -> np.ndarray:
    """Sums of each row of `terms` [rows, depth] as Eigen's linear vectorized redux: with
    P lanes per packet, packet 0 (and packet 1) start two accumulators that take every other
    packet of the whole pairs, then are added, then a last whole packet; the lanes' horizontal
    sum; then the terms past the last whole packet in turn."""
    depth = terms.shape[1]
    lanes = 32 // terms.dtype.itemsize
    whole = depth - depth % lanes
    if not whole:
        return _running_row_sums(terms)
    pairs = depth - depth % (2 * lanes)
    acc = terms[:, :lanes].copy()
    if whole > lanes:
        second = terms[:, lanes : 2 * lanes].copy()
        for k in range(2 * lanes, pairs, 2 * lanes):
            acc += terms[:, k : k + lanes]
            second += terms[:, k + lanes : k + 2 * lanes]
        acc += second
        if whole > pairs:
            acc += terms[:, pairs : pairs + lanes]
    out = _lane_sum(acc)
    for k in range(whole, depth):
        out = out + terms[:, k]
    return np.asarray(out)


def _running_row_sums(terms: np.ndarray) -> np.ndarray:
    out = terms[:, 0].copy()
    for k in range(1, terms.shape[1]):
        out += terms[:, k]
    return out


def _one(a: np.ndarray, b: np.ndarray, adj_x: bool, adj_y: bool) -> np.ndarray:
    """One batch's product of the stored operands (before adjoining)."""
    x = a.T if adj_x else a
    y = b.T if adj_y else b
    m, depth = x.shape
    n = y.shape[1]
    if depth + m + n < _COEFF_BASED_BELOW:
        if adj_y and not adj_x:  # rows of a and of b: contiguous terms, a vectorized redux
            terms = (a[:, None, :] * b[None, :, :]).reshape(m * n, depth)
            return _packet_reduction(terms).reshape(m, n)
        return _coefficient_based(x, y)
    if n == 1:
        if adj_x:
            return _col_major(y.reshape(-1), a, m).reshape(m, 1)
        return _row_major(a, y.reshape(-1)).reshape(m, 1)
    vec = x.reshape(-1)
    if not adj_y:
        return _col_major(vec, b, n).reshape(1, n)
    return _row_major(b, vec).reshape(1, n)


def batch_matmul(a: np.ndarray, b: np.ndarray, adj_x: bool, adj_y: bool) -> np.ndarray | None:
    """TF 1.15's bits for a BatchMatMul of the stored operands (batch dimensions broadcast)
    whose products have one row or one column, or None where BLAS's product stands."""
    if a.dtype not in _DTYPES or b.dtype != a.dtype:
        return None
    m = a.shape[-1] if adj_x else a.shape[-2]
    n = b.shape[-2] if adj_y else b.shape[-1]
    depth = a.shape[-2] if adj_x else a.shape[-1]
    if m != 1 and n != 1:
        return None
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    count = math.prod(batch)
    if count == 0 or depth == 0 or m * n == 0:
        return None
    if count > MAX_BATCHES or count * depth * m * n > MAX_WORK:
        return None
    xs = np.broadcast_to(a, batch + a.shape[-2:]).reshape((count, *a.shape[-2:]))
    ys = np.broadcast_to(b, batch + b.shape[-2:]).reshape((count, *b.shape[-2:]))
    out = np.empty((count, m, n), a.dtype)
    for i in range(count):
        out[i] = _one(xs[i], ys[i], adj_x, adj_y)
    return out.reshape((*batch, m, n))
