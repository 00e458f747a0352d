"""The MNIST tutorial's model (inference, loss, training, evaluation), as TF 1.x ships it for
`fully_connected_feed.py`: two ReLU layers and a linear layer, variables named
hidden1/weights, hidden1/biases, ..., softmax_linear/biases."""

from __future__ import annotations

import math
from typing import Any

import tfcluster as tf

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(scope: str, inputs: Any, fan_in: int, fan_out: int) -> Any:
    """inputs @ weights + biases, weights ~ truncated normal with stddev 1/sqrt(fan_in)."""
    with tf.name_scope(scope):
        weights = tf.Variable(
            tf.truncated_normal([fan_in, fan_out], stddev=1.0 / math.sqrt(float(fan_in))),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([fan_out]), name="biases")
        return tf.matmul(inputs, weights) + biases


def inference(images: Any, hidden1_units: int, hidden2_units: int) -> Any:
    """The logits of the two-hidden-layer network for a batch of flattened images."""
    hidden1 = tf.nn.relu(_layer("hidden1", images, IMAGE_PIXELS, hidden1_units))
    hidden2 = tf.nn.relu(_layer("hidden2", hidden1, hidden1_units, hidden2_units))
    return _layer("softmax_linear", hidden2, hidden2_units, NUM_CLASSES)


def loss(logits: Any, labels: Any) -> Any:
    """Mean sparse softmax cross-entropy of the logits against int labels."""
    labels = tf.cast(labels, dtype=tf.int64)
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss: Any, learning_rate: float) -> Any:
    """A gradient-descent step that also counts `global_step`; logs the loss as a summary."""
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits: Any, labels: Any) -> Any:
    """How many of the batch's examples the logits classify right (int32 scalar)."""
    correct = tf.nn.in_top_k(predictions=logits, targets=labels, k=1)
    return tf.reduce_sum(input_tensor=tf.cast(correct, tf.int32))
