"""tf.linalg's matrix functions, tridiagonal ops and LinearOperators against TensorFlow 1.15's
recorded values: outputs, dtypes, shapes, tensor names, gradients and error classes, case by
case (tests/tf_reference/cases_linear_operators.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_linear_operators
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_linear_operators.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_linear_operator_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("linear_operators", cases_linear_operators.BOOK, name)
