"""Dropout inside tf.nn.dynamic_rnn while the training op runs in the same step.

Each case trains a small DropoutWrapper model for a few steps, fetching [train_op, cost],
and returns the costs and the trained variables. Only cases whose draws TF 1.15 makes in a
fixed order are here: a random op with an op seed keeps one Philox stream per kernel, so
its values depend on the order of its calls. With state dropout the next iteration reads
the dropped state, so the loop's calls come in iteration order; variational dropout draws
each mask once, before the loop. Output (or input) dropout is off the loop's critical path:
TF's executor hands each iteration's RandomUniform to its thread pool and they reserve
Philox samples in whatever order the threads run them, so TF 1.15 prints different costs
for the same program from run to run (see the note in record_rnn_dropout_training.py).
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

STEPS = 3


def _train(tf: Any, make_cell: Callable[[Any, Any], Any]) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
        y = tf.placeholder(tf.int32, [None], name="y")
        keep_prob = tf.placeholder(tf.float32, [], name="keep_prob")
        w = tf.Variable(tf.random_normal([5, 4]), name="w")
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [make_cell(tf, keep_prob), tf.nn.rnn_cell.BasicLSTMCell(5)]
        )
        out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        logits = tf.matmul(tf.transpose(out, [1, 0, 2])[-1], w)
        cost = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, labels=y)
        )
        train_op = tf.train.AdamOptimizer(0.01).minimize(cost)
        feed = {
            x: np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(2, 3, 4),
            y: np.array([1, 2], dtype=np.int32),
            keep_prob: 0.5,
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            costs = [sess.run([train_op, cost], feed)[1] for _ in range(STEPS)]
            trained = sess.run(tf.trainable_variables())
    return {"costs": np.asarray(costs), "variables": trained}


def lstm_state_dropout(tf: Any) -> dict[str, Any]:
    return _train(
        tf,
        lambda tf, kp: tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.BasicLSTMCell(5), state_keep_prob=kp
        ),
    )


def lstm_variational_dropout(tf: Any) -> dict[str, Any]:
    return _train(
        tf,
        lambda tf, kp: tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.BasicLSTMCell(5),
            input_keep_prob=kp,
            output_keep_prob=kp,
            state_keep_prob=kp,
            variational_recurrent=True,
            input_size=4,
            dtype=tf.float32,
        ),
    )


CASES: dict[str, Callable[[Any], dict[str, Any]]] = {
    "lstm_state_dropout": lstm_state_dropout,
    "lstm_variational_dropout": lstm_variational_dropout,
}
