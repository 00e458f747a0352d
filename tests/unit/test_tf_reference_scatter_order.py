"""Scatter updates naming a row many times against TensorFlow 1.15's recorded values, bit for
bit: each row takes its updates in index order (tests/tf_reference/cases_scatter_order.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_scatter_order
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_scatter_order.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_repeated_row_scatter_matches_tensorflow(name: str) -> None:
    assert_case_matches("scatter_order", cases_scatter_order.BOOK, name)
