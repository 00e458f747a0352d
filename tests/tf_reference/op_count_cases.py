"""Graphs whose v1 control flow moves TF1's op count, which seeds later random ops.

With a graph seed, a random op's seed is the graph's op count when it is made. TF1 builds
tf.cond and tf.while_loop from Switch/Merge/Enter/Exit ops in the graph itself; tfcluster
builds one functional op, but must count as TF1 does so that every random op after a cond
(tf.layers.dropout, batch_normalization with a training placeholder) or a loop
(tf.nn.dynamic_rnn) draws TF's numbers. Each case builds a construct, then a random op, and
returns the op count and the random values (before and inside the construct too).
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np


def _run(tf: Any, build: Callable[[Any, Any, Any], Any]) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        inside = build(tf, x, p)
        count = graph._op_count() if hasattr(graph, "_op_count") else graph._last_id
        after = tf.random_normal([3], name="after")
        feed = {x: np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = {"op_count": count, "after": sess.run(after, feed)}
            if inside is not None:
                out["inside_true"] = sess.run(inside, {**feed, p: True})
                out["inside_false"] = sess.run(inside, {**feed, p: False})
    return out


def cond_of_tensors(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x, p: tf.cond(p, lambda: (x * 2.0, 3.0), lambda: (x + x, 4.0))[0])


def cond_returning_ops(tf: Any) -> dict[str, Any]:
    def build(tf: Any, x: Any, p: Any) -> Any:
        tf.cond(p, tf.no_op, tf.no_op)

    return _run(tf, build)


def cond_with_random_branches(tf: Any) -> dict[str, Any]:
    return _run(
        tf,
        lambda tf, x, p: tf.cond(p, lambda: tf.random_uniform([2]), lambda: tf.random_normal([2])),
    )


def dropout_with_training_placeholder(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x, p: tf.layers.dropout(x + 1.0, 0.5, training=p))


def batch_normalization_with_training_placeholder(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x, p: tf.layers.batch_normalization(x, training=p, momentum=0.9))


def while_loop_with_capture(tf: Any) -> dict[str, Any]:
    def build(tf: Any, x: Any, p: Any) -> Any:
        tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + x), [0, tf.zeros_like(x)])

    return _run(tf, build)


def while_loop_shape_invariant_error(tf: Any) -> dict[str, Any]:
    """A body whose result outgrows its loop variable's shape: TF1 raises ValueError after it
    converted every result (Consts for Python values) and made a NextIteration for each loop
    variable up to the failing one (the iteration counter first, with maximum_iterations).
    A program that catches the error goes on with those ops in its graph."""

    def build(tf: Any, x: Any, p: Any) -> Any:
        n = tf.constant(5)
        grow = tf.constant([1, 1])
        for loop_vars, body, limit in (
            ((2, 1, 1, grow), lambda i, a, b, c: (i + 1, b, a + b, tf.concat([c, [a]], 0)), None),
            ((2, grow, 1, 1), lambda i, c, a, b: (i + 1, tf.concat([c, [a]], 0), 7, 8), None),
            ((2, grow, 1, 1), lambda i, c, a, b: (i + 1, tf.concat([c, [a]], 0), 7, 8), 4),
        ):
            with contextlib.suppress(ValueError):
                tf.while_loop(lambda i, *_: i < n, body, loop_vars, maximum_iterations=limit)

    return _run(tf, build)


def while_loop_maximum_iterations_in_cond(tf: Any) -> dict[str, Any]:
    """maximum_iterations given as the tensor the cond compares with: TF1 tests the counter
    against it first, and the cond's own use of it shares that Enter (one per outer tensor
    per loop), as tf.scan's loop does with its length."""

    def build(tf: Any, x: Any, p: Any) -> Any:
        n = tf.constant(3)
        body = lambda i, s: (i + 1, s + tf.random_uniform([3]))  # noqa: E731
        return tf.while_loop(lambda i, s: i < n, body, (0, x[0]), maximum_iterations=n)[1]

    return _run(tf, build)


def while_loop_maximum_iterations_in_body(tf: Any) -> dict[str, Any]:
    """The same tensor as maximum_iterations, used by the body only: its Enter is shared."""

    def build(tf: Any, x: Any, p: Any) -> Any:
        n = tf.constant(2)
        body = lambda i, s: (i + 1, s * tf.cast(n, tf.float32))  # noqa: E731
        tf.while_loop(lambda i, s: i < 5, body, (0, x), maximum_iterations=n)

    return _run(tf, build)


def while_loop_maximum_iterations_in_cond_and_body(tf: Any) -> dict[str, Any]:
    def build(tf: Any, x: Any, p: Any) -> Any:
        n = tf.constant(2)
        body = lambda i, s: (i + 1, s * tf.cast(n, tf.float32))  # noqa: E731
        tf.while_loop(lambda i, s: i < n, body, (0, x), maximum_iterations=n)

    return _run(tf, build)


def scan_with_random_body(tf: Any) -> dict[str, Any]:
    """tf.scan bounds its loop by the length it also compares with in the cond."""

    def build(tf: Any, x: Any, p: Any) -> Any:
        return tf.scan(lambda a, row: a + row * tf.random_uniform([3]), x)

    return _run(tf, build)


def dynamic_rnn_lstm(tf: Any) -> dict[str, Any]:
    def build(tf: Any, x: Any, p: Any) -> Any:
        cell = tf.nn.rnn_cell.BasicLSTMCell(5)
        tf.nn.dynamic_rnn(cell, tf.reshape(x, [1, 4, 3]), dtype=tf.float32)

    return _run(tf, build)


def dynamic_rnn_gru_with_lengths(tf: Any) -> dict[str, Any]:
    def build(tf: Any, x: Any, p: Any) -> Any:
        cell = tf.nn.rnn_cell.GRUCell(5)
        tf.nn.dynamic_rnn(cell, tf.reshape(x, [2, 2, 3]), dtype=tf.float32, sequence_length=[2, 1])

    return _run(tf, build)


def file_datasets(tf: Any) -> dict[str, Any]:
    """TF 1.15 reads files through Reshape(flat_filenames) -> TensorSliceDataset ->
    FlatMapDataset (the reader inside the map function); tfcluster's one reader op must count
    as those. Names given as a tensor make no Const of their own."""

    def build(tf: Any, x: Any, p: Any) -> Any:
        tf.data.TextLineDataset(["a.csv", "b.csv"])
        tf.data.TFRecordDataset("a.tfrecord", compression_type="GZIP")
        tf.data.FixedLengthRecordDataset(["a.bin"], 4, header_bytes=2)
        tf.data.TextLineDataset(tf.constant(["c.csv"]))

    return _run(tf, build)


CASES = {
    f.__name__: f
    for f in (
        cond_of_tensors,
        cond_returning_ops,
        cond_with_random_branches,
        dropout_with_training_placeholder,
        batch_normalization_with_training_placeholder,
        while_loop_with_capture,
        while_loop_shape_invariant_error,
        while_loop_maximum_iterations_in_cond,
        while_loop_maximum_iterations_in_body,
        while_loop_maximum_iterations_in_cond_and_body,
        scan_with_random_body,
        dynamic_rnn_lstm,
        dynamic_rnn_gru_with_lengths,
        file_datasets,
    )
}
