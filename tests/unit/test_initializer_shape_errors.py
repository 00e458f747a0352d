"""An initializer called with a shape that has an unknown dimension raises TF 1.15's error class
(TypeError: TF fails converting the None), with a message saying what to fix
(tests/tf_reference/initializer_shape_error_cases.py, recorded by
record_initializer_shape_errors.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tfcluster as tf
from tf_reference.initializer_shape_error_cases import run_cases

_DATA = Path(__file__).resolve().parents[1] / "tf_reference/data/initializer_shape_errors.json"


def test_initializers_given_an_unknown_dimension_raise_tf_error_classes() -> None:
    assert run_cases(tf) == json.loads(_DATA.read_text())["cases"]


def test_the_message_names_the_shape() -> None:
    with pytest.raises(TypeError, match=r"fully defined shape, got \[None, 3\]"):
        tf.zeros_initializer()([None, 3])
