"""Seeded tf.random.gamma and tf.random.poisson draw TF 1.15's numbers: its CPU samplers read
the op's Philox stream (256 generator calls reserved per output; Marsaglia and Tsang's
rejection for gamma, exponential draws at alpha 1; Knuth's product below rate 10 and
Hormann's transformed rejection above for poisson). Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_gamma_poisson_streams.py and on tfcluster by
tests/unit/test_gamma_poisson_streams.py. Python 3.7 code."""

from __future__ import annotations


def gamma_draws(tf):
    """Alphas below, at and above 1 (and 0, fed), float32 and float64, three runs each."""
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        k = tf.placeholder(tf.float32, [])
        draws = {
            "fed_alpha": tf.random.gamma([5], alpha=k),
            "alpha_grid": tf.random.gamma([3], alpha=[[0.25, 1.0], [2.5, 40.0]]),
            "float64_beta": tf.random_gamma([2, 3], [0.7, 7.0], beta=2.0, dtype=tf.float64, seed=5),
        }
        out = {}
        with tf.Session() as sess:
            for step, alpha in enumerate([0.0, 0.5, 1.0, 3.0]):
                got = sess.run(draws, {k: alpha})
                for name, value in got.items():
                    out[f"{name}_{step}"] = value.tolist()
        return out


def poisson_draws(tf):
    """Rates below 10 (0 and fed), at 10 and far above, float32, int64 and int32 counts."""
    with tf.Graph().as_default():
        tf.set_random_seed(4)
        k = tf.placeholder(tf.float32, [])
        draws = {
            "fed_rate": tf.random_poisson(k, [6]),
            "rates": tf.random_poisson([0.0, 2.0, 10.0, 37.5, 1000.0], [3]),
            "int64": tf.random.poisson([[4.0], [60.0]], [2], dtype=tf.int64, seed=9),
            "int32_float64_rate": tf.random.poisson(
                tf.constant([15.0, 0.5], tf.float64), [4], dtype=tf.int32, seed=2
            ),
        }
        out = {}
        with tf.Session() as sess:
            for step, rate in enumerate([0.0025, 3.0, 12.0]):
                got = sess.run(draws, {k: rate})
                for name, value in got.items():
                    out[f"{name}_{step}"] = value.tolist()
        return out


CASES = {"gamma_draws": gamma_draws, "poisson_draws": poisson_draws}
