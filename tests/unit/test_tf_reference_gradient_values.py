"""Gradient values against TensorFlow 1.15's, case by case (tests/tf_reference/
cases_gradient_values.py): the ops whose table entry follows TF's (a gradient of None, not
differentiable, no entry), and common ops' gradients with their dtypes and shapes."""

from __future__ import annotations

import pytest
from tf_reference import cases_gradient_values
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_gradient_values.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_gradient_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("gradient_values", cases_gradient_values.BOOK, name)
