"""The resource-variable raw ops against TensorFlow 1.15's recorded values, case by case
(tests/tf_reference/cases_resource_vars.py): reads, assignments, gathers and their gradients,
scatters, strided-slice assignment, CountUpTo, destruction, every ResourceApply* and
ResourceSparseApply* beside its ref twin, and the error classes of misuse."""

from __future__ import annotations

import pytest
from tf_reference import cases_resource_vars
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_resource_vars.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_resource_variable_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("resource_vars", cases_resource_vars.BOOK, name)
