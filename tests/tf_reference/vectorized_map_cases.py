"""tf.vectorized_map programs run on TF 1.15 by record_vectorized_map.py and on tfcluster by
tests/unit/test_vectorized_map.py (values compared). Python 3.7 too."""

from __future__ import annotations

import numpy as np

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 5.0
IDS = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], dtype=np.int32)


def build(tf, case):
    x = tf.constant(X)
    if case == "square_plus_row_sum":
        return tf.vectorized_map(lambda r: r * r + tf.reduce_sum(r), x)
    if case == "tuple_in_tuple_out":
        return tf.vectorized_map(
            lambda e: (
                tf.cast(e[1], tf.float32) * tf.reduce_max(e[0]),
                tf.matmul(e[0][None], e[0][:, None]),
            ),
            (x, tf.constant(IDS)),
        )
    if case == "output_not_depending_on_slice":
        return tf.vectorized_map(lambda r: tf.constant([1.0, 2.0]), x)
    if case == "unknown_batch":
        p = tf.placeholder_with_default(x, [None, 3])
        return tf.vectorized_map(lambda r: tf.nn.softmax(r), p)
    raise KeyError(case)


CASES = [
    "output_not_depending_on_slice",
    "square_plus_row_sum",
    "tuple_in_tuple_out",
    "unknown_batch",
]
