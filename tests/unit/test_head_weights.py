"""Canned estimators read, cast and check their weight column as TF 1.15's heads do: integer
weights cast to float, a weight of the wrong width refused with TF's error when the step runs,
per-logit weights for a regressor, and the ops under `<head>/weights/`
(tests/tf_reference/head_weight_cases.py, recorded by record_head_weights.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.head_weight_cases import CASES

AREA = "head_weights"


@pytest.mark.parametrize("name", sorted(CASES))
def test_head_weights_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
