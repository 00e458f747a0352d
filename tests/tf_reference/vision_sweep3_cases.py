"""Behaviours public TF1 vision programs (U-Net, YOLOv3, AlexNet fine-tuning, a spatial
transformer) showed apart on tfcluster, third sweep. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_vision_sweep3.py and on tfcluster by
tests/unit/test_vision_sweep3_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _operands(rng, batch, m, k, n, ta, tb):
    a = rng.randn(*(batch + ((k, m) if ta else (m, k))))
    b = rng.randn(*(batch + ((n, k) if tb else (k, n))))
    return a, b


def float64_products_of_depth_two_and_three(tf):
    """A spatial transformer's affine grid (theta of 2x3 times [x, y, 1]) and regressions on two
    or three float64 features: TF 1.15 sums float64 products over so short a contracted
    dimension as a running sum of separately rounded products, for every shape and transpose,
    in MatMul, BatchMatMul and BatchMatMulV2 (broadcast batch dimensions)."""
    tf.reset_default_graph()
    rng = np.random.RandomState(11)
    products = {}
    for k in (2, 3):
        for m, n in ((2, 3), (9, 17), (24, 5)):
            for ta in (False, True):
                for tb in (False, True):
                    a, b = _operands(rng, (), m, k, n, ta, tb)
                    name = f"matmul_k{k}_{m}x{n}_{ta:d}{tb:d}"
                    products[name] = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
        a, b = _operands(rng, (3,), 5, k, 6, False, True)
        products[f"batch_matmul_k{k}"] = tf.raw_ops.BatchMatMul(x=a, y=b, adj_y=True)
        a, b = _operands(rng, (4,), 2, k, 7, False, False)
        products[f"batch_matmul_v2_k{k}_broadcast"] = tf.matmul(a, b[0])
        products[f"batch_matmul_v2_k{k}"] = tf.matmul(a, b)
    types = {name: t.op.type for name, t in sorted(products.items())}
    with tf.Session() as sess:
        values = sess.run(products)
    return {"types": types, "values": {name: v.tolist() for name, v in sorted(values.items())}}


CASES["float64_products_of_depth_two_and_three"] = float64_products_of_depth_two_and_three
