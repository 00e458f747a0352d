"""tf.raw_ops against TensorFlow 1.15's recorded values, case by case
(tests/tf_reference/cases_raw_ops.py): outputs, tensor names, output structures, gradients
through raw ops, and the error classes of misuse."""

from __future__ import annotations

import pytest
from tf_reference import cases_raw_ops
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_raw_ops.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_raw_op_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("raw_ops", cases_raw_ops.BOOK, name)
