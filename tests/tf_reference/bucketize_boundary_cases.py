"""Values that sit on a Bucketize boundary as TF 1.15 buckets them: the boundaries are a
list(float) attr, so TF's kernel compares in float32 (a float32 -121.8 from a CSV falls in
the bucket that starts at the boundary -121.8 given as a Python float, as Google's
california-housing custom estimator bucketizes longitude with np.linspace), in float64 for
double inputs, and converts int32/int64 inputs to float32. Each case is `fn(tf) -> plain
values`, run on TF 1.15 by record_bucketize_boundary.py and on tfcluster by
tests/unit/test_bucketize_boundary.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

_LONGITUDES = np.linspace(-124.3, -114.3, 5).tolist()  # -121.8 is not a float32 value


def _run(tf, tensor):
    with tf.Session() as sess:
        return sess.run(tensor).tolist()


def bucketized_column_on_boundaries(tf):
    """tf.feature_column.bucketized_column of float32 values equal to the boundaries."""
    tf.reset_default_graph()
    column = tf.feature_column.bucketized_column(
        tf.feature_column.numeric_column("longitude"), _LONGITUDES
    )
    values = np.array([[-124.3], [-121.8], [-119.3], [-116.8], [-114.3], [-121.79]], np.float32)
    dense = tf.feature_column.input_layer({"longitude": values}, [column])
    return {"one_hot": _run(tf, dense)}


def raw_bucketize_by_dtype(tf):
    """Bucketize of float32, float64, int32 and int64 values against float boundaries."""
    tf.reset_default_graph()
    out = {}
    for name, dtype in (("float32", np.float32), ("float64", np.float64)):
        values = np.array([-124.3, -121.8, -119.3, -116.8, -114.3, -121.79], dtype)
        out[name] = _run(tf, tf.raw_ops.Bucketize(input=values, boundaries=_LONGITUDES))
    ints = [0.5, 1.0, 16777217.0, 1e10]
    out["int32"] = _run(
        tf, tf.raw_ops.Bucketize(input=np.array([0, 1, 2, 16777216], np.int32), boundaries=ints)
    )
    out["int64"] = _run(
        tf,
        tf.raw_ops.Bucketize(
            input=np.array([1, 16777216, 16777217, 16777218, 10**10], np.int64), boundaries=ints
        ),
    )
    return out


CASES = {
    "bucketized_column_on_boundaries": bucketized_column_on_boundaries,
    "raw_bucketize_by_dtype": raw_bucketize_by_dtype,
}
