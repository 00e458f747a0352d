"""The math ops (segments, scatters, partition/stitch, ordering, counting, special functions,
element-wise extras) against TensorFlow's recorded values: outputs, dtypes, shapes, tensor
names, gradients and error classes, case by case (tests/tf_reference/cases_mathops.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_mathops
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_mathops.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_math_op_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("mathops", cases_mathops.BOOK, name)
