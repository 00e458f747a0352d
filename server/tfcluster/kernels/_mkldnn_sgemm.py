"""Float32 matrix products summed in the order of TF 1.15's general CPU product.

TF 1.15 multiplies float32 matrices through Eigen's tensor contraction with MKL-DNN's sgemm
as its kernel, which picks the machine's fused multiply-add: each output is a running FMA
over a block of the contracted dimension (up to 384 terms; recorded:
tests/tf_reference/record_float32_products.py), the blocks' sums added where Eigen's thread
pool cuts the contracted dimension (_eigen_contraction_blocks). OpenBLAS (numpy) sums that
way for some products of 9 columns or more, but not for 2 to 8 output columns, where its
kernel differs from TF's in the last bit for most outputs. And grappler's MatMul -> BiasAdd fusion
(_FusedMatMul) takes this product even for one output column, where the plain MatMul takes
Eigen's matrix-vector routine (_eigen_gemv): a dense layer of one unit.

Here each step's FMA is a float64 sum of the exact float64 product and the float32 running
sum, rounded to float32: the one rounding of an FMA, but for a double rounding when the
float64 sum lands exactly halfway between two float32 numbers (about 1 in 2**29 sums).
"""

from __future__ import annotations

import numpy as np

from tfcluster.kernels import _eigen_contraction_blocks
from tfcluster.runtime import thread_budget

# MKL-DNN's sgemm sums up to this many terms in one running sum. Longer contracted
# dimensions go to BLAS: TF's blocks there (_eigen_contraction_blocks) are known, but summing
# them here costs tens of times BLAS's time (a logistic regression's 784-term products).
MAX_DEPTH = 384

# Products of more multiply-adds than this go to BLAS: one pass over the contracted
# dimension costs two numpy calls per term.
MAX_WORK = 1 << 20
# Eigen's thread-pool contraction may cut a contraction of one narrow side (below 8) into one
# part per thread along the contracted dimension, each summed apart and the parts then added,
# where each thread gets more than 32 terms and its cost model finds the cut pays (it did for
# a convolution of 4 output channels and 256 terms on two threads: two chains of 128): up to
# this many terms it never does, whatever its thread count and cost estimates.
UNSHARDED_DEPTH = 64
# OpenBLAS's own order differs from MKL-DNN's up to this width (output columns).
NARROW_WIDTH = 8


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """a @ b (2-D float32, already transposed) as TF's sgemm sums it, in the blocks of the
    contracted dimension TF's contraction takes on this process's intra-op pool, or None
    where BLAS's product stands (another dtype, a longer contracted dimension, or too much
    work)."""
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim != 2 or b.ndim != 2:
        return None
    m, depth = a.shape
    n = b.shape[1]
    if depth == 0 or depth > MAX_DEPTH or m == 0 or n == 0 or m * depth * n > MAX_WORK:
        return None
    threads = thread_budget.current().intra
    blocked = _eigen_contraction_blocks.blocked_product(a, b, threads, _running_sum)
    return blocked if blocked is not None else _running_sum(a, b)


def _running_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b, each output one running FMA over the whole contracted dimension."""
    depth = a.shape[1]
    # Every product exact in float64 (24 + 24 significant bits), all made in one call, laid
    # out [depth, n, m]: the rows of a along the innermost axis (numpy's inner loops then run
    # m long, not n: 2 to 8), and each step's terms one contiguous slice.
    terms = a.T.astype(np.float64)[:, None, :] * b.astype(np.float64)[:, :, None]
    # The first FMA adds to a zeroed accumulator: a product of -0 gives +0 (so does the sum
    # of products that are all -0), as TF's never gives -0.
    out = np.add(terms[0], 0.0).astype(np.float32)
    for k in range(1, depth):
        # Added in float64, rounded once to the float32 output (one call, no float64 temporary).
        np.add(terms[k], out, out=out, casting="same_kind")
    return np.ascontiguousarray(out.T)


def narrow_product(a: np.ndarray, b: np.ndarray, one_column: bool = False) -> np.ndarray | None:
    """TF's bits for a product whose width OpenBLAS sums in another order (2 to 8 output
    columns, or 1 where the caller takes the general product for it; more than one row),
    or None."""
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] < 2:
        return None
    if not (2 - one_column) <= b.shape[1] <= NARROW_WIDTH:
        return None
    return product(a, b)


def narrow_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """out[...] = a @ b as TF's sgemm sums it where OpenBLAS's order differs (1 to
    NARROW_WIDTH output columns, float32), for any number of rows, over a contracted dimension
    of at most UNSHARDED_DEPTH: a convolution's im2col block against its filter, which TF 1.15
    takes through the same sgemm (one running FMA per output, the taps in the filter's order).
    No work limit: the block's outputs are few (rows x columns), each term one pass over them.
    False (out untouched) where BLAS's product stands."""
    if a.ndim != 2 or b.ndim != 2 or not 1 <= b.shape[1] <= NARROW_WIDTH:
        return False
    return running_into(a, b, out)


def running_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """out[...] = a @ b, each output one running FMA over the contracted dimension in order
    (TF's sgemm), for float32 matrices contracting at most UNSHARDED_DEPTH terms, whatever
    their width; False (out untouched) otherwise."""
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim != 2 or b.ndim != 2:
        return False
    m, depth = a.shape
    n = b.shape[1]
    if depth == 0 or depth > UNSHARDED_DEPTH or m == 0 or n == 0:
        return False
    # Laid out [n, m]: the rows along the innermost axis (inner loops m long, not n).
    acc = np.empty((n, m), np.float32)
    term = np.empty((n, m), np.float64)
    wide = b.astype(np.float64)
    np.multiply(wide[0][:, None], a[:, 0], out=term)
    np.add(term, 0.0, out=acc, casting="same_kind")  # a zeroed accumulator: -0 becomes +0
    for k in range(1, depth):
        np.multiply(wide[k][:, None], a[:, k], out=term)
        np.add(term, acc, out=acc, casting="same_kind")
    out[...] = acc.T
    return True
