"""model_to_estimator of subclassed Keras models against TF 1.15's recorded answers
(tests/tf_reference/record_keras_estimator_subclassed.py): the checkpoint's variables after
training, evaluation metrics, predictions, the model's state after, and TF's refusals of
nested subclassed models and list-of-layers attributes."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_estimator_subclassed_cases import CASES

AREA = "keras_estimator_subclassed"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_estimator_of_subclassed_model_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
