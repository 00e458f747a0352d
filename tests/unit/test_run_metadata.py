"""Session.run parses the step's RunMetadata into the caller's, as TF 1.15 does (recorded by
tests/tf_reference/record_run_metadata.py): replaced, emptied without a trace, and filled
whatever the RunMetadata's Python class (TensorBoard's compat protos)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.run_metadata_cases import CASES

AREA = "run_metadata"


def test_run_metadata_is_replaced_as_in_tf() -> None:
    name = "filled_and_replaced"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_a_run_metadata_of_another_protobuf_module_is_filled() -> None:
    config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")
    x = tf.constant(1.0) * 2.0
    meta = config_pb2.RunMetadata()
    trace = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session() as sess:
        sess.run(x, options=trace, run_metadata=meta)
    assert len(meta.step_stats.dev_stats) > 0
