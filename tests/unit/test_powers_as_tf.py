"""float32 powers against TF 1.15's recorded bits (tests/tf_reference/record_powers.py): glibc's
powf in the Pow kernel, grappler's rewrites of constant exponents."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.power_cases import CASES

AREA = "powers"


def _check(case: str) -> None:
    expected = reference.case(AREA, case)
    actual = CASES[case](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        got = actual[key]
        wrong = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert len(got) == len(want) and not wrong, f"{key}: {len(wrong)} values differ"


def test_pow_kernel_rounds_as_glibcs_powf() -> None:
    _check("pow_kernel")


@pytest.mark.parametrize("case", ["constant_exponents", "small_graph_keeps_pow"])
def test_constant_exponents_are_rewritten_as_tfs_arithmetic_optimizer(case: str) -> None:
    _check(case)


def test_polynomial_regression_trains_to_tfs_bits() -> None:
    _check("polynomial_regression")
