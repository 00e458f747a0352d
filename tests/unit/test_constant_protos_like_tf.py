"""Constants serialize as TF 1.15's Python writes them (typed value fields for one value or a
constant filled from one value, tensor_content otherwise), and protos print as TF's protobuf
prints them (text format, map entries sorted by key): print(graph_def) and
tf.make_tensor_proto show what they show on TF. Each program of
tests/tf_reference/constant_proto_cases.py runs here and is compared with TF 1.15's recorded
answers (record_constant_protos.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.constant_proto_cases import CASES
from tfcluster.framework import tensor_util


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_serializes_what_tf_serialized(name: str) -> None:
    tf.reset_default_graph()
    assert CASES[name](tf) == reference.case("constant_protos", name)


def test_a_value_written_as_one_typed_value_reads_back_filled() -> None:
    proto = tf.make_tensor_proto(1.5, shape=[2, 3])
    assert list(proto.float_val) == [1.5]
    np.testing.assert_array_equal(tensor_util.make_ndarray(proto), np.full((2, 3), 1.5, np.float32))


def test_a_filled_constant_computes_every_element() -> None:
    tf.reset_default_graph()
    c = tf.constant(3, shape=[2, 2])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(c), np.full((2, 2), 3, np.int32))


def test_bfloat16_values_travel_in_half_val() -> None:
    proto = tf.make_tensor_proto(np.array([1.5], dtype=tf.bfloat16.as_numpy_dtype))
    assert len(proto.half_val) == 1
    assert tensor_util.make_ndarray(proto).astype(np.float32).tolist() == [1.5]


def test_too_many_values_for_the_shape_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Too many elements provided"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
