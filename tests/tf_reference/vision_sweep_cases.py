"""Behaviours public TF1 vision and generative programs (tutorial convnets, autoencoders,
GANs, style transfer) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_vision_sweep.py and on tfcluster by
tests/unit/test_vision_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}

# (start, stop, num): a tutorial's symmetric grid (-3, 3, 32), ranges whose float32 step
# rounds, one and two values, a decreasing range, a long one.
_LINSPACE_RANGES = [
    (-3.0, 3.0, 32),
    (-3.0, 3.0, 100),
    (0.0, 1.0, 7),
    (0.1, 0.7, 13),
    (5.0, 5.0, 1),
    (-1.0, 2.0, 2),
    (10.0, -3.3, 9),
    (-123.456, 0.001, 1001),
]


def linspace_rounds_in_its_dtype(tf):
    """tf.linspace(-3.0, 3.0, 32) in a gabor-patch tutorial: TF 1.15's LinSpace kernel computes
    step = (stop - start) / (num - 1) and start + step * i in the output's dtype (float32 for
    float32 inputs), so sin(x) of the grid is not antisymmetric to the last bit; numpy's
    float64 linspace rounded once gives other values."""
    tf.reset_default_graph()
    outs = []
    for dtype in (tf.float32, tf.float64):
        for start, stop, num in _LINSPACE_RANGES:
            outs.append(tf.linspace(tf.constant(start, dtype), tf.constant(stop, dtype), num))
        num = tf.constant(11, tf.int64)
        outs.append(tf.linspace(tf.constant(-2.5, dtype), tf.constant(4.0, dtype), num))
    x = tf.linspace(-3.0, 3.0, 32)
    gabor = tf.matmul(tf.reshape(tf.sin(x), [32, 1]), tf.reshape(tf.exp(-x * x / 2.0), [1, 32]))
    with tf.Session() as sess:
        values, gabor_sum = sess.run([outs, tf.reduce_sum(gabor)])
    return {"values": values, "gabor_sum": gabor_sum}


CASES["linspace_rounds_in_its_dtype"] = linspace_rounds_in_its_dtype


def cond_branch_returning_none(tf):
    """A batch-norm helper returns (ema.average(mean), ema.average(var)) from tf.cond's false
    branch before ema.apply made the averages (both None): TF 1.15 converts each result of a
    branch with convert_to_tensor and fails with its message, in either branch."""
    tf.reset_default_graph()
    out = {}
    pred = tf.placeholder(tf.bool, [])
    branches = {
        "false_branch": (lambda: (tf.constant(1.0), tf.constant(2.0)), lambda: (None, None)),
        "true_branch": (lambda: (None, tf.constant(2.0)), lambda: (tf.constant(1.0),) * 2),
        "single_none": (lambda: tf.constant(1.0), lambda: [None]),
    }
    for name, (true_fn, false_fn) in sorted(branches.items()):
        try:
            tf.cond(pred, true_fn, false_fn)
            out[name] = None
        except Exception as e:  # the class and TF's message
            out[name] = [type(e).__name__, str(e)]
    return out


CASES["cond_branch_returning_none"] = cond_branch_returning_none


def dimensions_convert_to_tensors(tf):
    """A style-transfer network stacks a layer's get_shape() entries (Dimensions) with ints
    into conv2d_transpose's output shape: TF 1.15 converts a known Dimension to an int32
    scalar named shape_as_tensor (int64 if asked; unknown ones and other dtypes fail). The
    ops made, their dtypes and the values."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2, 5, 6, 3])
    d = x.get_shape()[0]
    fetched = {
        "alone": tf.convert_to_tensor(d),
        "as_int64": tf.convert_to_tensor(d, tf.int64),
        "stack_first": tf.stack([d, 4]),
        "stack_later": tf.stack([4, x.get_shape()[1], x.get_shape()[2]]),
        "python_lists_axis_1": tf.stack([[1, 2], [3, 4]], axis=1),
        "float_with_int_tensor": tf.stack([tf.constant(1.5), tf.cast(d, tf.float32)]),
    }
    batch, rows, cols, _ = [i for i in x.get_shape()]
    w = tf.constant(np.ones([3, 3, 4, 3], np.float32))
    up = tf.nn.conv2d_transpose(
        x, w, tf.stack([batch, rows * 2, cols * 2, 4]), [1, 2, 2, 1], padding="SAME"
    )
    errors = {}
    for name, fn in (
        ("unknown", lambda: tf.convert_to_tensor(tf.Dimension(None))),
        ("as_float32", lambda: tf.convert_to_tensor(d, tf.float32)),
    ):
        try:
            fn()
            errors[name] = None
        except Exception as e:  # the class and TF's message
            errors[name] = [type(e).__name__, str(e)]
    ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()]
    feed = np.arange(180, dtype=np.float32).reshape(2, 5, 6, 3)
    with tf.Session() as sess:
        values, up_value = sess.run([fetched, up], {x: feed})
    return {
        "values": values,
        "dtypes": {k: v.dtype.name for k, v in fetched.items()},
        "up": up_value,
        "ops": ops,
        "errors": errors,
    }


CASES["dimensions_convert_to_tensors"] = dimensions_convert_to_tensors


def division_by_a_dimension(tf):
    """fast-style-transfer divides a float loss by a product of Dimensions: TF 1.15's
    operator converts the Dimension with the tensor's dtype only as a hint (a Dimension
    converts to integers only), so the division itself fails, with truediv's message; and
    tf.truediv / tf.divide with a name convert y on their own (a Python 2 is an int32)."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2, 3])
    attempts = {
        "tensor_by_dimension": lambda: x / x.get_shape()[1],
        "tensor_times_dimension": lambda: x * x.get_shape()[1],
        "truediv_python_int": lambda: tf.truediv(x, 2),
        "divide_python_int": lambda: tf.divide(x, 2),
        "divide_named_python_int": lambda: tf.divide(x, 2, name="d"),
        "python_int_by_tensor": lambda: 2 / x,
        "int_tensor_plus_python_float": lambda: tf.constant(1) + 1.5,
    }
    out = {}
    for name, fn in sorted(attempts.items()):
        try:
            t = fn()
            out[name] = [t.op.name, t.op.type, t.dtype.name]
        except Exception as e:  # the class and TF's message
            out[name] = [type(e).__name__, str(e)]
    return out


CASES["division_by_a_dimension"] = division_by_a_dimension
