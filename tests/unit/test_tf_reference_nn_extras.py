"""tf.nn's CTC, morphology and small losses against TensorFlow 1.15's recorded values:
outputs, dtypes, shapes, tensor names, gradients and error classes, case by case
(tests/tf_reference/cases_nn_extras.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_nn_extras
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_nn_extras.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_nn_extras_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("nn_extras", cases_nn_extras.BOOK, name)
