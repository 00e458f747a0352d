"""The ops losses and metrics build on, beyond what the TF-recorded cases cover: gradients
of SelectV2 and SparseTensorDenseAdd (confusion_matrix's) against finite differences, a failing
assertion of weights' shapes, and bad input to the set and sparse kernels
(InvalidArgumentError, the session still usable afterwards)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match
from tfcluster.ops import check_ops, sets_ops, sparse_ops

RNG = np.random.default_rng(5)


def test_select_v2_gradient_sums_over_broadcast_dims() -> None:
    cond = np.array([[True, False, True], [False, True, True]])
    assert_gradients_match(
        lambda x, y: tf.where_v2(cond, x, y), [RNG.normal(size=(2, 3)), RNG.normal(size=(3,))]
    )


def test_sparse_tensor_dense_add_gradient_reaches_values_and_dense() -> None:
    indices = np.array([[0, 1], [2, 0], [0, 1]], np.int64)

    def build(values: tf.Tensor, dense: tf.Tensor) -> tf.Tensor:
        sp = tf.SparseTensor(indices, values, [3, 2])
        return sparse_ops.sparse_add(dense, sp)

    assert_gradients_match(build, [RNG.normal(size=(3,)), RNG.normal(size=(3, 2))])


def test_a_failed_assert_names_its_data_and_the_session_keeps_working() -> None:
    x = tf.placeholder(tf.float32, [None])
    check = check_ops.assert_non_negative(x, message="x must not be negative")
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {x: [1.0, -2.0, 3.0, 4.0]})
        assert "assertion failed: [x must not be negative]" in str(info.value)
        assert "[1 -2 3...]" in str(info.value)
        assert sess.run(y, {x: [1.0]}).tolist() == [1.0]


def test_set_and_sparse_kernels_reject_bad_input() -> None:
    ind = tf.placeholder(tf.int64, [None, 2])
    val = tf.placeholder(tf.int64, [None])
    sp = tf.SparseTensor(ind, val, tf.constant([2, 3], tf.int64))
    size = sets_ops.set_size(sp)
    inter = sets_ops.set_intersection(tf.constant([[1, 2], [3, 4]], tf.int64), sp)
    shape = tf.placeholder(tf.int64, [None])
    reshaped = sparse_ops.sparse_reshape(sp, shape)
    with tf.Session() as sess:
        out_of_order = {ind: [[1, 0], [0, 1]], val: [1, 2]}
        with pytest.raises(tf.errors.InvalidArgumentError, match="lexicographic order"):
            sess.run(size, out_of_order)
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
            sess.run(inter.values, {ind: [[0, 0], [2, 1]], val: [1, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="only one output dimension"):
            sess.run(reshaped.indices, {ind: [[0, 0]], val: [1], shape: [-1, -1]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="requested shape"):
            sess.run(reshaped.indices, {ind: [[0, 0]], val: [1], shape: [4, 2]})
        good = {ind: [[0, 1], [1, 2]], val: [2, 3]}
        assert sess.run(size, good).tolist() == [1, 1]
        assert sess.run(reshaped.indices, {**good, shape: [3, 2]}).tolist() == [[0, 1], [2, 1]]
