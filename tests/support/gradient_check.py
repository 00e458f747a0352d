"""Finite-difference checks of tf.gradients, shared by the op test modules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tfcluster as tf


def numeric_gradients(
    build: Callable[..., Any], inputs: Sequence[np.ndarray], delta: float = 1e-3
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(symbolic, numeric) d(sum(w * build(*xs)))/d(xs) in float64, with a fixed random w.

    `build` receives placeholders and returns one tensor. The random weights make the check
    sensitive to every output element, not just their sum.
    """
    graph = tf.Graph()
    with graph.as_default():
        phs = [tf.placeholder(tf.float64, shape=np.shape(x)) for x in inputs]
        y = build(*phs)
        w = tf.placeholder(tf.float64, shape=None)
        loss = tf.reduce_sum(y * w)
        # A gather's gradient is an IndexedSlices (as in TF): compared as the dense tensor.
        grads = [
            tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g
            for g in tf.gradients(loss, phs)
        ]
        with tf.Session(graph=graph) as sess:
            xs = [np.asarray(x, dtype=np.float64) for x in inputs]
            y_val = sess.run(y, dict(zip(phs, xs)))
            rng = np.random.default_rng(0)
            w_val = rng.uniform(0.5, 1.5, size=np.shape(y_val))
            feed = {**dict(zip(phs, xs)), w: w_val}
            symbolic = [
                np.zeros_like(x) if g is None else sess.run(g, feed) for g, x in zip(grads, xs)
            ]
            numeric = []
            for i, x in enumerate(xs):
                num = np.zeros_like(x)
                flat = num.reshape(-1)
                for j in range(x.size):
                    plus = x.copy().reshape(-1)
                    minus = x.copy().reshape(-1)
                    plus[j] += delta
                    minus[j] -= delta
                    f_plus = sess.run(loss, {**feed, phs[i]: plus.reshape(x.shape)})
                    f_minus = sess.run(loss, {**feed, phs[i]: minus.reshape(x.shape)})
                    flat[j] = (f_plus - f_minus) / (2 * delta)
                numeric.append(num)
    return symbolic, numeric


def assert_gradients_match(
    build: Callable[..., Any],
    inputs: Sequence[np.ndarray],
    rtol: float = 1e-4,
    atol: float = 1e-5,
    delta: float = 1e-3,
) -> None:
    symbolic, numeric = numeric_gradients(build, inputs, delta)
    for i, (s, n) in enumerate(zip(symbolic, numeric)):
        np.testing.assert_allclose(s, n, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")
