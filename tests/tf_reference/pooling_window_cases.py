"""Pooling windows and strides over the batch and depth dimensions, written once against the
TF1 API and run twice: by record_pooling_windows.py with TensorFlow 1.15 and by
tests/unit/test_pooling_windows.py with tfcluster. TF 1.15 builds every such pool (its shape
functions window the depth of a MaxPool, not its batch; AvgPool's and the 3-D pools' keep
both) and its CPU kernels decide at run time: a MaxPool over depth alone (window equal to
stride, dividing the depth) computes; everything else fails with its Unimplemented or
InvalidArgument error, as does the gradient of a depthwise MaxPool. Each case reports the
static shape, the run's result or error, and the gradient's result or error.
Kept runnable on Python 3.7 and free of anything but numpy."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)

# (ksize, strides) over NHWC, for MaxPool and AvgPool, VALID and SAME.
WINDOWS_2D = [
    ([1, 1, 1, 2], [1, 1, 1, 2]),
    ([1, 1, 1, 2], [1, 1, 1, 1]),
    ([1, 2, 2, 2], [1, 1, 1, 2]),
    ([1, 1, 1, 3], [1, 1, 1, 3]),
    ([1, 1, 1, 3], [1, 1, 1, 1]),
    ([1, 1, 1, 2], [1, 2, 2, 2]),
    ([1, 1, 1, 4], [1, 1, 1, 4]),
    ([2, 1, 1, 1], [2, 1, 1, 1]),
    ([2, 1, 1, 1], [1, 1, 1, 1]),
    ([1, 1, 1, 1], [2, 1, 1, 1]),
    ([1, 2, 2, 1], [1, 1, 1, 2]),
]
WINDOWS_3D = [
    ([1, 1, 1, 1, 2], [1, 1, 1, 1, 2]),
    ([2, 1, 1, 1, 1], [2, 1, 1, 1, 1]),
    ([1, 2, 2, 2, 1], [1, 1, 1, 1, 2]),
]


def _outcome(tf, fn):
    try:
        value = fn()
    except tf.errors.OpError as e:
        return {"error": type(e).__name__, "message": e.message.split("\n")[0]}
    return {"shape": list(value.shape), "sum": float(np.sum(value)), "max": float(np.max(value))}


def _pools(tf, pool, x_value, windows):
    out = []
    for ksize, strides in windows:
        for padding in ("VALID", "SAME"):
            entry = {"ksize": ksize, "strides": strides, "padding": padding}
            x = tf.constant(x_value)
            try:
                y = pool(x, ksize, strides, padding)
            except (ValueError, TypeError) as e:
                entry["build_error"] = [type(e).__name__, str(e).split("\n")[0]]
                out.append(entry)
                continue
            entry["static_shape"] = y.shape.as_list()
            grad = tf.gradients(tf.reduce_sum(y * y), x)[0]
            with tf.Session() as sess:
                entry["forward"] = _outcome(tf, lambda y=y: sess.run(y))
                entry["gradient"] = _outcome(tf, lambda grad=grad: sess.run(grad))
            out.append(entry)
    return out


def _x(shape):
    # Distinct values, so that every maximum is unique.
    return (np.random.RandomState(0).permutation(int(np.prod(shape))).reshape(shape) * 0.25).astype(
        np.float32
    )


@case
def max_pool_2d_batch_and_depth_windows(tf):
    return {"pools": _pools(tf, tf.nn.max_pool, _x((2, 3, 3, 4)), WINDOWS_2D)}


@case
def avg_pool_2d_batch_and_depth_windows(tf):
    return {"pools": _pools(tf, tf.nn.avg_pool, _x((2, 3, 3, 4)), WINDOWS_2D)}


@case
def max_pool_3d_batch_and_depth_windows(tf):
    return {"pools": _pools(tf, tf.nn.max_pool3d, _x((2, 2, 3, 3, 4)), WINDOWS_3D)}


@case
def avg_pool_3d_batch_and_depth_windows(tf):
    return {"pools": _pools(tf, tf.nn.avg_pool3d, _x((2, 2, 3, 3, 4)), WINDOWS_3D)}


@case
def depthwise_max_pool_values(tf):
    """A maxout over channels: the depthwise MaxPool's values, for float32 and int32."""
    x = _x((2, 3, 3, 6))
    pooled = tf.nn.max_pool(tf.constant(x), [1, 1, 1, 3], [1, 1, 1, 3], "VALID")
    ints = tf.nn.max_pool(tf.constant((x * 4).astype(np.int32)), [1, 1, 1, 2], [1, 1, 1, 2], "SAME")
    with tf.Session() as sess:
        return {"values": sess.run(pooled).tolist(), "ints": sess.run(ints).tolist()}
