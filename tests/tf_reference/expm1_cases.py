"""tf.math.expm1 on float32 as TF 1.15's CPU kernel rounds it (Eigen's generic_expm1 over AVX
packets of eight, glibc's expm1f on a tensor's last size % 8 values). float64 is not covered:
tfcluster keeps numpy's expm1 there, an ulp from TF's on some values. Each case
is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_expm1.py and on tfcluster by
tests/unit/test_expm1_bits.py. Python 3.7 code."""

from __future__ import annotations


def expm1_inputs(dtype):
    """Seeded values over the ranges generic_expm1 treats apart (exp(x) rounding to 1, to 0,
    overflowing), tiny and subnormal values, signed zeros, infinities and NaN, also among the
    last size % 8 values (4003 = 8 * 500 + 3)."""
    import numpy as np

    rng = np.random.RandomState(31)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1e-8, -3e-8, 6e-8, 88.7, 89.0]
    special += [-17.0, -88.0, -104.0, 0.5, -0.5, 1e-4, -1e-4]
    parts = [
        np.array(special, dtype),
        rng.uniform(-1, 1, 1000).astype(dtype),
        (rng.randn(1000) * 5).astype(dtype),
        rng.uniform(-100, 90, 1000).astype(dtype),
        (rng.choice([-1, 1], 900) * 10.0 ** rng.uniform(-12, 0, 900)).astype(dtype),
    ]
    values = np.concatenate(parts)
    rest = 4003 - 3 - values.size
    values = np.concatenate([values, rng.uniform(-3, 3, rest).astype(dtype)])
    return np.concatenate([values, np.array([np.nan, -1e-5, 2.5], dtype)])


def _run(tf, dtype):
    import numpy as np

    x = expm1_inputs(np.dtype(dtype))
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(tf.math.expm1(tf.constant(x)))
    return {"bits": out.view("uint32" if dtype == "float32" else "uint64").tolist()}


CASES = {
    "expm1_float32": lambda tf: _run(tf, "float32"),
}
