"""Graphs tfcluster builds for the usual TF1 programs (Keras models, an Estimator's
checkpoint MetaGraph, RNN training, queue input, partitioned embeddings, summaries): each
builder makes its graph in the default graph and returns None (its MetaGraph is the default
graph's) or the path of a MetaGraph file tfcluster wrote for it. Used by
write_function_library_samples.py (its MetaGraphs go to TF 1.15,
record_function_library.py) and tests/unit/test_function_library_interop.py."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np


def keras_sequential(tf: Any) -> Any:
    m = tf.keras.Sequential(
        [tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)), tf.keras.layers.Dense(2)]
    )
    m.compile("adam", "mse")
    m.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), epochs=1, verbose=0)
    return None


def keras_batch_norm(tf: Any) -> Any:
    """BatchNormalization's moving averages update under the learning-phase cond."""
    i = tf.keras.Input((5,))
    o = tf.keras.layers.BatchNormalization()(tf.keras.layers.Dense(3)(i))
    m = tf.keras.Model(i, o)
    m.compile("sgd", "mse")
    m.fit(np.ones((4, 5), np.float32), np.ones((4, 3), np.float32), verbose=0)
    return None


def queues_and_readers(tf: Any) -> Any:
    path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        w.write(b"x")
    queue = tf.train.string_input_producer([path], num_epochs=1)
    _, value = tf.TFRecordReader().read(queue)
    tf.train.shuffle_batch([value], 2, 10, 2)
    return None


def partitioned_embeddings(tf: Any) -> Any:
    v = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(2))
    e = tf.nn.embedding_lookup(v, tf.constant([1, 7]))
    tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(e))
    return None


def summaries_and_saver(tf: Any) -> Any:
    x = tf.Variable(1.0)
    tf.summary.scalar("x", x)
    tf.summary.histogram("h", tf.ones([3]))
    tf.summary.merge_all()
    tf.train.Saver()
    return None


def rnn_training(tf: Any) -> Any:
    x = tf.placeholder(tf.float32, [2, 4, 3], name="x")
    cell = tf.nn.rnn_cell.BasicLSTMCell(5)
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[4, 2])
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(out))
    return None


def estimator_checkpoint_meta(tf: Any) -> Any:
    """The model.ckpt-N.meta an Estimator trained on a tf.data input_fn writes."""
    model_dir = tempfile.mkdtemp()

    def model_fn(features: Any, labels: Any, mode: Any) -> Any:
        y = tf.layers.dense(features["x"], 1)
        loss = tf.losses.mean_squared_error(labels, y)
        step = tf.train.get_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn() -> Any:
        features = {"x": np.ones((8, 2), np.float32)}
        ds = tf.data.Dataset.from_tensor_slices((features, np.ones((8, 1), np.float32)))
        return ds.map(lambda f, label: (f, label * 2.0)).shuffle(4).batch(2).repeat()

    tf.estimator.Estimator(model_fn, model_dir=model_dir).train(input_fn, steps=2)
    meta = sorted(f for f in os.listdir(model_dir) if f.endswith(".meta"))[-1]
    return os.path.join(model_dir, meta)


CORPUS: dict[str, Callable[[Any], Any]] = {
    f.__name__: f
    for f in (
        keras_sequential,
        keras_batch_norm,
        queues_and_readers,
        partitioned_embeddings,
        summaries_and_saver,
        rnn_training,
        estimator_checkpoint_meta,
    )
}
