"""A division by a constant in a cond's branches, a loop's body or a cond of a dataset
function rounds as TF 1.15's product by the reciprocal, against its recorded answers
(tests/tf_reference/record_function_body_division.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.function_body_division_cases import CASES

AREA = "function_body_division"


def _arrays(value: object) -> list[np.ndarray]:
    if isinstance(value, dict):
        return [a for k in sorted(value) for a in _arrays(value[k])]
    if isinstance(value, list) and value and isinstance(value[0], list):
        return [np.asarray(v) for v in value]
    return [np.asarray(value)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_division_by_a_constant_in_a_function_body_rounds_as_tf(name: str) -> None:
    expected = reference.case(AREA, name)
    assert "skipped" not in expected, expected
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for got, want in zip(_arrays(actual), _arrays(expected)):
        # Bit for bit: the product by the reciprocal, not the quotient.
        np.testing.assert_array_equal(got, want, name)
