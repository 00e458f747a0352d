"""tf.keras.models.load_model on a path holding no model raises TF 1.15's OSError for a
missing SavedModel (keras_load_model_path_cases.py, recorded by
tests/tf_reference/record_keras_load_model_path.py)."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_load_model_path_cases import CASES, run


@pytest.mark.parametrize("case", sorted(CASES))
def test_load_model_on_a_path_without_a_model(case: str, tmp_path: Any) -> None:
    got = run(tf, case, str(tmp_path))
    assert got == reference.case("keras_load_model_path", case)
