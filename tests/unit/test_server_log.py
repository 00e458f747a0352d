"""A tf.train.Server logs what TF 1.15's logs on stderr when it is made and started (the
cluster it knows, one line per job, and its target), in the form of TF's C++ log, quiet under
TF_CPP_MIN_LOG_LEVEL; compared with TF 1.15's lines (tests/tf_reference/data/server_log.json)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tf_reference.server_log_cases import CASES, run_case

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "server_log.json"
_RECORDED: dict[str, Any] = json.loads(_DATA.read_text())["cases"]


def test_every_case_is_recorded() -> None:
    assert sorted(CASES) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_server_logs_what_tf_logs(name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    assert run_case(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
