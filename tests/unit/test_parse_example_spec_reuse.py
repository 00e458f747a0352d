"""ParseExample keeps the feature specs it made from its key and default tensors while the
same tensors come again (constants, every step); new default values fed in a later step are
the ones that step uses."""

from __future__ import annotations

import numpy as np
import tfcluster as tf


def example(**ints: int) -> bytes:
    feature = {
        k: tf.train.Feature(int64_list=tf.train.Int64List(value=[v])) for k, v in ints.items()
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_fed_defaults_of_each_step_fill_the_missing_features() -> None:
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [None])
        default = tf.placeholder(tf.int64, [])
        parsed = tf.parse_example(
            serialized,
            {
                "a": tf.FixedLenFeature([], tf.int64),
                "b": tf.FixedLenFeature([], tf.int64, default_value=default),
            },
        )
        batch = [example(a=1, b=5), example(a=2), example(a=3)]
        with tf.Session() as sess:
            for fill in (7, -4, 7, 0):
                got = sess.run(parsed, {serialized: batch, default: fill})
                np.testing.assert_array_equal(got["a"], [1, 2, 3])
                np.testing.assert_array_equal(got["b"], [5, fill, fill])


def test_constant_defaults_give_the_same_values_every_step() -> None:
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [None])
        parsed = tf.parse_example(
            serialized,
            {
                "a": tf.FixedLenFeature([], tf.int64, default_value=9),
                "s": tf.FixedLenFeature([], tf.string, default_value=b"none"),
            },
        )
        with tf.Session() as sess:
            for n in (1, 40, 3):
                batch = [example(a=i) if i % 2 else example() for i in range(n)]
                got = sess.run(parsed, {serialized: batch})
                want = [i if i % 2 else 9 for i in range(n)]
                np.testing.assert_array_equal(got["a"], want)
                assert got["s"].tolist() == [b"none"] * n
