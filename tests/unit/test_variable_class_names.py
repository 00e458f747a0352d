"""The class names of the variables TF1 programs make, against TF 1.15's recorded answers
(tests/tf_reference/record_variable_classes.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.variable_class_cases import CASES

AREA = "variable_classes"


@pytest.mark.parametrize("name", sorted(CASES))
def test_variable_class_names_are_tfs(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
