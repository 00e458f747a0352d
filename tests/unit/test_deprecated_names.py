"""A program reading a name TF 1.15 announces as deprecated gets TF's warning on stderr, once
per name, at the line that read it ("The name tf.placeholder is deprecated. Please use
tf.compat.v1.placeholder instead."); reads through tf.compat.v1, from-imports and code that is
not in a file say nothing. Compared with TF 1.15's output
(tests/tf_reference/data/deprecated_names.json)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tf_reference.deprecated_name_cases import CASES, run_case

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "deprecated_names.json"
_RECORDED: dict[str, Any] = json.loads(_DATA.read_text())["cases"]


def test_every_case_is_recorded() -> None:
    assert sorted(CASES) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_tfs_deprecation_warnings(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_case(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
