"""Parsing on a task server through a remote session: serialized Examples (strings with NUL
bytes) travel over gRPC, a SparseTensor comes back as a SparseTensorValue, and a bad
Example is InvalidArgumentError after which the session keeps working."""

from __future__ import annotations

import pytest
import tfcluster as tf


def test_parse_example_runs_on_a_task_server_and_survives_bad_input() -> None:
    server = tf.train.Server.create_local_server()
    try:
        example = tf.train.Example(
            features=tf.train.Features(
                feature={
                    "f": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0])),
                    "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"a\x00", b"b"])),
                }
            )
        ).SerializeToString()
        with tf.Graph().as_default():
            s = tf.placeholder(tf.string, [None])
            feats = {"f": tf.FixedLenFeature([2], tf.float32), "s": tf.VarLenFeature(tf.string)}
            out = tf.parse_example(s, feats)
            bad = tf.parse_example(s, {"f": tf.FixedLenFeature([3], tf.float32)})
            with tf.Session(server.target) as sess:
                got = sess.run(out, {s: [example, example]})
                assert got["f"].tolist() == [[1.0, 2.0], [1.0, 2.0]]
                assert got["s"].values.tolist() == [b"a\x00", b"b", b"a\x00", b"b"]
                assert got["s"].dense_shape.tolist() == [2, 2]
                with pytest.raises(tf.errors.InvalidArgumentError, match=r"output shape: \[3\]"):
                    sess.run(bad, {s: [example]})
                assert sess.run(out["f"], {s: [example]}).tolist() == [[1.0, 2.0]]
    finally:
        server.stop()
