"""tf.metrics.auc warns as TF 1.15 does for a trapezoidal PR curve, twice (value and update
op), and not otherwise (tests/tf_reference/record_auc_warning.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.auc_warning_cases import CASES

AREA = "auc_warning"


@pytest.mark.parametrize("name", sorted(CASES))
def test_auc_warns_as_tf(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
