"""Summary ops given Python and numpy values convert them as TF 1.15's op wrappers do, against
its recorded graphs and summaries (tests/tf_reference/record_summary_inputs.py): constants
named in the summary's scope, histogram and image inputs made float32 (a numpy uint8 image
scaled as a float one), audio clips float32."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.summary_input_cases import CASES

AREA = "summary_inputs"
_EXPECTED = reference.case(AREA, "summary_inputs")


@pytest.fixture(scope="module")
def made() -> dict[str, dict[str, list[list[str]]]]:
    return CASES["summary_inputs"](tf)


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_summary_inputs_convert_as_tfs_op_wrappers(made: dict, name: str) -> None:
    assert made[name]["inputs"] == _EXPECTED[name]["inputs"]
    assert made[name]["summary"] == _EXPECTED[name]["summary"]
