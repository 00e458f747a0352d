"""RMSProp on a large float32 variable goes in cache-sized blocks on both cores: the same
values, bit for bit, as the one-pass update (Eigen's packet square roots over the whole
tensor, its last size % 8 values exact), whatever the size's remainder."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _eigen_psqrt, training


def _one_pass(var, ms, mom, scalars, g):  # type: ignore[no-untyped-def]
    lr, rho, momentum, eps = scalars
    ms = ms + (g * g - ms) * (1 - rho)
    mom = mom * momentum + lr * g / _eigen_psqrt.xp_sqrt(np, ms + eps)
    return var - mom, ms, mom


@pytest.mark.parametrize("size", [1 << 19, (1 << 19) + 13, 3 * (1 << 18) + 7])
def test_blocked_rmsprop_keeps_the_one_pass_bits(size: int) -> None:
    rng = np.random.default_rng(size)
    var = rng.standard_normal(size).astype(np.float32)
    ms = rng.random(size).astype(np.float32)
    mom = (rng.standard_normal(size) * 0.01).astype(np.float32)
    g = rng.standard_normal(size).astype(np.float32)
    g[::97] = 0.0
    ms[::89] = 0.0
    scalars = [np.asarray(x, np.float32) for x in (0.001, 0.9, 0.5, 1e-10)]
    want = _one_pass(var, ms, mom, scalars, g)
    training._rms_prop_in_blocks(var, ms, mom, scalars, g)
    for got, expected in zip((var, ms, mom), want):
        np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))
