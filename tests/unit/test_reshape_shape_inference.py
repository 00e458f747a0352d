"""tf.reshape infers static shapes as TF 1.15's shape function does: -1 and unknown entries
alike, one unknown dimension on either side inferred or checked, two wildcards left to the
run; its errors carry TF's messages (tests/tf_reference/reshape_shape_cases.py, recorded by
record_reshape_shapes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tfcluster as tf
from tf_reference.reshape_shape_cases import CASES, run_cases

_DATA = Path(__file__).resolve().parents[1] / "tf_reference/data/reshape_shapes.json"


@pytest.fixture(scope="module")
def results() -> dict:
    return run_cases(tf)


@pytest.mark.parametrize("name", sorted(CASES))
def test_reshape_shapes_and_errors_as_tf(results: dict, name: str) -> None:
    assert results[name] == json.loads(_DATA.read_text())["cases"][name]
