"""A Keras model's train_function, test_function and predict_function against TF 1.15's
recorded answers (tests/tf_reference/record_keras_model_functions.py): absent before
compile, None after it, made by `_make_*_function()` and by fit and predict, called with
TF's inputs (inputs, targets, fed sample weights, the learning phase) for the loss and
running metrics or the outputs, and made again after being set to None."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_model_functions_cases import CASES

AREA = "keras_model_functions"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_model_functions_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
