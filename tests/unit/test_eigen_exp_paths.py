"""Eigen's float32 exp (kernels/_eigen_math.py) on small tensors spreads its constants to
whole arrays (numpy's faster loop for two contiguous operands); larger ones take them as
scalars. Both must give the same bits, for every value the packets see."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _eigen_math as em


@pytest.mark.parametrize("size", [8, 320, 4096])
def test_exp_of_a_small_tensor_has_the_bits_of_the_same_values_in_a_large_one(size: int) -> None:
    rng = np.random.default_rng(size)
    small = (rng.standard_normal(size) * 30).astype(np.float32)
    small[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 89.0, -104.0]
    assert small.size <= em._CONST_ROWS_UP_TO
    # Whole packets in both (sizes are multiples of 8): no value takes the scalar tail.
    large = np.concatenate([small, np.zeros(em._CONST_ROWS_UP_TO, np.float32)])
    with np.errstate(all="ignore"):
        got, want = em.exp(small), em.exp(large)[:size]
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
    assert got.dtype == np.float32


def test_exp_constants_are_arrays_only_for_small_passes() -> None:
    assert all(c.shape == (16,) and not c.flags.writeable for c in em._exp_constants(16))
    big = em._exp_constants(em._CONST_ROWS_UP_TO + 8)
    assert all(np.ndim(c) == 0 for c in big)
