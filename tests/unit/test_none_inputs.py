"""None given as an op's input fails as in TF 1.15: op_def_library's ValueError naming the
input ("Tried to convert 'x' to a tensor and failed. Error: None values not supported.") for
the generated ops, convert_to_tensor's own for tf.abs. Programs in
tf_reference/none_input_cases.py, recorded by record_none_inputs.py."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.codec import decode, encode
from tf_reference.none_input_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_none_input_fails_as_in_tf(name: str) -> None:
    want = reference.case("none_inputs", name)
    assert "skipped" not in want, want.get("skipped")
    same(decode(encode(CASES[name](tf))), want, name)
