"""Optimizers a program writes itself against TF 1.15's private modules (non-slot variables
made by keyword or variable_scope.variable, state_ops' scatter updates, resource_scatter_add,
the class's own _resource_apply_dense / _resource_apply_sparse for resource variables),
against TF 1.15's recorded answers (tests/tf_reference/record_program_optimizers.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.program_optimizer_cases import CASES

AREA = "program_optimizers"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_program_optimizer_trains_as_in_tf(name: str) -> None:
    expected = reference.case(AREA, name)
    assert "skipped" not in expected, expected
    same(CASES[name](tf), expected, name, rtol=1e-5, atol=1e-5)
