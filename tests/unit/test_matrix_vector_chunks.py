"""A large one-row MatMul (a DQN's dense layer at batch 1) sums its terms chunk by chunk, on
every core: the bits must be those of Eigen's column-major matrix-vector order summed in one
pass (kernels/_eigen_gemv.py), whatever the chunks and threads."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _eigen_gemv


def _one_pass(vec: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """Eigen's order written out: float32 products, each block's terms added in turn from the
    first (a short last block padded with zeros), the blocks' sums added in turn, +0 last."""
    depth, n = mat.shape
    block = 16 if n * mat.itemsize < 32000 else 4
    terms = mat * vec[:, None]
    blocks = -(-depth // block)
    padded = np.zeros((blocks * block, n), mat.dtype)
    padded[:depth] = terms
    sums = padded[0::block].copy()
    for i in range(1, block):
        sums += padded[i::block]
    sums += 0
    total = sums[0].copy()
    for row in sums[1:]:
        total += row
    total += 0
    return total


@pytest.mark.parametrize(
    "depth, n, dtype",
    [
        (1568, 512, np.float32),  # whole blocks, several chunks
        (3137, 64, np.float32),  # a last block of one term
        (1000, 700, np.float64),
        (128, 8100, np.float32),  # rows past 32000 bytes: blocks of 4
        (131, 4100, np.float64),
    ],
)
def test_chunked_matrix_vector_product_keeps_one_pass_bits(depth: int, n: int, dtype: type) -> None:
    rng = np.random.default_rng(depth + n)
    vec = rng.standard_normal(depth).astype(dtype)
    mat = rng.standard_normal((depth, n)).astype(dtype)
    mat[::7] = 0
    vec[5] = -0.0
    mat[10, 3] = np.inf
    mat[20, 4] = np.nan
    assert depth * n >= _eigen_gemv._CHUNKED_FROM
    got = _eigen_gemv.matmul(vec[None, :], mat, False, False)
    assert got is not None
    np.testing.assert_array_equal(
        got.reshape(-1).view(np.uint8), _one_pass(vec, mat).view(np.uint8)
    )
    # One output column of a transposed first operand takes the same routine.
    col = _eigen_gemv.matmul(mat, vec[:, None], True, False)
    assert col is not None
    np.testing.assert_array_equal(
        col.reshape(-1).view(np.uint8), _one_pass(vec, mat).view(np.uint8)
    )
