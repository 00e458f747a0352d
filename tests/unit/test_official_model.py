"""Programs in the style of TF1 model scripts print what TF 1.15 prints: a tf.data function's
deprecated names are announced when AutoGraph converts it, together and in source order,
before its body logs anything ("The name tf.decode_csv is deprecated" before the function's
own "Parsing ..." line). Compared with TF 1.15's output
(tests/tf_reference/data/official_model.json, record_official_model.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tf_reference.official_model_cases import CASES, run_case

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "official_model.json"
_RECORDED: dict[str, Any] = json.loads(_DATA.read_text())["cases"]


def test_every_case_is_recorded() -> None:
    assert sorted(CASES) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_tfs_log_lines_in_tfs_order(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_case(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
