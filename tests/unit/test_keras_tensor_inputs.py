"""Keras models fed by their own tensors against TF 1.15's recorded answers
(tests/tf_reference/record_keras_tensor_inputs.py): Input(tensor=...) of a constant or of a
dataset iterator's get_next(), compiled with target_tensors (list, dict, one tensor), run by
fit / evaluate / predict with x=None and steps and by *_on_batch(None): the same history,
printed progress, predictions and ValueErrors (no steps, a batch size not the Input's); a
tensor input beside a placeholder input fed by arrays; the callback parameters of fit's loops
(TF's order, fit's verbose)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_tensor_input_cases import CASES

AREA = "keras_tensor_inputs"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_model_fed_by_its_tensors_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
