"""Deprecation warnings TF 1.15 prints from its own files while a program reads input the TF1
way, against its recorded runs (tests/tf_reference/record_input_library_warnings.py): the
queue input functions' inner calls (input_producer, limit_epochs, QueueRunner,
add_queue_runner, range_input_producer, count_up_to), MonitoredSession's start_queue_runners,
boolean_mask's v1 where, ExponentialMovingAverage's Variable.initialized_value, and the MNIST
tutorial reader's functions, and the RNN cells' build (Layer.add_variable, their bias
initializers' dtype); each once, so the program's own later call says nothing."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.input_library_warning_cases import PROGRAMS, run_program

_DATA = os.path.join(
    os.path.dirname(__file__), "..", "tf_reference", "data", "input_library_warnings.json"
)
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_tfs_input_library_warnings(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
