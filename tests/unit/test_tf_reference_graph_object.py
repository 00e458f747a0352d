"""The graph-object API against TensorFlow 1.15's recorded answers
(tests/tf_reference/graph_object_cases.py): Operation.get_attr's types and values for every attr
kind (bytes, not str; TensorProto, not an array; TensorShapeProto, not a TensorShape), node_def,
op_def, traceback, consumers, lookup errors with their messages, GraphDef, version, seed, reprs."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import graph_object_cases as cases
from tf_reference import reference


@pytest.mark.parametrize("case", sorted(cases.PROGRAMS))
def test_graph_object_api_matches_tensorflow(case: str) -> None:
    want: dict[str, Any] = reference.case("graph_object", case)
    got = cases.run(tf, case)
    assert sorted(got) == sorted(want)
    diffs = {k: (got[k], want[k]) for k in want if _plain(got[k]) != _plain(want[k])}
    assert not diffs, f"{case}: tfcluster vs TF: {diffs}"


def _plain(value: Any) -> Any:
    """Tuples as lists: the recording is JSON."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def test_get_attr_of_a_missing_attr_says_which_op_and_attr() -> None:
    with tf.Graph().as_default():
        c = tf.constant(1.0, name="c")
        with pytest.raises(ValueError, match="Operation 'c' has no attr named 'T'"):
            c.op.get_attr("T")
