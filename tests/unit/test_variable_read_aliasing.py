"""A variable's read seeing an Assign of the same step, against TF 1.15's recorded answers
(tests/tf_reference/record_variable_read_aliasing.py): TF's read aliases the variable's
buffer and Assign copies into it, so consumers that run after the Assign (a MatMul's gradient
over an LSTM's saved state, as in the Udacity 6_lstm assignment) take the assigned value."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.variable_read_aliasing_cases import CASES

AREA = "variable_read_aliasing"


@pytest.mark.parametrize("name", sorted(CASES))
def test_variable_reads_see_assigns_of_the_step_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
