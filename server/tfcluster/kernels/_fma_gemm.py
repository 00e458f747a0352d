"""Small general float32 matrix products (more than one output row and column) in the order TF
1.15's CPU MatMul computes them.

TF 1.15's Linux wheel hands Eigen's tensor contraction to MKL-DNN's sgemm, whose JIT kernels
use the CPU's fused multiply-add: each output runs down the contracted dimension one fused
multiply-add at a time, from zero. BLAS (numpy's OpenBLAS) unrolls and blocks that dimension
differently, so a DQN's Q-values and gradients (32 x 20 x 11 products) differed from TF's in
the last bits and its printed costs drifted. Measured bit-equal to TF 1.15 on 336 products up
to MAX_WORK multiply-adds with a contracted dimension up to MAX_DEPTH, every transposition
(MKL-DNN splits longer contractions into blocks of 256 and adds the blocks' sums, and larger
products run other kernels: those stay BLAS's). Matrix-vector shapes are _eigen_gemv's.

A fused multiply-add is repeated in float64 (the float32 product is exact there, the sum is
rounded once to float64 and once to float32: a different bit only where the float64 sum lands
exactly halfway between two floats, about 2^-29 of the time). Each step is a pass over the
output, so the work is bounded: a product here costs up to ~0.5 ms where BLAS takes ~10 us.
"""

from __future__ import annotations

import numpy as np

MAX_WORK = 1 << 16
MAX_DEPTH = 256


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray | None:
    """TF 1.15's bits for a small float32 MatMul of the operands as given, or None where TF
    takes another path (the caller multiplies as before)."""
    if a.dtype != np.float32 or b.dtype != np.float32:
        return None
    lhs = a.T if transpose_a else a
    rhs = b.T if transpose_b else b
    m, depth = lhs.shape
    n = rhs.shape[1]
    if m < 2 or n < 2 or depth > MAX_DEPTH or m * n * depth > MAX_WORK or rhs.shape[0] != depth:
        return None
    # Every product at once (exact in float64), then the fused additions in order.
    terms = lhs.astype(np.float64)[:, :, None] * rhs.astype(np.float64)[None, :, :]
    acc = np.zeros((m, n), np.float32)
    wide = np.empty((m, n), np.float64)
    for j in range(depth):
        np.add(acc, terms[:, j, :], out=wide)
        acc = wide.astype(np.float32)
    return acc
