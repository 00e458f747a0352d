"""Operands that cannot become tensors raise TF 1.15's errors, class and message (recorded by
tests/tf_reference/record_conversion_errors.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.conversion_error_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_conversion_error_is_tf1s(name: str) -> None:
    expected = reference.case("conversion_errors", name)["raised"]
    assert expected is not None
    assert CASES[name](tf) == expected
