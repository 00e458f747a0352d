"""A dataset transformation given something that is not a function fails as TF 1.15's does
(ValueError "Argument must be callable" for map, filter, flat_map, interleave and reduce;
TypeError for apply and from_generator), before anything is added to the graph
(tests/tf_reference/dataset_callable_cases.py, recorded by record_dataset_callable_errors.py)."""

from __future__ import annotations

import json
from pathlib import Path

import tfcluster as tf
from tf_reference.dataset_callable_cases import run_cases

_DATA = Path(__file__).resolve().parents[1] / "tf_reference/data/dataset_callable_errors.json"


def test_non_functions_fail_as_tf() -> None:
    assert run_cases(tf) == json.loads(_DATA.read_text())["cases"]
