"""Gradients through v1 tf.cond / tf.while_loop and the op count they leave.

TF1 differentiates its Switch/Merge cond with Switch/Merge ops (control_flow_grad.py): a
Switch of each Merge's gradient, the branch ops' gradients, and per value switched into a
branch a Merge with zeros for the branch not taken. With a graph seed, a random op made after
tf.gradients draws with the graph's op count, so tfcluster's gradient of its functional cond
must count as TF1's does. Each case builds a construct, differentiates it, then a random op;
it returns the op count, the random values, the gradients for both predicates, and (recorded
from TF only, for reading) the op types and names of the gradient graph.
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np


def _run(tf: Any, build: Callable[[Any, Any, Any, Any], Any], wrt_extra: bool) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        w = tf.Variable(np.linspace(-1.0, 1.0, 6).reshape(3, 2).astype(np.float32), name="w")
        v = tf.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32), name="v")
        y = build(tf, tf.matmul(x, w), p, v)
        loss = tf.reduce_sum(y * y)
        first = len(graph.get_operations())
        wrt = [w, v] if wrt_extra else [w]
        grads = tf.gradients(loss, wrt)
        made = graph.get_operations()[first:]
        count = graph._op_count() if hasattr(graph, "_op_count") else graph._last_id
        after = tf.random_normal([3], name="after")
        feed = {x: np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0 - 0.5}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {
                "op_count": count,
                "after": sess.run(after, feed),
                "grads_true": sess.run(grads, {**feed, p: True}),
                "grads_false": sess.run(grads, {**feed, p: False}),
                "gradient_op_types": dict(
                    sorted(collections.Counter(o.type for o in made).items())
                ),
                "gradient_op_names": [o.name for o in made],
            }


def cond_with_a_variable_in_one_branch(tf: Any) -> dict[str, Any]:
    return _run(
        tf, lambda tf, h, p, v: tf.cond(p, lambda: tf.matmul(h, v), lambda: tf.nn.relu(h)), False
    )


def cond_with_a_variable_differentiated_for_it(tf: Any) -> dict[str, Any]:
    return _run(
        tf, lambda tf, h, p, v: tf.cond(p, lambda: tf.matmul(h, v), lambda: tf.tanh(h)), True
    )


def cond_of_two_outputs_one_differentiated(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        a, _ = tf.cond(p, lambda: (tf.sigmoid(h), h), lambda: (h, tf.exp(h)))
        return a

    return _run(tf, build, False)


def cond_with_broadcasting_add_and_sub(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        bias = v[0]  # shape [2], broadcast over h's rows
        return tf.cond(p, lambda: (h + bias) * 3.0, lambda: 1.0 - h - bias)

    return _run(tf, build, True)


def nested_cond(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        inner = lambda: tf.cond(p, lambda: tf.nn.relu(h), lambda: tf.matmul(h, v))  # noqa: E731
        return tf.cond(p, inner, lambda: tf.tanh(h))

    return _run(tf, build, True)


def dropout_with_training_tensor(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, h, p, v: tf.layers.dropout(h, 0.5, training=p), False)


def batch_normalization_with_training_tensor(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, h, p, v: tf.layers.batch_normalization(h, training=p), False)


def while_loop_gradient(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        return tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.matmul(s, v)), [0, h])[
            1
        ] + tf.cast(p, tf.float32)

    return _run(tf, build, True)


def minimize_through_batch_norm_and_dropout_conds(tf: Any) -> dict[str, Any]:
    """An optimizer's minimize() gates each op's gradients (gate_gradients=GATE_OP): TF1 gates
    the ops inside its conds' gradients (batch norm's fused op, dropout's multiplies, each
    Merge's Switch), not one op per cond. Momentum steps once per predicate."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        h = tf.layers.conv2d(x, 3, 3, kernel_initializer=tf.constant_initializer(0.1))
        h = tf.layers.batch_normalization(h, training=p)
        h = tf.layers.dropout(tf.layers.flatten(h), 0.0, training=p)
        y = tf.layers.dense(h, 2, kernel_initializer=tf.constant_initializer(-0.05))
        loss = tf.reduce_mean(tf.square(y - 1.0))
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        first = len(graph.get_operations())
        with tf.control_dependencies(update_ops):
            train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        made = graph.get_operations()[first:]
        count = graph._op_count() if hasattr(graph, "_op_count") else graph._last_id
        after = tf.random_normal([3], name="after")
        feed = {x: np.arange(144, dtype=np.float32).reshape(2, 6, 6, 2) / 100.0}
        trained = {}
        for flag in (True, False):
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train, {**feed, p: flag})
                trained[flag] = sess.run(tf.trainable_variables())
        with tf.Session() as sess:
            drawn = sess.run(after)
    return {
        "op_count": count,
        "after": drawn,
        "grads_true": trained[True],
        "grads_false": trained[False],
        "gradient_op_types": dict(sorted(collections.Counter(o.type for o in made).items())),
        "gradient_op_names": [o.name for o in made],
    }


def while_loop_of_two_differentiated_variables(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        def body(i: Any, a: Any, b: Any) -> Any:
            return i + 1, tf.tanh(a) * b, tf.matmul(b, v) + a

        _, a, b = tf.while_loop(lambda i, a, b: i < 2, body, [0, h, h * 2.0])
        return a + b * tf.cast(p, tf.float32)

    return _run(tf, build, True)


def while_loop_of_unknown_row_count(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        rows = tf.placeholder_with_default(h, [None, 2])
        out = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.sin(s) * v[0]), [0, rows])
        return out[1] + tf.cast(p, tf.float32)

    return _run(tf, build, True)


def while_loop_with_maximum_iterations(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        body = lambda i, s: (i + 1, tf.matmul(tf.tanh(s), v))  # noqa: E731
        out = tf.while_loop(lambda i, s: i < 5, body, (0, h), maximum_iterations=2)[1]
        return out + tf.cast(p, tf.float32)

    return _run(tf, build, True)


def dynamic_rnn_lstm_gradient(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        cell = tf.nn.rnn_cell.BasicLSTMCell(2)
        outputs, _ = tf.nn.dynamic_rnn(cell, tf.reshape(h, [2, 2, 2]), dtype=tf.float32)
        return tf.matmul(tf.reshape(outputs, [4, 2]), v) + tf.cast(p, tf.float32)

    return _run(tf, build, True)


def nested_while_loop_gradient(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        def outer(i: Any, s: Any) -> Any:
            inner = tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, tf.matmul(t, v)), [0, s])
            return i + 1, tf.tanh(inner[1])

        return tf.while_loop(lambda i, s: i < 2, outer, [0, h])[1] + tf.cast(p, tf.float32)

    return _run(tf, build, True)


def nested_while_loop_reading_outer_values(tf: Any) -> dict[str, Any]:
    def build(tf: Any, h: Any, p: Any, v: Any) -> Any:
        def outer(i: Any, s: Any, u: Any) -> Any:
            scale = tf.sigmoid(u)  # a value of the outer body the inner body reads
            inner = tf.while_loop(
                lambda j, t: j < 2, lambda j, t: (j + 1, tf.matmul(t * scale, v)), [0, s]
            )
            return i + 1, tf.tanh(inner[1]), u * 0.5 + s

        out = tf.while_loop(lambda i, s, u: i < 2, outer, [0, h, h])
        return out[1] * out[2] + tf.cast(p, tf.float32)

    return _run(tf, build, True)


CASES = {
    f.__name__: f
    for f in (
        cond_with_a_variable_in_one_branch,
        cond_with_a_variable_differentiated_for_it,
        cond_of_two_outputs_one_differentiated,
        cond_with_broadcasting_add_and_sub,
        nested_cond,
        dropout_with_training_tensor,
        batch_normalization_with_training_tensor,
        while_loop_gradient,
        minimize_through_batch_norm_and_dropout_conds,
        while_loop_of_two_differentiated_variables,
        while_loop_of_unknown_row_count,
        while_loop_with_maximum_iterations,
        dynamic_rnn_lstm_gradient,
        nested_while_loop_gradient,
        nested_while_loop_reading_outer_values,
    )
}
