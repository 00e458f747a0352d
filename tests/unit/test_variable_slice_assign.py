"""Sliced assignment to variables as TF 1.15 does it (`v[1:3].assign(x)` on ref and resource
variables: values, the ops built, the ValueError for a plain tensor's slice), against its
recorded answers (tests/tf_reference/record_variable_slice_assign.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.variable_slice_assign_cases import CASES

AREA = "variable_slice_assign"


@pytest.mark.parametrize("name", sorted(CASES))
def test_sliced_assignment_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
