"""A variable read under control_dependencies([update]) sees the update, as in TensorFlow
(where `v/read` shares the variable's buffer). SyncReplicasOptimizer relies on it: the tokens
it fills with the global step after the update must carry the new step. TensorFlow 1.15
gives [[1, 1], [2, 2], [3, 3]] for the program below."""

from __future__ import annotations

import pytest
import tfcluster as tf


def test_fill_under_control_dependencies_reads_the_updated_variable() -> None:
    with tf.Graph().as_default():
        v = tf.Variable(0, name="v")
        inc = tf.assign_add(v, 1)
        with tf.control_dependencies([inc]):
            filled = tf.fill([2], v)
        assert [t.name for t in filled.op.inputs] == ["Fill/dims:0", "v/read:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert [sess.run(filled).tolist() for _ in range(3)] == [[1, 1], [2, 2], [3, 3]]


def test_read_of_an_uninitialized_variable_fails_and_the_session_goes_on() -> None:
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        doubled = v * 2.0
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError) as e:
                sess.run(doubled)
            # (TF 1.15 names the node `v/read`; here a read with one consumer is done by that
            # consumer, runtime/read_forwarding.py, and the message names it.)
            assert str(e.value).startswith("Attempting to use uninitialized value v\n")
            sess.run(v.initializer)
            assert sess.run(doubled) == 2.0
