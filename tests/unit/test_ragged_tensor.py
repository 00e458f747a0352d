"""tf.RaggedTensor behaviour beyond the recorded reference values: feeding and fetching
through a session, tf.nest with expand_composites, tf.ragged.RaggedTensorValue, the kernels'
validation of row partitions, and that dispatch leaves ordinary tensors' errors alone."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.ops import ragged_ops


def test_constructor_is_private_as_in_tensorflow() -> None:
    with tf.Graph().as_default(), pytest.raises(ValueError, match="factory methods"):
        tf.RaggedTensor(tf.constant([1, 2]), tf.constant([0, 2], tf.int64))


def test_placeholder_is_fed_a_ragged_tensor_value_of_its_ragged_rank() -> None:
    with tf.Graph().as_default():
        ph = tf.ragged.placeholder(tf.int32, 2, [])
        total = tf.reduce_sum(ph.flat_values)
        value = tf.ragged.constant_value([[[1, 2]], [[3], []]])
        with tf.Session() as sess:
            assert sess.run(total, {ph: value}) == 6
            fetched = sess.run(ph, {ph: value})
            assert isinstance(fetched, tf.ragged.RaggedTensorValue)
            assert fetched.to_list() == [[[1, 2]], [[3], []]]
            with pytest.raises(TypeError, match="RaggedTensorValue"):
                sess.run(total, {ph: [[1, 2]]})
            with pytest.raises(ValueError, match="ragged_rank"):
                sess.run(total, {ph: tf.ragged.constant_value([[1, 2]])})


def test_bad_row_splits_fail_the_step_and_the_session_keeps_working() -> None:
    with tf.Graph().as_default():
        splits = tf.placeholder(tf.int64, [None])
        rt = tf.RaggedTensor.from_row_splits(tf.constant([1.0, 2.0, 3.0]), splits)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="valid RaggedTensor"):
                sess.run(rt, {splits: [0, 2, 1]})
            assert sess.run(rt, {splits: [0, 1, 3]}).to_list() == [[1.0], [2.0, 3.0]]


def test_to_sparse_kernel_rejects_splits_that_do_not_partition_the_values() -> None:
    with tf.Graph().as_default():
        op = ragged_ops.ragged_to_sparse_op(
            [tf.constant([0, 2, 5], tf.int64)], tf.constant([1, 2, 3]), "RaggedTensorToSparse"
        )
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Final"):
            sess.run(op.outputs[0])


def test_nest_expand_composites_flattens_ragged_into_flat_values_and_splits() -> None:
    with tf.Graph().as_default():
        rt = tf.ragged.constant([[[1], [2, 3]], [[4]]])
        flat = tf.nest.flatten({"a": rt}, expand_composites=True)
        assert flat == [rt.flat_values, *rt.nested_row_splits]
        assert tf.nest.flatten(rt) == [rt]
        doubled = tf.nest.map_structure(lambda t: t, rt, expand_composites=True)
        assert isinstance(doubled, tf.RaggedTensor)
        assert doubled.ragged_rank == 2
        with tf.Session() as sess:
            assert sess.run(doubled).to_list() == [[[1], [2, 3]], [[4]]]


def test_ragged_tensor_value_holds_numpy_rows() -> None:
    value = tf.ragged.RaggedTensorValue(
        tf.ragged.RaggedTensorValue(np.array([1, 2, 3]), np.array([0, 1, 3], np.int64)),
        np.array([0, 2, 2], np.int64),
    )
    assert value.to_list() == [[[1], [2, 3]], []]
    assert value.ragged_rank == 2
    assert [s.tolist() for s in value.nested_row_splits] == [[0, 2, 2], [0, 1, 3]]
    assert value.flat_values.tolist() == [1, 2, 3]
    assert str(value) == "<tf.RaggedTensorValue [[[1], [2, 3]], []]>"
    with pytest.raises(TypeError, match="row_splits"):
        tf.ragged.RaggedTensorValue(np.array([1]), [0, 1])


def test_dispatch_leaves_errors_of_ordinary_arguments_alone() -> None:
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            tf.add(tf.constant(1.0), object())
        with pytest.raises(ValueError):
            tf.concat([tf.constant([1]), tf.constant([[1]])], axis=0)
        assert tf.add(tf.constant(1), 2).op.type == "Add"


def test_ragged_range_of_floats_adds_delta_step_by_step() -> None:
    with tf.Graph().as_default():
        rt = tf.ragged.range(tf.constant([0.1], tf.float32), 1.0, 0.1)
        with tf.Session() as sess:
            got = sess.run(rt).flat_values
        want = np.add.accumulate(np.array([0.1] + [0.1] * 8, np.float32), dtype=np.float32)
        np.testing.assert_array_equal(got, want)


def test_ragged_range_with_zero_delta_is_invalid() -> None:
    with tf.Graph().as_default():
        rt = tf.ragged.range([1, 2], 5, tf.constant(0))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="delta"):
            sess.run(rt)
