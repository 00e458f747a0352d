"""A v1 while loop's gradients of its invariants take TF 1.15's names: the accumulator Exits
`<gradients>/<Enter of the first op reading the tensor>_grad/b_acc_N`, returned without a
gating tuple (tests/tf_reference/loop_gradient_name_cases.py, recorded by
record_loop_gradient_names.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.loop_gradient_name_cases import CASES

AREA = "loop_gradient_names"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_loop_invariants_gradient_takes_tf1s_accumulator_name(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
