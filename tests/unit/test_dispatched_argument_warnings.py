"""Deprecated arguments of functions TF 1.15 wraps in another decorator too (squeeze's
squeeze_dims, expand_dims's dim, count_nonzero's axis, reverse_sequence's batch_dim,
sparse_reduce_sum's reduction_axes): announced once each from a library line, against TF
1.15's recorded runs (tests/tf_reference/record_dispatched_argument_warnings.py)."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.dispatched_argument_warning_cases import PROGRAMS, run_program

_DATA = os.path.join(
    os.path.dirname(__file__), "..", "tf_reference", "data", "dispatched_argument_warnings.json"
)
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_tfs_dispatched_argument_warnings(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
