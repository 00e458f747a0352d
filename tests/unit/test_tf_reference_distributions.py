"""tf.distributions against TensorFlow 1.15's recorded values: densities, cdfs, moments,
entropies, KL divergences, their gradients, tensor names, Python-side facts, sample shapes
and statistics, and error classes, case by case (tests/tf_reference/cases_distributions.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_distributions
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_distributions.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_distributions_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("distributions", cases_distributions.BOOK, name)
