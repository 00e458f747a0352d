"""A queue-fed program's failing input thread against TF 1.15's recorded runs
(tests/tf_reference/record_queue_runner_errors.py): the Coordinator logs the first real error
given before any stop request and keeps it for join() (none given after a stop request); a
callable made without a feed_list raises the runtime's bare "[[{{node X}}]]" message, one made
with a feed_list, like Session.run, the node's definition."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.queue_runner_error_cases import PROGRAMS, run_program

_DATA = os.path.join(
    os.path.dirname(__file__), "..", "tf_reference", "data", "queue_runner_errors.json"
)
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_reports_errors_as_tf(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
