"""Layer.add_metric / Model.add_metric against TF 1.15's recorded answers
(tests/tf_reference/record_keras_add_metric.py): the layers and ops a functional model's
add_metric makes, metrics names and objects, fit's history and evaluate's values, and TF's
refusals."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_add_metric_cases import CASES

AREA = "keras_add_metric"


@pytest.mark.parametrize("name", sorted(CASES))
def test_add_metric_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
