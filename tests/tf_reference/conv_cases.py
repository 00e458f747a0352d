"""Convolution, pooling and space/batch programs, written once against the TF1 API and run
twice: by record_conv.py with TensorFlow 1.15 (`tf` is tensorflow.compat.v1) and by
tests/unit/test_conv_reference.py with tfcluster. Each case builds its own graph from fixed
inputs and returns plain data: the values of its outputs and of their gradients (with fixed
random output weights), the names and types of the ops it made outside the gradient
subgraph, and the classes of the errors it provokes.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES)


def arr(seed, shape, low=-1.0, high=1.0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def error(fn):
    """{"error": class name, "message": first line} of what fn raises, or None."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def ops(g):
    """[name, type] of the graph's ops outside the gradient subgraph, in creation order."""
    return [[op.name, op.type] for op in g.get_operations() if not op.name.startswith("gradients")]


def run_error(tf, fetch, feed=None):
    def go():
        with tf.Session(graph=fetch.graph) as s:
            s.run(fetch, feed)

    return error(go)


def evaluate(tf, g, outputs, wrt, feed=None, second_order=False):
    """{"values", "grads" (d sum(w * y) / d wrt, w fixed random per output), "ops" (those made
    before this evaluation's own)}."""
    made = ops(g)
    with g.as_default():
        loss = 0.0
        for i, y in enumerate(outputs):
            w = tf.constant(arr(100 + i, y.shape.as_list(), 0.5, 1.5, y.dtype.as_numpy_dtype))
            loss = loss + tf.reduce_sum(y * w)
        grads = tf.gradients(loss, wrt)
        fetches = {"values": list(outputs), "grads": [g_ for g_ in grads if g_ is not None]}
        if second_order:
            total = 0.0
            for g_ in fetches["grads"]:
                total = total + tf.reduce_sum(g_ * g_)
            fetches["second"] = [s for s in tf.gradients(total, wrt) if s is not None]
        with tf.Session(graph=g) as s:
            out = s.run(fetches, feed)
    out["ops"] = made
    return out


# ---- conv2d ----------------------------------------------------------------------------------
def _conv2d_case(
    strides,
    padding,
    dilations=(1, 1, 1, 1),
    dtype=np.float32,
    shape=(2, 7, 6, 3),
    fshape=(3, 2, 3, 4),
):
    def fn(tf):
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(arr(1, shape, dtype=dtype))
            w = tf.constant(arr(2, fshape, dtype=dtype))
            y = tf.nn.conv2d(x, w, strides, padding, dilations=list(dilations))
            wrt = [x, w] if tuple(dilations) == (1, 1, 1, 1) else []
            return evaluate(tf, g, [y], wrt, second_order=bool(wrt))

    return fn


CASES["conv2d_same_stride1"] = _conv2d_case([1, 1, 1, 1], "SAME")
CASES["conv2d_same_stride2"] = _conv2d_case([1, 2, 2, 1], "SAME")
CASES["conv2d_valid_strides_2_1"] = _conv2d_case([1, 2, 1, 1], "VALID")
CASES["conv2d_valid_float64"] = _conv2d_case([1, 1, 2, 1], "VALID", dtype=np.float64)
CASES["conv2d_dilated_attr"] = _conv2d_case([1, 1, 1, 1], "VALID", dilations=(1, 2, 1, 1))
CASES["conv2d_explicit_padding"] = _conv2d_case([1, 1, 2, 1], [[0, 0], [1, 0], [2, 1], [0, 0]])
CASES["conv2d_1x1"] = _conv2d_case([1, 1, 1, 1], "VALID", fshape=(1, 1, 3, 5))
CASES["conv2d_1x1_strided"] = _conv2d_case([1, 2, 2, 1], "SAME", fshape=(1, 1, 3, 5))
CASES["conv2d_filter_as_big_as_input"] = _conv2d_case(
    [1, 1, 1, 1], "VALID", shape=(2, 3, 2, 3), fshape=(3, 2, 3, 4)
)
# Stride-1 3x3 and 5x5 filters with enough channels: tfcluster's CPU kernels take them by
# Winograd's tiles (forward, both backprops and their gradients), with outputs that fill the
# tiles exactly and outputs that do not.
CASES["conv2d_5x5_same_many_channels"] = _conv2d_case(
    [1, 1, 1, 1], "SAME", shape=(3, 14, 14, 16), fshape=(5, 5, 16, 24)
)
CASES["conv2d_5x5_valid_odd_sizes"] = _conv2d_case(
    [1, 1, 1, 1], "VALID", shape=(2, 17, 13, 9), fshape=(5, 5, 9, 12)
)
CASES["conv2d_3x3_same_many_channels"] = _conv2d_case(
    [1, 1, 1, 1], "SAME", shape=(2, 11, 16, 12), fshape=(3, 3, 12, 10)
)


@case
def conv2d_backprops_public(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(3, (2, 6, 5, 3)))
        w = tf.constant(arr(4, (3, 3, 3, 2)))
        dy = tf.constant(arr(5, (2, 3, 3, 2)))
        dx = tf.nn.conv2d_backprop_input([2, 6, 5, 3], w, dy, [1, 2, 2, 1], "SAME")
        dw = tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 2], dy, [1, 2, 2, 1], "SAME")
        return evaluate(tf, g, [dx, dw], [x, w, dy], second_order=True)


@case
def conv2d_transpose_cases(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.constant(arr(6, (2, 3, 4, 5)))
        w = tf.constant(arr(7, (3, 3, 2, 5)))
        same = tf.nn.conv2d_transpose(v, w, [2, 6, 8, 2], [1, 2, 2, 1], "SAME")
        valid = tf.nn.conv2d_transpose(v, w, [2, 7, 9, 2], [1, 2, 2, 1], "VALID", name="deconv")
        return evaluate(tf, g, [same, valid], [v, w])


@case
def conv1d_and_transpose(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(8, (2, 9, 3)))
        w = tf.constant(arr(9, (3, 3, 4)))
        y = tf.nn.conv1d(x, w, 2, "SAME")
        t = tf.nn.conv1d_transpose(y, tf.constant(arr(10, (3, 3, 4))), [2, 9, 3], 2, "SAME")
        out = evaluate(tf, g, [y, t], [x, w])
        # TF 1.15's CPU kernels have no gradient of a dilated conv2d: its value only.
        before = len(g.get_operations())
        y2 = tf.nn.conv1d(x, w, 1, "VALID", dilations=2)
        with tf.Session(graph=g) as s:
            out["dilated"] = s.run(y2)
        out["dilated_ops"] = ops(g)[before:]
        return out


@case
def conv3d_and_transpose(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(11, (2, 4, 5, 4, 2)))
        w = tf.constant(arr(12, (2, 3, 2, 2, 3)))
        same = tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "SAME")
        valid = tf.nn.conv3d(x, w, [1, 1, 1, 2, 1], "VALID")
        t = tf.nn.conv3d_transpose(
            same, tf.constant(arr(13, (2, 3, 2, 2, 3))), [2, 4, 5, 4, 2], [1, 2, 1, 1, 1], "SAME"
        )
        return evaluate(tf, g, [same, valid, t], [x, w], second_order=True)


@case
def conv3d_backprops_public(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(14, (1, 3, 4, 3, 2)))
        dy = tf.constant(arr(15, (1, 3, 4, 3, 2)))
        dw = tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 2], dy, [1, 1, 1, 1, 1], "SAME")
        return evaluate(tf, g, [dw], [x, dy])


@case
def convolution_generic(tf):
    g = tf.Graph()
    with g.as_default():
        x2 = tf.constant(arr(16, (2, 8, 7, 3)))
        w2 = tf.constant(arr(17, (3, 3, 3, 4)))
        plain = tf.nn.convolution(x2, w2, "SAME", strides=[2, 1])
        dilated_same = tf.nn.convolution(x2, w2, "SAME", dilation_rate=[2, 2])
        dilated_valid = tf.nn.convolution(x2, w2, "VALID", dilation_rate=[1, 2], name="dv")
        x1 = tf.constant(arr(18, (2, 9, 3)))
        one = tf.nn.convolution(x1, tf.constant(arr(19, (3, 3, 2))), "VALID", dilation_rate=[2])
        x3 = tf.constant(arr(20, (1, 5, 4, 5, 2)))
        three = tf.nn.convolution(
            x3, tf.constant(arr(21, (2, 2, 2, 2, 3))), "SAME", dilation_rate=[1, 2, 2]
        )
        return evaluate(tf, g, [plain, dilated_same, dilated_valid, one, three], [x2, w2, x1, x3])


@case
def atrous_conv2d_and_transpose(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(22, (2, 9, 8, 3)))
        w = tf.constant(arr(23, (3, 3, 3, 2)))
        a = tf.nn.atrous_conv2d(x, w, 2, "SAME")
        b = tf.nn.atrous_conv2d(x, w, 3, "VALID")
        t = tf.nn.atrous_conv2d_transpose(
            tf.constant(arr(24, (2, 9, 8, 2))), w, [2, 9, 8, 3], 2, "SAME"
        )
        t1 = tf.nn.atrous_conv2d_transpose(
            tf.constant(arr(25, (2, 9, 8, 2))), w, [2, 9, 8, 3], 1, "SAME"
        )
        return evaluate(tf, g, [a, b, t, t1], [x, w])


@case
def depthwise_and_separable(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(26, (2, 7, 6, 3)))
        dw = tf.constant(arr(27, (3, 2, 3, 2)))
        pw = tf.constant(arr(28, (1, 1, 6, 4)))
        d1 = tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME")
        d2 = tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "VALID", rate=[2, 1])
        native = tf.nn.depthwise_conv2d_native(x, dw, [1, 2, 2, 1], "SAME")
        s1 = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
        s2 = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME", rate=[2, 2], name="sep")
        return evaluate(tf, g, [d1, d2, native, s1, s2], [x, dw, pw], second_order=True)


@case
def depthwise_backprops_public(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(29, (1, 5, 4, 2)))
        w = tf.constant(arr(30, (2, 2, 2, 3)))
        dy = tf.constant(arr(31, (1, 5, 4, 6)))
        dx = tf.nn.depthwise_conv2d_native_backprop_input([1, 5, 4, 2], w, dy, [1, 1, 1, 1], "SAME")
        dw = tf.nn.depthwise_conv2d_native_backprop_filter(
            x, [2, 2, 2, 3], dy, [1, 1, 1, 1], "SAME"
        )
        return evaluate(tf, g, [dx, dw], [x, w, dy])


# ---- pooling -----------------------------------------------------------------------------------
def _pool_case(kind, ksize, strides, padding, shape=(2, 7, 6, 3), relu=False):
    def fn(tf):
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(arr(32, shape))
            src = tf.nn.relu(x) if relu else x
            pool = tf.nn.max_pool if kind == "max" else tf.nn.avg_pool
            y = pool(src, ksize, strides, padding)
            return evaluate(tf, g, [y], [x], second_order=True)

    return fn


CASES["max_pool_2x2_valid"] = _pool_case("max", [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
CASES["max_pool_3x3_s2_same"] = _pool_case("max", [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
CASES["max_pool_3x2_s1_valid"] = _pool_case("max", [1, 3, 2, 1], [1, 1, 1, 1], "VALID")
CASES["max_pool_2x2_same_odd"] = _pool_case("max", [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
CASES["max_pool_ties_after_relu"] = _pool_case(
    "max", [1, 2, 2, 1], [1, 2, 2, 1], "VALID", relu=True
)
CASES["max_pool_overlapping_ties"] = _pool_case(
    "max", [1, 3, 3, 1], [1, 1, 1, 1], "SAME", relu=True
)
CASES["avg_pool_2x2_valid"] = _pool_case("avg", [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
CASES["avg_pool_3x3_s2_same"] = _pool_case("avg", [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
CASES["avg_pool_2x3_s1_valid"] = _pool_case("avg", [1, 2, 3, 1], [1, 1, 1, 1], "VALID")


@case
def max_pools_tiling_the_input_with_ties(tf):
    """Windows that tile the input (stride = window, no padding), with ties between positive
    values (inputs on a coarse grid) and ReLU zeros: square and non-square 2-D windows (the
    gradient goes to each window's first maximum) and a 3-D pool (to every maximum)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant((np.round(arr(37, (3, 8, 6, 4)) * 3) / 3).astype(np.float32))
        x3 = tf.constant((np.round(arr(38, (2, 4, 6, 4, 3)) * 2) / 2).astype(np.float32))
        outs = [
            tf.nn.max_pool(tf.nn.relu(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
            tf.nn.max_pool(x, [1, 2, 3, 1], [1, 2, 3, 1], "SAME"),
            tf.nn.max_pool3d(tf.nn.relu(x3), [1, 2, 3, 2, 1], [1, 2, 3, 2, 1], "VALID"),
        ]
        return evaluate(tf, g, outs, [x, x3], second_order=True)


@case
def pools_1d_3d_and_v2(tf):
    g = tf.Graph()
    with g.as_default():
        x1 = tf.constant(arr(33, (2, 9, 3)))
        x3 = tf.nn.relu(tf.constant(arr(34, (2, 4, 5, 4, 2))))
        outs = [
            tf.nn.max_pool1d(x1, 2, 2, "VALID"),
            tf.nn.avg_pool1d(x1, 3, 2, "SAME"),
            tf.nn.max_pool3d(x3, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
            tf.nn.avg_pool3d(x3, [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], "VALID"),
            tf.nn.max_pool_v2(x1, 3, 1, "SAME"),
            tf.nn.avg_pool_v2(x3, 2, 2, "VALID"),
            tf.nn.max_pool2d(tf.constant(arr(35, (1, 5, 5, 2))), 2, 2, "SAME"),
        ]
        return evaluate(tf, g, outs, [x1, x3], second_order=True)


@case
def pool_generic(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(36, (2, 9, 8, 3)))
        outs = [
            tf.nn.pool(x, [2, 2], "MAX", "SAME", strides=[2, 2]),
            tf.nn.pool(x, [3, 2], "AVG", "VALID", dilation_rate=[2, 2]),
            tf.nn.pool(
                tf.constant(arr(37, (2, 9, 3))), [3], "MAX", "VALID", dilation_rate=[2], name="p1"
            ),
        ]
        return evaluate(tf, g, outs, [x])


@case
def max_pool_with_argmax_cases(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(38, (2, 5, 6, 3)))
        y, a = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        y2, a2 = tf.nn.max_pool_with_argmax(
            x, [1, 3, 3, 1], [1, 1, 2, 1], "VALID", include_batch_in_index=True
        )
        out = evaluate(tf, g, [y, y2], [x])
        with tf.Session(graph=g) as s:
            out["argmax"] = s.run([a, a2])
        return out


# ---- space / batch / depth -----------------------------------------------------------------------
@case
def space_to_batch_family(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(39, (2, 4, 6, 3)))
        s2b = tf.space_to_batch_nd(x, [2, 3], [[0, 2], [1, 2]])
        b2s = tf.batch_to_space_nd(tf.constant(arr(40, (12, 2, 3, 2))), [2, 3], [[0, 1], [1, 0]])
        v1 = tf.space_to_batch(x, [[1, 1], [0, 2]], block_size=2)
        b1 = tf.batch_to_space(tf.constant(arr(41, (8, 2, 3, 2))), [[0, 1], [1, 1]], block_size=2)
        s2d = tf.space_to_depth(x, 2)
        d2s = tf.depth_to_space(tf.constant(arr(42, (2, 2, 3, 8))), 2)
        nd3 = tf.space_to_batch_nd(tf.constant(arr(43, (1, 4, 3))), [2], [[1, 1]])
        paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 1]])
        out = evaluate(tf, g, [s2b, b2s, v1, b1, s2d, d2s, nd3], [x])
        with tf.Session(graph=g) as s:
            out["required"] = s.run([paddings, crops])
        return out


# ---- errors ------------------------------------------------------------------------------------
@case
def graph_construction_errors(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [1, 5, 5, 3])
        w = tf.constant(np.zeros((3, 3, 3, 2), np.float32))
        return {
            "conv_rank": error(
                lambda: tf.nn.conv2d(tf.placeholder(tf.float32, [5, 5, 3]), w, [1, 1, 1, 1], "SAME")
            ),
            "conv_channels": error(
                lambda: tf.nn.conv2d(
                    x, tf.constant(np.zeros((3, 3, 4, 2), np.float32)), [1, 1, 1, 1], "SAME"
                )
            ),
            "conv_padding": error(lambda: tf.nn.conv2d(x, w, [1, 1, 1, 1], "same")),
            "conv_negative": error(
                lambda: tf.nn.conv2d(
                    tf.placeholder(tf.float32, [1, 2, 2, 3]), w, [1, 1, 1, 1], "VALID"
                )
            ),
            "conv_explicit_size": error(lambda: tf.nn.conv2d(x, w, [1, 1, 1, 1], [[0, 0], [1, 1]])),
            "conv3d_rank": error(
                lambda: tf.nn.conv3d(x, tf.zeros([1, 1, 1, 3, 2]), [1, 1, 1, 1, 1], "SAME")
            ),
            "pool_rank": error(
                lambda: tf.nn.max_pool(
                    tf.placeholder(tf.float32, [5, 5, 3]), [1, 2, 2, 1], [1, 2, 2, 1], "SAME"
                )
            ),
            "pool_ksize_zero": error(lambda: tf.nn.max_pool(x, [1, 0, 2, 1], [1, 1, 1, 1], "SAME")),
            "pool_negative": error(lambda: tf.nn.avg_pool(x, [1, 6, 6, 1], [1, 1, 1, 1], "VALID")),
            "atrous_rate": error(
                lambda: tf.nn.atrous_conv2d_transpose(
                    x, tf.zeros([3, 3, 2, 3]), [1, 5, 5, 2], 0, "SAME"
                )
            ),
            "convolution_strides_and_dilation": error(
                lambda: tf.nn.convolution(x, w, "SAME", strides=[2, 2], dilation_rate=[2, 2])
            ),
            "space_to_batch_indivisible": error(
                lambda: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
            ),
            "depth_to_space_indivisible": error(lambda: tf.depth_to_space(x, 2)),
        }


@case
def run_time_errors(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None, None, 3])
        small = tf.nn.conv2d(x, tf.constant(np.ones((3, 3, 3, 1), np.float32)), 1, "VALID")
        pool = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "VALID")
        s2b = tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
        feed = {x: np.ones((1, 2, 3, 3), np.float32)}
        tiny = {x: np.ones((1, 1, 3, 3), np.float32)}
        with tf.Session(graph=g) as s:
            empty = s.run([small, pool], feed)
        return {
            # A window one row larger than the input gives an empty output, not an error.
            "empty_shapes": [list(v.shape) for v in empty],
            "conv_too_small": run_error(tf, small, tiny),
            "pool_too_small": run_error(tf, pool, tiny),
            "space_to_batch_indivisible": run_error(
                tf, s2b, {x: np.ones((1, 3, 4, 3), np.float32)}
            ),
        }
