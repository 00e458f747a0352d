"""Behaviours the TF1 programs of Stanford's CS20 and MorvanZhou's two tutorial repositories
showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_public_sweep2.py and on tfcluster by tests/unit/test_public_sweep2_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

# [rows, depth] of the matrix: a dense layer's batch and inputs (odd rows take Eigen's half
# packet; depths below, at and past 8 float32 lanes; a long one).
_MATVEC_SHAPES = [(100, 10), (100, 7), (9, 5), (64, 33), (1, 5), (7, 1), (2000, 20), (17, 784)]


def matmul_one_output_column(tf):
    """tf.matmul(x, w) with w of one column (a regression's output layer written as
    tf.matmul(x, W) + b): TF 1.15 sums each output as Eigen's row-major matrix-vector product
    (8 float32 / 4 float64 lanes), so the program's numbers are TF's to the last bit."""
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    outs = []
    for dtype in (np.float32, np.float64):
        for rows, depth in _MATVEC_SHAPES:
            x = rng.randn(rows, depth).astype(dtype)
            w = rng.randn(depth, 1).astype(dtype)
            outs.append(tf.matmul(tf.constant(x), tf.constant(w)))
            # A row vector transposed to a column: the same product.
            outs.append(tf.matmul(tf.constant(x), tf.constant(w.T.copy()), transpose_b=True))
    with tf.Session() as sess:
        return {"values": sess.run(outs)}


CASES = {f.__name__: f for f in (matmul_one_output_column,)}
