"""Recurrent networks trained by an optimizer's minimize(), and the op count they leave.

minimize() differentiates with gate_gradients=GATE_OP: TF1 gates every op's input gradients
that has more than one (a tuple: a NoOp and an Identity per gradient), and for a
tf.nn.dynamic_rnn that includes the ops of the cell's gradient inside TF1's gradient while
loop. With a graph seed, a random op made after minimize() draws with the graph's op count,
so tfcluster's gradient of its functional While must count as TF1's does. Each case builds a
model, its training op, then a random op; it returns the op count, the random values, the
type histogram of the ops minimize() made (recorded from TF, for reading) and the loss and
variables after a few training steps.
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np

BATCH, STEPS, DEPTH, UNITS = 3, 4, 2, 3


def _inputs() -> Any:
    rng = np.random.RandomState(5)
    return rng.uniform(-1.0, 1.0, (BATCH, STEPS, DEPTH)).astype(np.float32)


def _run(
    tf: Any,
    model: Callable[[Any, Any], Any],
    optimizer: Callable[[Any], Any] | None = None,
    steps: int = 3,
) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [BATCH, STEPS, DEPTH], name="x")
        with tf.variable_scope("model", initializer=tf.constant_initializer(0.3)):
            out = model(tf, x)
        loss = tf.reduce_mean(tf.square(out - 0.5))
        first = len(graph.get_operations())
        opt = (optimizer or (lambda tf: tf.train.GradientDescentOptimizer(0.5)))(tf)
        train = opt.minimize(loss)
        made = graph.get_operations()[first:]
        count = graph._op_count() if hasattr(graph, "_op_count") else graph._last_id
        after = tf.random_normal([3], name="after")
        feed = {x: _inputs()}
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                losses.append(sess.run([loss, train], feed)[0])
            trained = sess.run(tf.trainable_variables())
            drawn = sess.run(after)
    return {
        "op_count": count,
        "after": drawn,
        "losses": np.asarray(losses),
        "trained": trained,
        "training_op_types": dict(sorted(collections.Counter(o.type for o in made).items())),
    }


def _last_output(tf: Any, cell: Any, x: Any, **kwargs: Any) -> Any:
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, **kwargs)
    return tf.layers.dense(outputs[:, -1], 1, kernel_initializer=tf.constant_initializer(0.2))


def dynamic_rnn_lstm_cell_minimize(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x: _last_output(tf, tf.nn.rnn_cell.LSTMCell(UNITS), x))


def dynamic_rnn_basic_lstm_cell_minimize(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x: _last_output(tf, tf.nn.rnn_cell.BasicLSTMCell(UNITS), x))


def dynamic_rnn_gru_cell_minimize(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x: _last_output(tf, tf.nn.rnn_cell.GRUCell(UNITS), x))


def dynamic_rnn_basic_rnn_cell_minimize(tf: Any) -> dict[str, Any]:
    return _run(tf, lambda tf, x: _last_output(tf, tf.nn.rnn_cell.BasicRNNCell(UNITS), x))


def dynamic_rnn_lstm_with_sequence_length_adam(tf: Any) -> dict[str, Any]:
    def model(tf: Any, x: Any) -> Any:
        cell = tf.nn.rnn_cell.LSTMCell(UNITS)
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[4, 2, 3])
        return tf.reduce_sum(outputs, axis=1) + state.h

    return _run(tf, model, lambda tf: tf.train.AdamOptimizer(0.05))


def dynamic_rnn_gru_with_sequence_length_minimize(tf: Any) -> dict[str, Any]:
    def model(tf: Any, x: Any) -> Any:
        cell = tf.nn.rnn_cell.GRUCell(UNITS)
        _, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[1, 4, 3])
        return state

    return _run(tf, model)


def dynamic_rnn_lstm_final_state_minimize(tf: Any) -> dict[str, Any]:
    """Only the final state is used: TF1 does not differentiate the outputs' TensorArray
    inside its gradient loop (no gradient reaches it), only gives its Exit zeros."""

    def model(tf: Any, x: Any) -> Any:
        _, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(UNITS), x, dtype=tf.float32)
        return state.h * state.c

    return _run(tf, model, lambda tf: tf.train.MomentumOptimizer(0.1, 0.9))


def while_loop_minimize(tf: Any) -> dict[str, Any]:
    def model(tf: Any, x: Any) -> Any:
        w = tf.get_variable("w", [DEPTH, DEPTH])
        b = tf.get_variable("b", [DEPTH])

        def body(i: Any, h: Any, total: Any) -> Any:
            h = tf.tanh(tf.matmul(h, w) + b) * x[:, i]
            return i + 1, h, total + tf.reduce_sum(h, axis=1)

        zeros = tf.zeros([BATCH, DEPTH])
        _, h, total = tf.while_loop(lambda i, h, t: i < STEPS, body, [0, zeros + 1.0, zeros[:, 0]])
        return h * total[:, None]

    return _run(tf, model)


def dynamic_rnn_multi_rnn_cell_minimize(tf: Any) -> dict[str, Any]:
    def model(tf: Any, x: Any) -> Any:
        cells = [tf.nn.rnn_cell.LSTMCell(UNITS) for _ in range(2)]
        return _last_output(tf, tf.nn.rnn_cell.MultiRNNCell(cells), x)

    return _run(tf, model)


def bidirectional_dynamic_rnn_lstm_minimize(tf: Any) -> dict[str, Any]:
    def model(tf: Any, x: Any) -> Any:
        fw, bw = tf.nn.rnn_cell.LSTMCell(UNITS), tf.nn.rnn_cell.LSTMCell(UNITS)
        (out_fw, out_bw), _ = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, x, dtype=tf.float32, sequence_length=[4, 3, 2]
        )
        return tf.concat([out_fw, out_bw], axis=2)

    return _run(tf, model, lambda tf: tf.train.AdamOptimizer(0.05))


def _any_batch(tf: Any, x: Any) -> Any:
    """x with its batch dimension unknown to the graph."""
    return tf.placeholder_with_default(x, [None, STEPS, DEPTH])


def dynamic_rnn_lstm_cell_unknown_batch_minimize(tf: Any) -> dict[str, Any]:
    """An unknown batch size: the gradients of the cell's broadcasting ops take their
    inputs' shapes as Shape ops (of the forget bias's constant too), which TF1's gradient
    loop keeps on stacks."""
    return _run(
        tf, lambda tf, x: _last_output(tf, tf.nn.rnn_cell.LSTMCell(UNITS), _any_batch(tf, x))
    )


def dynamic_rnn_gru_cell_unknown_batch_minimize(tf: Any) -> dict[str, Any]:
    return _run(
        tf, lambda tf, x: _last_output(tf, tf.nn.rnn_cell.GRUCell(UNITS), _any_batch(tf, x))
    )


CASES = {
    f.__name__: f
    for f in (
        dynamic_rnn_lstm_cell_minimize,
        dynamic_rnn_basic_lstm_cell_minimize,
        dynamic_rnn_gru_cell_minimize,
        dynamic_rnn_basic_rnn_cell_minimize,
        dynamic_rnn_lstm_with_sequence_length_adam,
        dynamic_rnn_gru_with_sequence_length_minimize,
        dynamic_rnn_lstm_final_state_minimize,
        while_loop_minimize,
        dynamic_rnn_multi_rnn_cell_minimize,
        bidirectional_dynamic_rnn_lstm_minimize,
        dynamic_rnn_lstm_cell_unknown_batch_minimize,
        dynamic_rnn_gru_cell_unknown_batch_minimize,
    )
}
