"""A grpc session's errors name the task whose partition failed, as TF 1.15's master does
("From /job:ps/replica:0/task:0:" before the op's message), also when the failure reached the
session's own task through a step aborted there; an in-process session's do not
(tests/tf_reference/remote_error_cases.py, recorded by record_remote_errors.py)."""

from __future__ import annotations

import json
from pathlib import Path

import tfcluster as tf
from tf_reference.remote_error_cases import run_cases

_DATA = Path(__file__).resolve().parents[1] / "tf_reference/data/remote_errors.json"


def test_failed_runs_name_the_failing_task_as_tf_does() -> None:
    expected = json.loads(_DATA.read_text())["cases"]
    assert run_cases(tf) == expected
