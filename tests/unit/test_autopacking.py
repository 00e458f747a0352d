"""Lists holding tensors converted to another dtype cast their tensors first (and a TF 0.x
tf.concat(0, [a, b]) fails on its axis's rank as TF's does), against TF 1.15's recorded
answers (tests/tf_reference/record_autopacking.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.autopacking_cases import CASES

AREA = "autopacking"


def test_a_lists_tensors_are_cast_to_the_dtype_asked_for() -> None:
    name = "tensors_cast_to_the_dtype_asked_for"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_what_cannot_be_converted_fails_as_in_tf() -> None:
    name = "what_cannot_be_converted"
    reference.assert_case_equal(AREA, name, CASES[name](tf))
