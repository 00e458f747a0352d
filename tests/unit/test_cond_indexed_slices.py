"""tf.cond branches returning IndexedSlices give IndexedSlices, merged part by part under
TF1's names, as TF 1.15's cond does (tests/tf_reference/data/cond_indexed_slices.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tfcluster as tf
from tf_reference.cond_indexed_slices_cases import CASES, run_all

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "cond_indexed_slices.json"
_RECORDED: dict[str, Any] = json.loads(_DATA.read_text())["cases"]


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Any]:
    return run_all(tf)


def test_every_case_is_recorded() -> None:
    assert sorted(CASES) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_result_is_tfs(outcomes: dict[str, Any], name: str) -> None:
    assert outcomes[name] == _RECORDED[name]
