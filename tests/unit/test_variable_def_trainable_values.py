"""A VariableDef's `trainable` written from a variable whose `trainable` argument is not a bool
(a name passed where `trainable` goes, floats, numpy scalars) against TF 1.15's recorded answers
(tests/tf_reference/record_variable_defs.py), and the protobuf 3.x conversion on its own."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.variable_def_cases import CASES
from tfcluster.framework.proto_bool_values import bool_field_value

AREA = "variable_defs"


@pytest.mark.parametrize("name", sorted(CASES))
def test_variable_defs_of_non_bool_trainable_values_are_tfs(name: str) -> None:
    expected = reference.case(AREA, name)
    same(CASES[name](tf), expected, name)


def test_a_bool_field_takes_what_python_turns_into_a_long() -> None:
    assert bool_field_value(True) is True
    assert bool_field_value(np.int32(-1)) is True
    assert bool_field_value(0.9) is False
    for bad, shown in [
        (float("nan"), "nan has type float"),
        (2**64, "18446744073709551616 has type int"),
        (np.zeros(2), "array([0., 0.]) has type numpy.ndarray"),
        ("x" * 300, "'" + "x" * 99 + " has type str"),
    ]:
        with pytest.raises(TypeError) as info:
            bool_field_value(bad)
        assert str(info.value) == shown + ", but expected one of: int, bool"
