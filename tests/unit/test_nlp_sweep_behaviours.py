"""Behaviours of public text and sequence TF1 programs against TF 1.15's recorded answers
(tests/tf_reference/record_nlp_sweep.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.nlp_sweep_cases import CASES

AREA = "nlp_sweep"


def test_window_shape_errors_name_the_node_its_op_and_input_shapes_as_tfs() -> None:
    expected = reference.case(AREA, "window_shape_error_messages")["messages"]
    actual = CASES["window_shape_error_messages"](tf)["messages"]
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        assert actual[name] == want, name
