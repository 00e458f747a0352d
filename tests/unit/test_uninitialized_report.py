"""Where the ops reporting uninitialized variables are placed (the flags without a device, the
rest on /cpu:0 or TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING), against TF 1.15's recorded
answers (tests/tf_reference/record_uninitialized_report.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.uninitialized_report_cases import CASES

AREA = "uninitialized_report"


@pytest.mark.parametrize("name", sorted(CASES))
def test_uninitialized_variable_report_ops_are_placed_as_tf(name: str) -> None:
    expected = reference.case(AREA, name)
    assert "skipped" not in expected, expected
    same(CASES[name](tf), expected, name)
