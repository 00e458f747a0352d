"""The float32 log as TF 1.15's Eigen kernel computes it (kernels/_eigen_math.py) takes a short
path for tensors of positive normal finite values; it must give the general path's bits."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _eigen_math as em


def _general(x: np.ndarray) -> np.ndarray:
    return em.packets_then_tail(x, em._log_packet, em._LOGF)


@pytest.mark.parametrize("size", [1, 7, 8, 64, 131])
def test_log_of_positive_normal_values_has_the_general_paths_bits(size: int) -> None:
    rng = np.random.default_rng(size)
    for x in (
        np.exp(rng.uniform(-87.0, 88.0, size)).astype(np.float32),
        (1.0 + rng.integers(-40, 40, size) * np.finfo(np.float32).eps).astype(np.float32),
        np.full(size, np.finfo(np.float32).tiny, np.float32),
        np.full(size, np.finfo(np.float32).max, np.float32),
    ):
        got, want = em.log(x), _general(x)
        assert got.dtype == np.float32 and got.shape == x.shape
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_log_of_special_and_subnormal_values_keeps_tensorflows_answers() -> None:
    x = np.array([1.0, 0.0, -0.0, np.inf, -1.0, np.nan, 1e-45, 2.0, 0.5], np.float32)
    got = em.log(x.reshape(3, 3))
    assert got.shape == (3, 3)
    flat = got.reshape(-1)
    assert flat[0] == 0.0 and flat[1] == -np.inf and flat[2] == -np.inf and flat[3] == np.inf
    assert np.isnan(flat[4]) and np.isnan(flat[5])
    assert flat[6] == -np.inf  # a subnormal input is flushed to zero first, as TF's CPU does
    np.testing.assert_array_equal(got.view(np.int32), _general(x.reshape(3, 3)).view(np.int32))
