"""tf.linalg, the tf.matrix_* ops, einsum and tensordot against TensorFlow's recorded values:
outputs, dtypes, shapes, tensor names, gradients and error classes, case by case
(tests/tf_reference/cases_linalg.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_linalg
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_linalg.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_linalg_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("linalg", cases_linalg.BOOK, name)
