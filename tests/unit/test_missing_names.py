"""A program reading a name TF 1.15 does not have prints TF's last traceback line, against
TF 1.15's recorded runs (tests/tf_reference/record_missing_names.py): the module TF names
(tf.compat.v1's own), and no "Did you mean" that Python 3.10+ would add."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.missing_name_cases import PROGRAMS, run_program

_DATA = os.path.join(os.path.dirname(__file__), "..", "tf_reference", "data", "missing_names.json")
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_tfs_missing_name_error(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
