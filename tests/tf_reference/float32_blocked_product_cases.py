"""Float32 products whose contracted dimension TF 1.15 cuts in blocks: Eigen's thread-pool
contraction takes it in blocks of its cache-based size evened out by TF (one block per sweep
on one thread, 320 terms at most on several), or cuts it in one range per thread when its
cost model finds that pays (the ranges' sums added at the end), and MKL-DNN's sgemm sums each
block as one running fused multiply-add. Narrow products (2 to 8 output columns, which
tfcluster sums itself: OpenBLAS's order differs there) of a hundred to 384 terms (longer
ones go to BLAS), every transpose, and a one-unit dense layer whose MatMul grappler fuses
with its BiasAdd. Run on a pool of two threads, operands fed (no constant folding). Each case is
`fn(tf) -> dict of plain values` (float32 results as hex strings: bits), run on TF 1.15 by
record_float32_blocked_products.py and on tfcluster by
tests/unit/test_float32_blocked_products.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}
# (rows, contracted terms, columns), up to the 384 terms tfcluster sums itself (longer ones go
# to BLAS, for speed): one sweep in one block, or cut in one range per thread where Eigen's
# cost model finds that pays on two threads (1000x100x8: 96 + 4).
SHAPES = [
    (1000, 100, 8),
    (64, 200, 4),
    (300, 320, 8),
    (16, 96, 2),
    (128, 384, 5),
    (500, 160, 3),
    (32, 256, 6),
    (100, 300, 8),
]


def _bits(values):
    return [float(v).hex() for v in np.asarray(values, np.float32).ravel()]


def _config(tf):
    return tf.ConfigProto(intra_op_parallelism_threads=2)


def narrow_products(tf):
    tf.reset_default_graph()
    rng = np.random.RandomState(11)
    feeds, products = {}, {}
    for i, (m, k, n) in enumerate(SHAPES):
        ta, tb = i % 2 == 1, i % 4 >= 2
        a = rng.randn(*((k, m) if ta else (m, k))).astype(np.float32)
        b = rng.randn(*((n, k) if tb else (k, n))).astype(np.float32)
        pa = tf.placeholder(tf.float32, a.shape)
        pb = tf.placeholder(tf.float32, b.shape)
        feeds[pa], feeds[pb] = a, b
        products[f"m{m}_k{k}_n{n}_{ta:d}{tb:d}"] = tf.matmul(pa, pb, transpose_a=ta, transpose_b=tb)
    with tf.Session(config=_config(tf)) as sess:
        values = sess.run(products, feeds)
    return {name: _bits(v) for name, v in sorted(values.items())}


def one_unit_dense_layer(tf):
    """x @ w + b of one output column over 300 inputs: grappler fuses the MatMul with its
    BiasAdd, whose product is the general one (blocked), not the matrix-vector routine."""
    tf.reset_default_graph()
    rng = np.random.RandomState(12)
    x = rng.randn(100, 300).astype(np.float32)
    w = rng.randn(300, 1).astype(np.float32)
    px = tf.placeholder(tf.float32, x.shape)
    out = tf.nn.bias_add(tf.matmul(px, tf.constant(w)), tf.constant([0.25], tf.float32))
    with tf.Session(config=_config(tf)) as sess:
        return {"out": _bits(sess.run(out, {px: x}))}


for _fn in (narrow_products, one_unit_dense_layer):
    CASES[_fn.__name__] = _fn
