"""tf.random (stateless values, stateful shapes and support) and tf.bitwise against
TensorFlow's recorded values: outputs, dtypes, shapes, tensor names, gradients and error
classes, case by case (tests/tf_reference/cases_random.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_random
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_random.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_random_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("random", cases_random.BOOK, name)
