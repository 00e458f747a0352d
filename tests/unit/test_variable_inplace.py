"""In-place operators on a resource variable raise TF 1.15's RuntimeError (its message word for
word); on a reference variable they give a new Tensor. Programs in
tf_reference/variable_inplace_cases.py, recorded by record_variable_inplace.py."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.codec import decode, encode
from tf_reference.variable_inplace_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_operator_on_a_variable(name: str) -> None:
    want = reference.case("variable_inplace", name)
    assert "skipped" not in want, want.get("skipped")
    same(decode(encode(CASES[name](tf))), want, name)
