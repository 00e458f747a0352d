"""tf.test.assert_equal_graph_def gives TF 1.15's verdicts and messages (recorded by
tests/tf_reference/record_graph_def_equality.py on the same text protos)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from google.protobuf import text_format
from tf_reference import reference
from tfcluster.protos import graph_pb2

_PAIRS = sorted(k for k in reference.load("graph_def_equality") if k != "not_a_graph_def")


def _parse(text: str) -> graph_pb2.GraphDef:
    return text_format.Parse(text, graph_pb2.GraphDef())


@pytest.mark.parametrize("case", _PAIRS)
def test_verdict_and_message_match_tf(case: str) -> None:
    recorded = reference.case("graph_def_equality", case)
    actual, expected = _parse(recorded["actual"]), _parse(recorded["expected"])
    if recorded["message"] is None:
        tf.test.assert_equal_graph_def(actual, expected)
        return
    with pytest.raises(AssertionError) as raised:
        tf.test.assert_equal_graph_def(actual, expected)
    assert str(raised.value) == recorded["message"]


def test_a_non_graph_def_is_a_type_error_as_in_tf() -> None:
    recorded = reference.case("graph_def_equality", "not_a_graph_def")["error"]
    with pytest.raises(TypeError) as raised:
        tf.test.assert_equal_graph_def("x", graph_pb2.GraphDef())
    assert str(raised.value) == recorded["message"]


def test_graphs_built_twice_compare_equal_and_a_changed_one_does_not() -> None:
    def build(scale: float) -> graph_pb2.GraphDef:
        with tf.Graph().as_default() as graph:
            x = tf.placeholder(tf.float32, [None, 3], name="x")
            tf.multiply(x, scale, name="y")
        return graph.as_graph_def()

    tf.test.assert_equal_graph_def(build(2.0), build(2.0))
    with pytest.raises(AssertionError, match="Node named 'y/y'"):
        tf.test.assert_equal_graph_def(build(3.0), build(2.0))
