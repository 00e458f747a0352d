"""The ops tf.gradients builds for broadcasting binary ops and reductions, as TF 1.15 builds them.

TF1 programs see those ops: with a graph seed, a random op made after minimize() is seeded
with the graph's op count; the gradient tensors' names (`gradients/add_grad/Reshape_1:0`)
show in summaries, exported graphs and printed tensors. Each case builds a forward op over
placeholders of known, partly known or unknown shapes, differentiates the sum of its result,
and returns every op tf.gradients made (type, name, input names, in creation order), the
gradients' names, the op count and the gradients' values.
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import plain
except ImportError:
    from case_tools import plain

# name: (shape of x, shape of y, value of x, value of y)
_SHAPES: dict[str, tuple[Any, Any, Any, Any]] = {
    "known_broadcast": ([4, 3], [3], (4, 3), (3,)),
    "partly_known_broadcast": ([None, 3], [3], (4, 3), (3,)),
    "known_same": ([4, 3], [4, 3], (4, 3), (4, 3)),
    "partly_known_same": ([None, 3], [None, 3], (4, 3), (4, 3)),
    "unknown_rank": (None, [3], (2, 3), (3,)),
    "partly_known_by_scalar": ([None, 3], [], (4, 3), ()),
    "known_by_column": ([4, 3], [4, 1], (4, 3), (4, 1)),
}

_BINARY: dict[str, Callable[[Any, Any, Any], Any]] = {
    "add": lambda tf, a, b: a + b,
    "sub": lambda tf, a, b: a - b,
    "mul": lambda tf, a, b: a * b,
    "truediv": lambda tf, a, b: a / b,
    "maximum": lambda tf, a, b: tf.maximum(a, b),
    "minimum": lambda tf, a, b: tf.minimum(a, b),
    "squared_difference": lambda tf, a, b: tf.squared_difference(a, b),
    "pow": lambda tf, a, b: tf.pow(a, b),
    "floormod": lambda tf, a, b: tf.floormod(a, b),
    "div_no_nan": lambda tf, a, b: tf.div_no_nan(a, b),
}


def _value(shape: tuple[int, ...], offset: float) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float32).reshape(shape) % 5 + 1.0 + offset) / 4.0


def _differentiate(
    tf: Any, build: Callable[[Any], tuple[Any, list[Any], dict[Any, np.ndarray]]]
) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        y, wrt, feed = build(graph)
        loss = tf.reduce_sum(y)
        first = len(graph.get_operations())
        grads = tf.gradients(loss, wrt)
        made = graph.get_operations()[first:]
        count = graph._op_count() if hasattr(graph, "_op_count") else graph._last_id
        init = tf.global_variables_initializer() if tf.global_variables() else None
        with tf.Session() as sess:
            if init is not None:
                sess.run(init)
            values = sess.run([g for g in grads if g is not None], feed)
    return {
        "ops": [[o.type, o.name, [t.name for t in o.inputs]] for o in made],
        "grad_names": [None if g is None else g.name for g in grads],
        "op_count": count,
        "values": plain(values),
    }


def _binary_case(op_name: str, shape_name: str) -> Callable[[Any], dict[str, Any]]:
    sx, sy, vx, vy = _SHAPES[shape_name]

    def case(tf: Any) -> dict[str, Any]:
        def build(graph: Any) -> tuple[Any, list[Any], dict[Any, np.ndarray]]:
            x = tf.placeholder(tf.float32, sx, name="x")
            y = tf.placeholder(tf.float32, sy, name="y")
            return (
                _BINARY[op_name](tf, x, y),
                [x, y],
                {x: _value(vx, 0.0), y: _value(vy, 0.5)},
            )

        return _differentiate(tf, build)

    return case


# name: (reduction, shape of x, value's shape, axis, keepdims)
_REDUCTIONS: dict[str, tuple[str, Any, tuple[int, ...], Any, bool]] = {
    "sum_all_known": ("reduce_sum", [4, 3], (4, 3), None, False),
    "sum_axis1_partly_known": ("reduce_sum", [None, 3], (4, 3), 1, False),
    "sum_axis0_partly_known_keepdims": ("reduce_sum", [None, 3], (4, 3), 0, True),
    "sum_axis1_known": ("reduce_sum", [4, 3], (4, 3), 1, False),
    "sum_unknown_rank": ("reduce_sum", None, (2, 3), None, False),
    "sum_unknown_rank_axis": ("reduce_sum", None, (2, 3), -1, False),
    "mean_axis1_partly_known": ("reduce_mean", [None, 3], (4, 3), 1, False),
    "mean_all_partly_known": ("reduce_mean", [None, 3], (4, 3), None, False),
    "mean_axis0_known": ("reduce_mean", [4, 3], (4, 3), 0, False),
    "mean_unknown_rank": ("reduce_mean", None, (2, 3), None, False),
    "max_axis1_partly_known": ("reduce_max", [None, 3], (4, 3), 1, False),
    "max_axis1_known": ("reduce_max", [4, 3], (4, 3), 1, False),
    "prod_axis1_partly_known": ("reduce_prod", [None, 3], (4, 3), 1, False),
}


def _reduction_case(name: str) -> Callable[[Any], dict[str, Any]]:
    fn, shape, value_shape, axis, keepdims = _REDUCTIONS[name]

    def case(tf: Any) -> dict[str, Any]:
        def build(graph: Any) -> tuple[Any, list[Any], dict[Any, np.ndarray]]:
            x = tf.placeholder(tf.float32, shape, name="x")
            y = getattr(tf, fn)(x, axis=axis, keepdims=keepdims)
            return y, [x], {x: _value(value_shape, 0.0)}

        return _differentiate(tf, build)

    return case


def linear_model_minimize(tf: Any) -> dict[str, Any]:
    """The tutorials' model: softmax(matmul(x, W) + b) over a batch of unknown size, then a
    seeded random op made after minimize()."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.float32, [None, 3], name="labels")
        w = tf.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(np.float32), name="W")
        b = tf.Variable(np.zeros(3, np.float32), name="b")
        pred = tf.nn.softmax(tf.matmul(x, w) + b)
        cost = tf.reduce_mean(-tf.reduce_sum(labels * tf.log(pred), axis=1))
        first = len(graph.get_operations())
        train = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
        made = graph.get_operations()[first:]
        after = tf.random_normal([3], name="after")
        feed = {
            x: _value((5, 4), 0.0),
            labels: np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]],
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, feed)
            trained = sess.run([w, b])
            drawn = sess.run(after)
    return {
        "ops": [[o.type, o.name, [t.name for t in o.inputs]] for o in made],
        "trained": trained,
        "after": drawn,
    }


CASES: dict[str, Callable[[Any], dict[str, Any]]] = {}
for _op in _BINARY:
    for _shape in _SHAPES:
        CASES[f"{_op}_{_shape}"] = _binary_case(_op, _shape)
for _name in _REDUCTIONS:
    CASES[_name] = _reduction_case(_name)
CASES["linear_model_minimize"] = linear_model_minimize


def adam_minimize(tf: Any) -> dict[str, Any]:
    """A dense layer trained by Adam: the gradient ops, the slots and update ops minimize()
    makes, and a seeded random op made after it."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.int32, [None], name="labels")
        logits = tf.layers.dense(x, 3, kernel_initializer=tf.constant_initializer(0.1))
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        first = len(graph.get_operations())
        global_step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
        made = graph.get_operations()[first:]
        after = tf.random_uniform([2], name="after")
        feed = {x: _value((5, 4), 0.0), labels: np.array([0, 1, 2, 1, 0], np.int32)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, feed)
            trained = sess.run(tf.trainable_variables())
            drawn = sess.run(after)
    return {
        "ops": [[o.type, o.name, [t.name for t in o.inputs]] for o in made],
        "trained": trained,
        "after": drawn,
    }


CASES["adam_minimize"] = adam_minimize


# Ops most TF1 models differentiate: name: builds y from x ([None, 4], values in (0, 2)).
_COMMON: dict[str, Callable[[Any, Any], Any]] = {
    "relu": lambda tf, x: tf.nn.relu(x),
    "sigmoid": lambda tf, x: tf.sigmoid(x),
    "tanh": lambda tf, x: tf.tanh(x),
    "square": lambda tf, x: tf.square(x),
    "sqrt": lambda tf, x: tf.sqrt(x),
    "rsqrt": lambda tf, x: tf.rsqrt(x),
    "exp": lambda tf, x: tf.exp(x),
    "log": lambda tf, x: tf.log(x),
    "abs": lambda tf, x: tf.abs(x),
    "matmul": lambda tf, x: tf.matmul(x, tf.ones([4, 2])),
    "matmul_transposed": lambda tf, x: tf.matmul(
        tf.ones([4, 3]), x, transpose_a=True, transpose_b=True
    ),
    "bias_add": lambda tf, x: tf.nn.bias_add(x, tf.ones([4])),
    "softmax": lambda tf, x: tf.nn.softmax(x),
    "log_softmax": lambda tf, x: tf.nn.log_softmax(x),
    "softmax_cross_entropy": lambda tf, x: tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.one_hot([0, 1, 2, 3, 0], 4), logits=x
    ),
    "softmax_cross_entropy_v2": lambda tf, x: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.one_hot([0, 1, 2, 3, 0], 4), logits=x
    ),
    "sparse_softmax_cross_entropy": lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([0, 1, 2, 3, 0]), logits=x
    ),
    "sigmoid_cross_entropy": lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.ones_like(x) * 0.5, logits=x
    ),
    "l2_loss": lambda tf, x: tf.nn.l2_loss(x),
    "reshape": lambda tf, x: tf.reshape(x, [-1, 2, 2]),
    "transpose": lambda tf, x: tf.transpose(x),
    "concat": lambda tf, x: tf.concat([x, x * 2.0], 1),
    "stack": lambda tf, x: tf.stack([x, x], 0),
    "unstack": lambda tf, x: tf.unstack(x, axis=1)[1],
    "gather": lambda tf, x: tf.gather(tf.reshape(x, [-1]), [1, 3]),
    "strided_slice": lambda tf, x: x[:, 1:3],
    "slice": lambda tf, x: tf.slice(x, [0, 1], [-1, 2]),
    "pad": lambda tf, x: tf.pad(x, [[1, 0], [0, 2]]),
    "tile": lambda tf, x: tf.tile(x, [2, 1]),
    "cast": lambda tf, x: tf.cast(tf.cast(x, tf.float64), tf.float32),
    "clip_by_value": lambda tf, x: tf.clip_by_value(x, 0.5, 1.5),
    "where": lambda tf, x: tf.where(x > 1.0, x, x * 3.0),
    "expand_squeeze": lambda tf, x: tf.squeeze(tf.expand_dims(x, 1), [1]),
    "reduce_logsumexp": lambda tf, x: tf.reduce_logsumexp(x, axis=1),
    "moments": lambda tf, x: tf.add_n(list(tf.nn.moments(x, axes=[0]))),
    "dropout": lambda tf, x: tf.nn.dropout(x, keep_prob=1.0),
    "conv2d": lambda tf, x: tf.nn.conv2d(
        tf.reshape(x, [-1, 2, 2, 1]), tf.ones([2, 2, 1, 3]), [1, 1, 1, 1], "SAME"
    ),
    "max_pool": lambda tf, x: tf.nn.max_pool(
        tf.reshape(x, [-1, 2, 2, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "VALID"
    ),
    "avg_pool": lambda tf, x: tf.nn.avg_pool(
        tf.reshape(x, [-1, 2, 2, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "VALID"
    ),
    "embedding_lookup": lambda tf, x: tf.nn.embedding_lookup(x, tf.constant([0, 2])),
}


def _one_input_case(
    table: dict[str, Callable[[Any, Any], Any]], name: str
) -> Callable[[Any], dict[str, Any]]:
    """A case differentiating table[name] of one input x ([None, 4], values in (0, 2))."""

    def case(tf: Any) -> dict[str, Any]:
        def build(graph: Any) -> tuple[Any, list[Any], dict[Any, np.ndarray]]:
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            return table[name](tf, x), [x], {x: _value((5, 4), 0.0)}

        return _differentiate(tf, build)

    return case


for _name in _COMMON:
    CASES["common_" + _name] = _one_input_case(_COMMON, _name)


def _ramp(shape: tuple[int, ...]) -> np.ndarray:
    return _value(shape, 0.0)


def _nhwc(tf: Any, shape: list[Any]) -> Any:
    return tf.placeholder(tf.float32, shape, name="x")


# Gradients of layers and ops TF1 models train through: name: builds (y, wrt, feed) in the
# graph; inputs of known or partly known shapes, constants or placeholders as weights.
def _conv2d_known_batch(tf: Any) -> Any:
    x = _nhwc(tf, [2, 5, 5, 3])
    w = tf.placeholder(tf.float32, [3, 3, 3, 4], name="w")
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    return y, [x, w], {x: _ramp((2, 5, 5, 3)), w: _ramp((3, 3, 3, 4))}


def _conv2d_transpose(tf: Any) -> Any:
    x = _nhwc(tf, [2, 3, 3, 4])
    w = tf.placeholder(tf.float32, [3, 3, 2, 4], name="w")
    y = tf.nn.conv2d_transpose(x, w, [2, 6, 6, 2], [1, 2, 2, 1], "SAME")
    return y, [x, w], {x: _ramp((2, 3, 3, 4)), w: _ramp((3, 3, 2, 4))}


def _depthwise_conv(tf: Any) -> Any:
    x = _nhwc(tf, [None, 4, 4, 2])
    w = tf.placeholder(tf.float32, [2, 2, 2, 3], name="w")
    y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID")
    return y, [x, w], {x: _ramp((2, 4, 4, 2)), w: _ramp((2, 2, 2, 3))}


def _pool3d(kind: str) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        x = tf.placeholder(tf.float32, [None, 4, 4, 4, 2], name="x")
        pool = tf.nn.max_pool3d if kind == "max" else tf.nn.avg_pool3d
        y = pool(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID")
        return y, [x], {x: _ramp((2, 4, 4, 4, 2))}

    return build


def _batch_norm(training: bool) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        x = _nhwc(tf, [None, 3, 3, 4])
        y = tf.layers.batch_normalization(x, training=training)
        wrt = [x, *tf.trainable_variables()]
        return y, wrt, {x: _ramp((2, 3, 3, 4))}

    return build


def _bias_add_nchw(tf: Any) -> Any:
    x = tf.placeholder(tf.float32, [None, 3, 2, 2], name="x")
    b = tf.placeholder(tf.float32, [3], name="b")
    y = tf.nn.bias_add(x, b, data_format="NCHW")
    return y, [x, b], {x: _ramp((2, 3, 2, 2)), b: _ramp((3,))}


def _lrn(tf: Any) -> Any:
    x = _nhwc(tf, [None, 2, 2, 6])
    return tf.nn.lrn(x, depth_radius=2), [x], {x: _ramp((2, 2, 2, 6))}


def _batch_matmul(tf: Any) -> Any:
    a = tf.placeholder(tf.float32, [None, 2, 3], name="a")
    b = tf.placeholder(tf.float32, [None, 3, 4], name="b")
    return tf.matmul(a, b), [a, b], {a: _ramp((2, 2, 3)), b: _ramp((2, 3, 4))}


def _segment(kind: str) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        ids = tf.constant([0, 0, 1, 2, 2])
        if kind == "segment_sum":
            y = tf.segment_sum(x, ids)
        else:
            y = tf.unsorted_segment_sum(x, ids, 4)
        return y, [x], {x: _ramp((5, 4))}

    return build


def _layers_dense(tf: Any) -> Any:
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    init = tf.constant_initializer(0.25)  # TF's random initial weights are not tfcluster's
    h = tf.layers.dense(x, 3, activation=tf.nn.relu, kernel_initializer=init)
    y = tf.layers.dense(h, 2, kernel_initializer=init)
    return y, [x, *tf.trainable_variables()], {x: _ramp((5, 4))}


def _layers_conv2d(tf: Any) -> Any:
    x = _nhwc(tf, [None, 4, 4, 2])
    init = tf.constant_initializer(0.25)
    y = tf.layers.conv2d(x, 3, 3, padding="same", activation=tf.nn.relu, kernel_initializer=init)
    return y, [x, *tf.trainable_variables()], {x: _ramp((2, 4, 4, 2))}


def _layers_dropout(tf: Any) -> Any:
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.layers.dropout(x, rate=0.0, training=True)
    return y, [x], {x: _ramp((5, 4))}


def _conv1d(tf: Any) -> Any:
    x = tf.placeholder(tf.float32, [None, 6, 2], name="x")
    w = tf.placeholder(tf.float32, [3, 2, 3], name="w")
    y = tf.nn.conv1d(x, w, 1, "SAME")
    return y, [x, w], {x: _ramp((2, 6, 2)), w: _ramp((3, 2, 3))}


def _conv3d(tf: Any) -> Any:
    x = tf.placeholder(tf.float32, [None, 3, 3, 3, 2], name="x")
    w = tf.placeholder(tf.float32, [2, 2, 2, 2, 3], name="w")
    y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID")
    return y, [x, w], {x: _ramp((2, 3, 3, 3, 2)), w: _ramp((2, 2, 2, 2, 3))}


def _separable_conv(tf: Any) -> Any:
    x = _nhwc(tf, [None, 4, 4, 2])
    dw = tf.placeholder(tf.float32, [2, 2, 2, 2], name="dw")
    pw = tf.placeholder(tf.float32, [1, 1, 4, 3], name="pw")
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID")
    feed = {x: _ramp((2, 4, 4, 2)), dw: _ramp((2, 2, 2, 2)), pw: _ramp((1, 1, 4, 3))}
    return y, [x, dw, pw], feed


def _max_pool_argmax(tf: Any) -> Any:
    x = _nhwc(tf, [2, 4, 4, 2])
    y = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")[0]
    return y, [x], {x: _ramp((2, 4, 4, 2))}


def _fused_batch_norm_inference(tf: Any) -> Any:
    # (TF 1.15's CPU kernel runs NHWC only.)
    x = _nhwc(tf, [None, 2, 2, 3])
    scale = tf.placeholder(tf.float32, [3], name="scale")
    offset = tf.placeholder(tf.float32, [3], name="offset")
    mean, variance = tf.constant([0.5, 1.0, 1.5]), tf.constant([1.0, 2.0, 0.5])
    y = tf.nn.fused_batch_norm(x, scale, offset, mean, variance, is_training=False)[0]
    feed = {x: _ramp((2, 2, 2, 3)), scale: _ramp((3,)), offset: _ramp((3,))}
    return y, [x, scale, offset], feed


def _layers_stack(tf: Any) -> Any:
    """A small convnet as tutorials build it: conv, pool, batch norm, flatten, dense."""
    x = _nhwc(tf, [None, 4, 4, 1])
    init = tf.constant_initializer(0.25)
    h = tf.layers.conv2d(x, 2, 2, padding="same", activation=tf.nn.relu, kernel_initializer=init)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.batch_normalization(h, training=True)
    h = tf.layers.flatten(h)
    y = tf.layers.dense(h, 3, kernel_initializer=init)
    return y, [x, *tf.trainable_variables()], {x: _ramp((2, 4, 4, 1))}


_BUILDS: dict[str, Callable[[Any], Any]] = {
    "conv1d": _conv1d,
    "conv3d": _conv3d,
    "separable_conv2d": _separable_conv,
    "max_pool_with_argmax": _max_pool_argmax,
    "fused_batch_norm_inference": _fused_batch_norm_inference,
    "layers_stack": _layers_stack,
    "conv2d_known_batch": _conv2d_known_batch,
    "conv2d_transpose": _conv2d_transpose,
    "depthwise_conv2d": _depthwise_conv,
    "max_pool3d": _pool3d("max"),
    "avg_pool3d": _pool3d("avg"),
    "batch_norm_training": _batch_norm(True),
    "batch_norm_inference": _batch_norm(False),
    "bias_add_nchw": _bias_add_nchw,
    "lrn": _lrn,
    "batch_matmul": _batch_matmul,
    "segment_sum": _segment("segment_sum"),
    "unsorted_segment_sum": _segment("unsorted_segment_sum"),
    "layers_dense": _layers_dense,
    "layers_conv2d": _layers_conv2d,
    "layers_dropout": _layers_dropout,
}


def _built_case(name: str) -> Callable[[Any], dict[str, Any]]:
    def case(tf: Any) -> dict[str, Any]:
        return _differentiate(tf, lambda graph: _BUILDS[name](tf))

    return case


for _name in _BUILDS:
    CASES["layer_" + _name] = _built_case(_name)

# More element-wise and array ops on x ([None, 4]).
_MORE: dict[str, Callable[[Any, Any], Any]] = {
    "elu": lambda tf, x: tf.nn.elu(x - 1.0),
    "selu": lambda tf, x: tf.nn.selu(x - 1.0),
    "softplus": lambda tf, x: tf.nn.softplus(x),
    "leaky_relu": lambda tf, x: tf.nn.leaky_relu(x - 1.0, alpha=0.1),
    "relu6": lambda tf, x: tf.nn.relu6(x * 4.0),
    "split": lambda tf, x: tf.split(x, 2, axis=1)[1],
    "split_sizes": lambda tf, x: tf.split(x, [1, 3], axis=1)[0],
    "squeeze": lambda tf, x: tf.squeeze(tf.reshape(x, [-1, 1, 4])),
    "reverse": lambda tf, x: tf.reverse(x, [1]),
    "gather_nd": lambda tf, x: tf.gather_nd(x, [[0, 1], [2, 3]]),
    "scatter_nd": lambda tf, x: tf.scatter_nd([[1], [3]], x[:2], [6, 4]),
    "one_hot": lambda tf, x: tf.one_hot(tf.cast(x, tf.int32), 3),
    "cumsum": lambda tf, x: tf.cumsum(x, axis=1),
    "cumsum_exclusive_reverse": lambda tf, x: tf.cumsum(x, axis=1, exclusive=True, reverse=True),
    "where_broadcast_v1": lambda tf, x: tf.where(x[:, 0] > 1.0, x, x * 3.0),
    "where_v2_broadcast": lambda tf, x: tf.where_v2(x[:, :1] > 1.0, x, 2.0),
    "sin": lambda tf, x: tf.sin(x),
    "cos": lambda tf, x: tf.cos(x),
    "reciprocal": lambda tf, x: tf.reciprocal(x),
    "pow_scalar": lambda tf, x: tf.pow(x, 3.0),
    "argmax_none": lambda tf, x: tf.cast(tf.argmax(x, 1), tf.float32),
    "expm1": lambda tf, x: tf.expm1(x),
    "tan": lambda tf, x: tf.tan(x * 0.5),
    "asin": lambda tf, x: tf.asin(x * 0.5),
    "acos": lambda tf, x: tf.acos(x * 0.5),
    "atan": lambda tf, x: tf.atan(x),
    "atan2": lambda tf, x: tf.atan2(x, x * 2.0 + 1.0),
    "sinh": lambda tf, x: tf.sinh(x),
    "cosh": lambda tf, x: tf.cosh(x),
    "asinh": lambda tf, x: tf.asinh(x),
    "erf": lambda tf, x: tf.erf(x),
    "lgamma": lambda tf, x: tf.lgamma(x),
    "softsign": lambda tf, x: tf.nn.softsign(x),
    "log_sigmoid": lambda tf, x: tf.log_sigmoid(x),
    "l2_normalize": lambda tf, x: tf.nn.l2_normalize(x, axis=1),
    "norm": lambda tf, x: tf.norm(x, axis=1),
    "reduce_min": lambda tf, x: tf.reduce_min(x, axis=0),
    "reduce_mean_keepdims": lambda tf, x: tf.reduce_mean(x, axis=1, keepdims=True),
    "top_k": lambda tf, x: tf.nn.top_k(x, 2)[0],
    "broadcast_to": lambda tf, x: tf.broadcast_to(x[:1], [3, 4]),
    "dynamic_partition": lambda tf, x: tf.dynamic_partition(x, [0, 1, 0, 1, 1], 2)[1],
    "dynamic_stitch": lambda tf, x: tf.dynamic_stitch([[0, 2], [1, 3, 4]], [x[:2], x[2:]]),
    "embedding_lookup_partitioned": lambda tf, x: tf.nn.embedding_lookup(
        [x[:3], x[3:]], tf.constant([0, 4, 1])
    ),
    "space_to_depth": lambda tf, x: tf.space_to_depth(tf.reshape(x, [-1, 2, 2, 1]), 2),
    "depth_to_space": lambda tf, x: tf.depth_to_space(tf.reshape(x, [-1, 1, 1, 4]), 2),
    "resize_bilinear": lambda tf, x: tf.image.resize_bilinear(tf.reshape(x, [-1, 2, 2, 1]), [3, 3]),
    "resize_nearest": lambda tf, x: tf.image.resize_nearest_neighbor(
        tf.reshape(x, [-1, 2, 2, 1]), [4, 4]
    ),
    "matrix_inverse": lambda tf, x: tf.matrix_inverse(tf.reshape(x[:4], [4, 4]) + tf.eye(4) * 4.0),
    "cholesky": lambda tf, x: tf.cholesky(
        tf.matmul(x[:4], x[:4], transpose_b=True) + tf.eye(4) * 4.0
    ),
    "matrix_determinant": lambda tf, x: tf.matrix_determinant(
        tf.reshape(x[:4], [4, 4]) + tf.eye(4) * 4.0
    ),
    "losses_mse": lambda tf, x: tf.losses.mean_squared_error(tf.ones_like(x), x),
    "losses_huber": lambda tf, x: tf.losses.huber_loss(tf.ones_like(x), x),
    "losses_softmax_smoothing": lambda tf, x: tf.losses.softmax_cross_entropy(
        tf.one_hot([0, 1, 2, 3, 0], 4), x, label_smoothing=0.1
    ),
    "losses_sparse_softmax": lambda tf, x: tf.losses.sparse_softmax_cross_entropy(
        tf.constant([0, 1, 2, 3, 0]), x
    ),
    "losses_sigmoid": lambda tf, x: tf.losses.sigmoid_cross_entropy(tf.ones_like(x) * 0.5, x),
    "weighted_cross_entropy": lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(
        tf.ones_like(x) * 0.5, x, 2.0
    ),
    "log_poisson_loss": lambda tf, x: tf.nn.log_poisson_loss(tf.ones_like(x), x),
}


for _name in _MORE:
    CASES["more_" + _name] = _one_input_case(_MORE, _name)

# A gather's gradient (IndexedSlices) reaching ops that need it dense: TF 1.15 converts it
# once per use, in the name scope of the op using it ("mul_grad/Mul/x", "AddN/inputs_0").
# name: builds t from x ([None, 4]); the case differentiates sum(gather(t, [0, 2])).
_SPARSE_INTO: dict[str, Callable[[Any, Any], Any]] = {
    "mul": lambda tf, x: x * 2.0,
    "mul_self": lambda tf, x: x * x,
    "div": lambda tf, x: x / 2.0,
    "add": lambda tf, x: x + tf.ones([4]),
    "square": lambda tf, x: tf.square(x),
    "pow": lambda tf, x: tf.pow(x, 2.0),
    "abs": lambda tf, x: tf.abs(x),
    "softplus": lambda tf, x: tf.nn.softplus(x),
    "tanh": lambda tf, x: tf.tanh(x),
    "sigmoid": lambda tf, x: tf.sigmoid(x),
    "sqrt": lambda tf, x: tf.sqrt(x),
    "rsqrt": lambda tf, x: tf.rsqrt(x),
    "reciprocal": lambda tf, x: tf.reciprocal(x),
    "matmul": lambda tf, x: tf.matmul(x, tf.ones([4, 4])),
    "softmax": lambda tf, x: tf.nn.softmax(x),
    "log_softmax": lambda tf, x: tf.nn.log_softmax(x),
    "l2_normalize": lambda tf, x: tf.nn.l2_normalize(x, 1),
    "pad": lambda tf, x: tf.pad(x, [[1, 0], [0, 0]]),
    "stack": lambda tf, x: tf.reshape(tf.stack([x, x], 1), [-1, 4]),
    "where": lambda tf, x: tf.where(x > 1.0, x, x * 2.0),
    "relu": lambda tf, x: tf.nn.relu(x),
    "relu6": lambda tf, x: tf.nn.relu6(x),
    "elu": lambda tf, x: tf.nn.elu(x),
    "selu": lambda tf, x: tf.nn.selu(x),
    "leaky_relu": lambda tf, x: tf.nn.leaky_relu(x),
    "bias_add": lambda tf, x: tf.nn.bias_add(x, tf.ones([4])),
    "exp": lambda tf, x: tf.exp(x),
    "log": lambda tf, x: tf.log(x),
    "neg": lambda tf, x: -x,
    "transpose": lambda tf, x: tf.transpose(tf.transpose(x)),
    "clip_by_value": lambda tf, x: tf.clip_by_value(x, 0.5, 1.0),
    "center": lambda tf, x: x - tf.reduce_mean(x, 1, keepdims=True),
    "sub": lambda tf, x: x - 1.0,
    "concat_rows": lambda tf, x: tf.concat([x, x * 2.0], 0),
    "concat_columns": lambda tf, x: tf.concat([x, x * 2.0], 1),
    "tile": lambda tf, x: tf.tile(x, [2, 1]),
    "maximum": lambda tf, x: tf.maximum(x, 1.0),
}


def _sparse_into_case(name: str) -> Callable[[Any], dict[str, Any]]:
    def case(tf: Any) -> dict[str, Any]:
        def build(graph: Any) -> tuple[Any, list[Any], dict[Any, np.ndarray]]:
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            y = tf.gather(_SPARSE_INTO[name](tf, x), [0, 2])
            return y, [x], {x: _value((5, 4), 0.0)}

        return _differentiate(tf, build)

    return case


for _name in _SPARSE_INTO:
    CASES["sparse_into_" + _name] = _sparse_into_case(_name)


def _sparse_sums(kind: str) -> Callable[[Any], dict[str, Any]]:
    """Several gradients of one tensor, sparse and dense, summed (AddN converts each
    IndexedSlices among dense terms) or concatenated (all sparse), then through tanh."""

    def case(tf: Any) -> dict[str, Any]:
        def build(graph: Any) -> tuple[Any, list[Any], dict[Any, np.ndarray]]:
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            t = tf.tanh(x) if kind.endswith("_tanh") else x
            y = tf.reduce_sum(tf.gather(t, [0, 2]))
            if kind.startswith("dense"):
                y += tf.reduce_sum(t * 3.0)
            else:
                y += tf.reduce_sum(tf.gather(t, [1]))
            return y, [x], {x: _value((5, 4), 0.0)}

        return _differentiate(tf, build)

    return case


for _kind in ("dense_plus_sparse", "dense_plus_sparse_tanh", "two_sparse", "two_sparse_tanh"):
    CASES["sparse_sum_" + _kind] = _sparse_sums(_kind)


def _embedding_minimize(
    optimizer: str, gate: int = 1, colocate: bool = False
) -> Callable[[Any], dict[str, Any]]:
    """Two lookups of one scaled embedding multiplied together (their gradients reach the
    scaling Mul concatenated, which converts them once per use) plus the embedding's l2 loss,
    trained by minimize(), then a seeded random op made after it (its seed is the op
    count)."""

    def case(tf: Any) -> dict[str, Any]:
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(7)
            emb = tf.Variable(_value((6, 4), 0.0), name="emb")
            scale = tf.Variable(1.5, name="scale")
            table = emb * scale
            a = tf.nn.embedding_lookup(table, [0, 1])
            b = tf.nn.embedding_lookup(table, [2, 3])
            loss = tf.reduce_sum(tf.tanh(a) * b) + tf.nn.l2_loss(emb)
            first = len(graph.get_operations())
            opt = {
                "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
                "adam": lambda: tf.train.AdamOptimizer(0.1),
                "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1),
                "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
            }[optimizer]()
            train = opt.minimize(loss, gate_gradients=gate, colocate_gradients_with_ops=colocate)
            made = graph.get_operations()[first:]
            after = tf.random_normal([3], name="after")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                trained = sess.run([emb, scale])
                drawn = sess.run(after)
        return {
            "ops": [[o.type, o.name, [t.name for t in o.inputs]] for o in made],
            "trained": trained,
            "after": drawn,
        }

    return case


CASES["sparse_embedding_minimize_momentum"] = _embedding_minimize("momentum")
CASES["sparse_embedding_minimize_adam"] = _embedding_minimize("adam")
# gate_gradients: 0 GATE_NONE, 1 GATE_OP (minimize's default), 2 GATE_GRAPH.
CASES["sparse_embedding_minimize_rmsprop_gate_graph_colocated"] = _embedding_minimize(
    "rmsprop", gate=2, colocate=True
)
CASES["sparse_embedding_minimize_adagrad_gate_none"] = _embedding_minimize("adagrad", gate=0)
