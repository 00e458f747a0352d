"""Issue 15: a tf.layers convolutional network's training step (TensorFlow's cnn_mnist model).

Row:
  conv net train step (batch 128)   one Session.run of the SGD train op of
      conv2d(32, 5x5, same, relu) -> max_pooling2d(2, 2) -> conv2d(64, 5x5, same, relu)
      -> max_pooling2d(2, 2) -> flatten -> dense(1024, relu) -> dense(10)
      -> sparse softmax cross-entropy, on a fed batch of 128 MNIST-size images (28x28x1)

The tfcluster side builds it with tf.layers. TensorFlow 2.x's tf.compat.v1 has no tf.layers
(Keras 3 took it away), so the TensorFlow side builds the very graph tf.layers makes (the same
Conv2D, BiasAdd, Relu, MaxPool, Reshape, MatMul nodes and variables) from tf.nn and
tf.get_variable; it uses tf.layers where that exists (TensorFlow 1.x). Both start from the same
weights, and the first loss is checked against numpy's forward pass before timing.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

BATCH = 128
ROW = "conv net train step (batch 128)"


def initial_weights() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)

    def glorot(*shape: int) -> np.ndarray:
        fan_in = int(np.prod(shape[:-1]))
        fan_out = int(np.prod(shape[:-2])) * shape[-1] if len(shape) > 2 else shape[-1]
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, shape).astype(np.float32)

    return {
        "conv2d/kernel": glorot(5, 5, 1, 32),
        "conv2d/bias": np.zeros(32, np.float32),
        "conv2d_1/kernel": glorot(5, 5, 32, 64),
        "conv2d_1/bias": np.zeros(64, np.float32),
        "dense/kernel": glorot(7 * 7 * 64, 1024),
        "dense/bias": np.zeros(1024, np.float32),
        "dense_1/kernel": glorot(1024, 10),
        "dense_1/bias": np.zeros(10, np.float32),
    }


def build_with_layers(tf: Any, images: Any, w: dict[str, np.ndarray]) -> Any:
    def init(name: str) -> Any:
        return tf.constant_initializer(w[name])

    net = tf.layers.conv2d(
        images,
        32,
        5,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=init("conv2d/kernel"),
    )
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.conv2d(
        net,
        64,
        5,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=init("conv2d_1/kernel"),
    )
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.flatten(net)
    net = tf.layers.dense(net, 1024, activation=tf.nn.relu, kernel_initializer=init("dense/kernel"))
    return tf.layers.dense(net, 10, kernel_initializer=init("dense_1/kernel"))


def build_with_nn(tf: Any, images: Any, w: dict[str, np.ndarray]) -> Any:
    """The graph tf.layers makes, from tf.nn and tf.get_variable (TF 2.x has no tf.layers)."""

    def var(scope: str, name: str) -> Any:
        value = w[f"{scope}/{name}"]
        return tf.get_variable(name, value.shape, initializer=tf.constant_initializer(value))

    def conv(x: Any, scope: str) -> Any:
        with tf.variable_scope(scope):
            y = tf.nn.conv2d(x, var(scope, "kernel"), [1, 1, 1, 1], "SAME")
            return tf.nn.relu(tf.nn.bias_add(y, var(scope, "bias")))

    def dense(x: Any, scope: str, relu: bool) -> Any:
        with tf.variable_scope(scope):
            y = tf.nn.bias_add(tf.matmul(x, var(scope, "kernel")), var(scope, "bias"))
            return tf.nn.relu(y) if relu else y

    net = conv(images, "conv2d")
    net = tf.nn.max_pool(net, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    net = conv(net, "conv2d_1")
    net = tf.nn.max_pool(net, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    net = tf.reshape(net, [tf.shape(net)[0], -1])
    net = dense(net, "dense", relu=True)
    return dense(net, "dense_1", relu=False)


def has_layers(tf: Any) -> bool:
    try:
        layers = tf.layers
        return callable(getattr(layers, "conv2d", None))
    except (AttributeError, ImportError):
        return False


def numpy_loss(w: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    """The model's mean cross-entropy, by numpy alone."""

    def conv_same(a: np.ndarray, k: np.ndarray, b: np.ndarray) -> np.ndarray:
        pad = np.pad(a, ((0, 0), (2, 2), (2, 2), (0, 0)))
        win = np.lib.stride_tricks.sliding_window_view(pad, (5, 5), axis=(1, 2))
        return np.maximum(np.einsum("nhwcij,ijco->nhwo", win, k, optimize=True) + b, 0)

    def pool(a: np.ndarray) -> np.ndarray:
        n, h, wd, ch = a.shape
        return a.reshape(n, h // 2, 2, wd // 2, 2, ch).max(axis=(2, 4))

    h = pool(conv_same(x, w["conv2d/kernel"], w["conv2d/bias"]))
    h = pool(conv_same(h, w["conv2d_1/kernel"], w["conv2d_1/bias"]))
    h = np.maximum(h.reshape(len(x), -1) @ w["dense/kernel"] + w["dense/bias"], 0)
    logits = (h @ w["dense_1/kernel"] + w["dense_1/bias"]).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    cap = c.seconds_cap(args)
    profiled = {n.strip() for n in args.profile.split(",") if n.strip()}
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, (BATCH, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, 10, BATCH).astype(np.int64)
    w = initial_weights()

    g = tf.Graph()
    with g.as_default():
        images = tf.placeholder(tf.float32, [None, 28, 28, 1], name="images")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        with_layers = has_layers(tf)
        logits = (build_with_layers if with_layers else build_with_nn)(tf, images, w)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    feed = {images: x, labels: y}
    built = "tf.layers" if with_layers else "tf.nn + tf.get_variable (no tf.layers in this TF)"
    c.progress(f"model built with {built}")
    first = float(sess.run(loss, feed))
    want = numpy_loss(w, x, y)
    if not np.isclose(first, want, rtol=1e-4):
        raise SystemExit(f"first loss {first} differs from numpy's {want}")
    for _ in range(3):
        sess.run(train, feed)
    after = float(sess.run(loss, feed))
    if not after < first:
        raise SystemExit(f"loss did not fall in 3 steps: {first} -> {after}")
    c.progress(f"loss {first:.4f} (numpy {want:.4f}) -> {after:.4f} after 3 steps; timing")

    def step() -> None:
        sess.run(train, feed)

    times = c.sample_interleaved(
        {ROW: step},
        warmup=2,
        samples=10 if args.quick else 40,
        max_seconds=cap,
        batch_target_s=0.0,
    )
    row = c.time_row(ROW, times[ROW], detail=built)
    if ROW in profiled:
        c.progress(f"profiling {ROW!r} (20 steps)")
        row.profile = c.profile_calls(step, 20)
    c.progress(f"  {ROW}: median {row.median * 1e3:.1f} ms over {row.samples} samples")
    c.emit(args.impl, [row])


if __name__ == "__main__":
    main()
