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
        with tf.Session() as sess:
            values = sess.run(grads, feed)
    return {
        "ops": [[o.type, o.name, [t.name for t in o.inputs]] for o in made],
        "grad_names": [g.name for g in grads],
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
    "neg": lambda tf, x: -x,
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


def _common_case(name: str) -> Callable[[Any], dict[str, Any]]:
    def case(tf: Any) -> dict[str, Any]:
        def build(graph: Any) -> tuple[Any, list[Any], dict[Any, np.ndarray]]:
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            return _COMMON[name](tf, x), [x], {x: _value((5, 4), 0.0)}

        return _differentiate(tf, build)

    return case


for _name in _COMMON:
    CASES["common_" + _name] = _common_case(_name)
