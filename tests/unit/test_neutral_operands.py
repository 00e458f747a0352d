"""Additions of zero replaced by their other operand before constants are
pushed down, against TF 1.15's recorded bits (tests/tf_reference/record_neutral_operands.py):
tf.random_normal's `+ mean` of 0.0 then a constant product, with and without ops that take a
reference input in the step, and each neutral op over a fed operand."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.neutral_operand_cases import CASES

AREA = "neutral_operands"


@pytest.mark.parametrize("name", sorted(CASES))
def test_neutral_operands_as_tf(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key] == want, key
