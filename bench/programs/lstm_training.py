"""Issue 17 (RNNs): an LSTM training step, as TF1 sequence models (char-RNN, seq2seq
encoders) run it.

Rows:
  lstm train step (h256 t50 b64)   BasicLSTMCell(256) over fed inputs [64, 50, 128] with
                                   tf.nn.dynamic_rnn, a linear read-out to 32 classes at every
                                   step, sparse softmax cross entropy, one
                                   GradientDescentOptimizer step: sess.run of the train op
  lstm forward (h256 t50 b64)      the same network's loss only (no gradients)

TensorFlow 2.x's compat.v1 has no BasicLSTMCell (Keras 3): there the program uses a cell of
its own that builds the very ops of TF 1.15's BasicLSTMCell (one MatMul, BiasAdd, Split and
the same element-wise ops) under tf.nn.dynamic_rnn. TensorFlow 1.15 runs its own cell
(`python3.7 bench/programs/lstm_training.py --impl tf` in a TF 1.15 virtualenv).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

BATCH, TIME, DEPTH, HIDDEN, CLASSES = 64, 50, 128, 256, 32


class _TF1BasicLSTMCell:
    """TF 1.15's BasicLSTMCell's ops (for a TensorFlow without it): kernel and bias in
    rnn/basic_lstm_cell, concat, MatMul, BiasAdd, Split, then Add, Sigmoid, Mul, Tanh."""

    def __init__(self, tf: Any, num_units: int) -> None:
        self._tf = tf
        self._num_units = num_units

    @property
    def state_size(self) -> Any:
        return (self._num_units, self._num_units)

    @property
    def output_size(self) -> int:
        return self._num_units

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        tf = self._tf
        return (tf.zeros([batch_size, self._num_units], dtype),) * 2

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        tf = self._tf
        c, h = state
        with tf.variable_scope("basic_lstm_cell", reuse=tf.AUTO_REUSE):
            depth = inputs.shape.as_list()[-1]
            kernel = tf.get_variable("kernel", [depth + self._num_units, 4 * self._num_units])
            bias = tf.get_variable(
                "bias", [4 * self._num_units], initializer=tf.zeros_initializer()
            )
        one = tf.constant(1, dtype=tf.int32)
        gates = tf.nn.bias_add(tf.matmul(tf.concat([inputs, h], 1), kernel), bias)
        i, j, f, o = tf.split(value=gates, num_or_size_splits=4, axis=one)
        forget_bias = tf.constant(1.0, dtype=f.dtype)
        new_c = tf.add(
            tf.multiply(c, tf.sigmoid(tf.add(f, forget_bias))),
            tf.multiply(tf.sigmoid(i), tf.tanh(j)),
        )
        new_h = tf.multiply(tf.tanh(new_c), tf.sigmoid(o))
        return new_h, (new_c, new_h)


def make_cell(tf: Any) -> Any:
    try:
        return tf.nn.rnn_cell.BasicLSTMCell(HIDDEN)
    except (AttributeError, ImportError):
        return _TF1BasicLSTMCell(tf, HIDDEN)


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0) if hasattr(np.random, "default_rng") else None
    if rng is not None:
        x = rng.uniform(-1, 1, (BATCH, TIME, DEPTH)).astype(np.float32)
        y = rng.integers(0, CLASSES, (BATCH, TIME)).astype(np.int32)
    else:  # numpy < 1.17 (TensorFlow 1.15's)
        r = np.random.RandomState(0)
        x = r.uniform(-1, 1, (BATCH, TIME, DEPTH)).astype(np.float32)
        y = r.randint(0, CLASSES, (BATCH, TIME)).astype(np.int32)
    return x, y


def numpy_loss(x: np.ndarray, y: np.ndarray, params: dict[str, np.ndarray]) -> float:
    """The network's loss computed in numpy (float64), to check the session's."""
    kernel, bias, w, b = (params[k].astype(np.float64) for k in ("kernel", "bias", "w", "b"))
    c = np.zeros((BATCH, HIDDEN))
    h = np.zeros((BATCH, HIDDEN))

    def sigmoid(v: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-v))

    total = 0.0
    for t in range(TIME):
        gates = np.concatenate([x[:, t], h], 1) @ kernel + bias
        i, j, f, o = np.split(gates, 4, axis=1)
        c = c * sigmoid(f + 1.0) + sigmoid(i) * np.tanh(j)
        h = np.tanh(c) * sigmoid(o)
        logits = h @ w + b
        logits = logits - logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        total += -logp[np.arange(BATCH), y[:, t]].sum()
    return total / (BATCH * TIME)


def build(tf: Any) -> tuple[Any, dict[str, Any]]:
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [BATCH, TIME, DEPTH], name="x")
        y = tf.placeholder(tf.int32, [BATCH, TIME], name="y")
        outputs, _ = tf.nn.dynamic_rnn(make_cell(tf), x, dtype=tf.float32)
        w = tf.get_variable("softmax/w", [HIDDEN, CLASSES])
        b = tf.get_variable("softmax/b", [CLASSES], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.reshape(outputs, [-1, HIDDEN]), w) + b
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(y, [-1]), logits=logits
        )
        loss = tf.reduce_mean(xent)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
        names = {v.op.name: v for v in tf.global_variables()}
        params = {
            "kernel": names["rnn/basic_lstm_cell/kernel"],
            "bias": names["rnn/basic_lstm_cell/bias"],
            "w": w,
            "b": b,
        }
    sess = tf.Session(graph=g)
    sess.run(init)
    xs, ys = data()
    feeds = {x: xs, y: ys}
    # Checked against numpy before timing: a fast wrong answer cannot pass.
    got, values = sess.run([loss, params], feeds)
    want = numpy_loss(xs, ys, values)
    if not np.isclose(got, want, rtol=1e-4):
        raise SystemExit(f"loss {got} differs from numpy's {want}")
    before = sess.run(loss, feeds)
    for _ in range(3):
        sess.run(train, feeds)
    after = sess.run(loss, feeds)
    if not after < before:
        raise SystemExit(f"training did not lower the loss ({before} -> {after})")
    return sess, {
        "lstm train step (h256 t50 b64)": lambda: sess.run(train, feeds),
        "lstm forward (h256 t50 b64)": lambda: sess.run(loss, feeds),
    }


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    cap = c.seconds_cap(args)
    c.progress("LSTM graph: numpy check, warm-up and timing")
    _, fns = build(tf)
    wanted = set((args.profile or "").split(",")) - {""}
    timed = c.sample_interleaved(
        fns, warmup=2, samples=8 if args.quick else 30, max_seconds=cap, batch_target_s=0.0
    )
    rows = []
    for name, xs in timed.items():
        row = c.time_row(name, xs)
        if name in wanted:
            row.profile = c.profile_calls(fns[name], 5)
        rows.append(row)
        c.progress(f"  {name}: median {row.median * 1e3:.1f} ms over {row.samples} samples")
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
