"""Session.run's errors for fetches that name nothing in the graph or cannot be fetched,
against TF 1.15's (tests/tf_reference/record_fetch_errors.py): the class and the whole
message, a KeyError's text quoted as TF shows it; and what the traceback of a program stopping
at one shows (tests/tf_reference/data/fetch_error_programs.json)."""

from __future__ import annotations

import json
import os
import sys

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.fetch_error_cases import CASES, PROGRAMS, run_program

AREA = "fetch_errors"


@pytest.mark.parametrize("name", sorted(CASES))
def test_fetch_errors_read_as_tfs(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)


_PROGRAMS_DATA = os.path.join(
    os.path.dirname(__file__), "..", "tf_reference", "data", "fetch_error_programs.json"
)
with open(_PROGRAMS_DATA) as f:
    _PROGRAMS_RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_PROGRAMS_RECORDED)


@pytest.mark.parametrize("name", sorted(_PROGRAMS_RECORDED))
def test_uncaught_fetch_errors_show_tfs_exceptions(name: str) -> None:
    """The exceptions the traceback shows: the graph's error, then Session.run's raised while
    handling it (an empty graph's RuntimeError before any)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _PROGRAMS_RECORDED[name]
