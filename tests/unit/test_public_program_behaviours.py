"""Behaviours public TF1 programs rely on, each checked as TensorFlow 1.15 behaves (values
worked out by hand or recorded from TF 1.15 where stated)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
import tfcluster as tf


def test_softmax_xent_takes_labels_wrapped_in_a_list_as_tf_1_15() -> None:
    # labels=tf.stop_gradient([y]) makes labels [1, ?, 7]: TF 1.15 flattens both to 2-D.
    logits = tf.placeholder(tf.float32, [None, 3])
    labels = tf.placeholder(tf.float32, [None, 3])
    cost = tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=[labels])
    assert cost.shape.as_list() == [None]
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
    y = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
    with tf.Session() as sess:
        got = sess.run(cost, {logits: x, labels: y})
    want = -np.sum(y * (x - np.log(np.sum(np.exp(x), 1, keepdims=True))), 1)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_softmax_xent_labels_of_another_size_fail_when_run() -> None:
    logits = tf.placeholder(tf.float32, [None, 7])
    labels = tf.placeholder(tf.float32, [None, 5])
    cost = tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=labels)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(cost, {logits: np.zeros((2, 7)), labels: np.zeros((2, 5))})


def test_programs_importing_tensorflow_python_modules_get_tfclusters() -> None:
    # `from tensorflow.python.framework import ops; ops.reset_default_graph()` and friends.
    from tfcluster.python.framework import ops

    # These are other modules themselves at run time (imported by name: no static types).
    def private(name: str) -> Any:
        return importlib.import_module(f"tfcluster.python.{name}")

    dtypes, gfile, tf_logging = (
        private(n) for n in ("framework.dtypes", "platform.gfile", "platform.tf_logging")
    )
    moving_averages = private("training.moving_averages")
    control_flow_ops, math_ops = private("ops.control_flow_ops"), private("ops.math_ops")

    tf.constant(1.0)
    before = tf.get_default_graph()
    ops.reset_default_graph()
    assert tf.get_default_graph() is not before
    assert ops.get_default_graph() is tf.get_default_graph()
    assert dtypes.float32 is tf.float32
    assert gfile.Exists is tf.gfile.Exists
    assert tf_logging.info is tf.logging.info
    assert moving_averages.ExponentialMovingAverage is tf.train.ExponentialMovingAverage
    total = control_flow_ops.with_dependencies([tf.no_op()], math_ops.reduce_sum([1.0, 2.0]))
    with tf.Session() as sess:
        assert sess.run(total) == 3.0


def test_edit_distance_reads_sequences_longer_than_the_last_dimension() -> None:
    # Shape [1, 1, 1] with 4 and 5 characters: TF 1.15 gives [[2.]] (recorded), "bear"/"beers"
    # with the truth's second entry repeated at index [0, 0, 1] as the program writes it.
    h = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3]], list("bear"), [1, 1, 1])
    t = tf.SparseTensor(
        [[0, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 3], [0, 0, 4]], list("beers"), [1, 1, 1]
    )
    words = tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1]], list("abc"), [2, 1, 1])
    truth = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 0, 0]], list("abb"), [2, 1, 1])
    with tf.Session() as sess:
        assert sess.run(tf.edit_distance(h, t, normalize=False)).tolist() == [[2.0]]
        got = sess.run(tf.edit_distance(words, truth, normalize=True))
    assert got.tolist() == [[0.5], [1.0]]


def test_edit_distance_still_refuses_a_leading_index_outside_the_shape() -> None:
    # TF 1.15 writes such a group outside its output buffer (undefined); later TFs refuse.
    h = tf.SparseTensor([[3, 0]], ["a"], [2, 1])
    t = tf.SparseTensor([[0, 0]], ["a"], [2, 1])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(tf.edit_distance(h, t))


def test_a_fed_variable_is_read_as_the_fed_value_and_cannot_be_updated() -> None:
    # TF 1.15 (checked): y = 9.0 with x fed 3.0, x stays 1.0; an Assign on a fed x is refused.
    x = tf.get_variable("min_x", [], tf.float32, tf.constant_initializer(1))
    y = x**2
    step = tf.assign(x, x - 0.2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {x: 3.0}) == 9.0
        assert sess.run(x + 1, {x: 7.0}) == 8.0
        assert sess.run(x) == 1.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="Assign"):
            sess.run(step, {x: 4.0})
        assert sess.run(x) == 1.0
        sess.run(step)
        assert sess.run(x) == pytest.approx(0.8)


def test_fetched_numpy_scalars_print_as_under_tf_1_15() -> None:
    # TF 1.15 (numpy 1.x, checked) prints `[1.5, 2, array([1., 2.], dtype=float32)]`; numpy 2
    # would show np.float32(1.5) and np.int32(2) inside the list.
    with tf.Session() as sess:
        got = sess.run([tf.constant(1.5), tf.constant(2), tf.constant([1.0, 2.0])])
    assert repr(got) == "[1.5, 2, array([1., 2.], dtype=float32)]"
    assert repr((np.float64(0.1), np.int64(3), np.bool_(True))) == "(0.1, 3, True)"


def test_restoring_from_a_missing_directory_is_not_found_as_tf_1_15(tmp_path: Any) -> None:
    # TF 1.15 (checked): Saver.restore(sess, "my_net/save_net.ckpt") with no my_net directory
    # raises NotFoundError "my_net; No such file or directory" from its file matching; in an
    # existing directory without the checkpoint it is the ValueError.
    tf.Variable(1.0)
    saver = tf.train.Saver()
    (tmp_path / "empty").mkdir()
    with tf.Session() as sess:
        missing = tmp_path / "my_net"
        with pytest.raises(tf.errors.NotFoundError) as err:
            saver.restore(sess, str(missing / "save_net.ckpt"))
        assert str(err.value) == f"{missing}; No such file or directory"
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "empty" / "save_net.ckpt"))
    assert tf.train.checkpoint_exists(str(tmp_path / "empty" / "x")) is False
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.checkpoint_exists(str(missing / "x"))
