"""tf.nn normalisation, statistics, activations and losses against TensorFlow's recorded values:
outputs, dtypes, shapes, tensor names, gradients and error classes, case by case
(tests/tf_reference/cases_nn.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_nn
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_nn.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_nn_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("nn", cases_nn.BOOK, name)
