"""The models whose files (checkpoints, MetaGraphs, frozen graphs, SavedModels) TensorFlow
and tfcluster exchange in the tf_files tests: each builder takes the `tf` module (TF's
compat.v1 in the recorder, tfcluster in the tests), so both sides build the same graph with
the same names and initial values. Imports nothing but numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# A device string that names the local CPU: variables placed with it are on another device
# (as a Saver groups them) than unplaced ones, so sharded savers write two shards.
SECOND_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def mlp_inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(11)
    return rng.randn(5, 6).astype(np.float32), rng.randint(0, 3, size=5).astype(np.int64)


def conv_inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(12)
    return rng.randn(4, 8, 8, 1).astype(np.float32), rng.randint(0, 10, size=4).astype(np.int64)


def mlp(tf: Any) -> dict[str, Any]:
    """6 -> 8 (relu) -> 3 (softmax), trained by gradient descent."""
    rng = np.random.RandomState(1)
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    w1 = tf.Variable((rng.randn(6, 8) * 0.5).astype(np.float32), name="mlp/hidden/kernel")
    b1 = tf.Variable(np.full(8, 0.1, np.float32), name="mlp/hidden/bias")
    w2 = tf.Variable((rng.randn(8, 3) * 0.5).astype(np.float32), name="mlp/logits/kernel")
    b2 = tf.Variable(np.zeros(3, np.float32), name="mlp/logits/bias")
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1, name="hidden")
    logits = tf.add(tf.matmul(hidden, w2), b2, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xent, name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step, name="train")
    tf.add_to_collection("train_op", train)
    tf.add_to_collection("outputs", probs)
    return {"x": x, "y": y, "probs": probs, "loss": loss, "train": train, "step": step}


def convnet(tf: Any) -> dict[str, Any]:
    """conv 3x3x4 + bias + relu, 2x2 max pool, dense 64 -> 10; Adam; the conv variables on
    a second device so that a sharded Saver writes two shards."""
    rng = np.random.RandomState(2)
    images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    with tf.device(SECOND_DEVICE):
        kernel = tf.Variable((rng.randn(3, 3, 1, 4) * 0.3).astype(np.float32), name="conv/kernel")
        bias = tf.Variable(np.full(4, 0.05, np.float32), name="conv/bias")
    fc_w = tf.Variable((rng.randn(64, 10) * 0.1).astype(np.float32), name="fc/kernel")
    fc_b = tf.Variable(np.zeros(10, np.float32), name="fc/bias")
    conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], "SAME", name="conv/conv")
    act = tf.nn.relu(tf.nn.bias_add(conv, bias), name="conv/relu")
    pool = tf.nn.max_pool(act, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
    flat = tf.reshape(pool, [-1, 64], name="flat")
    logits = tf.add(tf.matmul(flat, fc_w), fc_b, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    classes = tf.argmax(logits, 1, name="classes")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_mean(xent, name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step, name="train")
    return {
        "images": images,
        "labels": labels,
        "probs": probs,
        "classes": classes,
        "loss": loss,
        "train": train,
        "step": step,
    }


def typed_variables(tf: Any) -> dict[str, Any]:
    """Variables of the dtypes a checkpoint holds: strings, ints, a scalar, bool, float64."""
    return {
        "words": tf.Variable(np.array([b"alpha", b"", b"g\x00mma"], dtype=object), name="words"),
        "counts": tf.Variable(np.arange(6, dtype=np.int64).reshape(2, 3), name="counts"),
        "ids": tf.Variable(np.array([7, -3], np.int32), name="ids"),
        "scale": tf.Variable(np.float64(2.5), name="scale"),
        "mask": tf.Variable(np.array([True, False]), name="mask"),
    }
