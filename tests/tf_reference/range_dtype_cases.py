"""tf.range's dtype: TF 1.15 converts start, limit and delta to a given dtype (no Cast ops,
so the graph's op count and the op seeds after it stay TF's; an int32 tensor asked for as
int64 is ValueError) and casts them to the widest of their dtypes only without one. Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_range_dtypes.py and on
tfcluster by tests/unit/test_range_dtypes.py. Python 3.7 code."""

from __future__ import annotations

try:  # run by the tests (tests/ on the path) or by the recorder (in its folder)
    from tf_reference.case_tools import error
except ImportError:
    from case_tools import error


def _ops_of(tf, fn):
    """The ops fn makes in a graph of its own (name, type, dtype) and its value, or its error."""
    graph = tf.Graph()
    with graph.as_default():
        failed = error(fn)
        if failed is not None:
            return failed
        t = fn()
        with tf.Session() as sess:
            value = sess.run(t).tolist()
        ops = [[op.name, op.type, op.outputs[0].dtype.name] for op in graph.get_operations()]
        return {"ops": ops[: len(ops) // 2], "value": value}


def ranges(tf):
    calls = {
        "int_limit_float32": lambda: tf.range(5, dtype=tf.float32),
        "int_limit": lambda: tf.range(5),
        "int_and_float": lambda: tf.range(1, 5.0),
        "int32_tensor_as_int64": lambda: tf.range(tf.constant(3), dtype=tf.int64),
        "float_limit_float64": lambda: tf.range(2.5, dtype=tf.float64),
        "float32_tensor_start": lambda: tf.range(tf.constant(3.0), 5, dtype=tf.float32),
        "three_ints_int64": lambda: tf.range(1, 7, 2, dtype=tf.int64),
        "int16_tensor": lambda: tf.range(tf.constant(3, tf.int16)),
        "int16_dtype": lambda: tf.range(3, dtype=tf.int16),
    }
    return {name: _ops_of(tf, fn) for name, fn in calls.items()}


CASES = {"ranges": ranges}
