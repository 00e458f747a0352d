"""A variable whose initial value reads other variables is initialized in any order, as TF
1.15 guards it (the reads replaced by initialized values, the copies named after the
variable, the op count and so later seeded draws TF's; ExponentialMovingAverage's slots
too): tests/tf_reference/initial_value_guard_cases.py, recorded by
record_initial_value_guard.py."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.initial_value_guard_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_initial_values_are_guarded_as_in_tf(name: str) -> None:
    same(CASES[name](tf), reference.case("initial_value_guard", name), name)
