"""Behaviours public TF1 generative and sequence programs (GAN/VAE collections, SeqGAN, a TF1
cookbook, Hvass's NLP and TFRecord tutorials) showed apart on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_generative_sweep.py and on tfcluster
by tests/unit/test_generative_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _stored(rng, batch, rows, cols, dtype):
    return rng.randn(*((*batch, rows, cols))).astype(dtype)


def batched_matrix_vector_products(tf):
    """tf.matmul of placeholders of unknown rank builds a BatchMatMulV2, whose products with
    one output row or column TF 1.15 sums as Eigen's dense product does (a running sum of
    rounded products below 20 = depth + rows + columns, else its matrix-vector routine): a
    dot product of two columns (transpose_a) among them. Every adjoint combination, depths
    from 1 to 300, one or several batches (broadcast), float32 and float64; BatchMatMul too."""
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    feeds = {}
    products = {}
    shapes = []
    for depth in (1, 3, 8, 16, 17, 18, 50, 127, 128, 129, 300):
        for m, n in ((1, 1), (1, 5), (4, 1), (1, 40), (33, 1)):
            shapes.append((depth, m, n))
    for dtype in (np.float32, np.float64):
        for depth, m, n in shapes:
            for adj_x in (False, True):
                for adj_y in (False, True):
                    batch = (2,) if depth % 2 else ()
                    a = _stored(rng, batch, depth if adj_x else m, m if adj_x else depth, dtype)
                    b = _stored(rng, (), n if adj_y else depth, depth if adj_y else n, dtype)
                    x = tf.placeholder(dtype)
                    y = tf.placeholder(dtype)
                    name = f"{np.dtype(dtype).name}_d{depth}_{m}x{n}_{adj_x:d}{adj_y:d}"
                    products[name] = tf.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)
                    feeds[name] = (x, a, y, b)
    a = _stored(rng, (3,), 1, 40, np.float32)
    b = _stored(rng, (3,), 40, 6, np.float32)
    products["batch_matmul_v1_row"] = tf.raw_ops.BatchMatMul(x=a, y=b)
    a = _stored(rng, (3,), 25, 30, np.float32)
    b = _stored(rng, (3,), 1, 30, np.float32)
    products["batch_matmul_v1_column"] = tf.raw_ops.BatchMatMul(x=a, y=b, adj_y=True)
    feed_dict = {}
    for x, a, y, b in feeds.values():
        feed_dict[x] = a
        feed_dict[y] = b
    types = {name: t.op.type for name, t in sorted(products.items())}
    with tf.Session() as sess:
        values = sess.run(products, feed_dict)
    return {
        "types": types,
        "values": {name: v.astype(np.float64).tolist() for name, v in sorted(values.items())},
    }


CASES["batched_matrix_vector_products"] = batched_matrix_vector_products
