"""Behaviours of public TF1 course programs against TF 1.15's recorded answers
(tests/tf_reference/record_course_sweep.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.course_sweep_cases import CASES

AREA = "course_sweep"


def _bits(values: list[np.ndarray]) -> list[list[str]]:
    return [[float(v).hex() for v in np.asarray(a, np.float32).ravel()] for a in values]


def test_constants_are_pushed_down_trees_whose_operands_broadcast() -> None:
    expected = reference.case(AREA, "push_down_through_broadcasting")["values"]
    actual = CASES["push_down_through_broadcasting"](tf)["values"]
    assert [np.shape(a) for a in actual] == [np.shape(e) for e in expected]
    assert _bits(actual) == _bits(expected)


def test_gradients_fold_constants_past_the_tuple_identities_as_tfs_second_round() -> None:
    expected = reference.case(AREA, "gradient_through_tuple_identities")
    actual = CASES["gradient_through_tuple_identities"](tf)
    for key in ("weights", "by_hand", "gradients"):
        assert _bits([actual[key]]) == _bits([expected[key]]), key


def test_log_of_a_softmax_read_once_is_computed_as_log_softmax() -> None:
    expected = reference.case(AREA, "log_of_softmax")
    actual = CASES["log_of_softmax"](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert _bits([actual[key]]) == _bits([want]), key
