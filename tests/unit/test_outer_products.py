"""A product of depth one (an outer product: a weight's gradient at batch 1) gives BLAS's
values, one rounded product per entry added to zero, by a broadcast multiply (BLAS's path
for a depth of one takes 3.5x the time): signed zeros, infinities and NaNs as BLAS gives
them."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _cpu_gemm


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, n", [(1025, 2048), (3, 5), (64, 1)])
def test_outer_product_gives_blas_values(dtype: type, m: int, n: int) -> None:
    rng = np.random.default_rng(m * n)
    a: np.ndarray = rng.standard_normal((m, 1)).astype(dtype)
    b: np.ndarray = rng.standard_normal((1, n)).astype(dtype)
    a[0, 0] = -0.0
    if m > 2:
        a[1, 0], a[2, 0] = np.inf, np.nan
    got = _cpu_gemm.matmul(a, b)
    want = np.matmul(a, b)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
